"""Wire schemas (pydantic): the lobby's request body and the client's websocket messages.

These describe JSON on the wire only; storage has its own models
(:mod:`flowerbridge.server.models`) and the rules live in the engine. Client
messages are validated strictly — a string is never taken for a number — and
unknown fields are refused, so a client bug shows up as a precise error.
See ``docs/protocol.md``.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from typing import Annotated, Any, Literal, Mapping, Sequence, Union

from pydantic import (BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator,
                      model_validator)

from ..errors import FlowerBridgeError, json_type
from ..jsontext import NotJSON, json_error_text, strict_json_loads

MAX_MESSAGE_BYTES = 4096
MAX_LENGTH = 100


class ProtocolError(FlowerBridgeError):
    """A refusal the protocol names (docs/protocol.md, *Errors*): ``code`` is its error
    code; ``message_id`` the ``id`` of the client's message it answers, where known;
    ``retry_after`` the seconds a refused client should wait, where known (HTTP's
    ``Retry-After``)."""

    def __init__(self, code: str, message: str, *, message_id: str | None = None,
                 retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message_id = message_id
        self.retry_after = retry_after


class MessageError(ProtocolError):
    """A client message that cannot be read."""

    def __init__(self, code: str, message: str, message_id: str | None = None) -> None:
        super().__init__(code, message, message_id=message_id)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# ------------------------------------------------------------------ lobby

class SeatChoice(_Strict):
    """Who sits in a seat: a person (invited by a secret link) or a bot of a level."""

    player: Literal["human", "bot"]
    level: str | None = Field(default=None, max_length=40)

    @model_validator(mode="after")
    def _bot_has_level(self) -> "SeatChoice":
        if self.player == "bot" and not self.level:
            raise ValueError("a bot seat needs a level")
        if self.player == "human" and self.level is not None:
            raise ValueError("a human seat has no level")
        return self


class TableLength(_Strict):
    """A session's length: a number of hands or of games (RULINGS R19)."""

    hands: int | None = Field(default=None, ge=1, le=MAX_LENGTH)
    games: int | None = Field(default=None, ge=1, le=MAX_LENGTH)

    @model_validator(mode="after")
    def _exactly_one(self) -> "TableLength":
        if (self.hands is None) == (self.games is None):
            raise ValueError("give exactly one of hands or games")
        return self


SeatName = Literal["N", "E", "S", "W"]

# What a table's name (the only free text a client gives) cannot hold, by Unicode
# category: what would break its line or hide what it says. Any other
# character is taken, spaces such as U+00A0 and U+3000 included.
_UNREADABLE = {"Cc": "a control character", "Cf": "an invisible format character",
               "Zl": "a line separator", "Zp": "a paragraph separator"}
_JOINERS = "\u200c\u200d"    # zero-width (non-)joiner: Persian, Indic scripts and emoji need them
_UNREADABLE_SAID = ("a name holds no control characters (tab, line feed, DEL, ...), no invisible "
                    "format characters (bidi controls, zero-width space, ...; the joiners U+200C "
                    "and U+200D are allowed) and no line or paragraph separators (U+2028, U+2029)")


def _deeper_than(value: Any, depth: int) -> bool:
    """Whether lists or objects in ``value`` nest more than ``depth`` deep."""
    if isinstance(value, (list, tuple, dict)):
        if depth == 0:
            return True
        return any(_deeper_than(v, depth - 1) for v in (value.values() if isinstance(value, dict) else value))
    return False


# the joiners a name may hold, which show nothing on their own: taken out to tell a blank name
_BLANK = dict.fromkeys(map(ord, _JOINERS))


