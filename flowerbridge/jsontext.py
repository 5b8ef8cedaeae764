"""JSON read strictly, for the records and requests the package reads.

Python's reader takes what JSON is not (``NaN``, ``Infinity``), keeps the last of a name
given twice, and reads a lone surrogate (``"\\ud800"``, no Unicode character) that could
not be written back as UTF-8: :func:`strict_json_loads` refuses each, and
:func:`parse_json` says where, as a :class:`~flowerbridge.errors.RecordError`."""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any, Callable

from .errors import RecordError, quoted


class NotJSON(ValueError):
    """Text that Python's JSON reader would take but JSON is not (``NaN``,
    ``Infinity``), or JSON that cannot be kept exactly (:class:`Unkeepable`)."""


class Unkeepable(NotJSON):
    """JSON that is well formed but cannot be kept and written back as it was
    (a number beyond any float, a name given twice in one object, a lone surrogate)."""


class NameTwice(Unkeepable):
    """An object that gives a name twice (one of its values would be dropped unseen)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"the name {quoted(name)} appears twice in one object (which value is meant?)")
        self.name = name


def _refuse_constant(name: str) -> Any:
    raise NotJSON(f"{name} is not a JSON value")


def _finite_number(text: str) -> float:
    """A JSON number with a fraction or exponent, as a float; one beyond any float
    (``1e999``) is refused, since it would be kept as an infinity and written back as
    ``Infinity``, which is no JSON."""
    value = float(text)
    if math.isinf(value):
        shown = text if len(text) <= 24 else text[:20] + "..."
        raise Unkeepable(f"the number {shown} is too large to keep (it is beyond any floating-point number)")
    return value


def _one_value_per_name(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise NameTwice(name)
            seen.add(name)
    return obj


def strict_json_loads(text: str | bytes) -> Any:
    """``json.loads`` without Python's extensions: ``NaN`` and ``Infinity``
    are refused, as is a number too large for a float (``1e999``), and so is an
    object that gives a name twice (one of the two
    values would be dropped unseen), with :class:`NotJSON`."""
    return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_number,
                      object_pairs_hook=_one_value_per_name)


_NAME_IN_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _path(parent: str, step: str | int) -> str:
    if isinstance(step, int):
        return f"{parent}[{step}]"
    if _NAME_IN_PATH.fullmatch(step):
        return f"{parent}.{step}" if parent else step
    return f"{parent}[{quoted(step)}]"


# Where a lone surrogate may come from: one in the text, or a \u escape of one (a
# string that is neither needs no walk through the value: the walk is a record's
# largest cost where its unknown keys hold a million small values)
_SURROGATE_IN_TEXT = re.compile(r"[\ud800-\udfff]|\\u[dD][89abcdefABCDEF]")


def _lone_surrogate(value: Any, text: str | None = None) -> str | None:
    """Where in a JSON value a string holds a lone surrogate (``"\\ud800"`` read
    from JSON: half of a UTF-16 pair, no Unicode character, which no UTF-8 file
    can hold), said for a message; None when there is none, at once where the
    ``text`` it was read from shows none."""
    if text is not None and not _SURROGATE_IN_TEXT.search(text):
        return None
    # (a place is a chain of (parent, step), made a path only for the message)
    stack: list[tuple[Any, tuple | None]] = [(value, None)]
    while stack:
        value, place = stack.pop()
        if isinstance(value, str):
            found = _SURROGATE.search(value)
            if found:
                path = _place_path(place)
                where = f"the value of {path}" if path else "the value"
                return f"{where} holds a lone surrogate \\u{ord(found.group()):04x}"
        elif isinstance(value, dict):
            for key in value:
                found = _SURROGATE.search(key)
                if found:
                    path = _place_path(place)
                    where = f"a name in {path}" if path else "a name"
                    return f"{where}, {quoted(key)}, holds a lone surrogate \\u{ord(found.group()):04x}"
            stack.extend((item, (place, key)) for key, item in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((item, (place, i)) for i, item in reversed(list(enumerate(value))))
    return None


def _place_path(place: tuple | None) -> str:
    steps: list[str | int] = []
    while place is not None:
        place, step = place
        steps.append(step)
    path = ""
    for step in reversed(steps):
        path = _path(path, step)
    return path


# The first NaN or Infinity outside a string (the strings skipped whole)
_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|[^"NI-]+|-(?!Infinity)|(-?Infinity|NaN)|[NI]')


def _find_constant(text: str) -> re.Match | None:
    for found in _CONSTANT.finditer(text):
        if found.group(1):
            return found
    return None


# JSON's strings (whole), brackets, and numbers outside strings (an integer's digits apart
# from a fraction or exponent, which Python reads as a float, of any length)
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')
_COLON = re.compile(r"\s*:")


def _line_column(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    return f"line {line} column {pos - text.rfind(chr(10), 0, pos)}"


def _where_unkeepable(text: str, limit: int | None = None, name: str | None = None) -> str | None:
    """Where in ``text`` (well-formed JSON) an object first gives ``name`` a second time, or,
    with ``limit``, the first integer has more than ``limit`` digits: ``line L column C``,
    for the message that refuses it; None where there is none."""
    objects: list[set[str] | None] = []     # an object's names so far; None for an array
    for token in _TOKENS.finditer(text):
        part = token.group()
        if part in "{[":
            objects.append(set() if part == "{" else None)
        elif part in "}]":
            if objects:
                objects.pop()
        elif part[0] == '"':
            names = objects[-1] if objects else None
            if names is not None and _COLON.match(text, token.end()):
                key = json.loads(part)
                if key in names and key == name:
                    return _line_column(text, token.start())
                names.add(key)
        elif limit is not None and part.lstrip("-").isdigit() and len(part.lstrip("-")) > limit:
            return _line_column(text, token.start())
    return None


_SHORT_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def json_error_text(exc: json.JSONDecodeError) -> str:
    """The JSON reader's message, whole: a control character in a string is named
    (the reader's message ends "Invalid control character at"), and a string never
    closed is said in words (it ends "Unterminated string starting at": the place
    given is where the string starts)."""
    if exc.msg.startswith("Invalid control character") and exc.pos < len(exc.doc):
        code = ord(exc.doc[exc.pos])
        escape = _SHORT_ESCAPES.get(chr(code), f"\\u{code:04x}")
        return f"control character U+{code:04X} inside a string (write it as {escape})"
    if exc.msg.startswith("Unterminated string"):
        return "a string starts here and is never closed (a file cut short?)"
    return exc.msg


def parse_json(text: str | bytes, source: str | None = None, *,
               fallback: Callable[[str], Any] | None = None) -> Any:
    """The JSON value of ``text``, or a :class:`RecordError` that says where it
    is malformed (or that a number in it is too long to read); ``source`` names
    the file it came from, for that message.  Stricter than Python's reader:
    see :func:`strict_json_loads`; and a string that holds a lone surrogate
    (``"\\ud800"``, no Unicode character: the record could not be written as
    UTF-8) is refused, naming where it is, and so is JSON nested deeper than Python
    reads (about 1,000 levels in Python 3.11, 10,000 in 3.13).

    Where a value cannot be kept as written (such a number, a name given twice, a lone
    surrogate), ``fallback(text)``, when given, may read the text another way (None: it
    cannot); a hand record leaves out such a value of an unknown key
    (:func:`flowerbridge.records.parse_json`)."""
    named = f"{source}: " if source else ""     # the file first, as every other refusal of it
    if isinstance(text, (bytes, bytearray)):    # (the messages below read it as text)
        encoding = json.detect_encoding(text)   # as json.loads reads bytes: UTF-8, -16, -32, a BOM
        try:
            text = bytes(text).decode(encoding)
        except UnicodeDecodeError as exc:
            raise RecordError(f"{named}not JSON: byte {exc.start} is not {encoding.upper()} text") from None
    elif not isinstance(text, str):
        raise RecordError(f"{named}JSON is text, not {type(text).__name__}")
    try:
        data = strict_json_loads(text)
        where = _lone_surrogate(data, text)
        if where is not None:
            raise Unkeepable(f"{where} (half of a UTF-16 pair, not a Unicode character)")
        return data
    except json.JSONDecodeError as exc:
        raise RecordError(f"{named}malformed JSON at line {exc.lineno} column {exc.colno}: "
                          f"{json_error_text(exc)}") from None
    except Unkeepable as exc:   # well-formed JSON, but it would not be written back as read
        if fallback is not None and (kept := fallback(text)) is not None:
            return kept
        where = _where_unkeepable(text, name=exc.name) if isinstance(exc, NameTwice) else None
        at = f" at {where}" if where else ""
        raise RecordError(f"{named}JSON that cannot be kept as written{at}: {exc}") from None
    except NotJSON as exc:      # NaN or Infinity, found again for where it is
        found = _find_constant(text)
        if found is None:       # (not met: the reader refused one)
            raise RecordError(f"{named}malformed JSON: {exc}") from None
        line = text.count("\n", 0, found.start(1)) + 1
        column = found.start(1) - text.rfind("\n", 0, found.start(1))
        raise RecordError(f"{named}malformed JSON at line {line} column {column}: "
                          f"{found.group(1)} is not a JSON value") from None
    except RecursionError:      # the JSON reader's answer to arrays thousands deep
        # (how deep Python's reader goes depends on its version: about 1,000 levels in
        # 3.11, 10,000 in 3.13; the recursion limit, said here before, is not it)
        raise RecordError(f"{named}unreadable JSON: arrays or objects nested too deeply "
                          "(deeper than Python's JSON reader goes)") from None
    except ValueError:
        # Python refuses to convert an integer of more digits than its limit
        if fallback is not None and (kept := fallback(text)) is not None:
            return kept
        limit = sys.get_int_max_str_digits()
        where = _where_unkeepable(text, limit)
        at = f" at {where}" if where else ""
        raise RecordError(f"{named}unreadable JSON{at}: a number has more than {limit} digits") from None


class _Unkept:
    """Stands, in :func:`lenient_loads`'s value, for a value that cannot be kept as written."""

    __slots__ = ()


_UNKEPT = _Unkept()


def lenient_loads(text: str) -> Any:
    """``text`` read as :func:`strict_json_loads` reads it, but each value that cannot be
    kept as written (a number beyond any float or of more digits than Python converts, a
    string holding a lone surrogate, each value of a name given twice, the value of a name
    holding a lone surrogate) read as ``_UNKEPT``. NaN and Infinity, no JSON, still raise."""
    limit = sys.get_int_max_str_digits()

    def number(part: str) -> Any:
        value = float(part)
        return _UNKEPT if math.isinf(value) else value

    def integer(part: str) -> Any:
        return _UNKEPT if limit and len(part.lstrip("-")) > limit else int(part)   # (0: no limit)

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) < len(items):
            seen: set[str] = set()
            for name, _ in items:
                if name in seen:
                    obj[name] = _UNKEPT
                seen.add(name)
        for name in obj:
            if _SURROGATE.search(name):
                obj[name] = _UNKEPT
        return obj

    value = json.loads(text, parse_constant=_refuse_constant, parse_float=number, parse_int=integer,
                       object_pairs_hook=pairs)
    # strings holding a lone surrogate, replaced where they stand (no recursion: JSON may
    # be nested as deep as the reader took)
    if isinstance(value, str):
        return _UNKEPT if _SURROGATE.search(value) else value
    stack: list[Any] = [value] if isinstance(value, (dict, list)) else []
    while stack:
        node = stack.pop()
        for place, item in (node.items() if isinstance(node, dict) else enumerate(node)):
            if isinstance(item, str) and _SURROGATE.search(item):
                node[place] = _UNKEPT
            elif isinstance(item, (dict, list)):
                stack.append(item)
    return value


def holds_unkept(value: Any) -> bool:
    """Whether ``value`` (as :func:`lenient_loads` read it) holds a value that cannot be kept."""
    stack = [value]
    while stack:
        node = stack.pop()
        if node is _UNKEPT:
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
