"""What a server with many tables costs, and who waits for whom: the
findings of a load review (docs/server.md, "Memory" and "Work off the
event loop")."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import random
import time
import weakref
from datetime import timedelta

from flowerbridge.options import RuleOptions
from flowerbridge.seats import SEATS, Seat
from flowerbridge.server import analysis
from flowerbridge.server import manager as manager_module
from flowerbridge.server.config import ServerConfig
from flowerbridge.server.manager import LOBBY_FRESH_SECONDS, Connection, LiveTable, TableManager
from flowerbridge.server.models import EventRow, utcnow
from flowerbridge.server.schemas import CreateTable
from flowerbridge.server.store import Store
from flowerbridge.server.table import BOT, Event, SeatPlayer, Table

FOUR_BOTS = {"seats": {s: {"player": "bot", "level": "random"} for s in "NESW"},
             "length": {"hands": 2}}


def _played_table(hands: int = 2, seed: int = 1) -> Table:
    rng = random.Random(seed)
    players = {s: SeatPlayer(BOT, "random") for s in SEATS}
    table = Table(*Table.new_rows(None, RuleOptions(), hands, None, players, "random"))
    while not table.is_over:
        action = rng.choice(table.state.legal_actions())  # type: ignore[union-attr]
        kind = "play" if hasattr(action, "suit") else "call"
        table.act(table.actor, kind, str(action))  # type: ignore[arg-type]
    return table


def test_a_table_keeps_its_events_as_records_not_database_rows():
    """A SQLAlchemy row held per event made every table ~1 MB and ~2,000
    objects to walk in each full collection: the log in memory is of
    immutable records, rows made only where it meets the database."""
    table = _played_table()
    events = [e for log in table.hands for e in log.events]
    assert len(events) > 100 and all(type(e) is Event for e in events)
    # loaded from stored rows, the table keeps none of them
    rows = [e.row(table.id) for e in events]
    assert all(isinstance(r, EventRow) for r in rows)
    refs = [weakref.ref(r) for r in rows]
    again = Table(table.row, [], rows)
    del rows
    gc.collect()
    assert not any(ref() is not None for ref in refs)
    assert [tuple(e) for log in again.hands for e in log.events] == [tuple(e) for e in events]
    assert again.session.scoresheet() == table.session.scoresheet()


def test_start_up_moves_the_loaded_tables_out_of_the_collectors_reach(tmp_path):
    async def scenario() -> int:
        store = Store(str(tmp_path / "fb.sqlite"))
        store.migrate()
        config = ServerConfig(bot_delay=0, replace_after=None, analysis=False)
        first = TableManager(store, config)
        live, _ = await first.create(CreateTable.model_validate(FOUR_BOTS))
        await first.stop()
        again = TableManager(Store(str(tmp_path / "fb.sqlite")), config)
        await again.start()
        await again.loaded()
        assert live.table.id in again.tables
        # the loaded table itself is frozen: the collector no longer walks it
        loaded = again.tables[live.table.id].table
        walked = any(o is loaded for o in gc.get_objects())
        await again.stop()
        assert not walked
        return gc.get_freeze_count()

    gc.unfreeze()
    try:
        assert asyncio.run(scenario()) > 0
    finally:
        gc.unfreeze()


def test_finished_hands_wait_for_the_solver_in_a_bounded_queue_the_most_wanted_first(
        tmp_path, monkeypatch):
    """One hand is solved at a time. The queue was unbounded and first come first
    served (at 50 bot tables it grew to 136 hands, and held tables no longer in
    memory): it is bounded, hands of a table with a person connected come first,
    then of one only watched, the newest first; a hand of a table nobody has open
    is not solved when its turn comes, nor one whose table left memory; asked for
    (GET .../hands/N), it is."""
    from flowerbridge.seats import Seat
    from flowerbridge.server import analysis
    from flowerbridge.server import manager as manager_module
    from flowerbridge.server.manager import Connection, LiveTable

    monkeypatch.setattr(manager_module, "MAX_QUEUED_ANALYSES", 10)
    solved: list[tuple[str, int]] = []

    async def scenario() -> None:
        release = asyncio.Event()

        async def fake_run(state):
            await release.wait()
            solved.append(next((name, hand) for name, live in tables.items()
                               for hand, h in enumerate(live.table.session.hands, 1) if h is state))
            return None

        monkeypatch.setattr(analysis, "run", fake_run)
        store = Store(str(tmp_path / "fb.sqlite"))
        store.migrate()
        manager = TableManager(store, ServerConfig(bot_delay=0, replace_after=None))
        tables = {}
        for n, name in enumerate(["person", "watched", "nobody", "gone"]):
            live = LiveTable(_played_table(hands=4, seed=n), manager.broker)
            manager.tables[live.table.id] = tables[name] = live
        for name, role in (("person", Seat.S), ("watched", None), ("gone", None)):
            conn = Connection()
            conn.role, conn.live = role, tables[name]
            manager.broker.subscribe(tables[name].table.id, conn)
        # the first hand queued is taken at once (it waits on release); then
        # hands 1-4 of each table, table by table: 15 more for 10 places, the
        # 4 hands of the table nobody has open and the oldest of one watched
        # (gone 1) left out
        manager._ensure_analysis(tables["person"], 4)
        await asyncio.sleep(0)      # the solver's task starts: it takes that hand, and waits
        assert not manager._analyses and tables["person"].analyses
        for name in ("gone", "nobody", "watched", "person"):
            for hand in range(1, 5):
                manager._ensure_analysis(tables[name], hand)
        assert len(manager._analyses) == 10
        assert {(j.live, j.hand) for j in manager._analyses} >= {(tables["gone"], 2)}
        del manager.tables[tables["gone"].table.id]   # (dropped from memory)
        release.set()
        await manager.analyses_idle()
        assert solved == [("person", 4), ("person", 3), ("person", 2), ("person", 1),
                          ("watched", 4), ("watched", 3), ("watched", 2), ("watched", 1)]
        assert not manager._analyses
        # the hands passed over stay "pending", and are solved when asked for
        nobody = tables["nobody"]
        assert nobody.table.hands[0].dd_status == "pending" and not nobody.analyses
        review = await manager.review(nobody.table.id, 1)
        assert review["dd_status"] == "pending"
        await manager.analyses_idle()
        assert solved[-1] == ("nobody", 1)
        assert (await manager.review(nobody.table.id, 1))["dd_status"] == "unavailable"
        await manager.stop()

    asyncio.run(scenario())


def test_a_quick_bots_move_does_not_wait_behind_slow_bots_decisions(tmp_path, monkeypatch):
    """Every bot decision went through the event loop's one default executor,
    and a pimc decision holds its thread for seconds: 3 basic tables beside 16
    pimc ones saw gaps of 2.7 s (p99). Slow levels think on an executor of their
    own: here 40 tables' pimc bots are all stuck thinking, and a table of random
    bots plays on."""
    import threading

    from flowerbridge.server import manager as manager_module
    from flowerbridge.server.manager import Connection

    stuck = threading.Event()
    thinking = []

    class StuckBot:
        def act(self, observation):
            thinking.append(1)
            stuck.wait()        # (set free at the test's end, whatever happens)
            return observation.legal[0]

    real_new_bot = manager_module.new_bot
    monkeypatch.setattr(manager_module, "new_bot", lambda level, seed: StuckBot()
                        if level == "pimc" else real_new_bot(level, seed))
    monkeypatch.setattr(manager_module, "check_level", lambda level, where: level)

    def four(level: str, hands: int = 1) -> CreateTable:
        return CreateTable.model_validate(
            {"seats": {s: {"player": "bot", "level": level} for s in "NESW"}, "length": {"hands": hands}})

    async def scenario() -> None:
        store = Store(str(tmp_path / "fb.sqlite"))
        store.migrate()
        manager = TableManager(store, ServerConfig(bot_delay=0, replace_after=None, analysis=False))
        try:
            def watch(live) -> Connection:
                conn = Connection()
                conn.live = live
                manager.broker.subscribe(live.table.id, conn)
                manager._kick_bots(live)
                return conn

            slow = []
            for _ in range(40):      # more than any default executor's threads (32 at most)
                live, _ = await manager.create(four("pimc"))
                watch(live)
                slow.append((live, live.table.seq))
            # every thread that thinks for the slow levels is held by a stuck decision
            busy = min(40, os.cpu_count() or 1)
            deadline = asyncio.get_running_loop().time() + 60
            while len(thinking) < busy:
                assert asyncio.get_running_loop().time() < deadline, (len(thinking), busy)
                await asyncio.sleep(0.01)
            # (two hands: a hand of four passes is 5 events, and would end a one-hand table)
            quick, _ = await manager.create(four("random", hands=2))
            start = quick.table.seq
            conn = watch(quick)

            async def eight_moves() -> None:
                while quick.table.seq < start + 8:
                    await conn.queue.get()      # each move is told to the table's watcher

            # The random bots' 8 moves are made while every stuck decision still waits
            # (they are set free only below): behind them, none would come at all. The
            # bound only says when to give up on them, not how fast they must be.
            await asyncio.wait_for(eight_moves(), 60)
            assert not stuck.is_set()
            assert [live.table.seq for live, _ in slow] == [seq for _, seq in slow]   # none moved
        finally:
            stuck.set()
            await manager.stop()

    asyncio.run(scenario())


def test_the_lobby_list_is_made_at_most_once_a_second_but_new_tables_show_at_once(tmp_path):
    """GET /api/tables rendered every open table at each request, on the event
    loop (595 KB for 1,025 tables): requests within a second share one, unless a
    table was opened, closed or finished meanwhile."""
    import json

    async def scenario() -> None:
        store = Store(str(tmp_path / "fb.sqlite"))
        store.migrate()
        manager = TableManager(store, ServerConfig(bot_delay=0, replace_after=None, analysis=False))
        made = []
        real = manager._lobby_tables

        async def counted(wait):
            made.append(1)
            return await real(wait)

        manager._lobby_tables = counted  # type: ignore[method-assign]
        people = {"seats": {s: {"player": "human"} for s in "NESW"}, "length": {"hands": 1}}
        first, _ = await manager.create(CreateTable.model_validate(people))
        answers = await asyncio.gather(*(manager.lobby_json() for _ in range(5)))
        answers.append(await manager.lobby_json())
        assert len(made) == 1 and len({a.body for a in answers}) == 1
        assert [t["id"] for t in json.loads(answers[0].body)["tables"]] == [first.table.id]
        second, _ = await manager.create(CreateTable.model_validate(people))
        listed = [t["id"] for t in json.loads((await manager.lobby_json()).body)["tables"]]
        assert sorted(listed) == sorted([first.table.id, second.table.id]) and len(made) == 2
        await manager.stop()

    asyncio.run(scenario())


PEOPLE = {"seats": {s: {"player": "human"} for s in "NESW"}, "length": {"hands": 1}}


async def _before_a_restart(tmp_path, count: int, config: ServerConfig) -> tuple[Store, list[str]]:
    """A database holding ``count`` tables of four people, made by a server since stopped:
    the store, and the tables' ids in the order they were made."""
    store = Store(str(tmp_path / "fb.sqlite"))
    store.migrate()
    before = TableManager(store, config)
    made = [(await before.create(CreateTable.model_validate(PEOPLE)))[0].table.id for _ in range(count)]
    await before.stop()
    return store, made


