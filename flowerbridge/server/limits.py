"""What one client may ask of the server: rates, sizes and counts.

A person at a table sends a message every few seconds and creates a table
now and then; these limits sit far above that, and far below what would let
one client stall the server or fill its memory (a security review's
findings: a flood of tiny ``sync`` messages, each answered by a full
snapshot; a body of hundreds of megabytes parsed whole; a thousand tables a
few seconds apart). See ``docs/server.md``, *How it is built*, **Limits**.
"""

from __future__ import annotations

import ipaddress
import json
import math
import time
from collections import deque
from typing import Any, Awaitable, Callable

from starlette.exceptions import HTTPException

# An IPv6 client is counted by its /64: a host is given a whole /64 to choose its
# addresses from, so counting each address would let one client pass every limit.
IPV6_CLIENT_PREFIX = 64


def client_key(host: str | None) -> str | None:
    """What the limits per address count for a client at ``host``: an IPv4 address as it
    is (an IPv4-mapped IPv6 one as its IPv4 address), an IPv6 one as its /64
    (``2001:db8:1:2::/64``), anything else (no address known, a name) as given."""
    if host is None:
        return None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_CLIENT_PREFIX), strict=False))
    return str(address)


# Connections at once to one table: per seat (a person's tabs), and of spectators.
MAX_SEAT_CONNECTIONS = 8
MAX_SPECTATORS = 64
# Spectators of one table from one address: room for a classroom behind one
# router, not for one client to take every spectator's place.
MAX_SPECTATORS_PER_ADDRESS = 16
# Bytes waiting unsent in one connection's queue before it is dropped (it may
# reconnect and catch up from a snapshot).
MAX_QUEUED_BYTES = 8 << 20
# The most events a catch-up (a ``sync``, or a ``hello`` with ``since``) replays
# for a client, each rendered with its view: one costs about a snapshot, so a
# longer catch-up is a snapshot instead (a few seconds' play is still replayed,
# which the page announces event by event).
MAX_CATCH_UP_EVENTS = 8
# Take-backs one seat may make in one hand: a call and its take-back sent over and over
# grew a table's log, its memory and its replay after a restart without end (a hand that
# never ends never reaches the session's most hands).
MAX_TAKE_BACKS = 50
# Hints of a searching bot (pimc) one client address may have running at once: a loop of
# take-back and hint at tables of its own kept a core each busy, and every table's searching
# bots (the same pool) waited seconds a card. More than one, for people who share an
# address (a school's router, a proxy not named by --forwarded-allow-ips).
SEARCHING_HINTS_PER_ADDRESS = 2
# The largest HTTP request body (a table's creation is well under 2 KB).
MAX_BODY_BYTES = 64 << 10
# The largest websocket message uvicorn reads whole: the app answers one over
# 4 KiB (the protocol's most) with ``too_large``; past this the server closes
# the socket (1009, message too big) without reading it.
MAX_FRAME_BYTES = 1 << 20


class TokenBucket:
    """``rate`` events a second on average, ``burst`` at once, per key.

    >>> bucket = TokenBucket(rate=1.0, burst=2.0, clock=lambda: 0.0)
    >>> [bucket.allow("a") for _ in range(3)], bucket.allow("b")
    ([True, True, False], True)
    """

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self._state: dict[Any, tuple[float, float]] = {}

    def _tokens(self, key: Any, now: float) -> float:
        """Tokens ``key`` holds at ``now``: what it had, refilled since (a new key: full)."""
        tokens, then = self._state.get(key, (self.burst, now))
        return min(self.burst, tokens + (now - then) * self.rate)

    def allow(self, key: Any = None) -> bool:
        now = self.clock()
        tokens = self._tokens(key, now)
        if len(self._state) > 10_000:   # forget the keys that are full again
            self._state = {k: v for k, v in self._state.items()
                           if v[0] + (now - v[1]) * self.rate < self.burst}
        if tokens < 1.0:
            self._state[key] = (tokens, now)
            return False
        self._state[key] = (tokens - 1.0, now)
        return True

    def wait(self, key: Any = None) -> float:
        """Seconds until :meth:`allow` would let ``key`` in (0: now).

        >>> bucket = TokenBucket(rate=0.5, burst=1.0, clock=lambda: 0.0)
        >>> bucket.allow("a"), bucket.wait("a"), bucket.wait("b")
        (True, 2.0, 0.0)
        """
        return max(0.0, (1.0 - self._tokens(key, self.clock())) / self.rate)

    def refund(self, key: Any = None) -> None:
        """Give back what :meth:`allow` took for an event that did not happen."""
        if key in self._state:
            tokens, then = self._state[key]
            self._state[key] = (min(self.burst, tokens + 1.0), then)


