"""The contract: the final bid and its declarer (Chapter 7, RULINGS R8–R9)."""

from __future__ import annotations

from numbers import Integral
from typing import Any, NamedTuple

from .calls import BID, Call, Denomination
from .cards import Suit
from .errors import FlowerBridgeError, shown
from .seats import Seat, Side


def contract_level(level: Any) -> int:
    """``level`` as a contract's level, 1 to 7 (NumPy's whole numbers too, as Python's);
    anything else is a :class:`FlowerBridgeError` naming it."""
    if not isinstance(level, bool) and isinstance(level, Integral) and 1 <= int(level) <= 7:
        return int(level)
    raise FlowerBridgeError(f"a contract's level is from 1 to 7, not {shown(level)}")


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
        return super().__new__(cls, contract_level(level), Denomination(denomination),  # type: ignore[arg-type]
                               Seat(declarer))

    @classmethod
    def _make(cls, iterable: Any) -> "Contract":  # type: ignore[override]  # (_replace too): checked
        return cls(*iterable)

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
