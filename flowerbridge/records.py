"""The JSON hand record (FORMATS.md), read by replaying it through the engine.

Functions mirror :mod:`json`: :func:`loads` / :func:`load` give a
:class:`HandRecord`, :func:`dumps` / :func:`dump` write one. Reading a record
makes every call and card through :class:`~flowerbridge.state.HandState`, so a
record the rules reject can never be read, and the first illegal action is
reported with its position and seat (``play 14 (E): must follow Ribbons …``).
Keys the format does not know are kept and written back unchanged, at the top
level and inside ``hands`` (a key there that names no seat); FORMATS.md: never
an error.

>>> from flowerbridge import Deal, HandState, Seat
>>> text = dumps(HandRecord(HandState(Deal.from_seed(2), Seat.E)))
>>> loads(text).state.dealer
<Seat.E: 1>
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from typing import IO, Any, Mapping

from .dealing import Deal
from .errors import DealError, FlowerBridgeError, RecordError, json_type, quoted
from .options import RuleOptions
from .seats import SEATS, Seat
from .state import CallMade, HandState

KNOWN_KEYS = ("dealer", "hands", "undealt", "auction", "play", "options")


@dataclass
class HandRecord:
    """A hand (its :class:`HandState`, replayed) and the record's other keys."""

    state: HandState
    extra: dict[str, Any] = field(default_factory=dict)
    #: keys of ``hands`` that name no seat, with their values, as read
    hands_extra: dict[str, Any] = field(default_factory=dict)
    #: keys of ``options`` that :class:`RuleOptions` does not know, with their values, as read
    options_extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for key in self.extra:
            if key in KNOWN_KEYS:   # it would be written over the field of that name
                raise RecordError(f"extra key {quoted(key)} is the name of one of the record's own fields "
                                  f"({', '.join(KNOWN_KEYS)})")
        for key in self.options_extra:
            if key in RuleOptions.field_names():    # (it would write options other than the state's)
                raise RecordError(f"extra option {quoted(key)} is one of the rule options the state holds")

    @classmethod
    def from_dict(cls, data: Any, *, options: RuleOptions | None = None) -> "HandRecord":
        """Replay a record given as a dict. ``options`` overrides the record's."""
        state = replay(data, options=options)
        return cls(state, {k: v for k, v in data.items() if k not in KNOWN_KEYS},
                   {k: v for k, v in data["hands"].items() if _seat_key(k) is None},
                   unknown_options(data.get("options")))

    def to_dict(self) -> dict[str, Any]:
        out = to_dict(self.state)
        out["hands"].update(self.hands_extra)
        out["options"].update(self.options_extra)
        return {**out, **self.extra}


def unknown_options(options: Any) -> dict[str, Any]:
    """The keys of a record's ``options`` that :class:`RuleOptions` does not know, with
    their values: kept, as every unknown key of a record is (FORMATS.md)."""
    if not isinstance(options, Mapping):
        return {}
    known = RuleOptions.field_names()
    return {k: v for k, v in options.items() if k not in known}


def _seat_key(key: Any) -> Seat | None:
    """The seat a key of ``hands`` names, or None: only ``N``, ``E``, ``S`` and ``W`` do
    (FORMATS.md); any other key, ``north`` or ``n`` included, is an unknown key."""
    return Seat[key] if key in ("N", "E", "S", "W") else None


def _require_object(data: Any) -> Mapping:
    if not isinstance(data, Mapping):
        raise RecordError(f"a hand record is a JSON object, not {json_type(data)}")
    return data


def _string_list(data: Mapping, key: str) -> list[str]:
    """The array of strings under ``key`` (empty when the key is absent or null)."""
    value = _array(data, key)
    if not all(isinstance(v, str) for v in value):
        raise RecordError(f"{key} must be an array of strings")
    return value


