"""Read any hand record a person may hand us: JSON hand, JSON session, or text notation."""

from __future__ import annotations

import re

from .errors import RecordError
from .records import HandRecord
from .state import HandState

_TAG_START = re.compile(r'\[\s*[A-Za-z]\w*\s+"')


def is_notation(text: str) -> bool:
    """Whether ``text`` opens as the text notation does, with a tag ``[Name "value"]``
    (a JSON array opens with "[" too)."""
    return _TAG_START.match(text.lstrip()) is not None


def load_any(text: str, source: str | None = None) -> list[HandState]:
    """The hands in ``text``, whichever of the project's formats it is in
    (``source``, the file's name, is given in the message of malformed JSON)."""
    return [record.state for record in load_records(text, source)]


def load_records(text: str, source: str | None = None) -> list[HandRecord]:
    """As :func:`load_any`, the hands with the keys or tags they carry besides
    (a session's hands carry none)."""
    stripped = text.lstrip()
    if not stripped:
        raise RecordError(f"{source or 'the input'} is empty: no hand record in it")
    # A notation tag ``[Name "value"]`` also opens with "[": tell it from a JSON array.
    if stripped.startswith("{") or stripped.startswith("[") and not is_notation(stripped):
        from .records import parse_json
        data = parse_json(text, source)
        from .session import Session, is_session_record
        if is_session_record(data):
            return [HandRecord(h) for h in Session.from_dict(data).hands]
        return [HandRecord.from_dict(data)]
    from .notation import loads_all
    return loads_all(text)
