"""Denominations, bids and Pass (Chapter 7, RULINGS R7).

There is no Double or Redouble. Calls are singletons: ``parse_call("3nt") is BID[3][NT]``.
"""

from __future__ import annotations

import re
from typing import Callable, NoReturn
from enum import IntEnum

from .cards import Suit
from .errors import CallSyntaxError, FlowerBridgeError, ascii_hint, json_type, quoted


class Denomination(IntEnum):
    """Plain < Ribbon < Bright Animal < No Trump (Chapter 4)."""

    P = 0
    R = 1
    A = 2
    NT = 3

    @property
    def trump(self) -> Suit | None:
        """The trump suit, or ``None`` at No Trump."""
        return None if self is Denomination.NT else Suit(self)

    @property
    def english(self) -> str:
        return ("Plain", "Ribbon", "Bright Animal", "No Trump")[self]

    @property
    def plural(self) -> str:
        return ("Plains", "Ribbons", "Bright Animals", "No Trump")[self]

    def __str__(self) -> str:
        return self.name

    @classmethod
    def parse(cls, text: str) -> "Denomination":
        key = str(text).strip().upper()
        if key in _DENOM_WORDS:
            return cls[_DENOM_WORDS[key]]
        raise CallSyntaxError(f"unknown denomination {text!r}: expected P, R, A or NT")

    @classmethod
    def _missing_(cls, value: object) -> "Denomination":
        # Denomination("NT"), as records write one; anything else is named
        if isinstance(value, str):
            return cls.parse(value)
        raise CallSyntaxError(f"unknown denomination {value!r}: expected P, R, A or NT")


_DENOM_WORDS = {"P": "P", "R": "R", "A": "A", "NT": "NT", "N": "NT",
                "PLAIN": "P", "PLAINS": "P", "RIBBON": "R", "RIBBONS": "R",
                "ANIMAL": "A", "ANIMALS": "A", "BRIGHT ANIMAL": "A", "BRIGHT ANIMALS": "A",
                "NO TRUMP": "NT", "NOTRUMP": "NT"}


class Call:
    """A call: ``PASS`` or a bid of a level (1–7) and a denomination.

    Bids compare by rank: a higher level, or the same level and a higher
    denomination (Chapter 7).

    >>> parse_call("2A") > parse_call("2R")
    True

    There are 29 calls, each one object: ``Call(level, denomination)`` gives the
    bid's (``Call(0, None)`` is ``PASS``), and refuses a level outside 1–7 or a
    denomination that is none (:class:`CallSyntaxError`), so a call made by hand
    is the same, and as legal, as the one read from text.

    >>> Call(3, Denomination.NT) is parse_call("3NT")
    True
    """

    __slots__ = ("level", "denomination", "order", "text")

    level: int
    denomination: Denomination | None
    order: int
    text: str

    def __new__(cls, level: int, denomination: Denomination | None) -> "Call":
        if denomination is None and level == 0 and not isinstance(level, bool):
            return PASS
        if denomination is None:
            raise CallSyntaxError(f"a pass is Call(0, None), not Call({level!r}, None)")
        if not isinstance(denomination, Denomination):
            raise CallSyntaxError(f"a bid's denomination is a Denomination (P, R, A or NT), "
                                  f"not {denomination!r}")
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 7:
            raise CallSyntaxError(f"a bid's level is 1 to 7, not {level!r} [Ch. 7]")
        return BID[level][denomination]

    @classmethod
    def _made(cls, level: int, denomination: Denomination | None) -> "Call":
        """The one object of a call (for the module's tables below)."""
        self = object.__new__(cls)
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "denomination", denomination)
        if denomination is None:
            object.__setattr__(self, "order", -1)
            object.__setattr__(self, "text", "Pass")
        else:
            object.__setattr__(self, "order", (level - 1) * 4 + denomination)
            object.__setattr__(self, "text", f"{level}{denomination.name}")
        return self

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("Call is immutable")

    def __reduce__(self) -> tuple[Callable[[str], "Call"], tuple[str]]:
        return (parse_call, (self.text,))

    @property
    def is_pass(self) -> bool:
        return self.denomination is None

    @property
    def is_bid(self) -> bool:
        return self.denomination is not None

    @property
    def strain(self) -> Denomination:
        """A bid's denomination; a pass has none (``ValueError``)."""
        if self.denomination is None:
            raise ValueError("a pass has no denomination")
        return self.denomination

    @property
    def tricks_required(self) -> int:
        """Tricks the bid promises: level + 6 (Chapter 7)."""
        return self.level + 6

    # (another type is Python's TypeError, as for cards: ``PASS < 1`` was an AttributeError)
    def __lt__(self, other: object) -> bool:
        return self.order < other.order if isinstance(other, Call) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self.order > other.order if isinstance(other, Call) else NotImplemented

    def __le__(self, other: object) -> bool:
        return self.order <= other.order if isinstance(other, Call) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self.order >= other.order if isinstance(other, Call) else NotImplemented

    def __repr__(self) -> str:
        return f"Call({self.text!r})"

    def __str__(self) -> str:
        return self.text

    @property
    def english(self) -> str:
        if self.is_pass:
            return "Pass"
        assert self.denomination is not None
        name = self.denomination.english if self.level == 1 or self.denomination is Denomination.NT \
            else self.denomination.plural
        return f"{self.level} {name}"