def replay(data: Any, *, options: RuleOptions | None = None) -> HandState:
    """The :class:`HandState` a record describes, every action checked by the rules.

    An optional key (``undealt``, ``auction``, ``play``, ``options``) whose value is
    ``null`` is read as absent, as JSON writers often give an absent field; a required
    key (``dealer``, ``hands``) that is ``null`` is an error naming it."""
    data = _require_object(data)
    if "dealer" not in data:
        raise RecordError("missing key 'dealer'")
    dealer = seat_field(data["dealer"], "dealer")
    if "hands" not in data:
        raise RecordError("missing key 'hands'")
    hands = data["hands"]
    if not isinstance(hands, Mapping):
        raise RecordError(f"hands must be an object with keys N, E, S, W (each seat's array of "
                          f"card codes), not {json_type(hands)}")
    normal: dict[str, list[str]] = {}
    for key, cards in hands.items():
        seat = _seat_key(key)
        if seat is None:
            continue    # not a seat: kept by HandRecord, never an error (FORMATS.md)
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise RecordError(f"hands.{seat}: must be an array of card codes")
        normal[seat.name] = cards
    _check_seats(hands, normal)
    # undealt is optional (null is absent), but when given it is the 8 cards
    undealt = _string_list(data, "undealt") if data.get("undealt") is not None else None
    deal = Deal.from_hands(normal, undealt)
    if options is None:
        options = RuleOptions.from_dict(data.get("options"))
    state = HandState(deal, dealer, options)
    # a hand just dealt may leave out both auction and play; cards played need the
    # auction that made their contract
    if data.get("auction") is None and data.get("play"):
        raise RecordError("missing key 'auction'" if "auction" not in data else
                          "auction is null, but the record plays cards: give the calls that made "
                          "the contract")
    for call in _array(data, "auction"):
        state.call(call)        # (not a string: refused by the engine, naming the caller)
    for card in _array(data, "play"):
        state.play(card)
    return state


def _check_seats(hands: Mapping, found: Mapping[str, Any]) -> None:
    """A seat missing from ``hands``, named; where another key would name it in another
    case or as a word (``n``, ``North``), say that it was not taken as the seat."""
    for seat in SEATS:
        if seat.name in found:
            continue
        alike = []
        for key in hands:
            try:
                if isinstance(key, str) and Seat.parse(key) is seat:
                    alike.append(key)
            except FlowerBridgeError:
                pass
        if alike:
            raise DealError(f"hands: missing seat {seat} (a seat's key is exactly N, E, S or W, in "
                            f"upper case: {quoted(alike[0])} was not taken as a seat)")
        raise DealError(f"hands: missing seat {seat}")


def _array(data: Mapping, key: str) -> list:
    """The array under ``key`` (empty when the key is absent or null); its entries are checked
    one by one as they are replayed, so that an error names the entry's position and seat."""
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise RecordError(f"{key} must be an array of strings")
    return value


def seat_field(value: Any, key: str) -> Seat:
    """The seat a record's ``key`` (``dealer``, ``first_dealer``) names: exactly ``N``,
    ``E``, ``S`` or ``W`` (FORMATS.md), as a key of ``hands`` is."""
    if not isinstance(value, str):
        raise RecordError(f"{key} must be one of N, E, S, W, not {json_type(value)}")
    seat = _seat_key(value)
    if seat is None:
        raise RecordError(f"{key} {quoted(value)} is not one of N, E, S, W")
    return seat


def to_dict(state: HandState | HandRecord) -> dict[str, Any]:
    """The FORMATS.md record of a hand, in whatever phase it is (a :class:`HandRecord`'s
    with the keys it kept, as :func:`dumps` writes it)."""
    if not isinstance(state, HandState):
        return as_record(state).to_dict()
    return {
        "dealer": state.dealer.name,
        "hands": {s.name: [c.code for c in state.deal.hands[s]] for s in SEATS},
        "undealt": [c.code for c in state.deal.undealt],
        "auction": [ev.call.text for ev in state.history if isinstance(ev, CallMade)],
        "play": [ev.card.code for ev in state.plays],
        "options": state.options.to_dict(),
    }


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