class CreateTable(_Strict):
    """``POST /api/tables``: a new table's name, rule options, length and seats."""

    name: str | None = Field(default=None, max_length=60)
    options: dict[str, Any] | None = None
    length: TableLength = TableLength(hands=8)
    seats: dict[SeatName, SeatChoice]
    stand_in: str | None = Field(default=None, max_length=40)

    @field_validator("name", mode="before")
    @classmethod
    def _spaces_dropped(cls, name: Any) -> Any:
        """Spaces round a name are dropped before its length is counted (60 characters and
        a space after them were refused as too long); a control character stays, refused below."""
        if not isinstance(name, str):
            return name
        start, end = 0, len(name)
        while start < end and unicodedata.category(name[start]) == "Zs":
            start += 1
        while end > start and unicodedata.category(name[end - 1]) == "Zs":
            end -= 1
        return name[start:end]

    @field_validator("name")
    @classmethod
    def _readable(cls, name: str | None) -> str | None:
        for char in name or "":
            kind = _UNREADABLE.get(unicodedata.category(char))
            if kind is not None and char not in _JOINERS:
                raise ValueError(f"a table's name cannot hold U+{ord(char):04X} ({kind}): "
                                 + _UNREADABLE_SAID)
        # spaces round it are dropped (as the lobby's form drops them), and a name of
        # spaces and joiners alone is none: it was listed as a blank
        if name is None:
            return None
        name = name.strip()
        return name if name.translate(_BLANK).strip() else None

    @field_validator("options")
    @classmethod
    def _known_options(cls, options: dict[str, Any] | None) -> dict[str, Any] | None:
        # A record's unknown keys are ignored (FORMATS.md), but a table made
        # with a misspelt option would quietly play under the default.
        from ..options import RuleOptions
        unknown = sorted(set(options or ()) - set(RuleOptions.__dataclass_fields__))
        if unknown:
            raise ValueError(f"unknown option {unknown[0]!r}; the options are "
                             + ", ".join(RuleOptions.__dataclass_fields__))
        # (an option is at most a list of pairs: a value nested hundreds deep was let
        # through, and the request's own copy of it failed, answered 500)
        for name, value in (options or {}).items():
            if _deeper_than(value, 3):
                raise ValueError(f"option {name}: nested more deeply than any option is (a number, "
                                 "a list of numbers, or a list of pairs)")
        return options

    @model_validator(mode="after")
    def _four_seats(self) -> "CreateTable":
        missing = [s for s in "NESW" if s not in self.seats]
        if missing:
            raise ValueError(f"seats: missing {', '.join(missing)}")
        return self


# ---------------------------------------------------------- client messages

_MessageId = Annotated[str, Field(max_length=64)]

MAX_SEQ = 2**53 - 1
"""The largest ``seq`` or ``since`` a message may give: the largest whole number every
JSON reader keeps exact (a table's events are counted far below it). A 4,000-digit
``seq`` was read whole and echoed whole in the ``stale`` answer."""
_Seq = Annotated[int, Field(ge=0, le=MAX_SEQ)]


class Hello(_Strict):
    """The first message: a seat token (or none, to spectate) and the last ``seq`` seen."""

    type: Literal["hello"]
    token: str | None = Field(default=None, max_length=100)
    since: _Seq | None = None


class CallMessage(_Strict):
    """Make a call (``1A``, ``Pass``) for the connection's seat."""

    type: Literal["call"]
    call: str = Field(max_length=8)
    seq: _Seq | None = None
    id: _MessageId | None = None


class PlayMessage(_Strict):
    """Play a card, from the seat's hand or, as declarer, from the dummy."""

    type: Literal["play"]
    card: str = Field(max_length=8)
    seq: _Seq | None = None
    id: _MessageId | None = None


class SyncMessage(_Strict):
    """Ask for the events after ``since``, or a snapshot."""

    type: Literal["sync"]
    since: _Seq
    id: _MessageId | None = None


class CloseMessage(_Strict):
    """Close the table for good (its one person at it): the session ends where it stands."""

    type: Literal["close"]
    seq: _Seq | None = None
    id: _MessageId | None = None


class HintMessage(_Strict):
    """Ask what a bot would call or play in the seat's place (a table of bots only)."""

    type: Literal["hint"]
    seq: _Seq | None = None
    id: _MessageId | None = None


class ClaimMessage(_Strict):
    """Claim every trick left for the seat's side (a table of bots only)."""

    type: Literal["claim"]
    seq: _Seq | None = None
    id: _MessageId | None = None


class UndoMessage(_Strict):
    """Take back the seat's last call or card of the hand and all after it (a table of bots only)."""

    type: Literal["undo"]
    seq: _Seq | None = None
    id: _MessageId | None = None


class PingMessage(_Strict):
    """Keep-alive; answered by ``pong``."""

    type: Literal["ping"]
    id: _MessageId | None = None


ClientMessage = Annotated[Union[Hello, CallMessage, PlayMessage, SyncMessage, PingMessage,
                                CloseMessage, HintMessage, ClaimMessage, UndoMessage],
                          Field(discriminator="type")]
_CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


