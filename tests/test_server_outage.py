"""A database that cannot be written, nor read, while a table is played: the
table stays at its last stored event (docs/server.md, "memory never runs ahead
of the database"), and a table whose log cannot be replayed keeps no other
table from loading."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import threading
import time
from contextlib import contextmanager

import pytest
from sqlalchemy import event, text
from sqlalchemy.exc import OperationalError

from flowerbridge import Seat
from flowerbridge.server.config import ServerConfig
from flowerbridge.server.manager import Connection, TableManager
from flowerbridge.server.models import EventRow
from flowerbridge.server.schemas import CreateTable
from flowerbridge.server.store import STORE_FAILED, Append, Store, StoreError
from flowerbridge.server.table import TableError

FOUR_PEOPLE = {"seats": {s: {"player": "human"} for s in "NESW"}, "length": {"hands": 2}}


def _down(*_args, **_kwargs):
    raise StoreError("database write failed: connection refused")


async def _four_people_seated(tmp_path, *, analysis: bool = False):
    """A store, a manager and a new table of four people, each seat connected."""
    store = Store(str(tmp_path / "fb.sqlite"))
    store.migrate()
    manager = TableManager(store, ServerConfig(bot_delay=0, replace_after=None, analysis=analysis))
    live, tokens = await manager.create(CreateTable.model_validate(FOUR_PEOPLE))
    conns = {seat: await _seated(manager, tokens, live, seat) for seat in Seat}
    return store, manager, live, conns


async def _two_tables(tmp_path):
    """A store, a manager and two new tables of four people: (store, manager, good, bad, tokens of bad)."""
    store = Store(str(tmp_path / "fb.sqlite"))
    store.migrate()
    manager = TableManager(store, ServerConfig(bot_delay=0, replace_after=None, analysis=False))
    good, _ = await manager.create(CreateTable.model_validate(FOUR_PEOPLE))
    bad, tokens = await manager.create(CreateTable.model_validate(FOUR_PEOPLE))
    return store, manager, good, bad, tokens


async def _restart_leaves_closed(store, good, bad, why: str) -> TableManager:
    """A server started again on ``store``: ``good`` open, ``bad`` left closed for ``why``."""
    again = TableManager(store, ServerConfig(bot_delay=0, replace_after=None, analysis=False))
    await again.start()
    await again.loaded()
    assert good.table.id in again.tables and bad.table.id not in again.tables
    with pytest.raises(TableError, match=why) as err:
        await again.get(bad.table.id)
    assert err.value.code == "no_table"
    assert await again._open_ids() == [good.table.id]
    return again


async def _seated(manager: TableManager, tokens, live, seat: Seat) -> Connection:
    conn = Connection()
    await manager.join(conn, live.table.id, tokens[seat], None)
    return conn


async def _one_hand_seated(tmp_path):
    """A store, a manager whose stand-ins come 0.3 s after a person leaves, and a new
    one-hand table of four people, each seat connected."""
    store = Store(str(tmp_path / "fb.sqlite"))
    store.migrate()
    manager = TableManager(store, ServerConfig(bot_delay=0, replace_after=0.3, analysis=False))
    live, tokens = await manager.create(CreateTable.model_validate({**FOUR_PEOPLE, "length": {"hands": 1}}))
    return store, manager, live, {seat: await _seated(manager, tokens, live, seat) for seat in Seat}


def test_server_an_action_that_cannot_be_stored_is_not_kept_in_memory(tmp_path, monkeypatch):
    async def scenario() -> None:
        store, manager, live, conns = await _four_people_seated(tmp_path)
        first = live.table.actor
        await manager.submit(conns[first], "call", "1A", None)
        second = live.table.actor
        # The database goes away: neither the write nor the reload after it works.
        monkeypatch.setattr(store, "append", _down)
        monkeypatch.setattr(store, "load", _down)
        with pytest.raises(TableError) as refused:
            await manager.submit(conns[second], "call", "Pass", None)
        assert refused.value.code == "busy"
        assert (live.table.seq, live.table.actor) == (2, second)
        # The next player cannot act on top of the call that was not stored.
        with pytest.raises(Exception, match="out of turn"):
            await manager.submit(conns[second.next()], "call", "Pass", None)
        # The database is back: the same call is made, and the log has no gap.
        monkeypatch.undo()
        await manager.submit(conns[second], "call", "Pass", None)
        stored = store.load(live.table.id)
        assert [(e.seq, e.action) for e in stored.events] == [(1, None), (2, "1A"), (3, "Pass")]
        assert live.table.seq == 3
        await manager.stop()

    asyncio.run(scenario())


def test_server_start_loads_every_table_it_can_and_names_one_that_does_not_replay(tmp_path):
    async def scenario() -> None:
        store, manager, good, bad, _ = await _two_tables(tmp_path)
        actor = bad.table.actor
        # a log with a gap: the first call stored as made by the wrong seat
        store.append([Append(
            bad.table.id, [EventRow(table_id=bad.table.id, seq=2, kind="call", hand=1,
                                    seat=actor.next().name, action="Pass")], None)])
        await manager.stop()

        again = await _restart_leaves_closed(store, good, bad,
                                             "cannot be loaded: its stored log does not replay")
        # what is said to whoever asks names no card: the engine's refusal ("must follow
        # Plains, holds 11P 1Pb 1Pa", a hidden hand) is in the server's log only
        with pytest.raises(TableError) as err:
            await again.get(bad.table.id)
        assert str(err.value) == (f"table {bad.table.id!r} cannot be loaded: its stored log does not "
                                  "replay (the server's log says where)")
        # the lobby lists the others, and the damaged table does not count as open
        assert [t["id"] for t in await again.open_tables()] == [good.table.id]
        await again.stop()

    asyncio.run(scenario())


def test_server_a_database_outage_at_hello_is_a_close_to_retry_not_a_refusal(tmp_path, monkeypatch):
    """A seat's first hello needs one write (the seat has joined); when it fails the
    client hears ``busy`` and the socket closes with 1013 ("try again later"), which
    the browser retries -- not 4400, which it takes as final -- and the seat is not
    taken as joined until the write lands."""
    from flowerbridge.server.testing import ServerThread

    config = ServerConfig(database=f"sqlite:///{tmp_path / 'fb.sqlite'}", bot_delay=0,
                          replace_after=None, analysis=False)
    with ServerThread(config) as server:
        created = server.create_table({s: "human" for s in "NESW"})
        table_id, token = created["table"]["id"], created["invitations"]["S"]["token"]
        manager = server.app.state.manager
        monkeypatch.setattr(manager.store, "mark_joined", _down)
        client = server.client(table_id, token)
        error = client.until(lambda m: m["type"] == "error")
        assert error["code"] == "busy" and error["message"] == STORE_FAILED    # (the detail is logged)
        assert client.recv(timeout=5) is None and client.ws.close_code == 1013
        live = manager.tables[table_id]
        assert not live.table.players[Seat.S].joined and not live.seat_connected(Seat.S)
        # the database is back: the same hello is welcomed, and the seat is stored as joined
        monkeypatch.undo()
        again = server.client(table_id, token)
        assert again.until(lambda m: m["type"] == "welcome")["seat"] == "S"
        assert live.table.players[Seat.S].joined
        assert {s.seat: s.joined for s in manager.store.load(table_id).seats}["S"]
        again.close()


def test_server_a_review_is_not_served_for_a_hand_whose_last_card_is_not_stored(tmp_path,
                                                                                 monkeypatch):
    """The HTTP reads wait for the action being stored: a hand's last card is in
    memory before its commit ends, and a failed commit takes it back. Reading it
    early served a review of a hand the database does not hold, and left that
    hand's analysis stuck at ``pending`` once it was really over."""

    from flowerbridge.server import analysis

    monkeypatch.setattr(analysis, "available", lambda: True)
    monkeypatch.setattr(analysis, "played_values", lambda state, first=0: [(0, 0)] * len(state.plays))

    async def scenario() -> None:
        store, manager, live, conns = await _four_people_seated(tmp_path, analysis=True)
        table_id = live.table.id
        while True:     # 1A by the dealer, then passes; the lowest legal card to the last one
            state = live.table.state
            if state.contract is None:
                action = "1A" if not state.calls else "Pass"
            else:
                action = str(state.legal_cards()[0])
            if len(state.plays) == 51:
                break
            await manager.submit(conns[live.table.actor], "call" if state.contract is None
                                 else "play", action, None)
        # The last card's commit is held up, then fails (the reload too).
        entered, fail = threading.Event(), threading.Event()
        real_append, real_load = store.append, store.load

        def held_append(batch):
            entered.set()
            fail.wait(10)
            raise StoreError("database write failed: connection refused")

        monkeypatch.setattr(store, "append", held_append)
        monkeypatch.setattr(store, "load", _down)
        last = asyncio.create_task(manager.submit(conns[live.table.actor], "play", action, None))
        await asyncio.to_thread(entered.wait, 10)
        early = asyncio.create_task(manager.review(table_id, 1))
        session = asyncio.create_task(manager.session(table_id))
        await asyncio.sleep(0.05)
        fail.set()
        with pytest.raises(TableError):
            await last
        with pytest.raises(TableError) as refused:
            await early
        assert refused.value.code == "no_hand"
        assert (await session)["session"]["hands"] == []
        # The database is back; the card is played again, and the hand's values come.
        monkeypatch.setattr(store, "append", real_append)
        monkeypatch.setattr(store, "load", real_load)
        await manager.submit(conns[live.table.actor], "play", action, None)
        for _ in range(200):
            if live.table.hands[0].dd_status == "ready":
                break
            await asyncio.sleep(0.02)
        assert (await manager.review(table_id, 1))["dd_status"] == "ready"
        await manager.stop()

    asyncio.run(scenario())


