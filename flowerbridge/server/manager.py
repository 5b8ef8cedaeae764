"""The live tables: locking, storage, broadcasting, bots and stand-ins.

Every action, a person's or a bot's, takes the same path under the table's
lock: the engine applies it (or refuses it, changing nothing), the new events
are committed to the database, and only then is each connection sent its own
view. If the commit fails the table is rebuilt from the committed log, so
memory never runs ahead of the database.

Fan-out is publish/subscribe per table (:mod:`flowerbridge.server.pubsub`):
a table's connections subscribe to its channel, and each event is rendered
once per role (a seat, or spectators).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import gzip
import hashlib
import itertools
import json
import logging
import math
import os
import re
import secrets
import sys
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, AsyncIterator, Callable, TypeVar, cast

from ..bots.base import Bot, bot_seed
from ..claims import REFUSED
from ..cards import Card
from ..errors import FlowerBridgeError
from ..options import RuleOptions
from ..seats import SEATS, Seat
from ..state import Phase
from . import analysis
from .botplay import advise, check_level, choose, default_bot, hint_level, is_slow, new_bot
from .commit import GroupCommit
from .config import ServerConfig
from ..render import count_text
from .limits import (MAX_QUEUED_BYTES, MAX_SEAT_CONNECTIONS, MAX_SPECTATORS, MAX_SPECTATORS_PER_ADDRESS,
                     SEARCHING_HINTS_PER_ADDRESS, Sparing)
from .models import CreationRow, utcnow
from .repeats import KEPT_SECONDS, Repeatable, reused
from .schemas import MAX_LENGTH, CreateTable, SeatName
from .pubsub import Broadcast, MemoryBroker
from .store import Append, Store, StoreError, log_failure, token_hash
from .table import (BOT, HUMAN, OVER, PROTOCOL_VERSION, Event, SeatPlayer, Table, TableError, as_utc,
                    minutes_text)
from .views import Role

log = logging.getLogger("flowerbridge.server")
T = TypeVar("T")

# A client that lets this many messages pile up unread is dropped, not buffered forever.
MAX_QUEUED = 2000
# How long a bot waits before trying again when its action could not be stored.
BOT_RETRY_SECONDS = 1.0
# Finished tables kept in memory after their last connection left, the most
# recently left ones: a client coming back does not replay the whole log again.
FINISHED_KEPT = 32
# Finished hands waiting for the solver, at most: past it the one least wanted
# (see TableManager._analysis_rank) is dropped from the queue; its review stays
# "pending" and is computed when asked for (GET .../hands/N, or a reconnection
# for the last finished hand).
MAX_QUEUED_ANALYSES = 64
# a review pushed out of a full queue is logged once a minute (under load, every hand is)
_QUEUE_FULL_TOLD = Sparing(again_after=60.0)
# How long the lobby's list (GET /api/tables) is answered from the last one made:
# its cost grows with the tables open (595 KB for 1,025), and many visitors ask at
# once. A table opened, closed or over makes it again at once.
LOBBY_FRESH_SECONDS = 1.0
# A claim is answered no sooner than this after it is judged from: a refusal by the
# double-dummy check alone (some defence takes a trick, the hidden cards as they lie)
# came in a hundredth of a millisecond, one by the sampled layouts after it (the hidden
# cards lie well for the claimant, but a guess is needed) in about one, so how soon a
# refusal came told of the hidden cards (a helper's measurement on 26,000 positions).
CLAIM_ANSWER_SECONDS = 0.25


def _now() -> float:
    """The time a claim was asked at: the clock's own. uvloop's ``loop.time()`` is cached at
    each turn of its loop, so a claim read late in a long turn was taken as asked earlier
    than it was, and answered before its quarter second (0.2499 s, a CI run)."""
    return time.monotonic()


async def _after(started: float, seconds: float) -> None:
    """Wait until ``seconds`` have passed since ``started`` (:func:`_now`), by that clock."""
    while (left := seconds - (_now() - started)) > 0:
        await asyncio.sleep(left)

# Seconds at most a lobby list waits for open tables not yet in memory (after a restart)
# to load: it then lists those loaded and counts the others as loading. It waited for
# every one (two minutes for a thousand tables of sixty hands each: behind a proxy, a 504).
LOBBY_LOAD_WAIT = 2.0

# Seconds at most between two deletions of the creations no longer answered to a repeat
# (repeats.py), while any are kept: each is deleted within this of its ten minutes.
FORGET_SECONDS = 60.0


class CatchUp(str):
    """A message of a catch-up (missed events, a review, a snapshot) as JSON
    text: the writer counts them out of the queue."""


class Snapshot(CatchUp):
    """A snapshot's JSON text."""


class Connection:
    """One websocket client: its role at the table and its outgoing queue.

    Sending never blocks the table: messages are queued as JSON text and a
    writer task (see :mod:`flowerbridge.server.realtime`) drains the queue.
    ``None`` in the queue asks the writer to close with ``close_code``.
    ``queued_bytes`` and ``catch_ups_queued`` say what waits unsent: a client
    that lets :data:`MAX_QUEUED` messages or :data:`~.limits.MAX_QUEUED_BYTES`
    pile up is dropped, and a ``sync`` while a catch-up waits is answered by it.
    """

    def __init__(self, address: str | None = None) -> None:
        self.address = address              # the client's, when known
        self.role: Role = None
        self.live: LiveTable | None = None  # the table it joined
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.close_code = 1000
        self.dropped = False
        self.queued_bytes = 0
        self.catch_ups_queued = 0
        self.gone_code: int | None = None   # the close code the client went with, once gone

    def send(self, message: dict[str, Any] | str) -> None:
        if self.dropped:
            return
        text = message if isinstance(message, str) else json.dumps(message)
        if self.queue.qsize() >= MAX_QUEUED or self.queued_bytes + len(text) > MAX_QUEUED_BYTES:
            # Too slow to keep up: forget its backlog and close (1008, policy violation);
            # it can reconnect and catch up from a snapshot.
            self.drop(1008)
            return
        self.queued_bytes += len(text)
        self.catch_ups_queued += isinstance(text, CatchUp)
        self.queue.put_nowait(text)

    def sent(self, text: str) -> None:
        """The writer has taken ``text`` off the queue."""
        self.queued_bytes -= len(text)
        self.catch_ups_queued -= isinstance(text, CatchUp)

    def drop(self, code: int) -> None:
        """Send nothing more: forget the backlog and close with ``code``."""
        self.dropped = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queued_bytes = self.catch_ups_queued = 0
        self.close(code)

    def close(self, code: int = 1000) -> None:
        self.close_code = code
        self.queue.put_nowait(None)