class SlidingWindow:
    """At most ``limit`` events per key in any ``period`` seconds: the times of a key's
    events within the last period are kept. (A token bucket of ``limit`` a period, as
    many at once, let nearly twice as many through in a period that began full: 59
    tables in a minute where ``--tables-per-minute`` said 30.)

    >>> window = SlidingWindow(limit=2, period=60.0, clock=lambda: 0.0)
    >>> [window.allow("a") for _ in range(3)], window.allow("b"), window.wait("a")
    ([True, True, False], True, 60.0)
    """

    def __init__(self, limit: float, period: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.period, self.clock = limit, period, clock
        self._times: dict[Any, deque[float]] = {}

    def _recent(self, key: Any, now: float) -> deque[float]:
        """``key``'s events within the period up to ``now``, oldest first."""
        times = self._times.setdefault(key, deque())
        while times and times[0] <= now - self.period:
            times.popleft()
        return times

    def allow(self, key: Any = None) -> bool:
        now = self.clock()
        if len(self._times) > 10_000:   # forget the keys with no event left in the period
            self._times = {k: v for k, v in self._times.items() if v and v[-1] > now - self.period}
        times = self._recent(key, now)
        if len(times) >= self.limit:
            return False
        times.append(now)
        return True

    def wait(self, key: Any = None) -> float:
        """Seconds until :meth:`allow` would let ``key`` in (0: now): until as many of its
        events have left the period as it holds beyond the limit less one."""
        now = self.clock()
        times = self._recent(key, now)
        over = len(times) - int(math.ceil(self.limit)) + 1
        return 0.0 if over <= 0 else max(0.0, times[over - 1] + self.period - now)

    def refund(self, key: Any = None) -> None:
        """Take back the latest event :meth:`allow` let in, which did not happen."""
        times = self._times.get(key)
        if times:
            times.pop()


Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class BodyLimit:
    """ASGI middleware: an HTTP request body over ``limit`` bytes gets a 413 in
    the API's error shape, read no further (by its Content-Length, or counted
    as it streams when it has none)."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], limit: int = MAX_BODY_BYTES) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await self._refuse(send)
            return
        seen = 0
        started = False

        async def counted() -> dict[str, Any]:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    # the app's handler answers it; if nothing inside does, below
                    raise HTTPException(413, self._message())
            return message

        async def watched(message: dict[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except HTTPException as exc:
            if exc.status_code != 413 or started:
                raise
            await self._refuse(send)

    def _message(self) -> str:
        return f"the request body is over {self.limit:,} bytes"

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"error": {"code": "too_large", "message": self._message()}}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


class Sparing:
    """Which keys to log a refusal of now: each once an hour, and at most ``most`` keys an
    hour, so that a client sending many cannot fill the log."""

    def __init__(self, most: int = 32, again_after: float = 3600.0) -> None:
        self.most, self.again_after = most, again_after
        self.told: dict[str, float] = {}

    def first(self, key: str) -> bool:
        now = time.monotonic()
        for told, when in list(self.told.items()):
            if now - when >= self.again_after:
                del self.told[told]
        if key in self.told or len(self.told) >= self.most:
            return False
        self.told[key] = now
        return True
