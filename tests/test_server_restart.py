"""Every accepted action is committed before it is broadcast (issue #5, item 6):
``flowerbridge serve`` is killed with SIGKILL mid-hand and restarted on the
same database, and each table resumes exactly where it was.
"""

from __future__ import annotations

import json
import random
import secrets
import time
from dataclasses import replace
from datetime import timedelta

import pytest

from flowerbridge.server.testing import (ServerProcess, database_for_tests, play_session,
                                         table_request)
from flowerbridge.session import Session

QUIET = ("--replace-after", "never", "--no-analysis")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database(request, tmp_path):
    found = database_for_tests(request.param, tmp_path)
    if found is None:
        pytest.skip("FLOWERBRIDGE_TEST_POSTGRES is not set")
    return found


def test_sigkill_mid_hand_then_restart_resumes_the_table_exactly(database):
    rng = random.Random(9)
    with ServerProcess(database, "--bot-delay", "0", *QUIET) as first:
        created = first.create_table({"N": "random", "E": "random", "S": "human", "W": "random"},
                                     hands=2)
        table_id, token = created["table"]["id"], created["invitations"]["S"]["token"]
        south = first.client(table_id, token)
        south.until(lambda m: m["type"] == "snapshot")
        # South bids 7NT at once: nobody can bid over it, so South declares and plays
        # both South's and North's cards; the table waits whenever South is to play.
        if not south.my_turn:
            south.until(lambda m: south.my_turn)
        south.send({"type": "call", "call": "7NT"})
        acted = None
        while not (south.my_turn and south.view["phase"] == "play"
                   and len(south.view["plays"]) >= 8):
            if south.my_turn and acted != south.seq:
                acted = south.seq
                south.act(rng)
            south.recv(timeout=1)
        before_view, before_seq = south.view, south.seq
        first.kill()
    with ServerProcess(database, "--bot-delay", "0", *QUIET) as second:
        back = second.client(table_id, token)
        snapshot = back.until(lambda m: m["type"] == "snapshot")
        assert snapshot["seq"] == before_seq
        assert snapshot["view"] == before_view
        again = second.client(table_id, token, since=before_seq)
        again.until(lambda m: m["type"] == "welcome")
        assert not [m for m in again.drain() if "seq" in m]  # nothing was missed
        again.close()
        play_session([back], rng)
        record = second.api("GET", f"/api/tables/{table_id}/session").json()
        assert Session.from_dict(record["session"]).scoresheet() == record["scoresheet"]
        assert record["scoresheet"]["hands_played"] == 2


def test_sigkill_while_bots_play_loses_no_event_that_was_broadcast(database):
    with ServerProcess(database, "--bot-delay", "0.005", *QUIET) as first:
        # Nine hands: a passed-out hand is five events (the deal and four passes), so
        # even if every hand is passed out, seq 40 comes mid-session (with six, all six
        # passed out, about once in 1,000 runs, ended the session at seq 30).
        created = first.create_table({s: "random" for s in "NESW"}, hands=9)
        table_id = created["table"]["id"]
        watcher = first.client(table_id)
        watcher.until(lambda m: m.get("seq", 0) >= 40)
        first.kill()
        watcher.drain()
    last_seen = {m["hand"]: m["view"] for m in watcher.messages if "view" in m}
    with ServerProcess(database, "--bot-delay", "0", *QUIET) as second:
        # Resumed, the table waits for someone to watch it (bots play only then).
        resumed = second.api("GET", f"/api/tables/{table_id}").json()["seq"]
        time.sleep(0.5)
        assert second.api("GET", f"/api/tables/{table_id}").json()["seq"] == resumed
        watcher = second.client(table_id)
        deadline = time.monotonic() + 60
        while second.api("GET", f"/api/tables/{table_id}").json()["status"] != "over":
            assert time.monotonic() < deadline, "the resumed table did not finish"
            watcher.drain()
            time.sleep(0.05)
        watcher.close()
        # What the watcher was shown of each hand before the kill is how that hand went.
        for hand, view in last_seen.items():
            record = second.api("GET", f"/api/tables/{table_id}/hands/{hand}").json()["record"]
            assert record["auction"][:len(view["auction"])] == [a["call"] for a in view["auction"]]
            assert record["play"][:len(view["plays"])] == [p["card"] for p in view["plays"]]
        record = second.api("GET", f"/api/tables/{table_id}/session").json()
        assert Session.from_dict(record["session"]).scoresheet() == record["scoresheet"]
        assert record["scoresheet"]["hands_played"] == 9