def parse_json(text: str | bytes, source: str | None = None, *, hand_record: bool = False) -> Any:
    """The JSON value of ``text``, or a :class:`RecordError` that says where it
    is malformed (or that a number in it is too long to read); ``source`` names
    the file it came from, for that message.  Stricter than Python's reader:
    see :func:`strict_json_loads`; and a string that holds a lone surrogate
    (``"\\ud800"``, no Unicode character: the record could not be written as
    UTF-8) is refused, naming where it is, and so is JSON nested deeper than Python
    reads (about 1,000 levels in Python 3.11, 10,000 in 3.13).

    With ``hand_record``, a hand record's unknown key (at its top, among its
    ``hands``, in its ``options``) whose value cannot be kept as written (such a
    number, a name given twice, a lone surrogate) is left out, the record read
    without it: FORMATS.md has an unknown key kept or ignored, never an error.
    Anywhere else it is refused as above."""
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
        if hand_record and (kept := _without_unkeepable_unknown_keys(text)) is not None:
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
        if hand_record and (kept := _without_unkeepable_unknown_keys(text)) is not None:
            return kept
        limit = sys.get_int_max_str_digits()
        where = _where_unkeepable(text, limit)
        at = f" at {where}" if where else ""
        raise RecordError(f"{named}unreadable JSON{at}: a number has more than {limit} digits") from None


class _Unkept:
    """Stands, in :func:`_lenient_loads`'s value, for a value that cannot be kept as written."""

    __slots__ = ()


_UNKEPT = _Unkept()


def _lenient_loads(text: str) -> Any:
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


def _holds_unkept(value: Any) -> bool:
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


def _without_unkeepable_unknown_keys(text: str) -> dict[str, Any] | None:
    """The hand record ``text`` holds, read without its unknown keys whose values cannot be
    kept as written; None where it is no hand record (a session's ``hands`` is an array)
    or such a value stands elsewhere (its own fields are refused as they are)."""
    try:
        data = _lenient_loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("hands"), dict):
        return None
    places = [(data, lambda key: key not in KNOWN_KEYS),
              (data["hands"], lambda key: _seat_key(key) is None)]
    if isinstance(data.get("options"), dict):
        known = RuleOptions.field_names()
        places.append((data["options"], lambda key: key not in known))
    for obj, unknown in places:
        for key in [key for key, value in obj.items() if unknown(key) and _holds_unkept(value)]:
            del obj[key]
    return None if _holds_unkept(data) else data


def loads(text: str | bytes | bytearray, *, options: RuleOptions | None = None) -> HandRecord:
    """Read a JSON hand record from a string (or its encoded bytes)."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise RecordError(f"a JSON hand record is text, not {type(text).__name__}")
    return HandRecord.from_dict(parse_json(bytes(text) if isinstance(text, bytearray) else text, hand_record=True),
                                options=options)


def load(fp: IO[str] | IO[bytes], *, options: RuleOptions | None = None) -> HandRecord:
    """Read a JSON hand record from an open file (text or binary)."""
    return loads(read_open_file(fp), options=options)


def read_open_file(fp: IO[str] | IO[bytes]) -> str | bytes:
    """What an open file (text or binary) holds, for a ``load``: anything else, a file's
    name included, is a :class:`RecordError` naming it."""
    if not callable(getattr(fp, "read", None)):
        hint = " (a file's name: open it first, or give its text to loads)" \
            if isinstance(fp, (str, os.PathLike)) else ""
        raise RecordError(f"load reads an open file, not {type(fp).__name__}{hint}")
    return fp.read()


def as_record(record: HandRecord | HandState) -> HandRecord:
    """``record`` as a :class:`HandRecord` to write: a hand is written as it stands;
    anything else is a :class:`RecordError` naming it."""
    if isinstance(record, HandState):
        return HandRecord(record)
    if not isinstance(record, HandRecord):
        raise RecordError(f"a hand record to write is a HandRecord or a HandState, "
                          f"not {type(record).__name__}")
    return record


def dumps(record: HandRecord | HandState, *, indent: int | None = 2) -> str:
    """Write a hand record as JSON text."""
    return json.dumps(as_record(record).to_dict(), indent=indent, ensure_ascii=False)


def dump(record: HandRecord | HandState, fp: IO[str], *, indent: int | None = 2) -> None:
    fp.write(dumps(record, indent=indent) + "\n")