def test_the_lobby_list_after_a_restart_waits_for_tables_still_loading_a_moment_and_counts_them(
        tmp_path, monkeypatch):
    """After a restart the lobby's list waited until every open table was loaded (two
    minutes for a thousand tables of sixty hands: a proxy's 504): it waits a moment, lists
    the tables loaded, counts the others, and lists them once they are loaded."""
    monkeypatch.setattr(manager_module, "LOBBY_LOAD_WAIT", 0.2)
    monkeypatch.setattr(manager_module, "LOBBY_FRESH_SECONDS", 0.0)    # (each list made anew)

    async def scenario() -> None:
        config = ServerConfig(bot_delay=0, replace_after=None, analysis=False)
        store, made = await _before_a_restart(tmp_path, 3, config)
        after = TableManager(store, config)    # a restart: nothing in memory
        listed = await after._open_ids()        # newest first: loaded in that order, one at a time
        assert sorted(listed) == sorted(made)
        slow, release = listed[1], asyncio.Event()
        real = after._load

        async def load(table_id):
            if table_id == slow:
                await release.wait()
            return await real(table_id)

        after._load = load  # type: ignore[method-assign]
        answer = json.loads((await asyncio.wait_for(after.lobby_json(), 30)).body)
        assert [t["id"] for t in answer["tables"]] == listed[:1]     # the slow one and the one behind it
        assert answer["loading"] == 2
        release.set()
        await after._warming
        answer = json.loads((await after.lobby_json()).body)
        assert [t["id"] for t in answer["tables"]] == listed and answer["loading"] == 0
        await after.stop()

    asyncio.run(scenario())