def test_after_a_restart_a_missed_last_card_brings_its_review_as_the_server_can_give_it(tmp_path):
    # A table loaded again starts with every hand's analysis unknown; a person who
    # missed the hand's last card and reconnects gets its review "unavailable" on a
    # server without analysis, not "pending" with nothing ever to follow.
    from flowerbridge.server.config import ServerConfig
    from flowerbridge.server.testing import ServerThread

    config = ServerConfig(database=str(tmp_path / "t.sqlite"), bot_delay=0, replace_after=None,
                          analysis=False)
    with ServerThread(config) as first:
        created = first.create_table({"S": "human", "N": "random", "E": "random", "W": "random"}, hands=1)
        table_id, token = created["table"]["id"], created["invitations"]["S"]["token"]
        south = first.client(table_id, token, None)
        south.until(lambda m: m["type"] == "snapshot")
        play_session([south], random.Random(2))
        last = max(m.get("seq", 0) for m in south.messages)
        south.close()
    with ServerThread(config) as second:
        south = second.client(table_id, token, last - 1)
        over = south.until(lambda m: "hand_over" in m)
        assert over["seq"] == last and over["hand_over"]["review"]["dd_status"] == "unavailable"
        assert second.api("GET", f"/api/tables/{table_id}/hands/1").json()["dd_status"] == "unavailable"
        south.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def own_database(request, tmp_path):
    """A database with no other test's tables in it (they would count against
    ``max_tables``): a fresh SQLite file, or a schema of its own on PostgreSQL."""
    found = database_for_tests(request.param, tmp_path)
    if found is None:
        pytest.skip("FLOWERBRIDGE_TEST_POSTGRES is not set")
    if request.param == "sqlite":
        yield found
        return
    from sqlalchemy import create_engine, text

    from flowerbridge.server.store import engine_url

    schema = f"fb_test_{secrets.token_hex(4)}"
    engine = create_engine(engine_url(found))
    with engine.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield f"{found}{'&' if '?' in found else '?'}options=-csearch_path%3D{schema}"
    finally:
        with engine.begin() as connection:
            connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        engine.dispose()


