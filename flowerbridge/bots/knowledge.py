"""What a seat can work out about the unseen cards from its observation.

Every card exists twice. A copy the seat has not seen — not in its hand,
not in the dummy, not played — may be with either opponent, with partner,
or among the 8 undealt cards that nobody sees until the hand is over
(Chapter 6). :class:`Knowledge` counts those copies and the voids: the
suits missing from a hand it sees (its own, the faced dummy) and those
players have shown by failing to follow suit; :mod:`~flowerbridge.bots.basic`
plays from it and :mod:`~flowerbridge.bots.sampling` deals worlds from it.
"""

from __future__ import annotations

from functools import cached_property
from typing import Iterator, Mapping

from ..cards import CARDS, Card, Suit
from ..observation import Observation
from ..seats import Seat
from ..state import beats


class Knowledge:
    """The deciding seat's picture of the play, from its :class:`Observation` only."""

    def __init__(self, obs: Observation, faced: Mapping[Seat, tuple[Card, ...]] | None = None) -> None:
        """``faced``: hands this seat sees besides its own and the dummy (a claimer's,
        faced with its claim: :mod:`flowerbridge.claims`), their remaining cards."""
        self.obs = obs
        self._faced = dict(faced or {})
        self.contract = obs.contract
        self.trump: Suit | None = obs.contract.trump if obs.contract else None
        # The hand whose card is to be chosen: the seat's own, or the dummy for declarer.
        self.hand_seat: Seat = obs.playing_for if obs.playing_for is not None else obs.seat
        self.dummy_seat = obs.dummy_seat if obs.dummy is not None else None

    # ------------------------------------------------------------- holdings

    @cached_property
    def visible(self) -> dict[Seat, tuple[Card, ...]]:
        """Remaining cards of the hands this seat sees: its own, the faced dummy, and
        any hand faced besides (``faced``)."""
        out = {self.obs.seat: self.obs.hand}
        if self.dummy_seat is not None and self.obs.dummy is not None:
            out[self.dummy_seat] = self.obs.dummy
        return {**out, **self._faced}

    @property
    def hand(self) -> tuple[Card, ...]:
        """The cards of the hand to play from."""
        return self.visible[self.hand_seat]

    @cached_property
    def unseen(self) -> list[int]:
        """Copies of each card (by index) this seat has not seen anywhere."""
        counts = [2] * len(CARDS)
        for cards in self.visible.values():
            for c in cards:
                counts[c.index] -= 1
        for _, c in self.obs.plays:
            counts[c.index] -= 1
        return counts

    @cached_property
    def voids(self) -> dict[Seat, set[Suit]]:
        """Suits each seat is known to hold none of: for a hand this seat sees
        (its own, the faced dummy), every suit missing from it; for a hidden
        one, the suits it has shown out of by not following suit (R11)."""
        out: dict[Seat, set[Suit]] = {s: set() for s in Seat}
        for seat, cards in self.visible.items():
            out[seat] = set(Suit) - {c.suit for c in cards}
        tricks = [plays for _, plays, _ in self.obs.tricks]
        if self.obs.current_trick:
            tricks.append(self.obs.current_trick)
        for plays in tricks:
            led = plays[0][1].suit
            for seat, card in plays[1:]:
                if card.suit is not led:
                    out[seat].add(led)
        return out

    def hidden_seats(self) -> list[Seat]:
        """Seats whose remaining cards this seat cannot see."""
        return [s for s in Seat if s not in self.visible]

    # ------------------------------------------------------------- threats

    def is_opponent(self, seat: Seat) -> bool:
        """Whether ``seat`` defends against the hand to play (or declares against it)."""
        return seat.side is not self.hand_seat.side

    def may_hold(self, seat: Seat, card: Card) -> bool:
        """Whether ``seat`` might still hold a copy of ``card``."""
        if seat in self.visible:
            return card in self.visible[seat]
        return self.unseen[card.index] > 0 and card.suit not in self.voids[seat]

    def threats(self, seat: Seat, winning: Card, led: Suit) -> Iterator[Card]:
        """The cards ``seat``, still to play to this trick, may hold that beat
        ``winning``: of a faced hand, its cards of the suit led (any card when it
        holds none); of a hidden hand, those of the suit led unless it has shown
        out of it (then any, trumps included)."""
        if seat in self.visible:
            held = self.visible[seat]
            follow = [c for c in held if c.suit is led]
            return (c for c in (follow or held) if beats(c, winning, self.trump))
        # A hidden hand that has not shown out of the suit led is taken to
        # follow it: only a higher card of that suit is a threat. One that has
        # shown out may trump (any trump it may hold is a threat).
        pool = CARDS if led in self.voids[seat] else [c for c in CARDS if c.suit is led]
        return (c for c in pool if self.may_hold(seat, c) and beats(c, winning, self.trump))

    def may_beat(self, seat: Seat, winning: Card, led: Suit) -> bool:
        """Whether ``seat``, still to play to this trick, might beat ``winning``."""
        return next(self.threats(seat, winning, led), None) is not None

    def safe(self, winning: Card, still_to_play: list[Seat], led: Suit) -> bool:
        """Whether ``winning`` is sure to win the trick against the opponents still
        to play, taking a hand that has not shown out of the suit led to follow it."""
        return not any(self.is_opponent(s) and self.may_beat(s, winning, led) for s in still_to_play)

    @staticmethod
    def _higher(card: Card) -> list[Card]:
        """The cards of ``card``'s suit that outrank it."""
        return [CARDS[card.suit * 10 + r] for r in range(card.rank + 1, 10)]

    def is_boss(self, card: Card) -> bool:
        """Whether ``card`` would win if led now: no opponent can hold a higher card
        of its suit (an identical copy played later does not outrank it, R12)."""
        higher = self._higher(card)
        return not any(self.is_opponent(s) and self.may_hold(s, h)
                       for s in Seat if s is not self.hand_seat
                       for h in higher)

    def higher_copies_out(self, card: Card) -> int:
        """Copies of higher cards of ``card``'s suit that may be with the
        opponents: those in a faced opponent's hand, and every unseen copy of
        one a hidden opponent may hold (0 exactly when :meth:`is_boss`)."""
        above = 0
        for higher in self._higher(card):
            for s in Seat:
                if self.is_opponent(s) and s in self.visible:
                    above += self.visible[s].count(higher)
            if any(self.is_opponent(s) and s not in self.visible and self.may_hold(s, higher) for s in Seat):
                above += self.unseen[higher.index]
        return above

    def opponents_may_ruff(self, suit: Suit) -> bool:
        """Whether an opponent might trump a lead of ``suit``."""
        if self.trump is None or suit is self.trump:
            return False
        return any(self.is_opponent(s) and suit in self.voids[s]
                   and any(self.may_hold(s, c) for c in CARDS if c.suit is self.trump)
                   for s in Seat)

    def opponents_may_hold_trumps(self) -> bool:
        """Whether an opponent might still hold a trump (never, at No Trump)."""
        if self.trump is None:
            return False
        return any(self.is_opponent(s) and self.may_hold(s, c)
                   for s in Seat for c in CARDS if c.suit is self.trump)