def test_the_lobby_list_while_tables_load_after_a_restart_is_still_made_at_most_once_a_second(tmp_path):
    """Each table loaded counted as a change of the open tables: during the loads nearly
    every request made the whole list anew (19 lists for 20 requests)."""

    async def scenario() -> None:
        config = ServerConfig(bot_delay=0, replace_after=None, analysis=False)
        store, _ = await _before_a_restart(tmp_path, 6, config)
        after = TableManager(store, config)
        made = []
        real_lists, real_load = after._lobby_tables, after._load

        async def counted(wait):
            made.append(time.monotonic())
            return await real_lists(wait)

        async def load(table_id):      # each table takes a moment to load
            await asyncio.sleep(0.05)
            return await real_load(table_id)

        after._lobby_tables = counted  # type: ignore[method-assign]
        after._load = load  # type: ignore[method-assign]
        await after.start()
        for _ in range(5):
            await after.lobby_json()
            await asyncio.sleep(0.02)
        await after.loaded()
        # (on an idle machine the five requests take well under a second: one list; on a
        # loaded one they may outlast it, and a second list is then due)
        assert made and all(later - earlier > LOBBY_FRESH_SECONDS - 0.01 for earlier, later in zip(made, made[1:]))
        await after.stop()

    asyncio.run(scenario())