def test_a_table_closed_to_make_room_stays_closed_after_a_restart_its_record_readable(own_database,
                                                                                      fixed_table_seed):
    # (the seed is fixed: the bots play on until the server sees the watcher leave, and
    # had hands 2 and 3 both been passed out they could have ended the session first)
    from flowerbridge.server.config import ServerConfig
    from flowerbridge.server.models import utcnow
    from flowerbridge.server.testing import ServerThread

    config = ServerConfig(database=own_database, bot_delay=0, replace_after=None, analysis=False,
                          max_tables=2)
    with ServerThread(config) as first:
        created = first.create_table({s: "random" for s in "NESW"}, hands=3)
        table_id = created["table"]["id"]
        watcher = first.client(table_id)    # the bots play while someone watches
        watcher.until(lambda m: "hand_over" in m)
        watcher.close()
        deadline = time.monotonic() + 20
        while first.api("GET", f"/api/tables/{table_id}").json()["spectators"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        people = first.create_table({s: "human" for s in "NESW"})["table"]["id"]
        first.app.state.manager.clock = lambda: utcnow() + timedelta(hours=2)
        newest = first.create_table({s: "human" for s in "NESW"})["table"]["id"]
        closed = first.api("GET", f"/api/tables/{table_id}").json()
        assert closed["status"] == "over" and closed["closed"].startswith("closed after ")
        record = first.api("GET", f"/api/tables/{table_id}/session").json()
        review = first.api("GET", f"/api/tables/{table_id}/hands/1").json()
    assert record["scoresheet"]["hands_played"] >= 1 and not record["scoresheet"]["is_over"]
    with ServerThread(replace(config, max_tables=3)) as second:
        again = second.api("GET", f"/api/tables/{table_id}").json()
        assert (again["status"], again["closed"], again["seq"]) == \
            (closed["status"], closed["closed"], closed["seq"])
        assert second.api("GET", f"/api/tables/{table_id}/session").json() == record
        assert second.api("GET", f"/api/tables/{table_id}/hands/1").json() == review
        listed = {t["id"] for t in second.api("GET", "/api/tables").json()["tables"]}
        assert listed == {people, newest}
        # not counted: two open of three, room for one more without closing anything
        assert second.api("POST", "/api/tables", json=table_request({s: "human" for s in "NESW"})) \
            .status_code == 201
        watcher = second.client(table_id)
        snapshot = watcher.until(lambda m: m["type"] == "snapshot")
        assert snapshot["table"]["closed"] == closed["closed"] and snapshot["seq"] == closed["seq"]
        assert snapshot["scoresheet"] == record["scoresheet"]
        watcher.close()


def test_a_table_closed_by_its_person_stays_closed_after_a_restart(own_database):
    from flowerbridge.server.config import ServerConfig
    from flowerbridge.server.testing import ServerThread

    config = ServerConfig(database=own_database, bot_delay=0, replace_after=None, analysis=False)
    with ServerThread(config) as first:
        created = first.create_table({"N": "random", "E": "random", "S": "human", "W": "random"})
        table_id = created["table"]["id"]
        south = first.client(table_id, created["invitations"]["S"]["token"])
        south.until(lambda m: m.get("view") and m["view"]["legal"])     # South's turn: it waits
        south.send({"type": "close", "seq": south.seq})
        closed = south.until(lambda m: m["type"] == "snapshot" and m["table"]["closed"])
        south.close()
        record = first.api("GET", f"/api/tables/{table_id}/session").json()
    with ServerThread(config) as second:
        again = second.api("GET", f"/api/tables/{table_id}").json()
        assert (again["status"], again["closed"], again["seq"]) == ("over", "closed by South", closed["seq"])
        assert second.api("GET", f"/api/tables/{table_id}/session").json() == record
        assert table_id not in {t["id"] for t in second.api("GET", "/api/tables").json()["tables"]}


def test_a_stand_in_playing_before_a_restart_plays_on_at_once_after_it(database):
    """docs/server.md, Playing: a person away longer than ``--replace-after`` has a
    stand-in play for them until they come back -- a restart too. The stand-in's
    clock started again after a restart: the table stopped for another
    ``--replace-after`` at the seat of a person long gone."""
    import asyncio

    from flowerbridge import Seat
    from flowerbridge.server.config import ServerConfig
    from flowerbridge.server.manager import Connection, TableManager
    from flowerbridge.server.schemas import CreateTable
    from flowerbridge.server.store import Store

    def manager_on(store: Store, replace_after: float | None) -> TableManager:
        return TableManager(store, ServerConfig(bot_delay=0, replace_after=replace_after, analysis=False))

    async def seated(manager: TableManager, table_id: str, token: str) -> Connection:
        conn = Connection()
        await manager.join(conn, table_id, token, None)
        return conn

    def stored_replaced(store: Store, table_id: str) -> set[Seat]:
        return {Seat[row.seat] for row in store.load(table_id).seats if row.replaced}

    async def until(done, what: str) -> None:
        for _ in range(500):
            if done():
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"not {what} within 10 s")

    async def scenario() -> None:
        store = Store(database)
        store.migrate()
        first = manager_on(store, replace_after=0.05)
        request = {"seats": {s: {"player": "human"} for s in "NESW"}, "length": {"hands": 2},
                   "stand_in": "random"}
        live, tokens = await first.create(CreateTable.model_validate(request))
        table_id = live.table.id
        conns = {seat: await seated(first, table_id, tokens[seat]) for seat in Seat}
        dealer = live.table.actor
        await first.submit(conns[dealer], "call", "Pass", None)
        away = live.table.actor     # the next to call: everyone leaves, away first
        for seat in [away, *(s for s in Seat if s is not away)]:
            first.leave(conns[seat])
        await until(lambda: live.stand_ins == set(Seat), "every seat stood in for")
        await until(lambda: stored_replaced(store, table_id) == set(Seat), "stored")
        assert live.table.seq == 2 and live.table.actor is away    # nobody attends: bots wait
        await first.stop()

        # Restarted with an hour's --replace-after: one person comes back, and the
        # stand-in of the seat to call (away) calls at once.
        again = manager_on(store, replace_after=3600)
        live = await again.get(table_id)
        assert live.stand_ins == set(Seat) and not live.timers
        back = away.next()
        await seated(again, table_id, tokens[back])
        assert live.stand_ins == set(Seat) - {back}
        await until(lambda: live.table.seq > 2, "called for the seat away")
        assert live.table.hands[0].events[2].seat == away.name
        await until(lambda: stored_replaced(store, table_id) == set(Seat) - {back}, "stored as back")
        await again.stop()

        # and once more: the person who came back (and left with the restart) has
        # a clock again, the others their stand-ins at once
        third = manager_on(store, replace_after=3600)
        live = await third.get(table_id)
        assert live.stand_ins == set(Seat) - {back} and set(live.timers) == {back}
        await third.stop()
        # started with --replace-after never: no stand-in at all, as for a new one
        never = manager_on(store, replace_after=None)
        live = await never.get(table_id)
        assert not live.stand_ins and not live.timers
        await never.stop()
        store.close()

    asyncio.run(scenario())


