"""Deal the cards a seat cannot see into worlds consistent with what it has seen.

A world gives every hidden hand its remaining cards and the 8 undealt cards
their place. It respects, as hard constraints, the seat's own hand, the
faced dummy, every card played, the hand sizes and the voids players have
shown (:class:`~flowerbridge.bots.knowledge.Knowledge`), and every deal of
the unseen cards that does is equally likely, as the shuffle made them: the
copies of a card are two cards, so a world where they are split is twice as
likely as one where they are together. Without a void the unseen cards are
shuffled and cut; with voids, how many cards of each suit each place gets is
drawn first, weighted by the number of deals that give it, then which cards.
What the auction
showed under the bidding system (:func:`~flowerbridge.bots.bidding.shown_by_seat`:
points counted by rank and suit lengths of each hidden player's 13 cards) is checked
by rejection; when ``tries`` deals in a row miss it, the last deal that
respects the hard constraints is used, and a player whose calls contradict
each other is not held to them, so a player who strayed from the system
cannot stall the sampler.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from math import comb, prod

from ..cards import CARDS, Card, Suit
from ..dealing import HAND_SIZE, UNDEALT_SIZE
from ..seats import Seat
from .bidding import HandFacts, Meaning, shown_by_seat
from .knowledge import Knowledge

UNDEALT = "undealt"


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
        shown = shown_by_seat(k.obs.auction) if use_auction else {}
        self.shown: dict[Seat, Meaning] = {s: shown[s] for s in self.hidden
                                           if s in shown and shown[s].possible}
        self.dealer = UniformDealer(self.capacity, self.cards, {h: k.voids[h] for h in self.hidden})

    def deal_once(self, rng: random.Random) -> dict | None:
        """One deal respecting hand sizes and voids, every such deal equally likely;
        ``None`` if there is none (what the seat saw contradicts itself)."""
        return self.dealer.deal(rng)

    def fits_auction(self, deal: dict) -> bool:
        return all(meaning.fits(HandFacts.of(deal[s] + self.played[s]))
                   for s, meaning in self.shown.items())

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


class UniformDealer:
    """Deals ``cards`` to places of given sizes, none of a suit to a place void
    in it, every such deal equally likely (the two copies of a card are two
    cards). Without a void the cards are shuffled and cut; with voids, the
    number of cards of each suit each place gets is drawn first, weighted by
    the number of deals that give it (counted exactly, place by place), then
    which cards of each suit, by a shuffle."""

    def __init__(self, capacity: dict, cards: list[Card], voids: dict) -> None:
        self.capacity = dict(capacity)
        self.cards = list(cards)
        if len(self.cards) != sum(self.capacity.values()):
            raise ValueError(f"{len(self.cards)} cards for places of {sum(self.capacity.values())}")
        self.places = list(self.capacity)
        self.suits = list(Suit)
        self.by_suit = [[c for c in self.cards if c.suit is suit] for suit in self.suits]
        # allowed[i][j]: place i may hold cards of suit j
        self.allowed = [[suit not in voids.get(h, ()) for suit in self.suits] for h in self.places]
        self.any_void = not all(all(row) for row in self.allowed)
        self._choices: dict[tuple[int, tuple[int, ...]], tuple[list, list[int]]] = {}

    def ways(self) -> int:
        """How many deals there are (copies counted as two cards)."""
        return self._ways(0, tuple(len(cards) for cards in self.by_suit))

    def deal(self, rng: random.Random) -> dict | None:
        """One deal (a list of cards per place), or ``None`` if there is none."""
        out: dict = {h: [] for h in self.places}
        if not self.any_void:
            cards = list(self.cards)
            rng.shuffle(cards)
            at = 0
            for h in self.places:
                out[h] = cards[at:at + self.capacity[h]]
                at += self.capacity[h]
            return out
        remaining = tuple(len(cards) for cards in self.by_suit)
        if not self._ways(0, remaining):
            return None
        counts = []
        for i in range(len(self.places)):
            options, cumulative = self._options(i, remaining)
            x = options[bisect_right(cumulative, rng.randrange(cumulative[-1]))]
            counts.append(x)
            remaining = tuple(r - a for r, a in zip(remaining, x))
        for j, cards in enumerate(self.by_suit):
            cards = list(cards)
            rng.shuffle(cards)
            at = 0
            for h, x in zip(self.places, counts):
                out[h] += cards[at:at + x[j]]
                at += x[j]
        return out

    def _splits(self, i: int, remaining: tuple[int, ...]) -> list[tuple[int, ...]]:
        """How place ``i`` may take its cards by suit from ``remaining`` (the last
        place takes all that is left)."""
        room, allowed = self.capacity[self.places[i]], self.allowed[i]
        if i == len(self.places) - 1:
            fits = sum(remaining) == room and all(a or not r for a, r in zip(allowed, remaining))
            return [remaining] if fits else []
        out: list[tuple[int, ...]] = []

        def fill(j: int, left: int, x: list[int]) -> None:
            if j == len(remaining):
                if not left:
                    out.append(tuple(x))
                return
            top = min(left, remaining[j]) if allowed[j] else 0
            for a in range(top + 1):
                fill(j + 1, left - a, x + [a])
        fill(0, room, [])
        return out

    def _options(self, i: int, remaining: tuple[int, ...]) -> tuple[list, list[int]]:
        """Place ``i``'s possible splits and their cumulative numbers of deals."""
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
        """The number of deals of the ``remaining`` cards (by suit) to places ``i`` on."""
        if i == len(self.places):
            return 1 if not any(remaining) else 0
        cumulative = self._options(i, remaining)[1]
        return cumulative[-1] if cumulative else 0
