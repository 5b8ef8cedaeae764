"""The contract: the final bid and its declarer (Chapter 7, RULINGS R8–R9)."""

from __future__ import annotations

from typing import NamedTuple

from .calls import BID, Call, Denomination
from .cards import Suit
from .seats import Seat, Side


class Contract(NamedTuple):
    """A contract such as ``4A by S``.

    >>> c = Contract(4, Denomination.A, Seat.S)
    >>> str(c), c.tricks_required, c.dummy, c.opening_leader
    ('4A by S', 10, <Seat.N: 0>, <Seat.W: 3>)
    """

    level: int
    denomination: Denomination
    declarer: Seat

    @property
    def bid(self) -> Call:
        return BID[self.level][self.denomination]

    @property
    def trump(self) -> Suit | None:
        return self.denomination.trump

    @property
    def tricks_required(self) -> int:
        return self.level + 6

    @property
    def dummy(self) -> Seat:
        return self.declarer.partner

    @property
    def opening_leader(self) -> Seat:
        """Declarer's left-hand opponent leads (Chapter 8, R10)."""
        return self.declarer.lho

    @property
    def side(self) -> Side:
        return self.declarer.side

    @property
    def code(self) -> str:
        """The bid as in ``flowerbridge score``: ``4A``."""
        return self.bid.text

    def __str__(self) -> str:
        return f"{self.bid.text} by {self.declarer.name}"