def _writes_land_then_fail(store: Store, monkeypatch) -> None:
    """Every write commits, then reports failure (a connection lost as the database answers)."""
    real_append = store.append

    def lands_then_fails(batch):
        real_append(batch)
        raise StoreError("database write failed: server closed the connection unexpectedly")

    monkeypatch.setattr(store, "append", lands_then_fails)


@contextmanager
def _commits_fail(store: Store, *, landed: bool):
    """Every transaction's COMMIT reports failure, having committed (``landed``: a
    connection lost as the database answers) or not."""
    def commit(connection) -> None:
        if landed:
            connection.connection.dbapi_connection.commit()
        raise OperationalError("COMMIT", {}, Exception("server closed the connection unexpectedly"))

    event.listen(store.engine, "commit", commit)
    try:
        yield
    finally:
        event.remove(store.engine, "commit", commit)


@pytest.mark.parametrize("landed", [True, False])
def test_server_a_table_stored_though_its_creation_reported_failure_is_made_with_its_tokens(
        tmp_path, landed):
    # create_table took any failure as a refusal: a table whose commit landed was
    # answered 503 yet listed, its people's tokens never given, holding a slot
    async def scenario() -> None:
        store = Store(str(tmp_path / "fb.sqlite"))
        store.migrate()
        manager = TableManager(store, ServerConfig(bot_delay=0, replace_after=None, analysis=False))
        request = CreateTable.model_validate(FOUR_PEOPLE)
        if not landed:
            with _commits_fail(store, landed=False), pytest.raises(StoreError):
                await manager.create(request)
            assert store.table_ids() == [] and manager.tables == {}
            assert await manager._open_ids() == []
            await manager.stop()
            return
        with _commits_fail(store, landed=True):
            live, tokens = await manager.create(request)
        assert store.table_ids() == [live.table.id] == list(manager.tables)
        assert set(tokens) == set(Seat)
        conns = {seat: await _seated(manager, tokens, live, seat) for seat in Seat}
        assert {seat: conn.role for seat, conn in conns.items()} == {seat: seat for seat in Seat}
        await manager.stop()

    asyncio.run(scenario())