@dataclass(eq=False)
class LiveTable:
    """A table with what only a running server has: lock, connections, bots, timers."""

    table: Table
    broker: MemoryBroker
    # seconds a person who left has to come back before a stand-in takes the seat (the
    # server's --replace-after; None: never replaced), told with a stand-in to come
    replace_after: float | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    stand_ins: set[Seat] = field(default_factory=set)
    bots: dict[tuple[Seat, str], Bot] = field(default_factory=dict)
    bot_task: asyncio.Task | None = None
    timers: dict[Seat, asyncio.Task] = field(default_factory=dict)
    # the writes of its seats' away and stand-in fields, one at a time (TableManager._record_away)
    away_writes: asyncio.Lock = field(default_factory=asyncio.Lock)
    # its hands queued for the solver or being solved (TableManager._analyse_next)
    analyses: dict[int, "_Analysis"] = field(default_factory=dict)
    # the hint of each seat's last turn asked for, (seq, its task): asked again at the
    # same seq, the same answer (the task's), the bot not run again
    hints: dict[Seat, tuple[int, asyncio.Future]] = field(default_factory=dict)
    # the seq at which each seat's last claim was refused: refused again there unsearched
    claims_refused: dict[Seat, int] = field(default_factory=dict)

    @property
    def connections(self) -> frozenset[Connection]:
        """The connections subscribed to this table."""
        return self.broker.subscribers(self.table.id)  # type: ignore[return-value]

    def publish(self, broadcast: Broadcast) -> None:
        self.broker.publish(self.table.id, broadcast)

    def seat_connected(self, seat: Seat) -> bool:
        return any(c.role is seat for c in self.connections)

    def seat_windows(self, seat: Seat) -> int:
        """How many connections hold ``seat`` (a person's windows, devices included)."""
        return sum(1 for c in self.connections if c.role is seat)

    def level_for(self, seat: Seat) -> str | None:
        """The level of the bot deciding for ``seat`` now; ``None`` for a person."""
        player = self.table.players[seat]
        if player.player == BOT:
            return player.level
        if seat in self.stand_ins and not self.seat_connected(seat):
            return self.table.stand_in_level
        return None

    def bot_for(self, seat: Seat) -> Bot | None:
        """The bot deciding for ``seat`` now: its own, or a stand-in; ``None`` for a person."""
        level = self.level_for(seat)
        if level is None:
            return None
        bot = self.bots.get((seat, level))
        if bot is None:
            bot = self.bots[seat, level] = new_bot(level, bot_seed(self.table.seed, seat.name))
        return bot

    def presence(self) -> dict[str, Any]:
        seats = {}
        for seat in SEATS:
            player = self.table.players[seat]
            human = player.player == HUMAN
            seats[seat.name] = {
                "player": player.player, "level": player.level,
                "connected": self.seat_connected(seat) if human else True,
                "windows": self.seat_windows(seat),
                "stand_in": self.table.stand_in_level if human and seat in self.stand_ins
                and not self.seat_connected(seat) else None,
                # a person who left, their stand-in to come (its clock running): within how
                # many seconds of their leaving, at most (less after a restart)
                "stand_in_after": self.replace_after if seat in self.timers else None}
        return {"seats": seats, "spectators": sum(1 for c in self.connections if c.role is None),
                "waiting": self.waiting}

    @property
    def attended(self) -> bool:
        """Whether the table is to move on: one of its people is here, or, at a
        table of four bots, someone watches. A spectator alone does not drive
        the seats of people who all left (their stand-ins wait for one of them)."""
        people = [seat for seat in SEATS if self.table.players[seat].player == HUMAN]
        if not people:
            return bool(self.connections)
        return any(self.seat_connected(seat) for seat in people)

    @property
    def waiting(self) -> bool:
        """Whether a bot is to act but the table is not attended (bots then wait:
        see :meth:`TableManager._bot_seat`)."""
        seat = self.table.actor
        if seat is None or self.attended:
            return False
        return self.table.players[seat].player == BOT or seat in self.stand_ins

    def info(self) -> dict[str, Any]:
        return {**self.table.info(), **self.presence()}


@dataclass(eq=False)
class _Analysis:
    """A finished hand waiting for its double-dummy values; ``asked``: someone
    asked for its review (GET .../hands/N), so it is computed even with nobody
    at the table; ``order`` counts hands queued, the newest highest."""

    live: LiveTable
    hand: int
    order: int
    asked: bool = False


class LobbyList:
    """The lobby's list as JSON, with its ETag and its gzip form (made once, when
    first asked for: each is shared by every request until the list changes)."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        # weak: one tag for the JSON and its gzip form, which are equivalent but not
        # the same bytes (RFC 9110 keeps a strong tag to one representation)
        self.etag = 'W/"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'
        self._gzipped: bytes | None = None

    @property
    def gzipped(self) -> bytes:
        if self._gzipped is None:
            self._gzipped = gzip.compress(self.body, compresslevel=6, mtime=0)
        return self._gzipped


MAX_CONTRACTS_PER_GAME = 20
"""The most made contracts of the highest value (seven of the best denomination) a game
may need at a table played to a number of games."""


def _games_can_end(options: RuleOptions) -> None:
    """Refuse options under which a game takes more than :data:`MAX_CONTRACTS_PER_GAME`
    grand slams: a table played to games (of bots, say) would hardly end, its log
    growing meanwhile (game_points 1,000,000 at 1 point a trick was taken)."""
    from ..calls import Denomination
    from ..scoring import contract_points

    best = max(contract_points(7, d, options) for d in Denomination)
    needed = -(-options.game_points // best)
    if needed > MAX_CONTRACTS_PER_GAME:
        raise TableError("bad_request",
                         f"option game_points: a game of {options.game_points:,} would take {needed:,} "
                         f"made grand slams or more ({best:,} points each below the line), so a table "
                         f"played to games would hardly end (the most is {MAX_CONTRACTS_PER_GAME}): "
                         "lower game_points, raise contract_points, or give the length in hands")

TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,16}")
"""What a table's id may be (those made are 8 of these characters)."""


def no_table(table_id: str) -> TableError:
    """The error for a table that does not exist: its id as given, cut at 40 characters."""
    shown = repr(table_id) if len(table_id) <= 40 else repr(table_id[:40]) + "…"
    return TableError("no_table", f"there is no table {shown}")