def read_json(data: str | bytes) -> Any:
    """The JSON value of a websocket message or an HTTP body, read strictly,
    or a :class:`MessageError` (``bad_json``) that says what is wrong: text
    that is not UTF-8, a byte order mark, Python's extensions (``NaN``,
    ``Infinity``), a name given twice in one object, a number too long to
    read, nesting too deep for the reader, or where the syntax breaks."""
    if isinstance(data, bytes):     # UTF-8, as the protocol says (not UTF-16 or 32)
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MessageError("bad_json", f"not JSON: byte {exc.start} is not UTF-8 text") from None
    if data.startswith("\ufeff"):
        raise MessageError("bad_json", "not JSON: it begins with a byte order mark (U+FEFF); "
                                       "send UTF-8 without one")
    try:
        return strict_json_loads(data)
    except NotJSON as exc:
        raise MessageError("bad_json", f"not JSON: {exc}") from None
    except json.JSONDecodeError as exc:
        raise MessageError("bad_json", f"not JSON: {json_error_text(exc)} at line {exc.lineno} "
                                       f"column {exc.colno}") from None
    except RecursionError:
        raise MessageError("bad_json", "not JSON this server can read: arrays and objects "
                                       "nested too deeply") from None
    except ValueError:  # Python refuses to convert an integer of more digits than its limit
        raise MessageError("bad_json", "not JSON this server can read: a number has more than "
                                       f"{sys.get_int_max_str_digits():,} digits") from None


def _is_unicode(text: str) -> bool:
    """Whether ``text`` is Unicode characters only: no lone surrogate (``"\\ud800"``
    read from JSON), which no UTF-8 text can hold and the schema refuses."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_message(data: str | bytes) -> ClientMessage:
    """Read one client websocket message, or raise :class:`MessageError`."""
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > MAX_MESSAGE_BYTES:
        raise MessageError("too_large", f"message of {size} bytes: at most {MAX_MESSAGE_BYTES}")
    obj = read_json(data)
    if not isinstance(obj, dict):
        raise MessageError("bad_json", f"a message is a JSON object, not {json_type(obj)}")
    message_id = obj.get("id")  # echoed in the error only when it is a valid id
    if not (isinstance(message_id, str) and len(message_id) <= 64 and _is_unicode(message_id)):
        message_id = None
    try:
        return _CLIENT_MESSAGE.validate_python(obj)
    except ValidationError as exc:
        raise MessageError("bad_message", describe(exc.errors(include_url=False)),
                           message_id) from None


def error_code(exc: FlowerBridgeError, default: str) -> str:
    """The protocol's error code for ``exc``: its own ``code`` when it has one
    (``stale``, ``busy``, ...), else ``default`` (``illegal`` for the engine's refusals)."""
    return exc.code if isinstance(exc, ProtocolError) else default


def describe(errors: Sequence[Mapping[str, Any]]) -> str:
    """Pydantic's errors as one line: ``call: Field required; seq: ...``.

    The first part of each location is dropped: the message's ``type`` for a
    websocket message, ``body`` for an HTTP request.
    """
    parts = []
    for error in errors[:5]:
        if error["type"] == "json_invalid":
            parts.append(f"not JSON: {error.get('ctx', {}).get('error', error['msg'])}")
            continue
        if error["type"] == "union_tag_not_found":     # a message without its type
            parts.append("type: Field required")
            continue
        if error["type"] == "union_tag_invalid":
            given = error["input"].get("type") if isinstance(error.get("input"), dict) else None
            expected = str(error.get("ctx", {}).get("expected_tags", "")).replace("'", "")
            parts.append(f"type: {json.dumps(given)} is not one of {expected}")
            continue
        where = ".".join(str(p) for p in error["loc"][1:])
        message = str(error["msg"]).removeprefix("Value error, ")     # (our validators' own words)
        parts.append(f"{where}: {message}" if where else _whole(error))
    return "; ".join(parts)


def _whole(error: Mapping[str, Any]) -> str:
    """An error about a request's body as a whole (or a message's), said plainly."""
    if error["type"] == "missing":
        return "the request needs a JSON object as its body (Content-Type: application/json)"
    if error["type"] in ("model_attributes_type", "dict_type", "model_type"):
        value = error.get("input")
        if isinstance(value, (str, bytes)):
            return "the body must be a JSON object, sent with Content-Type: application/json"
        return f"the body must be a JSON object, not {json_type(value)}"
    return str(error["msg"]).removeprefix("Value error, ")
