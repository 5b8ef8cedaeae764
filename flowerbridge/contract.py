"""The contract: the final bid and its declarer (Chapter 7, RULINGS R8–R9)."""

from __future__ import annotations

from typing import NamedTuple

from .calls import BID, Call, Denomination
from .cards import Suit
from .errors import FlowerBridgeError
from .seats import Seat, Side


class _Fields(NamedTuple):
    level: int
    denomination: Denomination
    declarer: Seat


class Contract(_Fields):
    """A contract such as ``4A by S``: a level from 1 to 7, a denomination (or its
    letters, ``"A"``) and a declarer (or its letter, ``"S"``), checked when made.

    >>> c = Contract(4, Denomination.A, Seat.S)
    >>> str(c), c.tricks_required, c.dummy, c.opening_leader
    ('4A by S', 10, <Seat.N: 0>, <Seat.W: 3>)
    >>> Contract(4, "A", "S") == c
    True
    """

    __slots__ = ()

    def __new__(cls, level: int, denomination: Denomination | str, declarer: Seat | str) -> "Contract":
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 7:
            raise FlowerBridgeError(f"a contract's level is from 1 to 7, not {level!r}")
        return super().__new__(cls, level, Denomination(denomination),  # type: ignore[arg-type]
                               Seat(declarer))  # type: ignore[arg-type]

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
