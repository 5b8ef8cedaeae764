"""A table's creation answered again to a client that asks again with the same
``Idempotency-Key`` (``docs/protocol.md``, *POST /api/tables*).

The answer to a creation is the one place a table's seat tokens are given: the
server keeps only their hashes. An answer lost on its way (a dropped
connection, a proxy's 504, a server that stopped after the table was stored and
before it answered) left a table nobody could sit at, and the person who tried
again made a second one. A client that sends a key of its own with the request,
and the same key with the same request when it asks again, gets the first answer
again, tokens included, for :data:`KEPT_SECONDS`.

Two places keep what answers a repeat. In memory, :class:`KeptAnswers`: the
answer itself, and the requests being made (a repeat while its table is being
made is refused, not made into a second table). In the database, a
``creations`` row written with the table in one transaction: after a restart (or
a fault after the table was stored) the table is read back and its tokens made
again. They are not stored: a table made at a keyed request has tokens derived
from the client's key and a random salt of the row's (:func:`seat_token`), so
the key alone cannot give them, nor the database alone while the key is random
(with a guessable key, a copy of the database taken in those ten minutes could);
the row, and with it the salt, is deleted once a repeat is no longer answered
(``TableManager._forget_creations``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

from .table import TableError

KEPT_SECONDS = 600.0
"""How long a creation's answer is kept for a repeat of its request."""
MOST_KEPT = 1000
"""The most answers kept at once (the oldest go first; each is about a kilobyte)."""
_KEY = re.compile(r"[\x21-\x7e]{16,200}")


def idempotency_key(value: str) -> str:
    """The ``Idempotency-Key`` header's value, checked: 16 to 200 visible ASCII characters.
    It is a secret (whoever sends it again from the client's address gets the tokens), so
    a client makes it at random: the web client, 32 hex digits."""
    if not _KEY.fullmatch(value):
        # a header's bytes reach us read as Latin-1: a UTF-8 key was quoted garbled ("Ã©" for "é")
        try:
            value = value.encode("latin-1").decode("utf-8")
        except UnicodeError:
            pass
        shown = value if len(value) <= 40 else value[:40] + "…"
        raise TableError("bad_request", f"Idempotency-Key {shown!r}: give 16 to 200 visible ASCII "
                                        "characters (letters, digits, punctuation), chosen at random, "
                                        "the same for a repeat of one request")
    return value


@dataclass(frozen=True)
class Repeatable:
    """A creation asked with an ``Idempotency-Key``, as the database knows it: the
    client's key (a secret, never stored), the hash of it with the client's address
    (the row's key) and the hash of the request as the server read it."""

    key: str
    key_hash: str
    request_hash: str

    @classmethod
    def of(cls, address: str | None, key: str, request: Any) -> "Repeatable":
        asked = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return cls(key, _sha256(f"{address or ''}\n{key}"), _sha256(asked))

    def token(self, salt: str, seat: str) -> str:
        """The seat's token at the table made at this request (:func:`seat_token`)."""
        return seat_token(salt, self.key, seat)


def seat_token(salt: str, key: str, seat: str) -> str:
    """A seat's secret token at a table made at a keyed request: HMAC-SHA256 under the
    table's salt (256 random bits) of the seat and the client's key, URL-safe base64
    (43 characters, as a token drawn at random is). As strong as the salt whatever the
    key; given again only to whoever holds both."""
    mac = hmac.new(bytes.fromhex(salt), f"{seat}\n{key}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode("ascii")


def reused() -> TableError:
    """A key given again with another request."""
    return TableError("conflict", "this Idempotency-Key was given with another request "
                                  "for a table: give a new key for a new table")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class _Kept:
    request: Any                    # the request as parsed, to tell a repeat from a reuse
    answer: dict[str, Any] | None   # None while the table is being made
    since: float


class KeptAnswers:
    """The answers to the creations asked with a key, by ``(client, key)``."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._kept: OrderedDict[Any, _Kept] = OrderedDict()

    def _forget_old(self) -> None:
        now = self.clock()
        while self._kept and (len(self._kept) > MOST_KEPT
                              or now - next(iter(self._kept.values())).since >= KEPT_SECONDS):
            self._kept.popitem(last=False)

    def look(self, key: Any, request: Any) -> dict[str, Any] | None:
        """The answer kept for ``key``, given the same ``request`` again; ``None`` when
        there is none (the caller then makes the table, between :meth:`begin` and
        :meth:`done` or :meth:`failed`). A key given with another request, or again
        while its table is being made, is refused ``conflict``."""
        self._forget_old()
        kept = self._kept.get(key)
        if kept is None:
            return None
        if kept.request != request:
            raise reused()
        if kept.answer is None:
            raise TableError("conflict", "the table is still being made (asked again with its "
                                         "Idempotency-Key): ask again in a moment")
        return kept.answer

    def begin(self, key: Any, request: Any) -> None:
        self._kept[key] = _Kept(request, None, self.clock())
        self._forget_old()

    def done(self, key: Any, answer: dict[str, Any]) -> None:
        """The table is made: its answer is kept from now on."""
        kept = self._kept.get(key)
        if kept is not None:
            kept.answer, kept.since = answer, self.clock()
            self._kept.move_to_end(key)

    def failed(self, key: Any) -> None:
        """No answer was given: a repeat is asked afresh (a table that was made after all
        is found in the database, by its ``creations`` row, and not made again)."""
        self._kept.pop(key, None)
