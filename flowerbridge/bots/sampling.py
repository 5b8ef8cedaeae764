"""Deal the cards a seat cannot see into worlds consistent with what it has seen.

A world gives every hidden hand its remaining cards and the 8 undealt cards
their place. It respects, as hard constraints, the seat's own hand, the
faced dummy, every card played, the hand sizes and the voids players have
shown (:class:`~flowerbridge.bots.knowledge.Knowledge`), and every deal of
the unseen cards that does is equally likely, as the shuffle made them: the
copies of a card are two cards, so a world where they are split is twice as
likely as one where they are together. How many cards of each suit each
bounded place gets is drawn first, weighted by the number of deals that give
it, then which cards; the rest are shuffled and cut (:class:`UniformDealer`).

What the auction showed under the bidding system (:func:`~flowerbridge.bots.bidding.shown_by_seat`:
points counted by rank and suit lengths of each hidden player's 13 cards) is
kept too: its suit lengths are bounds of the deal, like the voids (less what
the player has played of each suit), and the rest is checked by rejection:
each hidden player's hand (what it holds and what it has played) must have
the points its calls showed and must make those very calls when the system
bids it again (:func:`~flowerbridge.bots.bidding.makes_calls`: which is
what a call shows beyond points and lengths, such as "longest suit", "not
balanced" or the weak two a Pass denies). When ``tries`` deals in a row
miss, the last deal drawn is used. A player whose calls contradict each other, or whose play contradicts
its calls, is not held to them, a player who made a call off the system is
not bid again, and where the lengths of several players
together leave no deal, only the voids bound it — so a player who strayed
from the system cannot stall the sampler.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate, product
from math import comb, prod

from ..cards import CARDS, Card, Suit
from ..dealing import HAND_SIZE, UNDEALT_SIZE
from ..seats import Seat
from ..calls import Call
from .bidding import Context, HandFacts, Meaning, makes_calls, read_auction
from .knowledge import Knowledge

UNDEALT = "undealt"

_MOST = 60
_ANY = ((0, _MOST),) * 3
"""No bound on the cards of a suit a place gets."""


@dataclass(frozen=True)
class World:
    """A guess at the hidden cards: each hidden seat's remaining cards and the undealt ones.

    ``consistent`` says whether the auction's constraints hold too.
    """

    hands: dict[Seat, tuple[Card, ...]]
    undealt: tuple[Card, ...]
    consistent: bool


class Sampler:
    """Draws :class:`World` objects for one decision, from one seat's knowledge."""

    def __init__(self, knowledge: Knowledge, *, use_auction: bool = True) -> None:
        k = knowledge
        self.knowledge = k
        self.hidden = k.hidden_seats()
        played: dict[Seat, list[Card]] = {s: [] for s in Seat}
        for seat, card in k.obs.plays:
            played[seat].append(card)
        self.played = played
        self.cards = [CARDS[i] for i, n in enumerate(k.unseen) for _ in range(n)]
        self.capacity = {s: HAND_SIZE - len(played[s]) for s in self.hidden}
        self.capacity[UNDEALT] = UNDEALT_SIZE  # type: ignore[index]
        assert len(self.cards) == sum(self.capacity.values()), "unseen cards must fill the hidden hands"
        shown, replay = read_auction(k.obs.auction) if use_auction else ({}, {})
        self.shown: dict[Seat, Meaning] = {s: shown[s] for s in self.hidden
                                           if s in shown and shown[s].possible}
        voids = {h: k.voids[h] for h in self.hidden}
        lengths = {}
        for seat, meaning in list(self.shown.items()):
            bounds = _remaining_lengths(meaning, self.played[seat], self.capacity[seat], k.voids[seat])
            if bounds is None:     # the cards it played contradict its calls: not held to them
                del self.shown[seat]
            else:
                lengths[seat] = bounds
        self.replay: dict[Seat, list[tuple[Context, Call]]] = {s: replay[s] for s in self.shown if s in replay}
        self._replayed: dict[tuple[Seat, HandFacts], bool] = {}
        self.dealer = UniformDealer(self.capacity, self.cards, voids, lengths)
        if lengths and not self.dealer.ways():   # calls of several players that no deal keeps
            self.dealer = UniformDealer(self.capacity, self.cards, voids)
            # nor is any player held to its calls' points: every deal would miss them,
            # 200 draws thrown away for each world
            self.shown, self.replay = {}, {}

    def deal_once(self, rng: random.Random) -> dict | None:
        """One deal respecting hand sizes and voids, every such deal equally likely;
        ``None`` if there is none (what the seat saw contradicts itself)."""
        return self.dealer.deal(rng)

    def fits_auction(self, deal: dict) -> bool:
        """Whether every hidden player held to its calls has the points and
        lengths they showed and would make them again (:func:`makes_calls`)."""
        for seat, meaning in self.shown.items():   # the first seat that misses ends it
            facts = HandFacts.of(deal[seat] + self.played[seat])
            if not meaning.fits(facts) or (seat in self.replay and not self._makes_calls(seat, facts)):
                return False
        return True

    def _makes_calls(self, seat: Seat, facts: HandFacts) -> bool:
        key = (seat, facts)   # the system sees points and lengths only: many deals share them
        if key not in self._replayed:
            self._replayed[key] = makes_calls(facts, self.replay[seat])
        return self._replayed[key]

    def sample(self, rng: random.Random, tries: int = 200) -> World:
        """A world; consistent with the auction when ``tries`` deals allow."""
        deal = self._deal(rng)
        for _ in range(tries - 1):
            if self.fits_auction(deal):
                return self._world(deal, True)
            deal = self._deal(rng)
        return self._world(deal, self.fits_auction(deal))

    def _deal(self, rng: random.Random) -> dict:
        deal = self.deal_once(rng)
        if deal is None:    # no deal at all: what the seat saw contradicts itself
            raise ValueError("no deal of the unseen cards fits what this seat has seen")
        return deal

    def _world(self, deal: dict, consistent: bool) -> World:
        return World({s: tuple(deal[s]) for s in self.hidden}, tuple(deal[UNDEALT]), consistent)


