"""The one error hierarchy of the project.

Every rule the engine enforces raises a subclass of :class:`FlowerBridgeError`,
which is a :class:`ValueError`. Messages name the rule broken, the offending
input and where it happened (``call 5 (E)``, ``play 14 (E)``), so that a
command-line tool can print ``error: <message>`` and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable


class FlowerBridgeError(ValueError):
    """Base class of every error raised for bad input or an illegal action.

    ``rule`` is the rulebook chapter or ruling that was broken (``"R11"``,
    ``"Ch. 7"``) when there is one; ``seat`` and ``position`` say where.
    """

    def __init__(self, message: str, *, rule: str | None = None, seat: object = None,
                 position: str | None = None) -> None:
        self.rule = rule
        self.seat = seat
        self.position = position
        self.detail = message
        prefix = position or ""
        if seat is not None:
            prefix = f"{prefix} ({seat})" if prefix else f"{seat}"
        full = f"{prefix}: {message}" if prefix else message
        if rule:
            full = f"{full} [{rule}]"
        super().__init__(full)


class CardCodeError(FlowerBridgeError):
    """A card code that names no Flower Bridge card."""


class CallSyntaxError(FlowerBridgeError):
    """A call that is neither ``Pass`` nor a bid such as ``3NT``."""


class DealError(FlowerBridgeError):
    """A deal that is not 4 × 13 cards plus 8 undealt from the 60-card deck."""


class IllegalCallError(FlowerBridgeError):
    """A call the auction does not allow: insufficient, or out of turn."""


class IllegalPlayError(FlowerBridgeError):
    """A card that may not be played: not held, a revoke, or out of turn."""


class PhaseError(FlowerBridgeError):
    """An action in the wrong phase: a call after the auction, a card before it."""


class OptionError(FlowerBridgeError):
    """A rule option with an unknown name or value."""


class RecordError(FlowerBridgeError):
    """A hand, session or text record that cannot be read."""


class BotError(FlowerBridgeError):
    """A bot that failed: it raised, or could not be loaded or built."""


def json_type(value: object) -> str:
    """What kind of JSON value ``value`` is, as an error message says it: ``an
    object``, ``an array``, ``a string``, ``a number``, ``a boolean``, ``null``."""
    return {dict: "an object", list: "an array", str: "a string", int: "a number",
            float: "a number", bool: "a boolean", type(None): "null"}.get(type(value), type(value).__name__)


def shown(value: object, limit: int = 40) -> str:
    """Any value given as an error message shows it: a text as :func:`quoted` does,
    another value's ``repr`` cut short past ``limit`` characters likewise."""
    if isinstance(value, str):
        return quoted(value, limit)
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit - 10]}... ({len(text):,} characters)"


def json_shown(value: object, limit: int = 40) -> str:
    """A JSON value as an error message shows what a file holds (``"os:abort"``, its
    invisible and control characters escaped), cut short past ``limit`` characters as
    :func:`quoted` cuts text (``"xxxx"... (100 characters)``)."""
    import json

    text = json.dumps(value)
    if len(text) <= limit:
        return text
    if isinstance(value, str):
        return f"{json.dumps(value[:limit - 10])}... ({len(value):,} characters)"
    return f"{text[:limit - 10]}... ({len(text):,} characters)"


def ascii_hint(text: str, written: Callable[[str], str | None], what: str) -> str:
    """For a code or call that holds a character outside ASCII, what to write: the
    ASCII form where Unicode's compatibility form of ``text`` is one (a full-width ``６A``
    is 6A; ``written`` gives it, or None), else the character at fault, named (a Cyrillic
    ``А`` looks like A); '' for ASCII text."""
    if text.isascii():
        return ""
    import unicodedata

    plain = unicodedata.normalize("NFKC", text)
    code = written(plain) if plain.isascii() else None
    if code is not None:
        return f"write it in ASCII letters and digits, {code}"
    odd = next(ch for ch in text if not ch.isascii())
    return (f"{odd!r} ({unicodedata.name(odd, f'U+{ord(odd):04X}')}) is not one of the ASCII letters and "
            f"digits {what} is written in")


def quoted(text: str, limit: int = 40) -> str:
    """``text`` as an error message quotes what was given (``repr``), cut short past
    ``limit`` characters with its length said: a line pasted by mistake is not echoed
    back whole."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit - 10]!r}... ({len(text):,} characters)"

