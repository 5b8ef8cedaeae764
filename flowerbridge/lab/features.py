"""Features of a deal that several analyses share: honor count, suit lengths,
and what the 8 undealt cards hide (Chapters 6 and 10, RULINGS R6 and R20).

Also the exact odds of the mystery discard, worked out by counting, so that
the sampled frequencies can be shown beside the truth.
"""

from __future__ import annotations

from collections import Counter
from math import comb
from typing import Iterable

from ..cards import DECK, Card, Kind, Suit, hand_points
from ..dealing import UNDEALT_SIZE, Deal
from ..seats import SEATS, Seat, Side

SUITS = tuple(Suit)
SIDES = (Side.NS, Side.EW)


def honor_count(cards: Iterable[Card]) -> int:
    """Chapter 10's count: Bright 4, Animal 2, Ribbon 1, Plain 0, every copy."""
    return hand_points(cards)


RANK_POINTS = {9: 4, 8: 3, 7: 2, 6: 1}
"""The bots' count of a hand's high cards by rank: 4, 3, 2 and 1 for each suit's four
highest cards, every copy (``TOP_POINTS`` of :mod:`flowerbridge.bots.bidding`, written
here so that a run's rows do not hang on the bidding system's source)."""


def rank_points(cards: Iterable[Card]) -> int:
    """A holding's points by :data:`RANK_POINTS`, against Chapter 10's :func:`honor_count`."""
    return sum(RANK_POINTS.get(c.rank, 0) for c in cards)


def suit_lengths(cards: Iterable[Card]) -> tuple[int, int, int]:
    """Cards held in Plains, Ribbons and Bright Animals."""
    counts = Counter(c.suit for c in cards)
    return counts[Suit.PLAINS], counts[Suit.RIBBONS], counts[Suit.ANIMALS]


def undealt_features(undealt: Iterable[Card]) -> dict[str, int]:
    """What the mystery discard hides: honor count, brights, and cards whose
    both copies are undealt (so that nobody can ever win them)."""
    counts = Counter(undealt)
    pairs = [c for c, n in counts.items() if n == 2]
    return {
        "undealt_honors": honor_count(undealt),
        "undealt_brights": sum(n for c, n in counts.items() if c.kind is Kind.BRIGHT),
        "undealt_pairs": len(pairs),
        "undealt_bright_pairs": sum(1 for c in pairs if c.kind is Kind.BRIGHT),
        "undealt_honor_pairs": sum(1 for c in pairs if c.kind is not Kind.PLAIN),
    }


UNDEALT_COLUMNS = {name: int for name in undealt_features(())}

SEAT_COLUMNS = {f"hc_{seat.name}": int for seat in SEATS} | {
    f"len_{seat.name}_{suit.letter}": int for seat in SEATS for suit in SUITS}

SIDE_COLUMNS = {f"hc_{side.name}": int for side in SIDES} | {
    f"fit_{side.name}_{suit.letter}": int for side in SIDES for suit in SUITS}


def dealer_of(deal: int) -> Seat:
    """The dealer of deal ``deal`` in the lab's endless session: seat ``deal mod 4``, as
    the deal rotates (RULINGS R5)."""
    return Seat(deal % 4)


def deal_features(deal: Deal) -> dict[str, int]:
    """Honor count and suit lengths of every seat and side, and the undealt features."""
    row: dict[str, int] = {}
    for seat in SEATS:
        row[f"hc_{seat.name}"] = honor_count(deal.hands[seat])
        for suit, n in zip(SUITS, suit_lengths(deal.hands[seat])):
            row[f"len_{seat.name}_{suit.letter}"] = n
    row.update(side_features(row))
    row.update(undealt_features(deal.undealt))
    return row


def side_features(seat_row: dict[str, int]) -> dict[str, int]:
    """Each side's honor count and its combined length (fit) in each suit."""
    out = {}
    for side in SIDES:
        a, b = side.seats
        out[f"hc_{side.name}"] = seat_row[f"hc_{a.name}"] + seat_row[f"hc_{b.name}"]
        for suit in SUITS:
            out[f"fit_{side.name}_{suit.letter}"] = (seat_row[f"len_{a.name}_{suit.letter}"]
                                                     + seat_row[f"len_{b.name}_{suit.letter}"])
    return out


# ------------------------------------------------------------- exact odds


def _p_some_pair_undealt(pairs: int) -> float:
    """Chance that both copies of at least one of ``pairs`` given cards are undealt
    (inclusion–exclusion over the pairs)."""
    total = comb(len(DECK), UNDEALT_SIZE)
    return sum((-1) ** (k + 1) * comb(pairs, k) * comb(len(DECK) - 2 * k, UNDEALT_SIZE - 2 * k)
               for k in range(1, UNDEALT_SIZE // 2 + 1)) / total


def exact_hand_distributions() -> dict[str, list[float]]:
    """The chance of each honor count (0 to 80) and of each length of one suit (0 to
    13) in a hand of 13 of the 60 cards, by counting: ``honor_count`` and
    ``suit_length``, probabilities that add up to 1.

    >>> exact = exact_hand_distributions()
    >>> round(exact["suit_length"][4], 4), round(sum(h * p for h, p in enumerate(exact["honor_count"])), 2)
    (0.2564, 17.33)
    """
    hand = 13
    total = comb(len(DECK), hand)
    by_points = Counter(c.points for c in DECK)        # cards of each honor value
    counts = [0] * (honor_count(DECK) + 1)
    (p0, n0), *rest = sorted(by_points.items())
    ways: Counter = Counter({(0, 0): 1})                # (cards, points) -> ways, valued kinds taken
    for points, cards in rest:
        taken: Counter = Counter()
        for (k, h), w in ways.items():
            for j in range(min(cards, hand - k) + 1):
                taken[k + j, h + j * points] += w * comb(cards, j)
        ways = taken
    for (k, h), w in ways.items():
        counts[h + (hand - k) * p0] += w * comb(n0, hand - k)
    per_suit = Counter(c.suit for c in DECK)[Suit.PLAINS]
    return {"honor_count": [c / total for c in counts],
            "suit_length": [comb(per_suit, k) * comb(len(DECK) - per_suit, hand - k) / total
                            for k in range(hand + 1)]}


def exact_undealt_odds() -> dict[str, float]:
    """The mystery discard's odds by counting, for every deal of the 60 cards.

    >>> round(exact_undealt_odds()["some_bright"], 4)
    0.7902
    """
    brights = sum(1 for c in DECK if c.kind is Kind.BRIGHT)
    distinct = len(set(DECK))
    honors = len({c for c in DECK if c.kind is not Kind.PLAIN})
    return {
        "some_bright": 1 - comb(len(DECK) - brights, UNDEALT_SIZE) / comb(len(DECK), UNDEALT_SIZE),
        "some_pair": _p_some_pair_undealt(distinct),
        "some_bright_pair": _p_some_pair_undealt(brights // 2),
        "some_honor_pair": _p_some_pair_undealt(honors),
        "mean_honors": UNDEALT_SIZE * honor_count(DECK) / len(DECK),
        "mean_pairs": distinct * UNDEALT_SIZE * (UNDEALT_SIZE - 1) / (len(DECK) * (len(DECK) - 1)),
    }