@pytest.mark.parametrize("slow", ["read", "replay"])
def test_server_stop_ends_the_loads_under_way(tmp_path, monkeypatch, slow):
    # A load shared among those who asked went on after the server stopped: still
    # reading, it then failed on the closed pools and marked its table damaged;
    # replaying, it put the table in memory after the stop, with bots nobody stops.
    import flowerbridge.server.manager as manager_module

    async def scenario() -> None:
        store, manager, live, _ = await _four_people_seated(tmp_path)
        await manager.stop()
        if slow == "read":
            load = store.load
            monkeypatch.setattr(store, "load", lambda *args: time.sleep(0.3) or load(*args))
        else:
            table = manager_module.Table
            monkeypatch.setattr(manager_module, "Table", lambda *args: time.sleep(0.3) or table(*args))
        again = TableManager(store, ServerConfig(bot_delay=0, replace_after=None, analysis=False))
        await again.start()
        await asyncio.sleep(0.05 if slow == "read" else 0.15)
        await again.stop()
        await asyncio.sleep(0.6)
        assert again.tables == {} and again.unloadable == {} and not again._loading
        assert [task for task in asyncio.all_tasks() if task is not asyncio.current_task()] == []

    asyncio.run(scenario())


def test_server_a_new_table_whose_id_another_table_holds_is_refused_not_taken_for_stored(tmp_path, monkeypatch):
    # The insert fails on the id; the check of whether it landed found the other
    # table of that id and took the new one as stored: the first table was replaced
    # in memory by one the database does not hold, its actions written to the first's log.
    import secrets

    async def scenario() -> None:
        store = Store(str(tmp_path / "fb.sqlite"))
        store.migrate()
        manager = TableManager(store, ServerConfig(bot_delay=0, replace_after=None, analysis=False))
        first, _ = await manager.create(CreateTable.model_validate(FOUR_PEOPLE))
        taken, token_urlsafe = first.table.id, secrets.token_urlsafe
        monkeypatch.setattr(secrets, "token_urlsafe", lambda n=None: taken if n == 6 else token_urlsafe(n))
        with pytest.raises(StoreError):
            await manager.create(CreateTable.model_validate({**FOUR_PEOPLE, "name": "second"}))
        monkeypatch.undo()
        assert manager.tables == {taken: first}
        assert store.load(taken).table.seed == first.table.seed and first.table.name != "second"
        again, _ = await manager.create(CreateTable.model_validate({**FOUR_PEOPLE, "name": "second"}))
        assert again.table.id != taken and set(manager.tables) == {taken, again.table.id}
        await manager.stop()

    asyncio.run(scenario())