def test_a_person_back_after_a_restart_is_told_what_their_stand_in_did_before_it(database):
    """docs/protocol.md, Seats: the welcome's ``stood_in`` lists what the stand-in did
    since it took the seat -- read off the log, where its calls and cards are marked,
    from the ``seq`` stored with the seat's flag. It was kept in memory only: a person
    back after a restart was told nothing of what their stand-in had done before it."""
    import asyncio

    from flowerbridge import Seat
    from flowerbridge.server.config import ServerConfig
    from flowerbridge.server.manager import Connection, TableManager
    from flowerbridge.server.schemas import CreateTable
    from flowerbridge.server.store import Store

    def manager_on(store: Store, replace_after: float) -> TableManager:
        return TableManager(store, ServerConfig(bot_delay=0, replace_after=replace_after, analysis=False))

    async def welcome(manager: TableManager, table_id: str, token: str) -> dict:
        conn = Connection()
        await manager.join(conn, table_id, token, None)
        return json.loads(conn.queue.get_nowait())

    async def until(done, what: str) -> None:
        for _ in range(500):
            if done():
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"not {what} within 10 s")

    async def scenario() -> None:
        store = Store(database)
        store.migrate()
        first = manager_on(store, replace_after=0.05)
        request = {"seats": {s: {"player": "human"} for s in "NESW"}, "length": {"hands": 2},
                   "stand_in": "random"}
        live, tokens = await first.create(CreateTable.model_validate(request))
        table_id = live.table.id
        conns = {}
        for seat in Seat:
            conns[seat] = Connection()
            await first.join(conns[seat], table_id, tokens[seat], None)
        actor = live.table.actor
        away = [actor.next(), actor.next().next()]      # two people leave; the others stay
        for seat in away:
            first.leave(conns[seat])
        await until(lambda: live.stand_ins == set(away), "both seats stood in for")
        await first.submit(conns[actor], "call", "Pass", None)
        last = away[1].next()
        await until(lambda: live.table.actor is last, "called for both seats away")
        await asyncio.gather(*first._flag_writes)
        made = {seat: [{"hand": 1, "kind": "call", "action": e.action}
                       for e in live.table.hands[0].events if e.seat == seat.name]
                for seat in away}
        assert all(len(calls) == 1 for calls in made.values())
        await first.stop()

        again = manager_on(store, replace_after=3600)
        assert (await welcome(again, table_id, tokens[away[0]]))["stood_in"] == made[away[0]]
        assert (await welcome(again, table_id, tokens[away[0]]))["stood_in"] == []   # told once
        await asyncio.gather(*again._flag_writes)
        await again.stop()

        # and once more: the person told before is not told again; the other is
        third = manager_on(store, replace_after=3600)
        assert (await welcome(third, table_id, tokens[away[0]]))["stood_in"] == []
        assert (await welcome(third, table_id, tokens[away[1]]))["stood_in"] == made[away[1]]
        await third.stop()
        store.close()

    asyncio.run(scenario())


