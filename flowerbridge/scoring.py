"""Scoring one hand (Chapters 11–15, RULINGS R13–R17).

Contract points go below the line to a declaring side that makes its
contract; overtricks, the undertrick penalty, honors and the Bright bonuses
go above it. Each part is an itemised :class:`ScoreItem`, so a scoresheet can
show where every point came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from .calls import Denomination
from .errors import FlowerBridgeError
from .cards import CARDS, Card, Kind, parse_card, parse_cards
from .contract import Contract, contract_level
from .options import RuleOptions, as_options
from .seats import Side, SideLike

if TYPE_CHECKING:  # pragma: no cover
    from .state import HandState

BRIGHTS: tuple[Card, ...] = tuple(c for c in CARDS if c.kind is Kind.BRIGHT)
"""The five Brights, January first."""
BRIGHTS = tuple(sorted(BRIGHTS, key=lambda c: c.month))


def contract_points(level: int, denomination: Denomination, options: RuleOptions | None = None) -> int:
    """Below-the-line value of a made contract (Chapter 11, R13).

    >>> contract_points(3, Denomination.NT), contract_points(4, Denomination.A)
    (100, 120)
    """
    level = contract_level(level)
    first, each = as_options(options).contract_points[Denomination(denomination)]
    return first + each * (level - 1)


def _copies(cards: Iterable[Card | str], what: str = "captured cards") -> list[int]:
    """How many copies of each card ``cards`` hold, by index; a card may be given by its
    code (``"11B"``), as the engine's actions and records take it. Not cards, or a card more often
    than the deck holds it, is the package's error naming ``what`` (it was Python's
    TypeError, or a side scored for three copies of a Bright)."""
    if isinstance(cards, str):
        cards = parse_cards(cards)      # ("11B 11B" too)
    try:
        given = iter(cards)
    except TypeError:
        raise FlowerBridgeError(f"{what} must be cards or card codes, not {cards!r}") from None
    counts = [0] * 30
    for c in given:
        if not isinstance(c, (Card, str)):
            raise FlowerBridgeError(f"{what}: {c!r} is not a card or a card code")
        counts[(c if isinstance(c, Card) else parse_card(c)).index] += 1
    _check_copies(counts, what)
    return counts


def _check_copies(counts: list[int], what: str) -> None:
    """The deck holds every card twice (Chapter 3)."""
    for card in CARDS:
        if counts[card.index] > 2:
            raise FlowerBridgeError(f"{what}: {card.code} {counts[card.index]} times, where the deck "
                                    "holds it twice [Ch. 3]")


_HONORS = tuple(c for c in CARDS if c.kind is not Kind.PLAIN)
_BRIGHT_INDEXES = tuple(b.index for b in BRIGHTS)


def _honor_points(counts: list[int], values: Sequence[tuple[int, int]]) -> int:
    total = 0
    for card in _HONORS:
        n = counts[card.index]
        if n:
            first, second = values[card.kind]
            total += first + (second if n >= 2 else 0)
    return total


def _bright_bonus(counts: list[int], options: RuleOptions) -> tuple[int, str]:
    least = min(counts[i] for i in _BRIGHT_INDEXES)
    if least >= 2:
        return options.ten_bright_bonus, "Ten Bright Bonus"
    if least == 1:
        return options.five_bright_bonus, "Five Bright Bonus"
    return 0, ""


def honor_points(captured: Iterable[Card | str], options: RuleOptions | None = None) -> int:
    """Honor bonus for a side's captured cards (Chapter 13, R16): for each
    distinct honor, its first-copy value, plus the second-copy value when the
    side holds both.

    >>> from flowerbridge.cards import parse_cards
    >>> honor_points(parse_cards("11B 11B")), honor_points(parse_cards("7A 7A 7R 7R"))
    (6, 5)
    """
    return _honor_points(_copies(captured), as_options(options).honor_values)


def bright_bonus(captured: Iterable[Card | str], options: RuleOptions | None = None) -> int:
    """Five Bright (+25) or Ten Bright (+75, replacing it) bonus (Chapters 14–15, R17).

    >>> from flowerbridge.cards import parse_cards
    >>> bright_bonus(parse_cards("1B 3B 8B 11B 12B")), bright_bonus(parse_cards("1B 1B 3B 8B 11B"))
    (25, 0)
    """
    return _bright_bonus(_copies(captured), as_options(options))[0]


@dataclass(frozen=True)
class ScoreItem:
    """One entry on the scoresheet: ``points`` to ``side``, above or below the line."""

    side: Side
    points: int
    below: bool
    label: str
    rule: str

    def to_dict(self) -> dict:
        return {"side": self.side.name, "points": self.points,
                "line": "below" if self.below else "above", "label": self.label, "rule": self.rule}


@dataclass(frozen=True)
class HandScore:
    """The score of one hand, itemised."""

    contract: Contract | None
    tricks: tuple[int, int]
    items: tuple[ScoreItem, ...]
    honor_copies: tuple[dict[str, int], dict[str, int]] = field(default=({}, {}))

    def _sum(self, side: SideLike, *, below: bool | None = None, rule: str | None = None) -> int:
        side = Side(side)  # 0 and 1 read as the sides; anything else is a ValueError, not a silent 0
        return sum(i.points for i in self.items if i.side is side
                   and (below is None or i.below is below) and (rule is None or i.rule == rule))

    def below(self, side: SideLike) -> int:
        return self._sum(side, below=True)

    def above(self, side: SideLike) -> int:
        return self._sum(side, below=False)

    def honors(self, side: SideLike) -> int:
        return self._sum(side, rule="R16")

    def bright_bonus(self, side: SideLike) -> int:
        return self._sum(side, rule="R17")

    @property
    def made(self) -> bool | None:
        if self.contract is None:
            return None
        return self.tricks[self.contract.side] >= self.contract.tricks_required

    @property
    def result(self) -> int | None:
        """Tricks over (+) or under (−) the contract."""
        if self.contract is None:
            return None
        return self.tricks[self.contract.side] - self.contract.tricks_required

    def total(self, side: SideLike) -> int:
        return self.above(side) + self.below(side)

    def to_dict(self) -> dict:
        """The object ``flowerbridge score`` prints (FORMATS.md), with a breakdown."""
        sides = (Side.NS, Side.EW)
        return {
            "contract": self.contract.code if self.contract else None,
            "declarer": self.contract.declarer.name if self.contract else None,
            "tricks": {s.name: self.tricks[s] for s in sides},
            "below": {s.name: self.below(s) for s in sides},
            "above": {s.name: self.above(s) for s in sides},
            "honors": {s.name: self.honors(s) for s in sides},
            "bright_bonus": {s.name: self.bright_bonus(s) for s in sides},
            "result": self.result,
            "breakdown": [i.to_dict() for i in self.items],
        }


def score_contract(contract: Contract | None, tricks: tuple[int, int],
                   captured: tuple[list[Card], list[Card]],
                   options: RuleOptions | None = None) -> HandScore:
    """Score a played hand from its contract, tricks per side and captured cards."""
    opts = as_options(options)
    if contract is None:
        return HandScore(None, (0, 0), ())
    if not isinstance(contract, Contract):
        raise FlowerBridgeError(f"contract must be a Contract (or None for a hand passed out), "
                                f"not {contract!r}")
    try:
        pair = tuple(tricks)    # (a tuple, a list, a NumPy array of two)
    except TypeError:
        pair = ()
    if (len(pair) != 2 or any(isinstance(t, bool) or not isinstance(t, Integral) or t < 0 for t in pair)
            or sum(pair) > 13):
        raise FlowerBridgeError(f"tricks must be two whole numbers (NS, EW) adding up to 13 at most, "
                                f"not {tricks!r}")
    tricks = (int(pair[0]), int(pair[1]))     # (NumPy's as Python's: the score is JSON)
    items: list[ScoreItem] = []
    side = contract.side
    taken = tricks[side]
    need = contract.tricks_required
    name = contract.bid.english
    if taken >= need:
        items.append(ScoreItem(side, contract_points(contract.level, contract.denomination, opts),
                               True, f"{name} made", "R13"))
        over = taken - need
        if over:
            each = opts.overtrick_points[contract.denomination]
            items.append(ScoreItem(side, over * each, False,
                                   f"{over} overtrick{'s' if over > 1 else ''} × {each}", "R14"))
    else:
        under = need - taken
        if opts.undertrick_penalty:
            items.append(ScoreItem(side.other, under * opts.undertrick_penalty, False,
                                   f"{name} down {under} × {opts.undertrick_penalty}", "R15"))
    try:    # (two lists, a tuple of two iterables, a NumPy array of two rows)
        given: list | None = None if isinstance(captured, (str, bytes, Mapping)) else list(captured)
    except TypeError:
        given = None
    if given is None or len(given) != 2:
        raise FlowerBridgeError(f"captured must be two lists of cards (NS's, EW's), not {captured!r}")
    sides = [_copies(given[s], f"{s.name}'s captured cards") for s in (Side.NS, Side.EW)]
    _check_copies([a + b for a, b in zip(*sides)], "captured cards of both sides")
    copies: list[dict[str, int]] = []
    for s in (Side.NS, Side.EW):
        counts = sides[s]
        copies.append({c.code: counts[c.index] for c in reversed(_HONORS) if counts[c.index]})
        points = _honor_points(counts, opts.honor_values)
        if points:
            items.append(ScoreItem(s, points, False, "honors", "R16"))
        bonus, label = _bright_bonus(counts, opts)
        if bonus:
            items.append(ScoreItem(s, bonus, False, label, "R17"))
    return HandScore(contract, tricks, tuple(items), (copies[0], copies[1]))


def score_hand(state: "HandState") -> HandScore:
    """Score a finished or passed-out hand."""
    from .errors import PhaseError
    from .state import Phase

    if state.phase is Phase.PASSED_OUT:
        return HandScore(None, (0, 0), ())
    if state.phase is not Phase.FINISHED:
        raise PhaseError(f"the hand is not finished: {len(state.plays)} of 52 cards played"
                         if state.phase is Phase.PLAY else "the hand is not finished: the auction is open",
                         rule="Ch. 11")
    return score_contract(state.contract, state.tricks_won,
                          (state.captured(Side.NS), state.captured(Side.EW)), state.options)