def test_server_a_stand_in_clock_running_when_the_session_ends_is_stopped(tmp_path):
    # Only a close stopped the clocks: one running when the last hand ended fired on
    # the finished table, and its presence said a bot stood in at a table that is over.
    async def scenario() -> None:
        store, manager, live, conns = await _one_hand_seated(tmp_path)
        first = live.table.actor
        await manager.submit(conns[first], "call", "Pass", None)
        manager.leave(conns[first])                     # its stand-in clock starts
        assert list(live.timers) == [first]
        for _ in range(3):
            await manager.submit(conns[live.table.actor], "call", "Pass", None)
        assert live.table.is_over and not live.timers   # passed out: the session is over
        # a close of a table whose session is over is told there is nothing to close, not the
        # refusal of an action
        from flowerbridge.server.table import TableError
        with pytest.raises(TableError, match=r"^the session is over: there is nothing left to close$"):
            live.table.close_by(first)
        with pytest.raises(TableError, match=r"^the session is over: nothing more is played here$"):
            live.table.check_open()
        await asyncio.sleep(0.5)
        info = await manager.info(live.table.id)
        assert info["seats"][first.name]["stand_in"] is None and first not in live.stand_ins
        await manager.stop()

    asyncio.run(scenario())


@pytest.mark.parametrize("reload", ["works", "fails"])
def test_server_a_person_who_leaves_while_the_last_call_is_stored_in_vain_gets_a_stand_in(
        tmp_path, monkeypatch, reload):
    # The session-ending call, made in memory, was on its way to the database when South
    # left: taken as leaving a finished table (no stand-in clock). The commit failed, the
    # table was open again, and South's seat never had a stand-in: the table stalled at
    # South's turn for good.
    async def scenario() -> None:
        store, manager, live, conns = await _one_hand_seated(tmp_path)
        for _ in range(3):
            await manager.submit(conns[live.table.actor], "call", "Pass", None)
        last, leaver = live.table.actor, live.table.actor.next()
        entered, fail = threading.Event(), threading.Event()
        real_append = store.append

        def held_append(batch):
            entered.set()
            fail.wait(10)
            raise StoreError("database write failed: disk full")

        monkeypatch.setattr(store, "append", held_append)
        if reload == "fails":
            monkeypatch.setattr(store, "load", _down)
        fourth = asyncio.create_task(manager.submit(conns[last], "call", "Pass", None))
        await asyncio.to_thread(entered.wait, 10)
        assert live.table.is_over                       # in memory, ahead of the database
        manager.leave(conns[leaver])
        fail.set()
        with pytest.raises(TableError) as refused:
            await fourth
        assert refused.value.code == "busy" and not live.table.is_over
        monkeypatch.setattr(store, "append", real_append)
        assert leaver in live.timers and live.table.players[leaver].left_at is not None
        assert live.table.id not in manager._finished   # (not to be forgotten as finished)
        # the last caller bids instead, and play goes on to the seat of the one who left
        await manager.submit(conns[last], "call", "1A", None)
        for _ in range(3):
            if live.table.actor is leaver:
                break
            await manager.submit(conns[live.table.actor], "call", "Pass", None)
        seq = live.table.seq
        for _ in range(100):
            await asyncio.sleep(0.02)
            if live.table.seq > seq:
                break
        assert leaver in live.stand_ins and live.table.seq > seq      # its stand-in acted
        await manager.stop()

    asyncio.run(scenario())


def test_server_a_seat_stored_as_joined_though_the_write_reported_failure_is_welcomed(tmp_path):
    async def scenario() -> None:
        store = Store(str(tmp_path / "fb.sqlite"))
        store.migrate()
        manager = TableManager(store, ServerConfig(bot_delay=0, replace_after=None, analysis=False))
        live, tokens = await manager.create(CreateTable.model_validate(FOUR_PEOPLE))
        with _commits_fail(store, landed=True):
            conn = await _seated(manager, tokens, live, Seat.S)
        assert conn.role is Seat.S and live.table.players[Seat.S].joined
        assert store.seat_joined(live.table.id, "S")
        with _commits_fail(store, landed=False), pytest.raises(StoreError):
            await _seated(manager, tokens, live, Seat.N)    # not stored: not joined
        assert not live.table.players[Seat.N].joined and not store.seat_joined(live.table.id, "N")
        await manager.stop()

    asyncio.run(scenario())


def _drain(conn: Connection) -> list[dict]:
    out = []
    while not conn.queue.empty():
        text = conn.queue.get_nowait()
        if text is not None:
            out.append(json.loads(text))
    return out


def test_server_an_action_stored_though_its_write_reported_failure_is_made_and_sent(tmp_path,
                                                                                    monkeypatch):
    # The database fails after its commit (a connection lost as it answers): the
    # reload finds the action stored, so it was made -- everyone is told, and the
    # player is not told to try again what the table now refuses as out of turn.
    async def scenario() -> None:
        store, manager, live, conns = await _four_people_seated(tmp_path)
        first = live.table.actor
        await manager.submit(conns[first], "call", "1A", None)
        second = live.table.actor
        _writes_land_then_fail(store, monkeypatch)
        for conn in conns.values():
            _drain(conn)
        await manager.submit(conns[second], "call", "Pass", None)
        assert (live.table.seq, live.table.actor) == (3, second.next())
        for conn in conns.values():
            assert [(m["seq"], m["call"]) for m in _drain(conn) if m["type"] == "call"] == [(3, "Pass")]
        monkeypatch.undo()
        await manager.submit(conns[second.next()], "call", "Pass", None)
        assert [e.seq for e in store.load(live.table.id).events] == [1, 2, 3, 4]
        await manager.stop()

    asyncio.run(scenario())