def test_a_table_rebuilt_after_a_failed_commit_keeps_its_stand_in_flags_not_yet_stored(database,
                                                                                       monkeypatch):
    """A commit that fails rebuilds the table from the database (docs/server.md, "memory
    never runs ahead of the database"): the seats' ``replaced`` flags on their way to it
    were taken back with it, so that a stand-in playing was stored as not (its clock
    ran again after a restart), or a person back as still stood in for. (Found in a
    review; on PostgreSQL, whose four database threads let the rebuild's read pass the
    flags' writes.)"""
    import asyncio

    from flowerbridge import Seat
    from flowerbridge.server.config import ServerConfig
    from flowerbridge.server.manager import Connection, TableManager
    from flowerbridge.server.schemas import CreateTable
    from flowerbridge.server.store import Store, StoreError
    from flowerbridge.server.table import TableError

    def down(*_args, **_kwargs):
        raise StoreError("database write failed: connection refused")

    async def scenario() -> None:
        store = Store(database)
        store.migrate()
        real = store.mark_replaced

        def slow_mark_replaced(*args):     # an UPDATE that takes a while (a busy database)
            time.sleep(0.5)
            real(*args)

        monkeypatch.setattr(store, "mark_replaced", slow_mark_replaced)
        manager = TableManager(store, ServerConfig(bot_delay=0, replace_after=0.05, analysis=False))
        request = {"seats": {s: {"player": "human"} for s in "NESW"}, "length": {"hands": 2},
                   "stand_in": "random"}
        live, tokens = await manager.create(CreateTable.model_validate(request))
        table_id = live.table.id
        conns = {}
        for seat in Seat:
            conns[seat] = Connection()
            await manager.join(conns[seat], table_id, tokens[seat], None)
        actor = live.table.actor
        away = {actor.next(), actor.next().next()}      # two people leave, the actor stays
        for seat in away:
            manager.leave(conns[seat])
        for _ in range(500):
            if live.stand_ins == away:
                break
            await asyncio.sleep(0.02)
        assert live.stand_ins == away
        # one flag is being written (slowly), the other waits its turn; the actor's
        # call is not stored: the table is rebuilt from the database
        monkeypatch.setattr(store, "append", down)
        with pytest.raises(TableError, match="it was not made"):
            await manager.submit(conns[actor], "call", "Pass", None)
        monkeypatch.undo()
        await asyncio.gather(*manager._flag_writes)
        flagged = {s for s in Seat if live.table.players[s].replaced}
        stored = {Seat[row.seat] for row in store.load(table_id).seats if row.replaced}
        await manager.stop()
        store.close()
        assert (live.stand_ins, flagged, stored) == (away, away, away)

    asyncio.run(scenario())