def _remaining_lengths(meaning: Meaning, played: list[Card], left: int = HAND_SIZE,
                       voids: Iterable[Suit] = ()) -> tuple[tuple[int, int], ...] | None:
    """The bounds ``meaning`` puts on the cards of each suit a player still holds,
    having played ``played`` and holding ``left`` cards, void in ``voids``;
    ``None`` if its play already breaks them: more of a suit played than it
    showed, a suit it showed cards of left void, or more cards owed than held."""
    bounds = []
    for suit in Suit:
        gone = sum(c.suit is suit for c in played)
        low, high = max(0, meaning.min_length[suit] - gone), meaning.max_length[suit] - gone
        if high < 0 or (low > 0 and suit in voids):
            return None
        bounds.append((low, high))
    if sum(low for low, _ in bounds) > left:
        return None
    return tuple(bounds)


class UniformDealer:
    """Deals ``cards`` to places of given sizes, every deal that keeps the
    places' bounds equally likely (the two copies of a card are two cards).
    A place void in a suit gets none of it; ``lengths`` may bound how many
    cards of each suit a place gets (``(low, high)`` per :class:`Suit`).

    The places with a bound come first: how many cards of each suit each of
    them gets is drawn, weighted by the number of deals that give it
    (counted exactly, place by place), then which cards of each suit, by a
    shuffle. The cards left are shuffled and cut among the places without a
    bound — all of them, when no place has one."""

    def __init__(self, capacity: dict, cards: list[Card], voids: dict,
                 lengths: dict | None = None) -> None:
        self.capacity = dict(capacity)
        self.cards = list(cards)
        if len(self.cards) != sum(self.capacity.values()):
            raise ValueError(f"{len(self.cards)} cards for places of {sum(self.capacity.values())}")
        self.by_suit = [[c for c in self.cards if c.suit is suit] for suit in Suit]
        lengths = lengths or {}
        bounds = {h: tuple((0, 0) if suit in voids.get(h, ()) else lengths.get(h, _ANY)[suit]
                           for suit in Suit) for h in self.capacity}
        # a bound a place of its size cannot reach is no bound
        self.bounded = [h for h in self.capacity
                        if any(low > 0 or high < self.capacity[h] for low, high in bounds[h])]
        self.free = [h for h in self.capacity if h not in self.bounded]
        # bounds[i][j]: the fewest and most cards of suit j bounded place i may get
        self.bounds = [bounds[h] for h in self.bounded]
        self._choices: dict[tuple[int, tuple[int, ...]], tuple[list, list[int]]] = {}

    def ways(self) -> int:
        """How many deals there are (copies counted as two cards)."""
        return self._ways(0, tuple(len(cards) for cards in self.by_suit))

    def deal(self, rng: random.Random) -> dict | None:
        """One deal (a list of cards per place), or ``None`` if there is none."""
        out: dict = {h: [] for h in self.capacity}
        remaining = tuple(len(cards) for cards in self.by_suit)
        if not self._ways(0, remaining):
            return None
        counts = []
        for i in range(len(self.bounded)):
            options, cumulative = self._options(i, remaining)
            x = options[bisect_right(cumulative, rng.randrange(cumulative[-1]))]
            counts.append(x)
            remaining = tuple(r - a for r, a in zip(remaining, x))
        left: list[Card] = [] if self.bounded else list(self.cards)
        if self.bounded:
            for j, cards in enumerate(self.by_suit):
                cards = list(cards)
                rng.shuffle(cards)
                at = 0
                for h, x in zip(self.bounded, counts):
                    out[h] += cards[at:at + x[j]]
                    at += x[j]
                left += cards[at:]
        rng.shuffle(left)
        at = 0
        for h in self.free:
            out[h] = left[at:at + self.capacity[h]]
            at += self.capacity[h]
        return out

    def _splits(self, i: int, remaining: tuple[int, ...]) -> list[tuple[int, ...]]:
        """How bounded place ``i`` may take its cards by suit from ``remaining``."""
        room = self.capacity[self.bounded[i]]
        *firsts, (last_low, last_high) = self.bounds[i]
        out = []
        # every suit but the last in its bounds; the last takes the room left
        for x in product(*(range(lo, min(hi, r) + 1) for (lo, hi), r in zip(firsts, remaining))):
            a = room - sum(x)
            if last_low <= a <= min(last_high, remaining[-1]):
                out.append((*x, a))
        return out

    def _options(self, i: int, remaining: tuple[int, ...]) -> tuple[list, list[int]]:
        """Bounded place ``i``'s possible splits and their cumulative numbers of deals."""
        key = (i, remaining)
        if key not in self._choices:
            options, weights = [], []
            for x in self._splits(i, remaining):
                rest = tuple(r - a for r, a in zip(remaining, x))
                w = prod(comb(r, a) for r, a in zip(remaining, x)) * self._ways(i + 1, rest)
                if w:
                    options.append(x)
                    weights.append(w)
            self._choices[key] = (options, list(accumulate(weights)))
        return self._choices[key]

    def _ways(self, i: int, remaining: tuple[int, ...]) -> int:
        """The number of deals of the ``remaining`` cards (by suit) to the bounded
        places ``i`` on and the places without a bound."""
        if i == len(self.bounded):
            # the places without a bound take what is left, any way: a multinomial
            n = sum(remaining)
            ways = 1
            for h in self.free:
                ways *= comb(n, self.capacity[h])
                n -= self.capacity[h]
            return ways if n == 0 else 0
        cumulative = self._options(i, remaining)[1]
        return cumulative[-1] if cumulative else 0