@pytest.mark.parametrize("damage", [
    "UPDATE events SET seat = 'X' WHERE seq = 2",
    "UPDATE events SET detail = NULL WHERE seq = 1",
    "UPDATE events SET detail = '{}' WHERE seq = 1",
    "UPDATE events SET action = NULL WHERE seq = 2",
    "DELETE FROM seats WHERE seat = 'W'",
    "INSERT INTO analyses (table_id, hand, \"values\", created_at) "
    "VALUES (:id, 1, '[[1, 2, 3]]', CURRENT_TIMESTAMP)",
    "UPDATE seats SET player = 'bot', level = 'grandmaster', token_hash = NULL WHERE seat = 'N'",
    # values their columns cannot read: these escaped the load as bare errors, and
    # start-up stopped at that table (older ones left unloaded), the lobby a 500
    "UPDATE events SET detail = 'not json' WHERE seq = 1",
    "UPDATE events SET created_at = 'not a time' WHERE seq = 1",
])
def test_server_start_leaves_a_table_with_a_damaged_row_closed_and_opens_the_others(tmp_path, damage):
    # docs/server.md: a table that cannot be loaded is named in the log and left
    # closed; the server starts, and every other table opens
    async def scenario() -> None:
        store, manager, good, bad, tokens = await _two_tables(tmp_path)
        conn = await _seated(manager, tokens, bad, bad.table.actor)
        await manager.submit(conn, "call", "1A", None)
        await manager.stop()
        with store.engine.begin() as connection:
            connection.execute(text(damage.replace("WHERE", "WHERE table_id = :id AND")
                                    if "WHERE" in damage else damage), {"id": bad.table.id})
        again = await _restart_leaves_closed(store, good, bad, "cannot be loaded")
        assert [t["id"] for t in await again.open_tables()] == [good.table.id]
        await again.stop()

    asyncio.run(scenario())


def test_server_a_database_failure_is_told_to_clients_without_the_databases_address(tmp_path, monkeypatch,
                                                                                    caplog):
    """docs/protocol.md, busy: during a PostgreSQL outage any visitor read the driver's words,
    "connection to server at "10.0.0.5", port 5432 failed", from an HTTP answer or a websocket
    error. They are the operator's: logged; a client is told that the database failed."""
    from flowerbridge.server.testing import ServerThread

    detail = 'database write failed: connection to server at "10.0.0.5", port 5432 failed: refused'

    def down(*_args, **_kwargs):
        raise StoreError(detail)

    config = ServerConfig(database=f"sqlite:///{tmp_path / 'fb.sqlite'}", bot_delay=0,
                          replace_after=None, analysis=False)
    caplog.set_level("ERROR", logger="flowerbridge.server")
    with ServerThread(config) as server:
        created = server.create_table({s: "human" for s in "NESW"})
        store = server.app.state.manager.store
        monkeypatch.setattr(store, "create_table", down)
        answer = server.api("POST", "/api/tables", json={"seats": {s: {"player": "human"} for s in "NESW"}})
        assert answer.status_code == 503
        assert answer.json() == {"error": {"code": "busy", "message": STORE_FAILED}}
        monkeypatch.setattr(store, "mark_joined", down)
        client = server.client(created["table"]["id"], created["invitations"]["E"]["token"])
        error = client.until(lambda m: m["type"] == "error")
        assert (error["code"], error["message"]) == ("busy", STORE_FAILED)
        client.close()
    # the words, once a minute: during an outage every poll and retry meets the same failure
    logged = [r.getMessage() for r in caplog.records if detail in r.getMessage()]
    assert logged == [f'{detail} (told to clients as "{STORE_FAILED}"; said once a minute)'], logged


def test_server_health_says_whether_the_database_answers(tmp_path, monkeypatch):
    """docs/server.md, Health: /api/meta answered 200 while the database was unreachable,
    leaving a probe nothing to point at. /api/health reads the database."""
    from sqlalchemy import create_engine
    from sqlalchemy.orm import sessionmaker

    from flowerbridge.server.testing import ServerThread

    config = ServerConfig(database=f"sqlite:///{tmp_path / 'fb.sqlite'}", bot_delay=0,
                          replace_after=None, analysis=False)
    with ServerThread(config) as server:
        assert server.api("GET", "/api/health").json() == {"status": "ok"}
        gone = create_engine(f"sqlite:///{tmp_path / 'no such folder' / 'fb.sqlite'}")
        monkeypatch.setattr(server.app.state.manager.store, "_sessions", sessionmaker(gone))
        answer = server.api("GET", "/api/health")
        assert (answer.status_code, answer.json()) == (503, {"error": {"code": "busy", "message": STORE_FAILED}})
        assert server.api("GET", "/api/meta").status_code == 200
        monkeypatch.undo()
        assert server.api("GET", "/api/health").status_code == 200


