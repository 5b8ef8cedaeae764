"""Run a real server and talk to it, for tests and benchmarks.

:class:`ServerThread` runs the app on uvicorn in this process (a free loopback
port, its own event loop in a thread); :class:`ServerProcess` runs
``flowerbridge serve`` as a child process that can be killed. :class:`Client`
is a websocket client of one table that records every message it receives.
It needs the test extra (``pip install 'flowerbridge[test]'``: httpx and the
websockets client); the server itself does not import it.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable

try:
    import httpx
    from websockets.sync.client import ClientConnection, connect
except ModuleNotFoundError as exc:   # the test extra: a plain install has neither
    raise ModuleNotFoundError(
        f"flowerbridge.server.testing needs {exc.name}, one of the test extra's packages: "
        "pip install 'flowerbridge[test]'", name=exc.name) from exc

from ..cards import CARDS
from ..dealing import Deal
from ..options import RuleOptions
from ..seats import Seat
from ..state import HandState
from .config import ServerConfig

SEATS = "NESW"


def table_request(seats: dict[str, str], *, hands: int = 1, **extra: Any) -> dict[str, Any]:
    """A ``POST /api/tables`` body; ``seats`` maps a seat to ``human`` or a bot level."""
    return {"seats": {s: {"player": "human"} if who == "human" else {"player": "bot", "level": who}
                      for s, who in seats.items()},
            "length": {"hands": hands}, **extra}


class _Server:
    url: str

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """An HTTP request to the server (no status check)."""
        return httpx.request(method, f"{self.url}{path}", timeout=10, **kwargs)

    def create_table(self, seats: dict[str, str], **kwargs: Any) -> dict[str, Any]:
        """Create a table; returns the API's answer (table, invitations)."""
        response = self.api("POST", "/api/tables", json=table_request(seats, **kwargs))
        response.raise_for_status()
        return response.json()

    def client(self, table_id: str, token: str | None = None, since: int | None = None,
               hello: bool = True) -> "Client":
        """A websocket client of a table, its ``hello`` sent (a spectator without token)."""
        client = Client(self.url.replace("http", "ws", 1) + f"/ws/tables/{table_id}")
        if hello:
            client.send({"type": "hello", "token": token, "since": since})
        return client


class ServerThread(_Server):
    """The app on uvicorn in a background thread, on a free loopback port."""

    def __init__(self, config: ServerConfig) -> None:
        import uvicorn

        from .app import create_app
        from .limits import MAX_FRAME_BYTES

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.app = create_app(config)
        # as serve does by default: no X-Forwarded-For is believed
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning",
                                                    ws_max_size=MAX_FRAME_BYTES,
                                                    proxy_headers=False))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> "ServerThread":
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server thread did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.sock.close()


