"""The deal (Chapter 6, RULINGS R6): 13 cards to each seat, 8 undealt.

Seeded deals are reproducible on every machine and Python version: the shuffle
is a Fisher–Yates driven by SHA-256 in counter mode, not by :mod:`random`,
whose algorithms Python does not promise to keep.
"""

from __future__ import annotations

import hashlib
import operator
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping

from .cards import CARDS, DECK, Card, parse_card, sort_cards
from .errors import CardCodeError, DealError, json_type
from .seats import SEATS, Seat, SeatLike

HAND_SIZE = 13
UNDEALT_SIZE = 8


def _seed_part(value: object, what: str, text: type | None) -> int | str:
    """``value`` as a part of a deal's seed: a whole number as Python's ``int`` (what
    its ``repr`` is hashed from), or a string where ``text`` allows one."""
    if text is not None and isinstance(value, text):
        return str(value)
    if not isinstance(value, bool):
        try:
            return operator.index(value)    # type: ignore[arg-type]
        except TypeError:
            pass
    expected = "a whole number or a string" if text is not None else "a whole number"
    raise DealError(f"{what} must be {expected}, not {value!r}")


def seed_value(seed: object) -> int | str:
    """A deal's seed as :meth:`Deal.from_seed` reads it: a whole number (NumPy's as
    Python's ``int``) or a string; anything else is a :class:`DealError` naming it."""
    return _seed_part(seed, "seed", str)


# The largest whole number every JSON reader keeps exact (a double's 53 bits): jq and
# JavaScript read 12345678901234567890 as 12345678901234567000.
JSON_EXACT = 2 ** 53


def json_seed(seed: int | str) -> int | str:
    """A seed as a JSON file holds it for any reader: a whole number as a JSON number while
    every reader keeps it exact, else as its digits (which ``--seed`` reads as that number,
    so they deal the same boards)."""
    return str(seed) if isinstance(seed, int) and abs(seed) >= JSON_EXACT else seed