def test_server_a_table_asked_for_by_many_while_a_load_of_it_fails_is_loaded_once(tmp_path, monkeypatch):
    # One load per table: a load that failed (the database away a moment) once let
    # go of the lock others waited on, so that the next waiter's load and a newcomer's
    # ran side by side: two copies of the table in play, each with its own state.
    async def scenario() -> None:
        store, manager, live, _ = await _four_people_seated(tmp_path)
        table_id = live.table.id
        await manager.stop()
        load, calls = store.load, []

        def slow_load(*args):       # off the event loop, on the database's thread
            calls.append(len(calls))
            time.sleep(0.2)
            if len(calls) == 1:
                raise StoreError("database read failed: connection refused")
            return load(*args)

        monkeypatch.setattr(store, "load", slow_load)
        again = TableManager(store, ServerConfig(bot_delay=0, replace_after=None, analysis=False))

        async def get_once(ready):
            while not ready():
                await asyncio.sleep(0.005)
            return await again.get(table_id)

        loading = asyncio.ensure_future(again.get(table_id))
        # one asks while the first load is under way, one once it has failed
        first, waiting, newcomer = await asyncio.gather(
            loading, get_once(lambda: calls), get_once(loading.done), return_exceptions=True)
        assert isinstance(first, StoreError) and isinstance(waiting, StoreError)  # one load, one outcome
        assert newcomer is again.tables[table_id]
        assert await again.get(table_id) is newcomer and not again._loading
        assert len(calls) == 2
        await again.stop()

    asyncio.run(scenario())


def test_server_an_action_the_database_holds_though_memory_let_it_go_is_sent_and_a_later_one_refused(
        tmp_path, monkeypatch):
    # 1A's write lands but is reported failed while reads fail too: memory lets it
    # go. The next call at that seq fails on the stored 1A; the reload finds seq 2
    # stored -- but it is 1A, not this call: this call was not made (it was taken
    # as "stored after all" and lost), and 1A, stored, is sent to everyone now
    async def scenario() -> None:
        store, manager, live, conns = await _four_people_seated(tmp_path)
        first = live.table.actor
        _writes_land_then_fail(store, monkeypatch)
        monkeypatch.setattr(store, "load", _down)
        with pytest.raises(TableError, match="it was not made"):
            await manager.submit(conns[first], "call", "1A", None)
        assert live.table.seq == 1
        monkeypatch.undo()
        for conn in conns.values():
            _drain(conn)
        with pytest.raises(TableError, match="it was not made") as refused:
            await manager.submit(conns[first], "call", "2A", None)
        assert refused.value.code == "busy"
        assert [(e.seq, e.action) for e in store.load(live.table.id).events] == [(1, None), (2, "1A")]
        assert (live.table.seq, live.table.actor) == (2, first.next())
        for conn in conns.values():
            assert [(m["seq"], m["call"]) for m in _drain(conn) if m["type"] == "call"] == [(2, "1A")]
        await manager.stop()

    asyncio.run(scenario())


def test_server_joins_waiting_on_the_tables_lock_keep_to_the_connection_limits(tmp_path):
    # counted before the wait only, every join that came in during a commit got in
    from flowerbridge.server.limits import MAX_SEAT_CONNECTIONS, MAX_SPECTATORS

    async def scenario() -> None:
        store, manager, _, live, token = await _two_tables(tmp_path)
        await manager.join(Connection(), live.table.id, token[Seat.N], None)
        async with live.lock:       # as while an action is committed
            joins = [asyncio.create_task(manager.join(Connection(), live.table.id, token[Seat.N], None))
                     for _ in range(2 * MAX_SEAT_CONNECTIONS)]
            joins += [asyncio.create_task(manager.join(Connection(), live.table.id, None, None))
                      for _ in range(2 * MAX_SPECTATORS)]
            await asyncio.sleep(0.05)
        results = await asyncio.gather(*joins, return_exceptions=True)
        assert all(isinstance(r, TableError) and r.code == "too_many" for r in results if r is not None)
        assert sum(c.role is Seat.N for c in live.connections) == MAX_SEAT_CONNECTIONS
        assert sum(c.role is None for c in live.connections) == MAX_SPECTATORS
        await manager.stop()

    asyncio.run(scenario())