PASS = Call._made(0, None)
"""The call Pass."""

BIDS: tuple[Call, ...] = tuple(Call._made(level, d) for level in range(1, 8) for d in Denomination)
"""All 28 bids, lowest first; ``BIDS[i].order == i``."""

BID = {level: {d: BIDS[(level - 1) * 4 + d] for d in Denomination} for level in range(1, 8)}
"""``BID[level][denomination]``."""

_CALL_RE = re.compile(r"([1-7])(NT|P|R|A)", re.IGNORECASE)


def parse_call(text: "str | Call") -> Call:
    """Read ``Pass`` or a bid such as ``3NT`` (case-insensitive, FORMATS.md;
    nothing else: no spaces, no ``3N``)."""
    if isinstance(text, Call):
        return text
    if isinstance(text, str):
        if text.lower() == "pass":
            return PASS
        m = _CALL_RE.fullmatch(text)
        if m:
            return BID[int(m.group(1))][Denomination.parse(m.group(2))]
        hint = _call_hint(text)
        if hint:
            raise CallSyntaxError(f"unknown call {quoted(text)}: {hint}")
        raise CallSyntaxError(f"unknown call {quoted(text)}: expected Pass or a bid such as 1P, 3A, 7NT")
    raise CallSyntaxError(f"a call is a string such as \"1P\" or \"Pass\", not {json_type(text)}")


# how Bridge players write Double and Redouble, which Flower Bridge has not
_DOUBLES = {"x", "xx", "d", "dbl", "dble", "double", "rdbl", "redbl", "redble", "redouble", "r/d", "rd"}
_BID_SHAPE = re.compile(r"([0-9]+)([A-Za-z]*)")


def _call_hint(text: str) -> str:
    """What a call that is none comes nearest to, for its error; or ''."""
    compact = "".join(text.split()).lower().replace("-", "")
    if compact in _DOUBLES:
        return ("Flower Bridge has no Double or Redouble (the rulebook has none): "
                "the calls are Pass and the bids, such as 1P, 3A, 7NT")
    if compact == "p":
        return "write Pass"
    if compact != text.lower() and (compact == "pass" or _CALL_RE.fullmatch(compact)):
        written = parse_call(compact).text     # ("1-nt" had no space to take out)
        return f"write it without spaces, {written}" if "-" not in text else f"write it as {written}"
    # (a full-width １ＮＴ, or a Cyrillic Р, said only "unknown call"; the character at
    # fault named as typed, not lowered)
    odd = ascii_hint("".join(text.split()), lambda plain: parse_call(plain).text
                     if plain.lower() == "pass" or _CALL_RE.fullmatch(plain) else None, "a call")
    if odd:
        return odd
    from .cards import parse_card
    try:
        card = parse_card(text)
    except FlowerBridgeError:
        pass
    else:
        return f"{card.code} is a card: the auction takes Pass or a bid such as 1P, 3A, 7NT"
    shape = _BID_SHAPE.fullmatch(compact)
    if shape is None:
        return ""
    digits, denomination = shape.group(1), shape.group(2).upper()
    level = int(digits) if len(digits) <= 9 else 0    # (more digits than Python converts: out of range)
    if denomination == "N" and 1 <= level <= 7:
        return f"write {level}NT"
    if not 1 <= level <= 7:
        return "a bid is a level, 1 to 7, then P, R, A or NT (1P, 3A, 7NT)"
    if denomination in ("S", "H", "D", "C"):
        return "the denominations are P (Plains), R (Ribbons), A (Bright Animals) and NT"
    return ""