class SeededStream:
    """A reproducible stream of random integers from a seed (any int or str)."""

    def __init__(self, seed: int | str, *salt: object) -> None:
        self._key = hashlib.sha256(repr((seed, *salt)).encode()).digest()
        self._counter = 0
        self._words: list[int] = []

    def _word(self) -> int:
        if not self._words:
            block = hashlib.sha256(self._key + self._counter.to_bytes(8, "little")).digest()
            self._counter += 1
            self._words = [int.from_bytes(block[i:i + 8], "little") for i in range(0, 32, 8)]
        return self._words.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``, by rejection (no modulo bias)."""
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            w = self._word()
            if w < limit:
                return w % n

    def shuffle(self, items: list) -> list:
        """Shuffle in place. Up to 60 items, one 512-bit number read in mixed
        radix picks the permutation (bias below 2**-240); longer lists draw
        one number per swap."""
        if len(items) > 60:
            for i in range(len(items) - 1, 0, -1):
                j = self.below(i + 1)
                items[i], items[j] = items[j], items[i]
            return items
        x = 0
        for _ in range(8):
            x = (x << 64) | self._word()
        for i in range(len(items) - 1, 0, -1):
            x, j = divmod(x, i + 1)
            items[i], items[j] = items[j], items[i]
        return items


@dataclass(frozen=True)
class Deal:
    """Four hands of 13 cards and the 8 undealt cards.

    >>> d = Deal.from_seed(1)
    >>> [len(h) for h in d.hands], len(d.undealt)
    ([13, 13, 13, 13], 8)
    """

    hands: tuple[tuple[Card, ...], ...]
    undealt: tuple[Card, ...]

    def __post_init__(self) -> None:
        # Kept as tuples of cards of its own, highest first, whatever the caller gave
        # (lists it may change later, card codes): the deal is fixed (Chapter 6)
        hands = _cards(self.hands, "hands")
        if len(hands) != 4:
            raise DealError(f"a deal has 4 hands, not {len(hands)}")
        hands = tuple(_hand(hand, f"hands.{seat}") for seat, hand in zip(SEATS, hands))
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "undealt", _hand(self.undealt, "undealt"))
        for seat, hand in zip(SEATS, self.hands):
            if len(hand) != HAND_SIZE:
                raise DealError(f"hand {seat} has {len(hand)} cards, must have {HAND_SIZE}", rule="Ch. 6")
        counts = Counter(c.index for hand in self.hands for c in hand)
        for index, n in sorted(counts.items()):
            if n > 2:
                raise DealError(f"card {CARDS[index].code} is dealt {n} times; the deck holds it twice",
                                rule="Ch. 3")
        expected = _undealt_of(counts)
        if len(self.undealt) != UNDEALT_SIZE or Counter(c.index for c in self.undealt) != Counter(
                c.index for c in expected):
            raise DealError("undealt must be exactly the 8 cards not in any hand: "
                            + " ".join(c.code for c in sort_cards(expected)), rule="Ch. 6")

    def hand(self, seat: SeatLike) -> tuple[Card, ...]:
        """``seat``'s thirteen cards, highest first (a letter or number does as a seat)."""
        return self.hands[Seat(seat)]

    @classmethod
    def from_seed(cls, seed: int | str, board: int = 0) -> "Deal":
        """The deal for ``seed`` (and board number), the same everywhere.

        A seed is a whole number (NumPy's too, read as the same number) or a string;
        anything else is a :class:`DealError` (it was dealt from its ``repr``, so
        ``numpy.int64(7)`` dealt other cards than ``7``, and an object a new deal a run).
        Boards count from 0 here: the lab deals boards 0, 1, 2, …, and the command
        line's board K (``deal --board K``, ``play``, ``demo``, which count from 1)
        is ``from_seed(seed, K)``; a board below 0 is a :class:`DealError`."""
        number = _seed_part(board, "board", None)
        if isinstance(number, int) and number < 0:   # (a negative board was dealt, where the command line refuses it)
            raise DealError(f"board must be 0 or more, not {board!r}")
        deck = SeededStream("flowerbridge-deal", seed_value(seed), number).shuffle(list(DECK))
        return cls._trusted(tuple(tuple(sort_cards(deck[i * 13:(i + 1) * 13])) for i in range(4)),
                            tuple(sort_cards(deck[52:])))

    @classmethod
    def _trusted(cls, hands: tuple[tuple[Card, ...], ...], undealt: tuple[Card, ...]) -> "Deal":
        # A shuffle of the deck is valid by construction: skip the checks.
        deal = object.__new__(cls)
        object.__setattr__(deal, "hands", hands)
        object.__setattr__(deal, "undealt", undealt)
        return deal

    @classmethod
    def from_hands(cls, hands: Mapping, undealt: Iterable | None = None) -> "Deal":
        """A deal from ``{"N": [codes], ...}`` (keys ``N``, ``E``, ``S``, ``W`` or
        :class:`Seat`); the undealt cards are worked out when not given, and checked
        when given."""
        if not isinstance(hands, Mapping):
            raise DealError(f"hands: a mapping of seats to cards, not {json_type(hands)}")
        by_seat: dict[Seat, object] = {}
        for key in hands:
            # (another key was dropped unread, "north" and "n" taken for a missing seat)
            seat = key if isinstance(key, Seat) else Seat[key] if key in ("N", "E", "S", "W") else None
            if seat is None:
                raise DealError(f"hands: unknown seat {key!r}: the keys are N, E, S and W")
            if seat in by_seat:
                raise DealError(f"hands: seat {seat} given twice")
            by_seat[seat] = hands[key]
        parsed = []
        for seat in SEATS:
            if seat not in by_seat:
                raise DealError(f"hands: missing seat {seat}")
            parsed.append(_hand(by_seat[seat], f"hands.{seat}"))
        counts = Counter(c.index for hand in parsed for c in hand)
        if undealt is None:
            for seat, hand in zip(SEATS, parsed):
                if len(hand) != HAND_SIZE:
                    raise DealError(f"hand {seat} has {len(hand)} cards, must have {HAND_SIZE}",
                                    rule="Ch. 6")
            for index, n in sorted(counts.items()):
                if n > 2:
                    raise DealError(f"card {CARDS[index].code} is dealt {n} times; the deck holds it twice",
                                    rule="Ch. 3")
            rest = _undealt_of(counts)
        else:
            rest = list(_hand(undealt, "undealt"))
        return cls(tuple(parsed), tuple(sort_cards(rest)))

    def to_dict(self) -> dict:
        return {"hands": {s.name: [c.code for c in self.hands[s]] for s in SEATS},
                "undealt": [c.code for c in self.undealt]}


def _cards(items: object, where: str) -> tuple:
    """``items`` as a tuple (a string's words), or a :class:`DealError` naming ``where``."""
    if isinstance(items, str):
        return tuple(items.split())
    if isinstance(items, (bytes, Mapping)) or not isinstance(items, Iterable):
        raise DealError(f"{where}: a list of cards, not {json_type(items)}")
    return tuple(items)


def _hand(items: object, where: str) -> tuple[Card, ...]:
    """The cards ``items`` (cards or card codes), highest first."""
    try:
        return tuple(sort_cards(parse_card(c) for c in _cards(items, where)))
    except CardCodeError as exc:
        raise CardCodeError(f"{where}: {exc.detail}") from None


def _undealt_of(counts: Counter) -> list[Card]:
    return [c for c in CARDS for _ in range(max(0, 2 - counts.get(c.index, 0)))]