class TableManager:
    """All live tables of one server process."""

    def __init__(self, store: Store, config: ServerConfig,
                 clock: Callable[[], datetime] = utcnow) -> None:
        self.store = store
        self.config = config
        # the time now (UTC), to tell how long a table has been idle, or a person away
        self.clock = clock
        self.tables: dict[str, LiveTable] = {}
        self.broker = MemoryBroker()
        # SQLite takes one writer at a time: one database thread queues the writes
        # instead of letting them wait on file locks.
        self._db_pool = ThreadPoolExecutor(1 if store.is_sqlite else 4, "flowerbridge-db")
        # Bots think, and tables loaded from the database replay, each kind on an
        # executor of its own, so that one kind cannot starve the others: a slow
        # level's decision (pimc) holds its thread for seconds, waiting on its own
        # solvers; a quick level's (basic, random) and a replay take milliseconds.
        cores = os.cpu_count() or 1
        self._slow_bot_pool = ThreadPoolExecutor(cores, "flowerbridge-bot-slow")
        self._bot_pool = ThreadPoolExecutor(2, "flowerbridge-bot")
        self._load_pool = ThreadPoolExecutor(2, "flowerbridge-load")
        # The solver is CPU-bound: one analysis at a time leaves the other cores to
        # play. The hands waiting are a bounded queue, the most wanted solved first.
        self._analyses: list[_Analysis] = []
        self._analysis_order = itertools.count()
        self._analysis_task: asyncio.Task | None = None
        self._commits = GroupCommit(lambda batch: self._db(self.store.append, batch))
        self._loading: dict[str, asyncio.Future[LiveTable]] = {}
        # finished tables in memory that no connection has open, least recently left first
        self._finished: OrderedDict[str, LiveTable] = OrderedDict()
        # tables whose stored log does not replay, with why: left closed, not listed,
        # not counted as open, not replayed again at every request
        self.unloadable: dict[str, str] = {}
        # one creation at a time: the count of open tables, the close of an idle
        # one to make room and the new table's row do not interleave with another's
        self._creating = asyncio.Lock()
        # the lobby's list as JSON: (when made, the lobby_version it was made at, text)
        self._lobby: tuple[float, int, LobbyList] | None = None
        self._lobby_version = 0     # counts changes to the set of open tables
        self._lobby_making: tuple[int, asyncio.Future[LobbyList]] | None = None
        self._start_task: asyncio.Task | None = None     # loading the tables still playing
        self._flag_writes: set[asyncio.Task] = set()     # seats' replaced flags being stored
        self._stopping = False
        self._warming: asyncio.Future[None] | None = None   # the same, for a lobby list that waits
        self._forget_task: asyncio.Task | None = None    # deleting the creations no longer answered
        # the tables each client address made (limits.client_key), by this process: those
        # still open count against config.tables_per_address
        self._made_by: dict[str, list[str]] = {}
        # the searching bots' hints each client address has running: a few at a time (a
        # loop of take-back and hint at tables of its own kept a core each busy, and the
        # tables' own searching bots, which share the pool, waited seconds a card)
        self._hinting: dict[str, set[asyncio.Future[dict[str, Any]]]] = {}

    # ------------------------------------------------------------ life

    async def start(self) -> None:
        """Start loading every table still playing, in the background: the server
        answers meanwhile, and a table asked for is loaded when it is asked for."""
        self._start_task = asyncio.create_task(self._load_playing())
        self._forget_creations_later()      # those left from before a restart

    async def loaded(self) -> None:
        """Wait until the tables still playing at :meth:`start` are loaded."""
        if self._start_task is not None:
            await asyncio.shield(self._start_task)

    async def _load_playing(self) -> None:
        # One table at a time: the other thread of the loading executor stays
        # free for a table someone asks for meanwhile.
        try:
            for table_id in await self._db(self.store.table_ids, "playing"):
                try:
                    await self.get(table_id)
                except TableError as exc:   # one damaged table must not keep the others closed
                    log.error("table %s not loaded: %s", table_id, exc)
        except StoreError as exc:   # (the server answers: each table loads when asked for)
            log.error("the tables still playing were not loaded at start-up: %s", exc)
            return
        # The tables just loaded live as long as the server, mostly: moved out of
        # the collector's reach, a full collection (which pauses every table) no
        # longer walks their objects each time (docs/server.md, "Memory").
        # Frozen objects are still freed by reference counting once dropped (a
        # cycle among them would stay: what start-up loaded, and the few
        # connections and requests alive at that moment, are frozen).
        gc.collect()
        gc.freeze()

    async def stop(self) -> None:
        self._stopping = True       # no more flags written (_record_away)
        for task in (self._start_task, self._warming, self._forget_task):
            if task is not None:
                task.cancel()
                # ended before the database closes (cancelled, it waits for no table)
                await asyncio.gather(task, return_exceptions=True)
        # and the loads under way (shared, they outlive whoever waited on them): ended
        # before the pools and the database close, not left to fail on them (taken for
        # a damaged table) or to finish after the stop, with bots no one will stop
        loads = list(self._loading.values())
        for loading in loads:
            loading.cancel()
        await asyncio.gather(*loads, return_exceptions=True)
        for live in self.tables.values():
            tasks = [live.bot_task, *live.timers.values()]
            for task in tasks:
                if task is not None:
                    task.cancel()
            for conn in live.connections:
                conn.close(1001)
        if self._analysis_task is not None:
            self._analysis_task.cancel()
        # the seats' flags being written: finished, before the database closes (no
        # more are begun once stopping)
        await asyncio.gather(*self._flag_writes, return_exceptions=True)
        # the pimc decisions under way are stopped, not left to run on (up to their
        # 30-second budget) in threads that the process's exit waits for
        pimc = sys.modules.get("flowerbridge.bots.pimc")
        if pimc is not None:
            pimc.stop_all()
        for pool in (self._slow_bot_pool, self._bot_pool, self._load_pool):
            pool.shutdown(wait=False, cancel_futures=True)
        self._db_pool.shutdown(wait=True)

    async def check_database(self) -> None:
        """Raise :class:`StoreError` unless the database answers a read now."""
        await self._db(self.store.check)

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._db_pool, fn, *args)

    # ----------------------------------------------------------- lobby

    async def create(self, request: CreateTable, repeatable: Repeatable | None = None,
                     address: str | None = None) -> tuple[LiveTable, dict[Seat, str]]:
        """A new table, its first hand dealt; returns it with each person's secret token.
        Asked with an ``Idempotency-Key`` (``repeatable``), the table is stored with what
        answers a repeat of the request after a restart (:meth:`made_before`), and its
        tokens are made from the key and a salt kept for that (``repeats.seat_token``).
        The client's ``address`` (``limits.client_key``) may hold ``tables_per_address``
        open tables made by this server, at most (``too_many``)."""
        options = RuleOptions.from_dict(request.options).sensible()
        if request.length.games is not None:
            _games_can_end(options)
        # ("" is no level: refused, as a bot seat's is, not taken as the default)
        stand_in = check_level(default_bot() if request.stand_in is None else request.stand_in, "stand_in")
        players: dict[Seat, SeatPlayer] = {}
        tokens: dict[Seat, str] = {}
        salt = secrets.token_hex(32)
        for seat in SEATS:
            choice = request.seats[cast(SeatName, seat.name)]
            if choice.player == BOT:
                players[seat] = SeatPlayer(BOT, check_level(choice.level, f"seats.{seat.name}"))
            else:
                tokens[seat] = new_token() if repeatable is None else repeatable.token(salt, seat.name)
                players[seat] = SeatPlayer(HUMAN, token_hash=token_hash(tokens[seat]))
        # a table played to games ends after MAX_LENGTH hands all the same: random bots take
        # some 18 hands a game, and with game_points raised hundreds, so that a session of
        # 100 games ran to thousands of hands (a scale review: 1,831, 62 MB loaded), and
        # every snapshot carried its whole scoresheet
        rows = Table.new_rows(request.name, options, request.length.hands or MAX_LENGTH, request.length.games,
                              players, stand_in)
        creation = None if repeatable is None else CreationRow(
            key_hash=repeatable.key_hash, table_id=rows[0].id, request_hash=repeatable.request_hash,
            salt=salt, created_at=self.clock())
        async with self._creating:
            open_ids = await self._open_ids()
            mine: list[str] = []
            if address is not None:
                # every address's tables closed or finished since are let go (an address that
                # never came back kept its ids for the life of the process)
                still_open = set(open_ids)
                self._made_by = {made_by: kept for made_by, ids in self._made_by.items()
                                 if (kept := [table_id for table_id in ids if table_id in still_open])}
                mine = self._made_by.setdefault(address, [])
                if len(mine) >= self.config.tables_per_address:
                    # (Retry-After: a minute, as when the server is full: a table may end any time)
                    raise TableError("too_many", f"this address has {count_text(len(mine), 'open table')}, "
                                                 "its most: close one, or let one end, first", retry_after=60)
            if len(open_ids) >= self.config.max_tables:
                await self._make_room(open_ids)
            try:
                await self._db(self.store.create_table, *rows, creation)
            except StoreError:
                # the commit may have landed, its answer lost (a connection dropped
                # after COMMIT): a table stored is made, and its tokens are answered
                # (the id taken by another table is a failure: refused, to be asked again)
                if not await self._stored_after_all(self.store.has_table, rows[0].id, rows[0].seed):
                    raise
                log.warning("table %s was stored after all", rows[0].id)
            live = LiveTable(Table(*rows), self.broker, self.config.replace_after)
            self.tables[live.table.id] = live
            self._lobby_version += 1
            if address is not None:
                mine.append(live.table.id)
        self._kick_bots(live)
        if creation is not None:
            self._forget_creations_later()
        return live, tokens

    async def made_before(self, repeatable: Repeatable) -> tuple[LiveTable, dict[Seat, str]] | None:
        """The table made at this request (the same ``Idempotency-Key`` from the same
        address) within the last :data:`KEPT_SECONDS`, with its people's tokens made
        again, as :meth:`create` gave them; ``None`` where there is none. The key given
        with another request is refused ``conflict``."""
        row = await self._db(self.store.creation, repeatable.key_hash)
        if row is None or as_utc(row.created_at) <= self.clock() - timedelta(seconds=KEPT_SECONDS):
            return None
        if not secrets.compare_digest(row.request_hash, repeatable.request_hash):
            raise reused()
        live = await self.get(row.table_id)
        tokens = {seat: token for seat in SEATS
                  if live.table.seat_for_token_hash(token_hash(
                      token := repeatable.token(row.salt, seat.name))) == seat}
        return live, tokens

    def _forget_creations_later(self) -> None:
        """Have the creations kept for a repeat deleted as they expire (one task, while
        any are kept): a quiet server keeps no salt past its ten minutes."""
        if not self._stopping and (self._forget_task is None or self._forget_task.done()):
            self._forget_task = asyncio.create_task(self._forget_creations())

    async def _forget_creations(self) -> None:
        kept = timedelta(seconds=KEPT_SECONDS)
        while True:
            try:
                oldest = await self._db(self.store.forget_creations, self.clock() - kept)
            except StoreError as exc:
                log.warning("the creations no longer answered were not deleted (tried again "
                            "in %d s): %s", FORGET_SECONDS, exc)
                await asyncio.sleep(FORGET_SECONDS)
                continue
            if oldest is None:
                return
            wait = (as_utc(oldest) + kept - self.clock()).total_seconds()
            await asyncio.sleep(min(FORGET_SECONDS, max(1.0, wait)))

    async def _stored_after_all(self, lookup: Callable[..., bool], *args: Any) -> bool:
        """After a write reported failed: whether ``lookup`` finds it stored
        (``False`` when the database cannot be read either)."""
        try:
            return await self._db(lookup, *args)
        except StoreError:
            return False

    async def _make_room(self, open_ids: list[str]) -> None:
        """Close the open table idle longest, to make room for a new one: no
        seat's connection open to it and no event for ``config.idle_close`` seconds,
        the one whose latest event is oldest. Refuses (``full``) when none is.
        (A spectator's connection keeps no table: one socket watching each table kept
        a full server full for good, and a table without play shows it nothing.)

        The tables not in memory are ordered by their latest event as the database
        has it, and loaded only as they are looked at: the first creation after a
        restart loaded every open table first (two minutes for a thousand long ones)."""
        now, idle = self.clock(), timedelta(seconds=self.config.idle_close)
        stored = await self._db(self.store.last_played, [i for i in open_ids if i not in self.tables])

        def latest(table_id: str) -> datetime:
            live = self.tables.get(table_id)
            return live.table.last_event_at if live is not None else as_utc(stored[table_id])

        candidates = sorted((i for i in open_ids if i in self.tables or i in stored), key=latest)
        oldest: datetime | None = None      # the latest event of the table idle longest, unwatched
        for table_id in candidates:
            known = self.tables.get(table_id)
            if known is not None and (_seated_here(known) or known.table.is_over):
                continue
            first = oldest is None
            if first:
                oldest = latest(table_id)
            if now - latest(table_id) < idle:
                break       # (the others are idle for less time still)
            try:
                live = await self.get(table_id)
            except TableError:  # damaged, found just now: not open after all (nor the one timed)
                if first:
                    oldest = None
                continue
            async with live.lock:
                # again, under the lock: an action or a connection may have come meanwhile
                since = now - live.table.last_event_at
                if _seated_here(live) or live.table.is_over or since < idle:
                    continue
                rows = live.table.close(int(since.total_seconds() // 60))
                await self._store(live, rows)
                self._lobby_version += 1
                # its spectators, if any, are told as at a close by its person: a snapshot
                _publish_snapshot(live)
            self._closed(live)
            self._keep_finished(live)   # no seat has it open: kept a while, as finished ones are
            return
        wait = oldest + idle - now if oldest is not None else None
        soonest = (f"; the table idle longest can be closed to make room in about "
                   f"{_minutes_until(wait)}" if wait is not None else "")
        # (more than its most after a restart with a lower --max-tables: the count said the most)
        tables = count_text(len(open_ids), "table")
        most = "its most" if len(open_ids) <= self.config.max_tables else \
            f"more than its most, {self.config.max_tables:,}"
        # Retry-After: until then (a minute at least), or a minute when every table is in use
        retry = max(60, math.ceil(wait.total_seconds())) if wait is not None else 60
        raise TableError("full", f"the server has {tables} open, {most}, and none has gone "
                                 f"{_minutes(idle)} without play and without a player: try again "
                                 f"when one has finished{soonest}",
                         retry_after=retry)

    @classmethod
    def _closed(cls, live: LiveTable) -> None:
        """A table just closed: logged, and its stand-in clocks stopped."""
        log.info("table %s %s", live.table.id, live.table.closed_reason)
        cls._stop_clocks(live)

    @staticmethod
    def _stop_clocks(live: LiveTable) -> None:
        """The table is over (its session ended, or it was closed): no stand-in will be needed."""
        for timer in live.timers.values():
            timer.cancel()
        live.timers.clear()

    async def get(self, table_id: str) -> LiveTable:
        """A table by id, loaded from the database on first use. An id no table can
        have is no table, not asked of the database (PostgreSQL refused a NUL in one
        as a failed read: 'busy', which a page retries for ever)."""
        live = self.tables.get(table_id)
        if live is not None:
            return live
        if not TABLE_ID.fullmatch(table_id):
            raise no_table(table_id)
        # One load per table however many clients ask at once: the first to ask
        # starts it, the others wait on that same load and share its outcome (a
        # failure too: each asks afresh after it). The load goes on if the one who
        # started it stops waiting. (Each caller once took a lock of its own
        # making: one that failed dropped the lock others still waited on, and a
        # table could be loaded twice, two copies in play.)
        loading = self._loading.get(table_id)
        if loading is None:
            loading = asyncio.ensure_future(self._open(table_id))
            self._loading[table_id] = loading
            loading.add_done_callback(lambda done: self._opened(table_id, done))
        return await asyncio.shield(loading)

    async def _open(self, table_id: str) -> LiveTable:
        """Load a table into memory: the one load :meth:`get` waits on."""
        live = LiveTable(await self._load(table_id), self.broker, self.config.replace_after)
        self.tables[table_id] = live
        # nobody is connected yet: a person who had joined is away, and one whose
        # stand-in played before the restart has it play on at once (unless the
        # server now puts in none: --replace-after never); one who had left before
        # it has a stand-in --replace-after after they left, the others (connected
        # when the server stopped) after --replace-after from now
        now, after = self.clock(), self.config.replace_after
        for seat, player in live.table.players.items():
            if player.player == HUMAN and player.joined:
                if player.replaced and after is not None and not live.table.is_over:
                    live.stand_ins.add(seat)
                elif player.left_at is not None and after is not None:
                    away = (now - player.left_at).total_seconds()
                    # (a clock set back since: no longer than a whole one)
                    self._start_stand_in_clock(live, seat, min(after, max(0.0, after - away)))
                else:
                    if after is not None and not live.table.is_over:
                        # away from now on, as stored: another restart before they
                        # come back gives them what is left of this clock, not another
                        player.left_at = now
                        self._record_away(live, seat)
                    self._start_stand_in_clock(live, seat)
        self._kick_bots(live)
        if live.table.is_over:
            self._keep_finished(live)
        return live

    def _opened(self, table_id: str, loading: asyncio.Future) -> None:
        if self._loading.get(table_id) is loading:
            del self._loading[table_id]
        if not loading.cancelled():
            loading.exception()     # taken: a failure its waiters all left is no "never retrieved"

    async def _load(self, table_id: str) -> Table:
        if table_id in self.unloadable:
            raise TableError("no_table", self.unloadable[table_id])
        try:
            # a row whose values its columns cannot read (a JSON text that is not
            # JSON, a time that is not one) fails here, as a damaged table
            stored = await self._db(self.store.load, table_id)
            if stored is None:
                raise no_table(table_id)
            # replaying a long log takes a while: off the event loop, as reads are
            table = await asyncio.get_running_loop().run_in_executor(
                self._load_pool, Table, stored.table, stored.seats, stored.events, stored.analyses)
            missing = [seat.name for seat in SEATS if seat not in table.players]
            if missing:
                raise ValueError(f"no seat row for {', '.join(missing)}")
            for seat, player in table.players.items():
                if player.player == BOT:
                    check_level(player.level, f"seat {seat.name}")
            check_level(table.stand_in_level, "stand-in")
        except StoreError:      # the database failing, not the table: asked again later
            raise
        except TableError as exc:
            if exc.code != "bad_request":   # bad_request: a bot level this build lacks
                raise
            why = f"table {table_id!r} cannot be loaded: {exc}"
        # The reason said to whoever asks is the kind alone, its detail in the log only:
        # the engine's refusal names the cards at fault ("must follow Plains, holds 11P
        # 1Pb 1Pa"), a hidden hand's, which reached anyone who asked for the table.
        except FlowerBridgeError as exc:
            log.error("table %s: its stored log does not replay: %s", table_id, exc)
            why = (f"table {table_id!r} cannot be loaded: its stored log does not replay (the "
                   "server's log says where)")
        except Exception as exc:  # noqa: BLE001 - a damaged row: that table alone stays closed
            log.exception("table %s: stored rows do not make a table", table_id)
            why = (f"table {table_id!r} cannot be loaded: its stored rows are damaged "
                   f"({type(exc).__name__}; the server's log says where)")
        else:
            return table
        self.unloadable[table_id] = why
        raise TableError("no_table", why) from None

    async def _open_ids(self) -> list[str]:
        """The tables still playing, newest first, but those that cannot be loaded."""
        ids = await self._db(self.store.table_ids, "playing")
        return [table_id for table_id in ids if table_id not in self.unloadable]

    async def lobby_json(self) -> "LobbyList":
        """``GET /api/tables``'s answer, ``{"tables": [...], "loading": n}`` as JSON
        (:meth:`_lobby_tables`: the open tables in memory, and how many are still
        loading): the last one made while it is under :data:`LOBBY_FRESH_SECONDS` old
        and no table has been opened, closed or finished since; requests meanwhile
        share one."""
        made = self._lobby
        version = self._lobby_version
        if made is not None and made[1] == version \
                and time.monotonic() - made[0] < LOBBY_FRESH_SECONDS:
            return made[2]
        if self._lobby_making is None or self._lobby_making[0] != version:
            self._lobby_making = (version, asyncio.ensure_future(self._make_lobby(version)))
        return await asyncio.shield(self._lobby_making[1])

    async def _make_lobby(self, version: int) -> "LobbyList":
        start = time.monotonic()
        try:
            tables, loading = await self._lobby_tables(LOBBY_LOAD_WAIT)
            text = json.dumps({"tables": tables, "loading": loading}).encode()
            made = LobbyList(text) if self._lobby is None or self._lobby[2].body != text \
                else self._lobby[2]      # unchanged: its ETag and compressed form kept
        finally:
            if self._lobby_making is not None and self._lobby_making[0] == version:
                self._lobby_making = None
        self._lobby = (start, version, made)
        return made

    async def _lobby_tables(self, wait: float) -> tuple[list[dict[str, Any]], int]:
        """The tables whose session is not over, newest first, described as
        :meth:`open_tables` describes them, waiting at most ``wait`` seconds for those
        not in memory (they go on loading, one at a time, in the background): those
        loaded, and how many of the others are still loading (:meth:`open_tables`, used
        by the tests, waits for every one)."""
        ids = await self._open_ids()
        missing = [table_id for table_id in ids if table_id not in self.tables]
        if missing:
            if self._warming is None or self._warming.done():
                self._warming = asyncio.ensure_future(self._warm(missing))
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._warming), wait)
        loaded = [table_id for table_id in ids if table_id in self.tables]
        loading = sum(1 for table_id in ids if table_id not in self.tables and table_id not in self.unloadable)
        return await self._listed(loaded), loading

    async def _warm(self, table_ids: list[str]) -> None:
        """Load these tables one at a time, as start-up does (:meth:`_load_playing`)."""
        for table_id in table_ids:
            if table_id in self.tables or table_id in self.unloadable:
                continue
            try:
                await self.get(table_id)
            except TableError as exc:
                log.error("table %s not loaded: %s", table_id, exc)
            except StoreError:      # (the database is down: loaded when it is back and asked for)
                return

    async def open_tables(self) -> list[dict[str, Any]]:
        """Tables whose session is not over, newest first (a table whose stored log
        does not replay is left out: the log names it)."""
        return await self._listed(await self._open_ids())

    async def _listed(self, table_ids: list[str]) -> list[dict[str, Any]]:
        """These open tables' descriptions, each loaded first where it is not in memory."""
        out = []
        for table_id in table_ids:
            try:
                live = await self.get(table_id)
            except TableError:
                if table_id in self.unloadable:     # found damaged just now
                    log.error("table %s not loaded: %s", table_id, self.unloadable[table_id])
                    continue
                raise
            async with live.lock:
                out.append(live.info())
        return out

    # ------------------------------------------------------ connections

    async def join(self, conn: Connection, table_id: str, token: str | None,
                   since: int | None) -> None:
        """Seat (or seat as a spectator) a new connection and bring it up to date."""
        live = await self.get(table_id)
        role: Role = None
        if token is not None:
            role = live.table.seat_for_token_hash(token_hash(token))
            if role is None:
                raise TableError("unauthorized", "this token holds no seat at this table")
        _check_room(live, conn, role)
        if role is not None and not live.table.players[role].joined:
            # stored first: a seat is not taken as joined (its stand-in clock started
            # after a restart) unless the database says so
            try:
                await self._db(self.store.mark_joined, table_id, role.name)
            except StoreError:
                if not await self._stored_after_all(self.store.seat_joined, table_id, role.name):
                    raise
                log.warning("table %s: seat %s was stored as joined after all", table_id,
                            role.name)
            live.table.players[role].joined = True
        async with live.lock:
            _check_room(live, conn, role)     # again: other joins may have come in meanwhile
            conn.role, conn.live = role, live
            live.broker.subscribe(live.table.id, conn)
            # what a stand-in did for them since it took the seat: told once, as it gives it back
            stood_in = live.table.stood_in(role) if role is not None else []
            if role is not None:
                self._seat_returned(live, role)
            conn.send({"v": PROTOCOL_VERSION, "type": "welcome", "role": _role_name(role),
                       "seat": role.name if role is not None else None, "table": live.info(),
                       "stood_in": stood_in})
            self._catch_up(live, conn, since)
            self._publish_presence(live)
            self._kick_bots(live)   # a table nobody watched waits for its first watcher

    async def sync(self, conn: Connection, since: int) -> None:
        """Send a joined connection what it missed since ``since``, or a snapshot."""
        live = conn.live
        assert live is not None, "sync before join"
        if conn.catch_ups_queued:
            return  # the catch-up on its way, and the events queued after it, bring it up to date
        async with live.lock:
            self._catch_up(live, conn, since, reviews=False)

    def _catch_up(self, live: LiveTable, conn: Connection, since: int | None,
                  reviews: bool = True) -> None:
        # Called under the lock, so no live event can slip in between.
        # The last finished hand's review is in the snapshot, and in the missed
        # messages when its last card is among them: a table loaded again (after a
        # restart) has every hand "pending" until its analysis is known or started.
        # A connection had every review message sent since it joined (``reviews``).
        if live.table.session.hands:
            self._ensure_analysis(live, len(live.table.session.hands))
        missed = live.table.missed_messages(since, conn.role, reviews) if since is not None else None
        if missed is None:
            conn.send(Snapshot(json.dumps(live.table.snapshot(conn.role, live.info()))))
        else:
            for message in missed:
                conn.send(CatchUp(json.dumps(message)))

    def leave(self, conn: Connection, stopping: bool = False) -> None:
        """Forget a closed connection; a person's seat starts its stand-in clock.
        ``stopping``: the server closed it as it stops (the person is not stored as
        away: after the restart they have a whole ``replace_after`` to come back)."""
        live = conn.live
        if live is None or not live.broker.unsubscribe(live.table.id, conn):
            return
        if live.table.is_over and not live.connections:
            # Nothing more happens at this table but its reviews' values coming: kept a while
            self._keep_finished(live)
            return
        if conn.role is not None and not live.seat_connected(conn.role):
            player = live.table.players[conn.role]
            # (not while stopping, in memory either: a write still queued would store it)
            if player.left_at is None and not live.table.is_over and not (stopping or self._stopping):
                player.left_at = self.clock()
                self._record_away(live, conn.role)
            self._start_stand_in_clock(live, conn.role)
        self._publish_presence(live)

    def _keep_finished(self, live: LiveTable) -> None:
        """Keep a finished table in memory, as the most recent of the
        :data:`FINISHED_KEPT` that nobody has open: the least recent one is
        forgotten (it is loaded again from the database if anyone asks)."""
        if self.tables.get(live.table.id) is not live:
            return
        self._finished[live.table.id] = live
        self._finished.move_to_end(live.table.id)
        while len(self._finished) > FINISHED_KEPT:
            table_id, old = self._finished.popitem(last=False)
            if not old.connections and self.tables.get(table_id) is old:
                del self.tables[table_id]     # (one open again is kept when it is left)
                # its hands waiting for the solver go too (asked for again, they come back)
                self._analyses = [job for job in self._analyses if job.live is not old]
                old.analyses.clear()

    def _seat_returned(self, live: LiveTable, seat: Seat) -> None:
        timer = live.timers.pop(seat, None)
        if timer is not None:
            timer.cancel()
        live.stand_ins.discard(seat)
        player = live.table.players[seat]
        if player.replaced or player.left_at is not None:
            player.replaced, player.replaced_seq, player.left_at = False, None, None
            self._record_away(live, seat)

    def _start_stand_in_clock(self, live: LiveTable, seat: Seat, delay: float | None = None) -> None:
        """A stand-in for ``seat`` in ``delay`` seconds (default: ``replace_after``)
        unless its person comes back first."""
        if self.config.replace_after is None or live.table.is_over or seat in live.timers:
            return
        wait = self.config.replace_after if delay is None else delay
        live.timers[seat] = asyncio.create_task(self._stand_in_later(live, seat, wait))

    async def _stand_in_later(self, live: LiveTable, seat: Seat, delay: float) -> None:
        await asyncio.sleep(delay)
        # under the lock: no action is half made, so the seq the stand-in starts
        # from is one the log holds (a commit that fails takes its seq back)
        async with live.lock:
            live.timers.pop(seat, None)
            if live.seat_connected(seat) or live.table.is_over:
                return
            live.stand_ins.add(seat)
            player = live.table.players[seat]
            player.replaced, player.replaced_seq = True, live.table.seq
            self._record_away(live, seat)
            self._publish_presence(live)
            self._kick_bots(live)

    def _record_away(self, live: LiveTable, seat: Seat) -> None:
        """Store, in the background, when ``seat``'s person left and whether a
        stand-in plays for them, from which seq: so that after a restart the
        stand-in comes ``replace_after`` after they left (not after the restart)
        or plays on at once, and they are told what it did. Each write stores
        these as memory holds them when the write starts, and a table's writes go
        one at a time, in the order asked: the last one asked stores the latest
        values. A write that fails is logged; the seat stays as stored (after a
        restart its clock may run again from the start, a stand-in play until the
        person comes back, or what it did be told again), as it does for a change
        once the server is stopping (the database is about to close)."""
        if self._stopping:
            log.info("table %s: seat %s's stand-in flag not stored: the server is stopping",
                     live.table.id, seat.name)
            return
        async def write() -> None:
            async with live.away_writes:
                player = live.table.players[seat]
                replaced = player.replaced
                try:
                    await self._db(self.store.mark_away, live.table.id, seat.name, player.left_at,
                                   replaced, player.replaced_seq)
                except StoreError as exc:
                    log.warning("table %s: seat %s not stored as %s: %s", live.table.id, seat.name,
                                "replaced by a stand-in" if replaced
                                else "away" if player.left_at is not None else "back", exc)

        task = asyncio.ensure_future(write())
        self._flag_writes.add(task)
        task.add_done_callback(self._flag_writes.discard)

    @staticmethod
    def _publish_presence(live: LiveTable) -> None:
        live.publish(Broadcast.same({"v": PROTOCOL_VERSION, "type": "presence", **live.presence()}))

    # ---------------------------------------------------------- actions

    async def submit(self, conn: Connection, kind: str, action: str, seq: int | None) -> None:
        """A person's call or card, for the connection's seat."""
        live = conn.live
        if conn.role is None or live is None:
            raise TableError("not_seated", "spectators cannot call or play")
        async with live.lock:
            _check_seq(live, seq)
            await self._commit(live, conn.role, kind, action)

    async def hint(self, conn: Connection, seq: int | None, message_id: str | None) -> None:
        """What a bot would call or play in the person's place, from their own
        view, told to this connection alone: only at a table where every other
        seat is a bot (among people it would be help from outside the game), and
        only at the person's turn. Changes nothing at the table."""
        async with _seated(conn, seq, "only a person seated at the table can ask for a hint") as (live, seat):
            _alone_with_bots(live, seat, "no_hint", "hints are given")
            if live.table.actor is not seat:
                raise TableError("no_hint", "a hint is given at your turn only")
            at = live.table.seq
            asked = live.hints.get(seat)
            if asked is None or asked[0] != at:
                # the first ask of this turn starts the bot; others (a second window, a
                # repeat) wait for the same answer rather than run the bot again
                observation = live.table.state.observation(seat)  # type: ignore[union-attr]
                level = hint_level(live.table.players[s].level for s in SEATS if s is not seat)
                # seeded by the table, the seat and the turn: the same hint for the same turn, and
                # none of the table's own bots is asked (their choices stay as they would be)
                bot = new_bot(level, bot_seed(live.table.seed, seat.name, "hint", at))
                slow = is_slow(level) and conn.address is not None
                running = self._hinting.get(conn.address, set()) if slow else set()   # type: ignore[arg-type]
                if len(running) >= SEARCHING_HINTS_PER_ADDRESS:
                    raise TableError("busy", f"{SEARCHING_HINTS_PER_ADDRESS} hints asked for from this "
                                             "address are still being worked out: ask again once one is given")
                pool = self._slow_bot_pool if is_slow(level) else self._bot_pool
                future = asyncio.ensure_future(self._advise(pool, bot, observation, at, level))
                asked = live.hints[seat] = (at, future)
                if slow:
                    self._hint_running(conn.address, future)  # type: ignore[arg-type]
        reply = await asyncio.shield(asked[1])
        conn.send(reply if message_id is None else {**reply, "id": message_id})

    def _hint_running(self, address: str, future: asyncio.Future[dict[str, Any]]) -> None:
        """Count ``future`` among ``address``'s searching hints until it is done."""
        running = self._hinting.setdefault(address, set())
        running.add(future)

        def done(_: asyncio.Future) -> None:
            running.discard(future)
            if not running and self._hinting.get(address) is running:
                del self._hinting[address]
        future.add_done_callback(done)

    @staticmethod
    async def _advise(pool: ThreadPoolExecutor, bot: Bot, observation: Any, at: int, level: str) -> dict[str, Any]:
        """The ``hint`` message: the bot's choice, on ``pool``."""
        action, explanation = await asyncio.get_running_loop().run_in_executor(pool, advise, bot, observation)
        return {"v": PROTOCOL_VERSION, "type": "hint", "seq": at,
                "kind": "play" if isinstance(action, Card) else "call", "action": str(action),
                "explanation": explanation or None, "level": level}

    async def claim(self, conn: Connection, seq: int | None, message_id: str | None) -> None:
        """The person claims every trick left for their side, at their turn in the
        play, at a table where every other seat is a bot. Judged by
        :func:`flowerbridge.claims.judge_claim` (no defence takes a trick, and no
        guess where the unseen cards lie): accepted, the cards are played out along
        its line, stored in one commit, and the claimant is told first; otherwise
        ``no_claim``."""
        loop = asyncio.get_running_loop()
        asked = _now()
        # (under the table's lock: the table stands still while the claim is judged)
        async with _seated(conn, seq, "only a person seated at the table can claim") as (live, seat):
            _alone_with_bots(live, seat, "no_claim", "claims are made")
            state = live.table.state
            if live.table.actor is not seat or state is None or state.phase is not Phase.PLAY:
                raise TableError("no_claim", "a claim is made in the play, at your turn")
            left, hand = 13 - len(state.tricks), live.table.hand_number
            # (a claim sent again and again costs one search a turn, not one a message)
            refused = live.claims_refused.get(seat) == live.table.seq
            line = None if refused else await loop.run_in_executor(self._slow_bot_pool, _judge_claim, state)
            if line is None:
                live.claims_refused[seat] = live.table.seq
            else:
                await self._accept_claim(conn, live, seat, line, hand, left, message_id, asked)
                return
        # refused: answered once CLAIM_ANSWER_SECONDS are out, the table's lock let go
        # meanwhile (claims sent again and again held it a quarter second each)
        await _after(asked, CLAIM_ANSWER_SECONDS)
        raise TableError("no_claim", f"claim not accepted: {REFUSED}; play on")

    async def _accept_claim(self, conn: Connection, live: LiveTable, seat: Seat, line: list[tuple[Seat, Card]],
                            hand: int, left: int, message_id: str | None, asked: float) -> None:
        """Play a claim out along its judged ``line`` (under the table's lock), stored in
        one commit, the claimant told first, once CLAIM_ANSWER_SECONDS are out."""
        await _after(asked, CLAIM_ANSWER_SECONDS)
        rows: list[Event] = []
        try:
            for _, card in line:
                actor = live.table.actor
                assert actor is not None    # (the hand is not over before the line's end)
                rows += live.table.act(actor, "play", str(card))
        except FlowerBridgeError:   # (a line the engine refuses: a bug) nothing is kept
            if rows:
                live.table = live.table.without(rows)
            raise
        stored = await self._store(live, rows)     # all of it, or nothing (busy)
        reply = {"v": PROTOCOL_VERSION, "type": "claim", "hand": hand, "tricks": left,
                 "side": "NS" if seat in (Seat.N, Seat.S) else "EW"}
        # the claimant hears that it was accepted before the cards come
        conn.send(reply if message_id is None else {**reply, "id": message_id})
        self._made(live, stored)

    async def take_back(self, conn: Connection, seq: int | None) -> None:
        """The person takes back their last call or card of the hand in progress,
        and everything the bots made after it, at a table where every other seat
        is a bot (among people it would take back what the others saw and answered).
        The ``undo`` event goes to everyone at the table; a bot's choice under way
        is dropped, since the table has moved (see :meth:`_run_bots`)."""
        async with _seated(conn, seq, "only a person seated at the table can take back") as (live, seat):
            _alone_with_bots(live, seat, "no_undo", "calls and cards are taken back")
            self._made(live, await self._store(live, live.table.take_back(seat)))

    async def close_table(self, conn: Connection, seq: int | None) -> None:
        """Close the table for good at the word of its person: one who is seated
        and the only person connected to it (the others bots, or away)."""
        # (an ended table is so said, whoever is at it)
        async with _seated(conn, seq, "only a person seated at the table can close it", closing=True) as (live, seat):
            others = [s.full_name for s in SEATS if s is not seat
                      and live.table.players[s].player == HUMAN and live.seat_connected(s)]
            if others:
                here = " and ".join(others)
                raise TableError("not_alone", f"{here} {'is' if len(others) == 1 else 'are'} at "
                                              "the table too: it can be closed only by the one "
                                              "person at it")
            await self._store(live, live.table.close_by(seat))
            self._lobby_version += 1    # (no longer listed)
            self._closed(live)
            # the close is no event message: a closed table is brought up to date
            # by a snapshot (docs/protocol.md), which says that it is closed and why
            _publish_snapshot(live)

    async def _commit(self, live: LiveTable, seat: Seat, kind: str, action: str,
                      explanation: str | None = None, stand_in: bool = False) -> None:
        # Under the table's lock: engine, then database, then the world.
        rows = live.table.act(seat, kind, action, explanation, stand_in)
        self._made(live, await self._store(live, rows))

    async def _store(self, live: LiveTable, rows: list[Event]) -> list[Event]:
        """Commit the events the table has just made (under its lock); returns
        the events stored. If the commit fails the table is rebuilt from the
        database and ``busy`` raised, unless the events were stored after all."""
        try:
            # rows only here, where the events meet the database (see table.Event)
            await self._commits.append(Append(live.table.id, [e.row(live.table.id) for e in rows],
                                              OVER if live.table.is_over else None))
        except StoreError as exc:
            log_failure(exc, f"table {live.table.id}: could not store seq {rows[0].seq}")
            # The database is the truth (the write may have landed after all);
            # where it cannot be read either, the table forgets the action in
            # memory, so that nothing runs ahead of what is stored.
            mine, before = rows, live.table
            try:
                live.table = await self._load(live.table.id)
                live.table.keep_analyses(before)    # values known here, not yet stored
                for seat, player in before.players.items():     # and flags on their way there
                    rebuilt = live.table.players[seat]
                    rebuilt.replaced, rebuilt.replaced_seq = player.replaced, player.replaced_seq
                    rebuilt.left_at = player.left_at
                    rebuilt.joined = rebuilt.joined or player.joined
            except StoreError:
                live.table = live.table.without(rows)
            if before.is_over and not live.table.is_over:
                self._not_over_after_all(live)
            # what the database holds from this seq on: this action (it landed, the
            # failure came after the commit), or one whose own write was reported
            # failed while the database could not be read, never sent to anyone
            rows = [e for hand in live.table.hands for e in hand.events if e.seq >= mine[0].seq]
            if not (rows and (rows[0].kind, rows[0].seat, rows[0].action)
                    == (mine[0].kind, mine[0].seat, mine[0].action)):
                if rows:
                    self._made(live, rows)
                raise TableError("busy", "the server could not store that action; it was not "
                                         "made — try again") from None
            log.warning("table %s: seq %d was stored after all", live.table.id, rows[0].seq)
        return rows

    def _not_over_after_all(self, live: LiveTable) -> None:
        """The session's last action was not stored: the table, over in memory while its
        commit was on its way, is open again. A person who left meanwhile was taken as
        leaving a finished table (no stand-in clock, the table kept as finished, to be
        forgotten): they are away now, and their stand-in comes as for anyone who leaves
        (their seat was left with no stand-in for good)."""
        self._finished.pop(live.table.id, None)
        for seat, player in live.table.players.items():
            if player.player != HUMAN or not player.joined or live.seat_connected(seat) \
                    or seat in live.stand_ins or seat in live.timers:
                continue
            if player.left_at is None and not self._stopping:
                player.left_at = self.clock()
                self._record_away(live, seat)
            self._start_stand_in_clock(live, seat)
        self._publish_presence(live)

    def _made(self, live: LiveTable, rows: list[Event]) -> None:
        """Tell the table about stored events: reviews, messages, the bots' turn."""
        # before the messages are made: a server without analysis says so in the
        # hand's own review (a server with it starts a task that runs after them)
        for row in rows:
            if row.kind != "deal" and live.table.is_finished(row.hand):
                self._ensure_analysis(live, row.hand)
        if live.table.is_over:
            self._lobby_version += 1    # (no longer listed)
            self._stop_clocks(live)     # nothing left to stand in for
        live.publish(Broadcast(lambda role: live.table.live_messages(rows, role)))
        self._kick_bots(live)

    # -------------------------------------------------------------- bots

    def _kick_bots(self, live: LiveTable) -> None:
        """Start the table's bot loop if a bot is to act and none is running."""
        if live.bot_task is not None and not live.bot_task.done():
            return
        if self._bot_seat(live) is not None:
            live.bot_task = asyncio.create_task(self._run_bots(live))

    @staticmethod
    def _bot_seat(live: LiveTable) -> Seat | None:
        """The seat a bot is to act for now; ``None`` when the table is not attended.

        Bots play only while one of the table's people is connected, or, at a
        table of four bots, while someone watches (:attr:`LiveTable.attended`):
        a table nobody attends -- four bots unwatched, or people who all left
        with stand-ins in their seats, watched or not -- waits, at no cost, and
        goes on when someone comes (:meth:`join` starts the bots again).
        """
        seat = live.table.actor
        if seat is None or not live.attended:
            return None
        return seat if live.bot_for(seat) is not None else None

    async def _run_bots(self, live: LiveTable) -> None:
        loop = asyncio.get_running_loop()
        while (seat := self._bot_seat(live)) is not None:
            # (the table as it stands may hold a person's action whose commit is under way: if
            # that fails, the table is rebuilt as a new object, and what the bot chose is dropped
            # below, even where another action has taken the same seq since)
            bot, level, table, seq = live.bot_for(seat), live.level_for(seat), live.table, live.table.seq
            if bot is None or level is None:
                await asyncio.sleep(self.config.bot_delay)
                continue
            observation = live.table.state.observation(seat)  # type: ignore[union-attr]
            pool = self._slow_bot_pool if is_slow(level) else self._bot_pool
            # The delay counts the bot's thinking in: a card came --bot-delay after the
            # last action plus the time the bot thought, and that time told the others
            # about its hand (pimc answers at once with a single legal card, and takes
            # longer the more it has to choose from).
            started = loop.time()
            action, explanation = await loop.run_in_executor(pool, choose, bot, observation)
            await asyncio.sleep(max(0.0, self.config.bot_delay - (loop.time() - started)))
            async with live.lock:
                # The person may have come back, or the table moved on, while the bot thought.
                if live.table is not table or live.table.seq != seq or live.bot_for(seat) is not bot \
                        or not live.attended:
                    continue
                kind = "play" if isinstance(action, Card) else "call"
                try:
                    await self._commit(live, seat, kind, str(action), explanation,
                                       stand_in=live.table.players[seat].player == HUMAN)
                except FlowerBridgeError as exc:  # not stored: the table is as it was; retry
                    log.error("table %s: bot %s at %s: %s", live.table.id, type(bot).__name__,
                              seat.name, exc)
                    await asyncio.sleep(BOT_RETRY_SECONDS)

    # ---------------------------------------------------------- reviews

    def _ensure_analysis(self, live: LiveTable, hand: int, asked: bool = False) -> None:
        """Queue a finished hand for its double-dummy values, once, computed off the
        event loop; without analysis, mark them unavailable at once (no "pending" to
        take back). ``asked``: its review was asked for (computed even if nobody is at
        the table)."""
        if live.table.hands[hand - 1].dd_status != "pending":
            return
        if not self.config.analysis:
            # a hand finished before a restart may have been told "pending": say it is not
            live.table.set_analysis(hand, None, announced=live.table.hands[hand - 1].replayed)
            return
        job = live.analyses.get(hand)
        if job is not None:
            job.asked = job.asked or asked
            return
        job = live.analyses[hand] = _Analysis(live, hand, next(self._analysis_order), asked)
        self._analyses.append(job)
        # Full: push out the least wanted hand of a table no person has open. A person
        # with the table open is never left with a review "pending" that nothing will
        # answer (the web client does not ask again); their hands stay, past the cap.
        spare = [queued for queued in self._analyses if self._analysis_rank(queued)[0] < 2] \
            if len(self._analyses) > MAX_QUEUED_ANALYSES else []
        if spare:
            least = min(spare, key=self._analysis_rank)
            self._analyses.remove(least)
            least.live.analyses.pop(least.hand, None)
            if _QUEUE_FULL_TOLD.first("full"):     # (once a minute: under load, every hand)
                log.info("table %s hand %d: review left pending, %d hands queued for the solver "
                         "(said once a minute while the queue is full)",
                         least.live.table.id, least.hand, MAX_QUEUED_ANALYSES)
        if self._analysis_task is None or self._analysis_task.done():
            self._analysis_task = asyncio.create_task(self._analyse_next())

    @staticmethod
    def _analysis_rank(job: _Analysis) -> tuple[int, int]:
        """How much a queued hand's values are wanted, the higher the sooner: asked
        for, or at a table a person has open; at a table only watched; at a table
        nobody has open (0: not computed, see :meth:`_analyse_next`). Newest first."""
        conns = job.live.connections
        if job.asked or any(c.role is not None for c in conns):
            wanted = 2
        else:
            wanted = 1 if conns else 0
        return wanted, job.order

    async def _analyse_next(self) -> None:
        """Solve the queued hands one at a time, the most wanted first. A hand whose
        table nobody has open when its turn comes, or which has left memory, is not
        solved: its review stays "pending" until asked for again."""
        while self._analyses:
            job = max(self._analyses, key=self._analysis_rank)
            self._analyses.remove(job)
            live = job.live
            try:
                if self._analysis_rank(job)[0] > 0 and self.tables.get(live.table.id) is live \
                        and live.table.is_finished(job.hand) \
                        and live.table.hands[job.hand - 1].dd_status == "pending":
                    await self._analyse(live, job.hand)
            finally:
                if live.analyses.get(job.hand) is job:
                    del live.analyses[job.hand]

    async def analyses_idle(self) -> None:
        """Wait until no hand is queued for the solver or being solved."""
        while self._analysis_task is not None and not self._analysis_task.done():
            await asyncio.wait([self._analysis_task])

    async def _analyse(self, live: LiveTable, hand: int) -> None:
        state = live.table.finished_state(hand)
        values = None
        try:
            values = await analysis.run(state)
            if values is not None:
                await self._db(self.store.save_analysis, live.table.id, hand,
                               [list(pair) for pair in values])
        except Exception:  # a solver or database failure must not cost the table its review
            log.exception("table %s hand %d: double-dummy analysis failed", live.table.id, hand)
        live.table.set_analysis(hand, values, announced=True)
        if live.table.is_finished(hand):    # (not a hand taken back by a failed commit)
            live.publish(Broadcast.same(live.table.review_message(hand)))

    # The HTTP reads take the table's lock, as actions do: an action is in memory
    # before its commit ends, and may yet be taken back (see _commit).

    async def review(self, table_id: str, hand: int) -> dict[str, Any]:
        live = await self.get(table_id)
        async with live.lock:
            live.table.finished_state(hand)   # refuses a hand not over, or none (no_hand)
            self._ensure_analysis(live, hand, asked=True)
            return live.table.review(hand)

    async def info(self, table_id: str) -> dict[str, Any]:
        """The table's description with presence (``GET /api/tables/{id}``)."""
        live = await self.get(table_id)
        async with live.lock:
            return live.info()

    async def session(self, table_id: str) -> dict[str, Any]:
        """The session record of the finished hands, and the scoresheet."""
        live = await self.get(table_id)
        async with live.lock:
            return {"session": live.table.session.to_dict(),
                    "scoresheet": live.table.session.scoresheet()}


