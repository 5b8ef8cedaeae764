"""Seats and partnerships (RULINGS R5): N, E, S, W clockwise; N–S against E–W."""

from __future__ import annotations

from enum import EnumType, IntEnum
from typing import TYPE_CHECKING, Any, Union

from .errors import FlowerBridgeError, shown


class _WholeNumbers(EnumType):
    """The type of :class:`Seat` and :class:`Side`: a member, a letter or a whole number
    only. An ``IntEnum`` looks a value up by ``==``, so ``Seat(1.0)`` and ``Seat(True)`` were
    East; they are refused as any other value is (``_missing_``'s error)."""

    def __call__(cls, value: Any, *args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs:
            kind = type(value)
            if kind is cls:                 # (the engine's own calls, first: as cheap as before)
                return value
            if kind is int:
                member = cls._value2member_map_.get(value)
                if member is not None:
                    return member
            elif not isinstance(value, str) and (kind is bool or not hasattr(kind, "__index__")):
                return cls._missing_(value)  # type: ignore[attr-defined]  # (it raises, naming the value)
        return super().__call__(value, *args, **kwargs)


class Side(IntEnum, metaclass=_WholeNumbers):
    """A partnership. ``Side.NS`` holds North and South."""

    NS = 0
    EW = 1

    if TYPE_CHECKING:   # what Side() takes (see _WholeNumbers), for the type checker alone
        def __new__(cls, value: "SideLike") -> "Side": ...

    @property
    def other(self) -> "Side":
        return Side(1 - self)

    @property
    def seats(self) -> tuple["Seat", "Seat"]:
        return (Seat(self), Seat(self + 2))

    @property
    def label(self) -> str:
        return ("NORTH-SOUTH", "EAST-WEST")[self]

    def __str__(self) -> str:
        return self.name

    @classmethod
    def _missing_(cls, value: object) -> "Side":
        # Side("NS"), as records and scores write a side; anything else is named
        if isinstance(value, str) and value.strip().upper() in ("NS", "EW"):
            return cls.NS if value.strip().upper() == "NS" else cls.EW
        raise FlowerBridgeError(f"unknown side {shown(value)}: expected NS or EW")


class Seat(IntEnum, metaclass=_WholeNumbers):
    """A seat at the table, clockwise from North.

    >>> Seat.S.lho, Seat.S.partner, Seat.S.rho
    (<Seat.W: 3>, <Seat.N: 0>, <Seat.E: 1>)
    """

    N = 0
    E = 1
    S = 2
    W = 3

    if TYPE_CHECKING:   # what Seat() takes (see _WholeNumbers), for the type checker alone
        def __new__(cls, value: "SeatLike") -> "Seat": ...

    @property
    def lho(self) -> "Seat":
        """The seat on this seat's left: the next to act."""
        return _SEATS[(self + 1) & 3]

    @property
    def partner(self) -> "Seat":
        return _SEATS[(self + 2) & 3]

    @property
    def rho(self) -> "Seat":
        return _SEATS[(self + 3) & 3]

    @property
    def side(self) -> Side:
        return Side(self & 1)

    @property
    def full_name(self) -> str:
        return ("North", "East", "South", "West")[self]

    def next(self, steps: int = 1) -> "Seat":
        return _SEATS[(self + steps) & 3]

    def __str__(self) -> str:
        return self.name

    @classmethod
    def parse(cls, text: str) -> "Seat":
        """Read ``N``/``north`` (any case) as a seat."""
        key = str(text).strip().upper()[:1]
        if key in _BY_LETTER and str(text).strip().lower() in (
                key.lower(), ("north", "east", "south", "west")[_BY_LETTER[key]]):
            return _SEATS[_BY_LETTER[key]]
        raise FlowerBridgeError(f"unknown seat {shown(text)}: expected N, E, S or W")

    @classmethod
    def _missing_(cls, value: object) -> "Seat":
        # Seat("N") and Seat("north"), as records write a seat, wherever the engine takes
        # one; anything else (Seat(7), Seat(None)) is named, not "is not a valid Seat"
        if isinstance(value, str):
            return cls.parse(value)
        raise FlowerBridgeError(f"unknown seat {shown(value)}: expected N, E, S or W")


_SEATS = (Seat.N, Seat.E, Seat.S, Seat.W)
_BY_LETTER = {"N": 0, "E": 1, "S": 2, "W": 3}
SEATS = _SEATS

SeatLike = Union[Seat, str, int]
"""What the engine takes for a seat: a :class:`Seat`, its letter (``"N"``; ``"north"``
too) or its number, 0 to 3."""

SideLike = Union[Side, str, int]
"""What the engine takes for a side: a :class:`Side`, ``"NS"`` or ``"EW"``, or 0 or 1."""
