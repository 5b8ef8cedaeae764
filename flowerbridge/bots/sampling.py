"""Deal the cards a seat cannot see into worlds consistent with what it has seen.

A world gives every hidden hand its remaining cards and the 8 undealt cards
their place. It respects, as hard constraints, the seat's own hand, the
faced dummy, every card played, the hand sizes and the voids players have
shown (:class:`~flowerbridge.bots.knowledge.Knowledge`). What the auction
showed under the bidding system (:func:`~flowerbridge.bots.bidding.shown_by_seat`:
points counted by rank and suit lengths of each hidden player's 13 cards) is checked
by rejection; when ``tries`` deals in a row miss it, the last deal that
respects the hard constraints is used, and a player whose calls contradict
each other is not held to them, so a player who strayed from the system
cannot stall the sampler.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..cards import CARDS, Card
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
        # The most constrained cards are dealt first: those few hands may hold.
        holders = {c.index: [h for h in self.capacity if h == UNDEALT or c.suit not in k.voids[h]]
                   for c in self.cards}
        self.holders = holders
        self.order = sorted(self.cards, key=lambda c: (len(holders[c.index]), c.index))

    def deal_once(self, rng: random.Random) -> dict | None:
        """One deal respecting hand sizes and voids, or ``None`` at a dead end."""
        room = dict(self.capacity)
        out: dict = {h: [] for h in room}
        for card in self.order:
            choices = [h for h in self.holders[card.index] if room[h] > 0]
            if not choices:
                return None
            # Weighted by free room, so every consistent deal is about equally likely.
            pick = rng.randrange(sum(room[h] for h in choices))
            for h in choices:
                pick -= room[h]
                if pick < 0:
                    break
            out[h].append(card)
            room[h] -= 1
        return out

    def fits_auction(self, deal: dict) -> bool:
        return all(meaning.fits(HandFacts.of(deal[s] + self.played[s]))
                   for s, meaning in self.shown.items())

    def sample(self, rng: random.Random, tries: int = 200) -> World:
        """A world; consistent with the auction when ``tries`` deals allow."""
        last = None
        for _ in range(tries):
            deal = self.deal_once(rng)
            if deal is None:
                continue
            last = deal
            if self.fits_auction(deal):
                return self._world(deal, True)
        while last is None:
            last = self.deal_once(rng)
        return self._world(last, False)

    def _world(self, deal: dict, consistent: bool) -> World:
        return World({s: tuple(deal[s]) for s in self.hidden}, tuple(deal[UNDEALT]), consistent)