def new_token() -> str:
    """A fresh secret seat token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def _check_room(live: LiveTable, conn: Connection, role: Role) -> None:
    """Refuse a connection past the seat's (or the spectators', or one address's
    spectators') most at the table."""
    same = sum(c.role is role for c in live.connections)
    if same >= (MAX_SEAT_CONNECTIONS if role is not None else MAX_SPECTATORS):
        raise TableError("too_many", f"this table has {same} connections "
                                     + (f"for seat {role.name}" if role is not None else "of spectators")
                                     + ", its most: close one first")
    if role is None and conn.address is not None:
        here = sum(c.role is None and c.address == conn.address for c in live.connections)
        if here >= MAX_SPECTATORS_PER_ADDRESS:
            raise TableError("too_many", f"this address has {here} spectator connections to "
                                         "this table, its most: close one first")


@contextlib.asynccontextmanager
async def _seated(conn: Connection, seq: int | None, refusal: str,
                  closing: bool = False) -> AsyncIterator[tuple[LiveTable, Seat]]:
    """The connection's table and seat, under the table's lock, for a message only
    a seated person may send: ``not_seated`` (``refusal``) for a spectator; the
    message's ``seq`` checked, and the table open (refused as to a ``closing``
    message when it is one)."""
    live = conn.live
    if conn.role is None or live is None:
        raise TableError("not_seated", refusal)
    async with live.lock:
        _check_seq(live, seq)
        live.table.check_open(closing)
        yield live, conn.role