def test_server_a_review_known_in_memory_only_survives_the_reload_after_a_failed_commit(tmp_path,
                                                                                         monkeypatch):
    # hand 1's values could not be saved (an outage), so they were known in memory
    # only; a later failed commit rebuilt the table from the database and they
    # were "pending" for good (the analysis is not started twice)
    from flowerbridge.server import analysis

    async def instant(state):
        return []       # a passed-out hand has no card to value

    monkeypatch.setattr(analysis, "run", instant)

    async def scenario() -> None:
        store, manager, live, conns = await _four_people_seated(tmp_path, analysis=True)
        monkeypatch.setattr(store, "save_analysis", _down)
        for _ in range(4):                  # hand 1 passed out
            await manager.submit(conns[live.table.actor], "call", "Pass", None)
        await manager.analyses_idle()       # its save tried (on the database's thread) and failed
        assert live.table.hands[0].dd_status == "ready"
        monkeypatch.setattr(store, "append", _down)     # reads still work: the table is reloaded
        with pytest.raises(TableError, match="it was not made"):
            await manager.submit(conns[live.table.actor], "call", "1A", None)
        assert live.table.hands[0].dd_status == "ready"
        late = Connection()
        await manager.join(late, live.table.id, None, None)
        [snapshot] = [m for m in _drain(late) if m["type"] == "snapshot"]
        assert snapshot["last_review"]["dd_status"] == "ready"
        await manager.stop()

    asyncio.run(scenario())


def test_server_start_answers_at_once_and_loads_a_table_asked_for_ahead_of_the_rest(
        tmp_path, monkeypatch):
    """Start-up replayed every table still playing before the server answered
    (1,025 tables about 50 s): now they load in the background, one at a time,
    and a table someone asks for meanwhile is loaded at once -- its away
    people's stand-in clocks started as at start-up."""
    import threading

    from flowerbridge.server import manager as manager_module

    async def scenario() -> None:
        store = Store(str(tmp_path / "fb.sqlite"))
        store.migrate()
        config = ServerConfig(bot_delay=0, replace_after=60, analysis=False)
        first = TableManager(store, config)
        older, tokens = await first.create(CreateTable.model_validate(FOUR_PEOPLE))
        newer, _ = await first.create(CreateTable.model_validate(FOUR_PEOPLE))
        await first.join(Connection(), older.table.id, tokens[Seat.S], None)
        await first.stop()

        # the newest table is loaded first; its replay is held until released
        release = threading.Event()
        real_table = manager_module.Table

        def held_table(row, *args):
            if row.id == newer.table.id:
                assert release.wait(30)
            return real_table(row, *args)

        monkeypatch.setattr(manager_module, "Table", held_table)
        again = TableManager(store, config)
        await asyncio.wait_for(again.start(), 5)
        try:
            live = await asyncio.wait_for(again.get(older.table.id), 10)
            assert newer.table.id not in again.tables      # still replaying
            assert set(live.timers) == {Seat.S}            # S had joined, and is away
        finally:
            release.set()
        await asyncio.wait_for(again.loaded(), 30)
        assert {older.table.id, newer.table.id} <= set(again.tables)
        assert again.tables[older.table.id] is live
        await again.stop()

    gc_was_frozen = gc.get_freeze_count()
    try:
        asyncio.run(scenario())
    finally:
        if not gc_was_frozen:
            gc.unfreeze()


def test_server_start_with_the_database_down_logs_it_and_a_table_loads_when_asked_for(
        tmp_path, monkeypatch, caplog):
    """Start-up's loading runs in the background: a database down then is logged
    (it sat unread in the task), and the table loads when it is asked for; stop
    waits for the loading to end before the database is closed."""
    async def scenario() -> None:
        store, manager, good, _bad, _ = await _two_tables(tmp_path)
        await manager.stop()
        real = store.table_ids
        monkeypatch.setattr(store, "table_ids", _down)
        again = TableManager(store, ServerConfig(bot_delay=0, replace_after=None, analysis=False))
        with caplog.at_level("ERROR", logger="flowerbridge.server"):
            await again.start()
            await again.loaded()
        assert "the tables still playing were not loaded at start-up" in caplog.text
        assert again.tables == {}
        monkeypatch.setattr(store, "table_ids", real)
        assert (await again.get(good.table.id)).table.id == good.table.id
        await again.stop()

        # stopped while it loads: the loading task has ended when stop returns
        slow = TableManager(store, ServerConfig(bot_delay=0, replace_after=None, analysis=False))
        await slow.start()
        await slow.stop()
        assert slow._start_task is not None and slow._start_task.done()

    asyncio.run(scenario())


