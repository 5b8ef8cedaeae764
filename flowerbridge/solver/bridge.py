"""Contract Bridge deals for the generic solver (PBN in, DD tables out).

Suits are indexed clubs=0, diamonds=1, hearts=2, spades=3 and ranks 2=0 ..
A=12, so a card index is ``suit * 13 + rank``.
"""

from __future__ import annotations

import operator
from typing import Generator

from ..errors import FlowerBridgeError
from .core import BRIDGE, DEFAULT_MEMORY_MB, DoubleDummy, iter_dd_tables

RANKS = "23456789TJQKA"
SUIT_LETTERS = "CDHS"
DENOMINATIONS = ("C", "D", "H", "S", "NT")
SEAT_LETTERS = "NESW"


class PBNError(FlowerBridgeError):
    """A deal that is not valid PBN (like every error of the package, a
    :class:`FlowerBridgeError`, and so a ``ValueError``)."""


def parse_pbn(text: str) -> list[list[int]]:
    """Four hands (N, E, S, W) of card indices from a PBN deal such as
    ``N:AKQ2.JT9.876.543 T987.AKQ.5432.K2 J6.8765.AKQJ.A76 543.432.T9.QJT98``
    (first hand's seat, then the hands clockwise, suits S.H.D.C)."""
    if not isinstance(text, str):
        raise PBNError(f"a PBN deal is a string, not {type(text).__name__}")
    text = text.strip()
    # ASCII letters only: str.upper() makes "S" of the long s "ſ"
    if len(text) < 2 or text[1] != ":" or text[0] not in SEAT_LETTERS + SEAT_LETTERS.lower():
        raise PBNError("a PBN deal starts with the first hand's seat and a colon, e.g. 'N:'")
    first = SEAT_LETTERS.index(text[0].upper())
    parts = text[2:].split()
    if len(parts) != 4:
        raise PBNError(f"a PBN deal has 4 hands, not {len(parts)}")
    hands: list[list[int]] = [[], [], [], []]
    seen: set[int] = set()
    for i, part in enumerate(parts):
        seat = (first + i) % 4
        suits = part.split(".")
        if len(suits) != 4:
            raise PBNError(f"hand {SEAT_LETTERS[seat]}: 4 suits separated by dots, not {part!r}")
        for j, holding in enumerate(suits):
            suit = 3 - j
            for ch in holding.upper():
                if ch == "1" or ch not in RANKS:
                    raise PBNError(f"hand {SEAT_LETTERS[seat]}: unknown rank {ch!r}")
                card = suit * 13 + RANKS.index(ch)
                if card in seen:
                    raise PBNError(f"card {SUIT_LETTERS[suit]}{ch} is dealt twice")
                seen.add(card)
                hands[seat].append(card)
    sizes = {len(h) for h in hands}
    if len(sizes) != 1 or not 1 <= sizes.pop() <= 13:
        raise PBNError("every hand must have the same number of cards (1 to 13)")
    return hands


def to_pbn(hands) -> str:
    """The PBN text of four hands (N first) of card indices (``suit * 13 + rank``, 0 to 51),
    each card once, as many in each hand; a PBNError names anything else (it was left out
    of the text, or written twice)."""
    try:
        hands = [list(hand) for hand in hands]
    except TypeError:   # (None, 5, a hand of 5: a TypeError from list())
        raise PBNError("a PBN deal is 4 hands, each an iterable of card indices 0 to 51") from None
    if len(hands) != 4:
        raise PBNError(f"a PBN deal has 4 hands, not {len(hands)}")
    # (hands of unequal sizes were written, and parse_pbn refused the text)
    if len({len(hand) for hand in hands}) != 1 or not 1 <= len(hands[0]) <= 13:
        raise PBNError(f"every hand must have the same number of cards (1 to 13), not "
                       f"{', '.join(str(len(hand)) for hand in hands)}")
    seen: set[int] = set()
    indices: list[list[int]] = []
    for seat, hand in zip(SEAT_LETTERS, hands):
        indices.append([])
        for card in hand:
            try:        # (NumPy's integers too)
                index = -1 if isinstance(card, bool) else operator.index(card)
            except TypeError:
                index = -1
            if not 0 <= index < 52:
                raise PBNError(f"hand {seat}: {card!r} is no card (a card is a whole number from 0 to 51)")
            if index in seen:
                raise PBNError(f"card {SUIT_LETTERS[index // 13]}{RANKS[index % 13]} is dealt twice")
            seen.add(index)
            indices[-1].append(index)
    out = []
    for hand in indices:
        suits = []
        for suit in (3, 2, 1, 0):
            ranks = sorted((c % 13 for c in hand if c // 13 == suit), reverse=True)
            suits.append("".join(RANKS[r] for r in ranks))
        out.append(".".join(suits))
    return "N:" + " ".join(out)


def table_dict(table) -> dict[str, dict[str, int]]:
    """``{"C": {"N": 5, ...}, ..., "NT": {...}}`` from ``[denomination][declarer]``."""
    return {DENOMINATIONS[d]: {SEAT_LETTERS[s]: table[d][s] for s in range(4)} for d in range(5)}


def dd_table(pbn: str, solver: DoubleDummy | None = None) -> dict[str, dict[str, int]]:
    """Double-dummy table of a PBN deal: declarer's side's tricks; ``solver``, where given,
    a Bridge one (``DoubleDummy(BRIDGE)``: a solver of another geometry read the cards as
    its own, and its table was wrong)."""
    if solver is None:
        solver = DoubleDummy(BRIDGE, DEFAULT_MEMORY_MB)
    elif not isinstance(solver, DoubleDummy) or solver.geometry != BRIDGE:
        name = type(solver).__name__
        what = f"a DoubleDummy of {solver.geometry}" if isinstance(solver, DoubleDummy) \
            else f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"
        raise PBNError(f"solver must be a Bridge DoubleDummy (DoubleDummy(BRIDGE)), not {what}")
    return table_dict(solver.dd_table(parse_pbn(pbn)))


def dd_table_many(pbns, *, workers: int = 2, memory_mb: float = DEFAULT_MEMORY_MB):
    """:func:`dd_table` of many PBN deals, on ``workers`` threads."""
    return list(iter_dd_table_many(pbns, workers=workers, memory_mb=memory_mb))


def iter_dd_table_many(pbns, *, workers: int = 2,
                       memory_mb: float = DEFAULT_MEMORY_MB) -> Generator[dict[str, dict[str, int]], None, None]:
    """:func:`dd_table_many` one table at a time, in the deals' order, each as
    soon as it and those before it are solved (the deals are parsed at once)."""
    if isinstance(pbns, str):
        raise PBNError("dd_table_many solves many PBN deals (a list of them): dd_table solves one")
    hands = [parse_pbn(p) for p in pbns]
    tables = iter_dd_tables(hands, BRIDGE, workers=workers, memory_mb=memory_mb)
    return (table_dict(t) for t in tables)