def _publish_snapshot(live: LiveTable) -> None:
    """Send everyone at the table a snapshot of it, each as their role sees it."""
    live.publish(Broadcast(lambda role: (live.table.snapshot(role, live.info()),)))


def _seated_here(live: LiveTable) -> bool:
    """Whether a seat's person has a connection open to the table (a spectator's aside)."""
    return any(conn.role is not None for conn in live.connections)


def _alone_with_bots(live: LiveTable, seat: Seat, code: str, what: str) -> None:
    """Refuse (``code``) unless every seat but ``seat`` is a bot: among people, a
    hint or a claim judged by the server would be help from outside the game."""
    people = [s.full_name for s in SEATS if s is not seat and live.table.players[s].player == HUMAN]
    if people:
        raise TableError(code, f"{what} only at a table of one person and three bots: "
                               f"{' and '.join(people)} {'plays' if len(people) == 1 else 'play'} here too")


def _judge_claim(state):
    """The line a claim of every trick left is played out along, or None
    (:func:`flowerbridge.claims.judge_claim`; on an executor: the solver searches
    with the GIL released)."""
    from ..claims import judge_claim

    return judge_claim(state)


def _check_seq(live: LiveTable, seq: int | None) -> None:
    """Refuse an action sent on a view of the table older than its latest event."""
    if seq is not None and seq != live.table.seq:
        raise TableError("stale", f"the table is at seq {live.table.seq}, not {seq}: "
                                  "your view is out of date")


def _minutes(span: timedelta) -> str:
    return minutes_text(int(span.total_seconds() // 60))


def _minutes_until(span: timedelta) -> str:
    return _minutes(max(span + timedelta(seconds=59), timedelta(minutes=1)))   # rounded up


def _role_name(role: Role) -> str:
    return "spectator" if role is None else "seat"