class ServerProcess(_Server):
    """``flowerbridge serve`` as a child process; :meth:`kill` sends SIGKILL."""

    def __init__(self, database: str | Path, *args: str) -> None:
        self.command = [sys.executable, "-m", "flowerbridge.cli", "serve", "--port", "0",
                        "--database", str(database), *args]
        self.process: subprocess.Popen | None = None
        self.url = ""

    def __enter__(self) -> "ServerProcess":
        self.process = subprocess.Popen(self.command, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1"})
        line = self.process.stdout.readline() if self.process.stdout else ""
        found = re.search(r"http://[\w.\[\]:]+", line)
        if not found:
            self.process.kill()
            rest = self.process.stdout.read() if self.process.stdout else ""
            raise RuntimeError(f"flowerbridge serve did not start: {line}{rest}")
        self.url = found.group(0)
        return self

    def kill(self) -> None:
        """SIGKILL: no shutdown handlers, no flushing — a crash."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def __exit__(self, *exc_info: Any) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process is not None and self.process.stdout:
            self.process.stdout.close()


class Client:
    """A websocket client of one table that keeps every message it receives."""

    def __init__(self, url: str) -> None:
        # Entered by hand: a Client lives across calls, not inside one with-block.
        self._connect = connect(url, open_timeout=10, max_size=2 ** 22)
        self.ws: ClientConnection = self._connect.__enter__()
        self.messages: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.closed = False
        self.session_over = False

    def send(self, message: dict[str, Any] | str | bytes) -> None:
        self.ws.send(message if isinstance(message, (str, bytes)) else json.dumps(message))

    def recv(self, timeout: float | None = 10.0) -> dict[str, Any] | None:
        """The next message (``None`` when none came in ``timeout`` or the socket closed)."""
        from websockets.exceptions import ConnectionClosed

        try:
            message = json.loads(self.ws.recv(timeout=timeout))
        except TimeoutError:
            return None
        except ConnectionClosed:
            self.closed = True
            return None
        self.messages.append(message)
        if "view" in message:
            self.view = message["view"]
        if "seq" in message:
            self.seq = message["seq"]
        if message.get("hand_over", {}).get("scoresheet", {}).get("is_over") or \
                message.get("scoresheet", {}).get("is_over"):
            self.session_over = True
        return message

    def drain(self) -> list[dict[str, Any]]:
        """Every message already waiting."""
        out = []
        while (message := self.recv(timeout=0.001)) is not None:
            out.append(message)
        return out

    def first(self, predicate, timeout: float = 20.0) -> dict[str, Any]:
        """The first message, received already or still to come, that
        satisfies ``predicate`` (a message may have come in while the client
        was draining for something else, as ``play_session`` does)."""
        for message in self.messages:
            if predicate(message):
                return message
        return self.until(predicate, timeout)

    def until(self, predicate, timeout: float = 20.0) -> dict[str, Any]:
        """Receive until a message satisfies ``predicate``; returns it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = self.recv(timeout=max(0.01, deadline - time.monotonic()))
            if message is not None and predicate(message):
                return message
            if self.closed:
                break
        raise AssertionError(f"no such message within {timeout} s; last: {self.messages[-3:]}")

    @property
    def my_turn(self) -> bool:
        return bool(self.view and self.view["legal"])

    def act(self, rng: random.Random, *, pass_rate: float = 0.7) -> None:
        """Send a legal call or card from the latest view, as a random player would."""
        assert self.view is not None
        legal = self.view["legal"]
        if self.view["phase"] == "auction":
            choice = legal[0] if len(legal) == 1 or rng.random() < pass_rate \
                else rng.choice(legal[1:7])
            self.send({"type": "call", "call": choice, "seq": self.seq})
        else:
            self.send({"type": "play", "card": rng.choice(legal), "seq": self.seq})

    def open_bidding(self, timeout: float = 20.0) -> None:
        """At the seat's first call, make the cheapest bid: the hand will be played,
        not passed out."""
        if not self.my_turn:
            self.until(lambda m: self.my_turn, timeout)
        assert self.view is not None
        self.send({"type": "call", "call": self.view["legal"][1], "seq": self.seq})

    def close(self) -> None:
        self._connect.__exit__(None, None, None)


def play_session(clients: Iterable[Client], rng: random.Random, timeout: float = 120.0,
                 until: Callable[[], bool] | None = None) -> None:
    """Let seated clients play random legal actions until each has been told
    that the session is over (or ``until()`` holds). Each client acts once per
    view, so it never answers an outdated one."""
    clients = list(clients)
    deadline = time.monotonic() + timeout
    acted: set[tuple[int, int]] = set()
    while time.monotonic() < deadline:
        for i, client in enumerate(clients):
            client.drain()
            if client.my_turn and (i, client.seq) not in acted:
                acted.add((i, client.seq))
                client.act(rng)
        if all(client.session_over for client in clients) or (until is not None and until()):
            return
        time.sleep(0.002)
    raise AssertionError("the session did not finish in time")


POSTGRES_ENV = "FLOWERBRIDGE_TEST_POSTGRES"
"""The environment variable naming the PostgreSQL database the tests may use."""


def database_for_tests(kind: str, directory: Path) -> str | None:
    """A database for tests: a fresh SQLite file, or the PostgreSQL URL from
    ``FLOWERBRIDGE_TEST_POSTGRES`` (``None`` when it is not set)."""
    if kind == "sqlite":
        return str(directory / "tables.db")
    return os.environ.get(POSTGRES_ENV) or None


# ------------------------------------------------------------------ hidden cards

CODES = frozenset(card.code for card in CARDS)
# Fields holding calls (spelled like cards: the bid 2R, the card 2R), text, or table data.
_NOT_CARDS = frozenset({"call", "auction", "contract", "scoresheet", "table", "explanations",
                        "explanation", "options", "seats"})
# Reviews of finished hands: every card is public there (RULINGS R6).
FINISHED_PARTS = frozenset({"last_review", "hand_over", "review"})
_OVER = ("finished", "passed out")


def card_strings(message: Any, path: tuple = ()):
    """Every ``(path, code)`` in a message where a card code sits where cards go."""
    if isinstance(message, dict):
        for key, value in message.items():
            if key in _NOT_CARDS or key in FINISHED_PARTS:
                continue
            if key == "legal" and message.get("phase") == "auction":
                continue
            yield from card_strings(value, (*path, key))
    elif isinstance(message, list):
        for item in message:
            yield from card_strings(item, path)
    elif isinstance(message, str) and message in CODES:
        yield path, message


def visible_codes(record: dict[str, Any], role: str | None, view: dict[str, Any]) -> frozenset:
    """The codes ``role`` (a seat letter, ``None`` for spectators) may see at
    ``view`` of the hand ``record`` (FORMATS.md): its own dealt cards, every
    card played so far, the dummy's from the opening lead on, all once the
    hand is over."""
    if view["phase"] in _OVER:
        return CODES
    played = record["play"][:len(view["plays"])]
    seen = set(played)
    if role is not None:
        seen |= set(record["hands"][role])
    if played:
        auction = _dealt(record)
        for call in record["auction"]:
            auction.call(call)
        assert auction.contract is not None   # a record with plays has a contract
        seen |= set(record["hands"][auction.contract.dummy.name])
    return frozenset(seen)


def engine_view(record: dict[str, Any], role: str, view: dict[str, Any]) -> dict[str, Any]:
    """The engine's observation for ``role`` at the point of the hand ``view`` describes."""
    state = _dealt(record)
    for call in record["auction"][:len(view["auction"])]:
        state.call(call)
    for card in record["play"][:len(view["plays"])]:
        state.play(card)
    return state.observation(Seat[role]).to_dict()


def _dealt(record: dict[str, Any]) -> HandState:
    """The hand of ``record`` at the deal, before any call."""
    return HandState(Deal.from_hands(record["hands"], record["undealt"]), Seat[record["dealer"]],
                     RuleOptions.from_dict(record.get("options")))


def assert_nothing_hidden(message: dict[str, Any], role: str | None,
                          record: dict[str, Any]) -> None:
    """Assert that ``message``, sent to ``role`` during the hand ``record``,
    shows it nothing it may not see: no card code out of its sight, a seat's
    view exactly the engine's observation, spectators no hand at all."""
    view = message["view"]
    allowed = visible_codes(record, role, view)
    for path, code in card_strings(message):
        assert code in allowed, f"{role or 'spectator'} was shown {code} at {'.'.join(path)}"
    played = {code: 0 for code in message["seen"]}
    for play in view["plays"]:
        played[play["card"]] += 1
    assert message["seen"] == played
    if role is None:
        assert view["hand"] == [] and view["legal"] == [] and view["seat"] is None
    else:
        assert view == engine_view(record, role, view)
    if view["phase"] not in _OVER:
        assert "all_hands" not in view and "undealt" not in view
    if "hand_over" in message:
        assert view["phase"] in _OVER
