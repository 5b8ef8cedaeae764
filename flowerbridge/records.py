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
import os
from dataclasses import dataclass, field
from typing import IO, Any, Mapping

from . import jsontext
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


def parse_json(text: str | bytes, source: str | None = None, *, hand_record: bool = False) -> Any:
    """The JSON value of ``text``, read strictly (:func:`flowerbridge.jsontext.parse_json`:
    a :class:`RecordError` that says where it is malformed); ``source`` names the file it
    came from. With ``hand_record``, a hand record's unknown key (at its top, among its
    ``hands``, in its ``options``) whose value cannot be kept as written (such a number, a
    name given twice, a lone surrogate) is left out, the record read without it:
    FORMATS.md has an unknown key kept or ignored, never an error. Anywhere else it is
    refused."""
    return jsontext.parse_json(text, source,
                               fallback=_without_unkeepable_unknown_keys if hand_record else None)


def _without_unkeepable_unknown_keys(text: str) -> dict[str, Any] | None:
    """The hand record ``text`` holds, read without its unknown keys whose values cannot be
    kept as written; None where it is no hand record (a session's ``hands`` is an array)
    or such a value stands elsewhere (its own fields are refused as they are)."""
    try:
        data = jsontext.lenient_loads(text)
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
        for key in [key for key, value in obj.items() if unknown(key) and jsontext.holds_unkept(value)]:
            del obj[key]
    return None if jsontext.holds_unkept(data) else data


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
