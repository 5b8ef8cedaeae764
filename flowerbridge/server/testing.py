"""Run a real server and talk to it, for tests and benchmarks.

:class:`ServerThread` runs the app on uvicorn in this process (a free loopback
port, its own event loop in a thread); :class:`ServerProcess` runs
``flowerbridge serve`` as a child process that can be killed. :class:`Client`
is a websocket client of one table that records every message it receives.
It needs the test extra (``pip install 'flowerbridge[test]'``: httpx and the
websockets client); the server itself does not import it.
"""

from __future__ import annotations

import functools
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
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

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
                                                    ws_per_message_deflate=False,
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
        self.url = self.before = self.started = ""

    def __enter__(self) -> "ServerProcess":
        # Ctrl-C (SIGINT) reaches the server as from a terminal, even where the tests run
        # in the background (`nohup ... &`), which starts them with SIGINT ignored
        self.process = subprocess.Popen(self.command, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        # the URL's line, past any the server logged before it (a migration at start)
        said, found = "", None
        while self.process.stdout and not found and (line := self.process.stdout.readline()):
            said += line
            found = re.search(r"http://[\w.\[\]:]+", line) if line.startswith("Flower Bridge is at") else None
        if not found:
            self.process.kill()
            rest = self.process.stdout.read() if self.process.stdout else ""
            raise RuntimeError(f"flowerbridge serve did not start: {said}{rest}")
        self.url = found.group(0)
        self.before = said[:said.rindex("Flower Bridge is at")]    # what it logged before the URL
        self.started = said[len(self.before):]                      # and the URL's line
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
        # Entered by hand: a Client lives across calls, not inside one with-block. Every
        # frame is read as it comes (max_queue None), also while the test reads none: with
        # the library's bound a client that read nothing stopped reading its socket, and
        # closing it waited 10 s for a close frame it would not read
        self._connect = connect(url, open_timeout=10, max_size=2 ** 22, max_queue=None)
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
# Fields holding calls (spelled like cards: the bid 2R, the card 2R), text, or table data;
# and ``seen``, the copies played of each code (checked against the plays).
_NOT_CARDS = frozenset({"call", "auction", "contract", "scoresheet", "table", "explanations",
                        "explanation", "options", "seats", "seen"})
# Reviews of finished hands: every card of that hand is public there (RULINGS R6).
FINISHED_PARTS = frozenset({"last_review", "hand_over", "review"})
# What a review holds (docs/protocol.md, "The review"): nothing else may be added unchecked.
REVIEW_KEYS = frozenset({"hand", "dealer", "options", "hands", "undealt", "auction", "contract",
                         "tricks", "score", "record", "dd_status"})
_OVER = ("finished", "passed out")


def card_strings(message: Any, path: tuple = ()):
    """Every ``(path, code)`` in a message where a card code sits where cards go,
    reviews of finished hands left out. ``path`` names the keys down to the code,
    not the places in lists: the codes of one path are one set of cards (a hand,
    the plays), in which a code stands once for each copy shown."""
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


def visible_cards(record: dict[str, Any], role: str | None, view: dict[str, Any]) -> Counter:
    """The cards ``role`` (a seat letter, ``None`` for spectators) may see at
    ``view`` of the hand ``record`` (FORMATS.md), each code as many times as
    copies of it are in sight: its own dealt cards, every card played so far, the
    dummy's from the opening lead on; all 60 once the hand is over."""
    return _visible(_replayed(record, view), record, role)


def _visible(state: HandState, record: dict[str, Any], role: str | None) -> Counter:
    """:func:`visible_cards` at ``state``, the hand of ``record`` replayed."""
    if state.is_over:
        return Counter([*(c for hand in record["hands"].values() for c in hand), *record["undealt"]])
    shown = {role} if role is not None else set()
    if state.plays:
        assert state.contract is not None   # a hand with plays has a contract
        shown.add(state.contract.dummy.name)
    seen = Counter(c for seat in shown for c in record["hands"][seat])
    seen.update(play.card.code for play in state.plays if play.seat.name not in shown)
    return seen


def _replayed(record: dict[str, Any], view: dict[str, Any]) -> HandState:
    """The hand of ``record`` at the point ``view`` describes."""
    state = _dealt(record)
    for call in record["auction"][:len(view["auction"])]:
        state.call(call)
    for card in record["play"][:len(view["plays"])]:
        state.play(card)
    return state


def _dealt(record: dict[str, Any]) -> HandState:
    """The hand of ``record`` at the deal, before any call."""
    deal, options = _deal_of(json.dumps([record["hands"], record["undealt"], record.get("options")]))
    return HandState(deal, Seat[record["dealer"]], options)


@functools.lru_cache(maxsize=16)
def _deal_of(text: str) -> tuple[Deal, RuleOptions]:
    """The deal and the options of a record (each message of a hand reads the same)."""
    hands, undealt, options = json.loads(text)
    return Deal.from_hands(hands, undealt), RuleOptions.from_dict(options)


def assert_nothing_hidden(message: dict[str, Any], role: str | None,
                          records: Mapping[int, dict[str, Any]], finished: int) -> None:
    """Assert that ``message``, sent to ``role``, shows it nothing it may not see.

    ``records`` are the session's hand records by number (a hand in progress as
    far as it was played when the message was sent, or further); ``finished``
    is how many hands were over then. A view shows no card out of the role's
    sight, nor more copies of a code than are in sight; a seat's view is exactly
    the engine's observation, a spectator's holds no hand. A review (a
    ``hand_over``'s, a ``last_review``, a ``review`` message) is of a hand that
    is over, and shows that hand's cards exactly as dealt and played.
    """
    if "view" in message:
        _assert_view(message, role, records[message["hand"]])
    for review in _reviews(message, finished):
        assert 1 <= review["hand"] <= finished, f"a review of hand {review['hand']}, not over"
        assert_review_of(review, records[review["hand"]])


def _assert_view(message: dict[str, Any], role: str | None, record: dict[str, Any]) -> None:
    view = message["view"]
    state = _replayed(record, view)
    allowed = _visible(state, record, role)
    shown: defaultdict[tuple, Counter] = defaultdict(Counter)
    for path, code in card_strings(message):
        shown[path][code] += 1
    for path, codes in shown.items():
        for code, copies in codes.items():
            assert copies <= allowed[code], \
                f"{role or 'spectator'} was shown {code} {copies}x at {'.'.join(path)}, " \
                f"sees {allowed[code]}"
    played = {code: 0 for code in message["seen"]}
    for play in view["plays"]:
        played[play["card"]] += 1
    assert message["seen"] == played
    if role is None:
        assert view["hand"] == [] and view["legal"] == [] and view["seat"] is None
    else:
        assert view == state.observation(Seat[role]).to_dict()     # the engine's
    if view["phase"] in _OVER:
        assert view["all_hands"] == record["hands"] and view["undealt"] == record["undealt"]
    else:
        assert "all_hands" not in view and "undealt" not in view
    if "hand_over" in message:
        assert view["phase"] in _OVER


def _reviews(message: dict[str, Any], finished: int) -> list[dict[str, Any]]:
    """The reviews ``message`` holds, each checked to be the one its place names."""
    reviews = []
    if "hand_over" in message:      # the review of the hand the message ends
        review = message["hand_over"]["review"]
        assert review["hand"] == message["hand"], (review["hand"], message["hand"])
        reviews.append(review)
    if "last_review" in message:    # the latest hand over, if any
        review = message["last_review"]
        if finished:
            assert review is not None and review["hand"] == finished, ("last_review", finished)
            reviews.append(review)
        else:
            assert review is None, "a last_review before any hand is over"
    if message.get("type") == "review":
        assert message["review"]["hand"] == message["hand"]
        reviews.append(message["review"])
    return reviews


def assert_review_of(review: dict[str, Any], record: dict[str, Any]) -> None:
    """Assert that ``review`` shows the finished hand ``record`` and nothing
    else: its cards as dealt (each copy where it was), its calls, its plays."""
    assert review.keys() == REVIEW_KEYS, sorted(review.keys() ^ REVIEW_KEYS)
    assert review["hands"] == record["hands"] and review["undealt"] == record["undealt"]
    assert review["dealer"] == record["dealer"] and review["record"] == record
    assert [c["call"] for c in review["auction"]] == record["auction"]
    assert [p["card"] for trick in review["tricks"] for p in trick["plays"]] == record["play"]
