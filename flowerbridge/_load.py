"""Read any hand record a person may hand us: JSON hand, JSON session, or text notation."""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

from .errors import FlowerBridgeError, RecordError
from .records import HandRecord
from .state import HandState

if TYPE_CHECKING:
    from .session import Session

# "[" and a tag's name (letters, digits and "_" after a letter), then, for a word JSON
# readers take there (true, false, null, and NaN and Infinity, which they refuse), a
# tag's value: [Event ...], [Event], [null "x"] are tags; [true], [ null, 1] JSON arrays
_TAG_START = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9_]*)(\s+")?')
_BLANK = re.compile(r"[\s\ufeff]*\Z")
_JSON_WORDS = ("true", "false", "null", "NaN", "Infinity")


def is_notation(text: str) -> bool:
    """Whether ``text`` opens as the text notation does, with "[" and a tag's name (a JSON
    array opens with "[" too, but then a value: a number, a string, an array, an object,
    true, false or null)."""
    match = _TAG_START.match(text.lstrip())
    return match is not None and (match.group(1) not in _JSON_WORDS or match.group(2) is not None)


@contextmanager
def named(source: str | None) -> Iterator[None]:
    """An error of the record read from ``source`` (a file's name, or ``standard
    input``) raised inside names it first, as the text notation's do: ``hand.json,
    play 14 (E): ...``, ``hand.json: missing key 'dealer'`` (``source`` None: as raised)."""
    try:
        yield
    except FlowerBridgeError as exc:
        if source is None or getattr(exc, "placed", False):     # (placed: its words are final)
            raise
        from .notation import _at
        raise _at(exc, source) from None


def refuse_empty(text: str, source: str | None) -> None:
    """A :class:`RecordError` where ``text`` holds nothing but whitespace and
    byte-order marks, for every command that reads a record (``score -`` with
    nothing piped in said "malformed JSON at line 1 column 1")."""
    if _BLANK.match(text):
        raise RecordError(f"{source or 'the input'} is empty: no hand record in it")


def load_any(text: str, source: str | None = None) -> list[HandState]:
    """The hands in ``text``, whichever of the project's formats it is in
    (``source``, the file's name, is given in every error: ``hand.fbn, line 3: ...``,
    ``malformed JSON ... of hand.json``, ``hand.json: missing key 'dealer'``)."""
    return [record.state for record in load_records(text, source)]


def load_records(text: str, source: str | None = None) -> list[HandRecord]:
    """As :func:`load_any`, the hands with the keys or tags they carry besides
    (a session's hands theirs; the session's own unknown keys have no hand to go with)."""
    return load_records_and_session(text, source)[0]


def load_records_and_session(text: str, source: str | None = None) -> tuple[list[HandRecord], Session | None]:
    """As :func:`load_records`, and the :class:`~flowerbridge.session.Session` that
    ``text`` holds where it is a JSON session record (else None); the web server's
    answer for a session (``{"session": ..., "scoresheet": ...}``) is read as its session."""
    refuse_empty(text, source)
    stripped = text.lstrip()
    # A notation tag ``[Name "value"]`` also opens with "[": tell it from a JSON array.
    if stripped.startswith("{") or stripped.startswith("[") and not is_notation(stripped):
        from .records import parse_json
        data = parse_json(text, source, hand_record=True)     # (its errors name the file themselves)
        from .session import Session, is_session_record
        with named(source):
            if servers_session_answer(data):
                # the session record beside the scoresheet, as a person saves the answer: its
                # "session" read (it was refused, "jq .session" to be run first)
                data = data["session"]
            if is_session_record(data):
                session = Session.from_dict(data)
                return session.hand_records(), session
            return [HandRecord.from_dict(data)], None
    # a JSON value that is no object (null, "x", 7): said so, as score says it, rather
    # than read as the notation and refused as that
    scalar = _json_scalar(stripped)
    if scalar is not None:
        from .errors import json_type
        with named(source):
            raise RecordError(f"a hand record is a JSON object, not {json_type(scalar[0])}")
    from .notation import loads_all
    with named(source):
        return loads_all(text), None


SERVERS_SESSION_ANSWER = "the web server's answer for a session (GET /api/tables/{id}/session)"


def servers_session_answer(data: object) -> bool:
    """Whether ``data`` is what the server answers ``GET /api/tables/{id}/session`` with
    (docs/protocol.md): the session record and the scoresheet side by side, as a person
    saves it to show it (read as a hand record, it said "missing key 'dealer'")."""
    return (isinstance(data, dict) and isinstance(data.get("session"), dict) and "scoresheet" in data
            and not {"dealer", "hands"} & data.keys())


def _json_scalar(text: str) -> tuple[object] | None:
    """``(value,)`` where ``text`` is a whole JSON value other than an object or an
    array, else None."""
    import json

    try:
        return (json.loads(text),)
    except (ValueError, RecursionError):
        return None