def test_a_creation_on_a_full_server_after_a_restart_loads_only_the_table_it_closes(tmp_path):
    """To close the open table idle longest, the first creation after a restart loaded every
    open table first; the database says which is idle longest."""

    async def scenario() -> None:
        config = ServerConfig(bot_delay=0, replace_after=None, analysis=False, max_tables=3, idle_close=60)
        store, made = await _before_a_restart(tmp_path, 3, config)
        later = lambda: utcnow() + timedelta(hours=1)     # noqa: E731 -- every table idle an hour
        after = TableManager(store, config, clock=later)
        loaded = []
        real = after._load

        async def load(table_id):
            loaded.append(table_id)
            return await real(table_id)

        after._load = load  # type: ignore[method-assign]
        new, _ = await after.create(CreateTable.model_validate(PEOPLE))
        assert loaded == [made[0]]      # the oldest, which was closed to make room
        assert after.tables[made[0]].table.closed_reason.startswith("closed after ")
        assert sorted(await after._open_ids()) == sorted([made[1], made[2], new.table.id])
        await after.stop()

    asyncio.run(scenario())


def test_a_full_analysis_queue_never_pushes_out_the_hand_of_a_person_at_the_table(tmp_path, monkeypatch):
    """Pushed out of a full queue, a seated person's review stayed "pending" for good:
    nothing sends it later, and the web client does not ask again. (Found by a review;
    four tables with a person each, a queue of 2.)"""
    monkeypatch.setattr(manager_module, "MAX_QUEUED_ANALYSES", 2)

    async def scenario():
        release = asyncio.Event()

        async def fake_run(state):
            await release.wait()
            return None
        monkeypatch.setattr(analysis, "run", fake_run)
        store = Store(str(tmp_path / "fb.sqlite"))
        store.migrate()
        manager = TableManager(store, ServerConfig(bot_delay=0, replace_after=None))
        lives, conns = [], []
        for n in range(4):
            live = LiveTable(_played_table(hands=1, seed=n), manager.broker)
            manager.tables[live.table.id] = live
            conn = Connection()
            conn.role, conn.live = Seat.S, live
            manager.broker.subscribe(live.table.id, conn)
            lives.append(live)
            conns.append(conn)
        # each table's last hand ends, one after another (as _made does)
        manager._ensure_analysis(lives[0], 1)
        await asyncio.sleep(0)              # table 0's hand taken by the solver
        for live in lives[1:]:
            manager._ensure_analysis(live, 1)
        release.set()
        await manager.analyses_idle()      # (each review is handed to its connections at once)
        got = []
        for live, conn in zip(lives, conns):
            msgs = []
            while not conn.queue.empty():
                m = conn.queue.get_nowait()
                msgs.append(json.loads(m)["type"] if m else None)
            got.append((live.table.hands[0].dd_status, msgs.count("review")))
        await manager.stop()
        # every person at an open table should get its review
        assert all(status != "pending" and reviews == 1 for status, reviews in got), got

    asyncio.run(scenario())