@pytest.mark.parametrize("how", ["removed", "replaced"])
def test_server_a_database_file_removed_or_replaced_while_it_runs_stores_nothing_more(tmp_path, how):
    """Nothing accepted is ever lost: with the SQLite file removed (rm) while the server ran,
    every action was still acknowledged, written to the file the server held open, which
    nobody could find once it stopped (a storage review: ~280 events and 6 tables gone).
    Now each commit, and the health probe, first looks for the file it opened."""
    import os
    import shutil

    from flowerbridge.server.testing import ServerThread

    path = tmp_path / "fb.sqlite"
    config = ServerConfig(database=str(path), bot_delay=0, replace_after=None, analysis=False)
    with ServerThread(config) as server:
        created = server.create_table({s: "human" for s in "NESW"})
        table_id = created["table"]["id"]
        live = server.app.state.manager.tables[table_id]
        clients = {s: server.client(table_id, created["invitations"][s]["token"]) for s in "NESW"}
        actor = live.table.actor.name
        clients[actor].send({"type": "call", "call": "1A", "seq": live.table.seq})
        clients[actor].until(lambda m: m["type"] == "call")
        stored = live.table.seq
        if how == "removed":
            for file in tmp_path.glob("fb.sqlite*"):    # the file, its -wal and -shm, its lock
                file.unlink()
        else:   # a copy of it put in its place (mv): another inode
            shutil.copy(path, tmp_path / "copy")
            os.replace(tmp_path / "copy", path)
        actor = live.table.actor.name
        clients[actor].send({"type": "call", "call": "Pass", "seq": live.table.seq})
        error = clients[actor].until(lambda m: m["type"] == "error")
        assert error["code"] == "busy" and "not made" in error["message"], error
        assert live.table.seq == stored      # not made: memory never runs ahead of the file
        answer = server.api("POST", "/api/tables", json={"seats": {s: {"player": "human"} for s in "NESW"}})
        assert answer.status_code == 503 and answer.json()["error"]["code"] == "busy"
        assert server.api("GET", "/api/health").status_code == 503
        for client in clients.values():
            client.close()
    with pytest.raises(StoreError, match=r"was removed or replaced while the server ran"):
        server.app.state.manager.store._check_file()


def test_server_a_commit_failing_again_and_again_is_logged_once_a_minute_without_a_traceback(
        tmp_path, monkeypatch, caplog):
    """docs/server.md, Logging: a database failure is logged with the driver's words once a
    minute; a traceback is a bug's. A disk full logged ~20 lines of traceback for every
    action refused (81 in a few seconds: a storage review)."""
    detail = "database write failed: database or disk is full (a test's)"

    def full(*_args, **_kwargs):
        raise StoreError(detail)

    from flowerbridge.server.store import _FAILURES_TOLD

    def logged() -> list[logging.LogRecord]:
        return [r for r in caplog.records if detail in r.getMessage()]

    def told_earlier(seconds: float) -> None:      # (time.monotonic moved would move asyncio's too)
        for key in _FAILURES_TOLD.told:
            if detail in key:
                _FAILURES_TOLD.told[key] -= seconds

    async def scenario() -> None:
        store, manager, live, conns = await _four_people_seated(tmp_path)
        monkeypatch.setattr(store, "append", full)
        # five refused at once, one more 59 s after the first, one a minute after it
        for seconds in (0, 0, 0, 0, 0, 59, 1):
            told_earlier(seconds)
            with pytest.raises(TableError) as refused:
                await manager.submit(conns[live.table.actor], "call", "Pass", None)
            assert refused.value.code == "busy"
            assert len(logged()) == (2 if seconds == 1 else 1)
        await manager.stop()

    caplog.set_level("ERROR", logger="flowerbridge.server")
    asyncio.run(scenario())
    assert all(record.exc_info is None for record in logged())
    assert logged()[0].getMessage().startswith("table ") and ": could not store seq 2: " in logged()[0].getMessage()


def test_server_a_bots_choice_made_on_a_table_rebuilt_since_is_dropped_and_chosen_again(tmp_path, monkeypatch):
    # A bot reads the table outside its lock, where a person's action may be applied and not
    # yet stored; if that commit fails the table is rebuilt from the database (a new object),
    # and another action may take the same seq. The bot's choice, made on a position that
    # never stood, was played where the seq alone matched; now it is chosen again.
    from flowerbridge.calls import parse_call
    from flowerbridge.server import manager as manager_module

    real_choose = manager_module.choose
    entered, release, made = threading.Event(), threading.Event(), []

    def first_stale(bot, observation):
        made.append(observation)
        if len(made) == 1:
            entered.set()
            release.wait(10)
            return parse_call("7NT"), "chosen on the table before the rebuild"
        return real_choose(bot, observation)
    monkeypatch.setattr(manager_module, "choose", first_stale)

    async def scenario() -> None:
        store = Store(str(tmp_path / "fb.sqlite"))
        store.migrate()
        manager = TableManager(store, ServerConfig(bot_delay=0, replace_after=None, analysis=False))
        request = {"seats": {s: {"player": "bot", "level": "basic"} for s in "NEW"} | {"S": {"player": "human"}}}
        live, tokens = await manager.create(CreateTable.model_validate(request))
        await manager.join(Connection(), live.table.id, tokens[Seat.S], None)
        assert await asyncio.to_thread(entered.wait, 10)      # N, the dealer, thinks
        live.table = live.table.without([])     # rebuilt, at the same seq, as after a failed commit
        release.set()
        deadline = time.monotonic() + 20
        while live.table.seq < 2:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        await manager.stop()
        calls = [e.action for e in store.load(live.table.id).events if e.kind == "call"]
        assert calls[0] != "7NT" and len(made) >= 2, calls
        store.close()

    asyncio.run(scenario())
