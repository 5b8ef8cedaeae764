"""Every accepted action is committed before it is broadcast (issue #5, item 6):
``flowerbridge serve`` is killed with SIGKILL mid-hand and restarted on the
same database, and each table resumes exactly where it was.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import time
from dataclasses import replace
from pathlib import Path
from datetime import datetime, timedelta
from typing import Callable

import pytest
from sqlalchemy import text

from flowerbridge import Seat
from flowerbridge.server.config import ServerConfig
from flowerbridge.server.manager import Connection, LiveTable, TableManager
from flowerbridge.server.models import utcnow
from flowerbridge.server.repeats import Repeatable
from flowerbridge.server.schemas import CreateTable
from flowerbridge.server.store import Store, StoreError
from flowerbridge.server.table import TableError, as_utc
from flowerbridge.server.testing import (ServerProcess, ServerThread, database_for_tests,
                                         play_session, table_request)
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


def test_a_table_closed_to_make_room_stays_closed_after_a_restart_its_record_readable(own_database,
                                                                                      fixed_table_seed):
    # (the seed is fixed: the bots play on until the server sees the watcher leave, and
    # had hands 2 and 3 both been passed out they could have ended the session first)
    from flowerbridge.server.config import ServerConfig
    from flowerbridge.server.models import utcnow

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


def _manager_on(store: Store, replace_after: float | None,
                clock: Callable[[], datetime] = utcnow) -> TableManager:
    """A server's table manager on ``store``, its bots at once, without analysis."""
    return TableManager(store, ServerConfig(bot_delay=0, replace_after=replace_after, analysis=False), clock)


async def _seated(manager: TableManager, table_id: str, token: str | None) -> Connection:
    conn = Connection()
    await manager.join(conn, table_id, token, None)
    return conn


async def _welcome(manager: TableManager, table_id: str, token: str) -> dict:
    """The welcome a person taking their seat (back) is sent."""
    return json.loads((await _seated(manager, table_id, token)).queue.get_nowait())


async def _until(done: Callable[[], bool], what: str) -> None:
    for _ in range(500):
        if done():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"not {what} within 10 s")


async def _table_of_four(database: str, replace_after: float):
    """A store on ``database``, a manager on it and a table of four people there, each seated."""
    store = Store(database)
    store.migrate()
    manager = _manager_on(store, replace_after)
    return store, manager, *(await _four_people(manager))


async def _next_seat_stood_in_for(database: str):
    """:func:`_table_of_four`'s table, the person after the one to act gone and stood in
    for; with the seat to act and the seat away."""
    store, manager, live, tokens, conns = await _table_of_four(database, 0.05)
    actor = live.table.actor
    away = actor.next()
    manager.leave(conns[away])
    await _until(lambda: away in live.stand_ins, "stood in for")
    return store, manager, live, tokens, conns, actor, away


def _slow_seat_writes(store: Store, monkeypatch, seconds: float) -> None:
    """Each write of a seat's away and stand-in fields takes ``seconds`` (a busy database)."""
    real = store.mark_away

    def slow_mark_away(*args):
        time.sleep(seconds)
        real(*args)

    monkeypatch.setattr(store, "mark_away", slow_mark_away)


async def _four_people(manager: TableManager) -> tuple[LiveTable, dict[Seat, str], dict[Seat, Connection]]:
    """A new table of four people (two hands, a random stand-in), each seated."""
    request = {"seats": {s: {"player": "human"} for s in "NESW"}, "length": {"hands": 2},
               "stand_in": "random"}
    live, tokens = await manager.create(CreateTable.model_validate(request))
    return live, tokens, {seat: await _seated(manager, live.table.id, tokens[seat]) for seat in Seat}


def test_a_stand_in_playing_before_a_restart_plays_on_at_once_after_it(database):
    """docs/server.md, Playing: a person away longer than ``--replace-after`` has a
    stand-in play for them until they come back -- a restart too. The stand-in's
    clock started again after a restart: the table stopped for another
    ``--replace-after`` at the seat of a person long gone."""
    def stored_replaced(store: Store, table_id: str) -> set[Seat]:
        return {Seat[row.seat] for row in store.load(table_id).seats if row.replaced}

    async def scenario() -> None:
        store, first, live, tokens, conns = await _table_of_four(database, 0.05)
        table_id = live.table.id
        dealer = live.table.actor
        await first.submit(conns[dealer], "call", "Pass", None)
        away = live.table.actor     # the next to call: everyone leaves, away first
        for seat in [away, *(s for s in Seat if s is not away)]:
            first.leave(conns[seat])
        await _until(lambda: live.stand_ins == set(Seat), "every seat stood in for")
        await _until(lambda: stored_replaced(store, table_id) == set(Seat), "stored")
        assert live.table.seq == 2 and live.table.actor is away    # nobody attends: bots wait
        await first.stop()

        # Restarted with an hour's --replace-after: one person comes back, and the
        # stand-in of the seat to call (away) calls at once.
        again = _manager_on(store, replace_after=3600)
        live = await again.get(table_id)
        assert live.stand_ins == set(Seat) and not live.timers
        back = away.next()
        await _seated(again, table_id, tokens[back])
        assert live.stand_ins == set(Seat) - {back}
        await _until(lambda: live.table.seq > 2, "called for the seat away")
        assert live.table.hands[0].events[2].seat == away.name
        await _until(lambda: stored_replaced(store, table_id) == set(Seat) - {back}, "stored as back")
        await again.stop()

        # and once more: the person who came back (and left with the restart) has
        # a clock again, the others their stand-ins at once
        third = _manager_on(store, replace_after=3600)
        live = await third.get(table_id)
        assert live.stand_ins == set(Seat) - {back} and set(live.timers) == {back}
        await third.stop()
        # started with --replace-after never: no stand-in at all, as for a new one
        never = _manager_on(store, replace_after=None)
        live = await never.get(table_id)
        assert not live.stand_ins and not live.timers
        await never.stop()
        store.close()

    asyncio.run(scenario())


def test_a_person_away_when_the_server_stops_has_a_stand_in_replace_after_from_when_they_left(database):
    """docs/server.md, Playing: the seat's row keeps when its person left, so the
    stand-in comes ``--replace-after`` after that, restarts or not. The clock of a
    person who had left before a restart started again in full after it; a person
    connected when the server stopped still has a full one."""
    async def scenario() -> None:
        store, first, live, tokens, conns = await _table_of_four(database, 3600)
        table_id = live.table.id
        gone = [Seat.N, Seat.E]
        for seat in gone:
            first.leave(conns[seat])
        await asyncio.gather(*first._flag_writes)
        left = {Seat[row.seat]: row.left_at for row in store.load(table_id).seats}
        assert all(left[seat] is not None for seat in gone) and left[Seat.S] is left[Seat.W] is None
        await first.stop()      # (S and W connected until the stop: not stored as away)

        # restarted 0.2 s short of an hour after they left, with an hour's --replace-after
        since = max(as_utc(left[seat]) for seat in gone)
        again = _manager_on(store, replace_after=3600,
                            clock=lambda: since + timedelta(seconds=3600 - 0.2))
        live = await again.get(table_id)
        await _until(lambda: live.stand_ins == set(gone), "stood in for the people who had left")
        assert set(live.timers) == {Seat.S, Seat.W}
        # a person back is no longer away, in the database too
        await _seated(again, table_id, tokens[Seat.N])
        await asyncio.gather(*again._flag_writes)
        rows = {Seat[row.seat]: row for row in store.load(table_id).seats}
        assert rows[Seat.N].left_at is None and not rows[Seat.N].replaced
        assert rows[Seat.E].left_at is not None and rows[Seat.E].replaced
        await again.stop()
        store.close()

    asyncio.run(scenario())


def test_a_person_away_since_a_restart_has_a_stand_in_replace_after_from_it_whatever_restarts_follow(database):
    """docs/server.md, Playing: a person connected when the server stopped has a whole
    ``--replace-after`` from the restart, and is away from then on as stored. They
    were not stored as away: each restart before ``--replace-after`` had passed gave
    them a whole one again, and a server restarting more often than that never put
    a stand-in in their seat. (Found in an end-to-end review.)"""
    async def scenario() -> None:
        store, first, live, tokens, conns = await _table_of_four(database, 3600)
        table_id = live.table.id
        await first.stop()          # everyone connected: nobody stored as away

        restarted = utcnow()
        again = _manager_on(store, replace_after=3600, clock=lambda: restarted)
        live = await again.get(table_id)
        assert set(live.timers) == set(Seat) and not live.stand_ins
        await asyncio.gather(*again._flag_writes)
        await again.stop()

        # and again, 0.2 s short of an hour later, before anyone came back
        third = _manager_on(store, replace_after=3600, clock=lambda: restarted + timedelta(seconds=3600 - 0.2))
        live = await third.get(table_id)
        await _until(lambda: live.stand_ins == set(Seat), "stood in for everyone")
        await third.stop()
        store.close()

    asyncio.run(scenario())


def test_a_person_connected_when_serve_stops_is_not_stored_as_away(database):
    """docs/server.md, Playing: a person connected when the server stopped has a whole
    ``--replace-after`` after the restart. uvicorn closes every websocket (code 1012)
    before the app's shutdown: each such close was stored as the person leaving, so
    after a restart longer than ``--replace-after`` a stand-in took every seat at once.
    (Found in a review.) A person who left before the stop is stored as away."""
    with ServerProcess(database, "--replace-after", "60", "--no-analysis") as server:
        made = server.create_table({"N": "human", "E": "random", "S": "human", "W": "random"})
        table_id, tokens = made["table"]["id"], {s: i["token"] for s, i in made["invitations"].items()}
        north, south = (server.client(table_id, tokens[seat]) for seat in "NS")
        for client, seat in ((north, "N"), (south, "S")):
            assert client.until(lambda m: m.get("type") == "welcome")["seat"] == seat
        south.close()
        north.until(lambda m: m.get("type") == "presence" and not m["seats"]["S"]["connected"])

        def stored() -> dict:
            store = Store(database)
            try:
                return {row.seat: row.left_at for row in store.load(table_id).seats}
            finally:
                store.close()

        deadline = time.monotonic() + 10
        while stored()["S"] is None and time.monotonic() < deadline:     # (written in the background)
            time.sleep(0.05)
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(timeout=30)     # (a stop as the server makes it, connections closed first)
    left = stored()
    assert left["S"] is not None and left["N"] is None


def test_a_person_whose_connection_closes_as_the_server_stops_is_not_stored_as_away_by_a_queued_write(
        database, monkeypatch):
    """A write of the seat's fields asked for before the stop reads memory as it
    starts: a leave while stopping set ``left_at`` in memory (only its own write was
    skipped), and the queued write stored it. (Found in a review.)"""
    async def scenario() -> None:
        store, manager, live, tokens, conns = await _table_of_four(database, 3600)
        _slow_seat_writes(store, monkeypatch, 0.3)
        manager.leave(conns[Seat.N])                # written first
        manager.leave(conns[Seat.E])                # queued
        back = await _seated(manager, live.table.id, tokens[Seat.N])     # queued: N back
        stopping = asyncio.ensure_future(manager.stop())
        await asyncio.sleep(0)
        manager.leave(back)                         # N's connection closes with the server
        await stopping
        left = {row.seat: row.left_at for row in store.load(live.table.id).seats}
        store.close()
        assert left["N"] is None and left["E"] is not None

    asyncio.run(scenario())


def test_a_person_back_after_a_restart_is_told_what_their_stand_in_did_before_it(database):
    """docs/protocol.md, Seats: the welcome's ``stood_in`` lists what the stand-in did
    since it took the seat -- read off the log, where its calls and cards are marked,
    from the ``seq`` stored with the seat's flag. It was kept in memory only: a person
    back after a restart was told nothing of what their stand-in had done before it."""
    async def scenario() -> None:
        store, first, live, tokens, conns = await _table_of_four(database, 0.05)
        table_id = live.table.id
        actor = live.table.actor
        away = [actor.next(), actor.next().next()]      # two people leave; the others stay
        for seat in away:
            first.leave(conns[seat])
        await _until(lambda: live.stand_ins == set(away), "both seats stood in for")
        await first.submit(conns[actor], "call", "Pass", None)
        last = away[1].next()
        await _until(lambda: live.table.actor is last, "called for both seats away")
        await asyncio.gather(*first._flag_writes)
        made = {seat: [{"hand": 1, "kind": "call", "action": e.action}
                       for e in live.table.hands[0].events if e.seat == seat.name]
                for seat in away}
        assert all(len(calls) == 1 for calls in made.values())
        await first.stop()

        again = _manager_on(store, replace_after=3600)
        assert (await _welcome(again, table_id, tokens[away[0]]))["stood_in"] == made[away[0]]
        assert (await _welcome(again, table_id, tokens[away[0]]))["stood_in"] == []   # told once
        await asyncio.gather(*again._flag_writes)
        await again.stop()

        # and once more: the person told before is not told again; the other is
        third = _manager_on(store, replace_after=3600)
        assert (await _welcome(third, table_id, tokens[away[0]]))["stood_in"] == []
        assert (await _welcome(third, table_id, tokens[away[1]]))["stood_in"] == made[away[1]]
        await third.stop()
        store.close()

    asyncio.run(scenario())


def test_a_person_away_twice_is_told_after_a_restart_only_what_the_second_stand_in_did(database):
    # docs/protocol.md, stood_in: what the stand-in did since it took the seat. The first
    # stand-in's call was told when the person came back; the second did nothing. The
    # point the second took the seat at must be stored, or the restart tells the first's
    # call again.
    async def scenario() -> None:
        store, first, live, tokens, conns, actor, away = await _next_seat_stood_in_for(database)
        table_id = live.table.id
        await first.submit(conns[actor], "call", "Pass", None)
        await _until(lambda: live.table.actor is not away, "the stand-in called")
        back = await _seated(first, table_id, tokens[away])
        assert len(json.loads(back.queue.get_nowait())["stood_in"]) == 1
        first.leave(back)                   # away again, not at its turn: the stand-in does nothing
        await _until(lambda: away in live.stand_ins, "stood in for again")
        await asyncio.gather(*first._flag_writes)
        await first.stop()
        again = _manager_on(store, replace_after=3600)
        assert (await _welcome(again, table_id, tokens[away]))["stood_in"] == []
        await again.stop()
        store.close()

    asyncio.run(scenario())


def test_a_stand_in_that_comes_while_an_action_fails_to_be_stored_is_told_from_the_stored_seq(database,
                                                                                                monkeypatch):
    """The stand-in's clock ran out while the person's own call was being committed
    (they closed the page meanwhile), and the commit failed: the seq it started
    from was that of the call never stored, which its own first call then took,
    and that call was never told. (Found in a review.) Now it takes the seat
    under the table's lock, once no action is half made."""
    async def scenario() -> None:
        store, manager, live, tokens, conns = await _table_of_four(database, 0.05)
        table_id = live.table.id
        actor, stored = live.table.actor, live.table.seq

        def slow_failure(*_args, **_kwargs):
            time.sleep(0.3)
            raise StoreError("database write failed: connection refused")

        monkeypatch.setattr(store, "append", slow_failure)
        call = asyncio.ensure_future(manager.submit(conns[actor], "call", "Pass", None))
        await asyncio.sleep(0.01)
        manager.leave(conns[actor])         # the page closed while the call is committed
        with pytest.raises(TableError, match="it was not made"):
            await call
        monkeypatch.undo()
        await _until(lambda: actor in live.stand_ins, "stood in for")
        assert live.table.players[actor].replaced_seq == stored == live.table.seq
        await _until(lambda: live.table.seq > stored, "called for the seat away")
        made = live.table.hands[0].events[-1]
        assert made.seat == actor.name
        told = (await _welcome(manager, table_id, tokens[actor]))["stood_in"]
        assert told == [{"hand": 1, "kind": "call", "action": made.action}]
        await manager.stop()
        store.close()

    asyncio.run(scenario())


def test_a_seat_stood_in_for_across_the_upgrade_is_told_what_its_stand_in_marked_after_it(database):
    """Migration 0004 leaves ``replaced_seq`` empty for a seat whose stand-in already
    played: what that stand-in does after the upgrade is marked in the log, and told.
    (Found in a review: an empty ``replaced_seq`` told nothing.)"""
    async def scenario() -> None:
        store, first, live, tokens, conns, actor, away = await _next_seat_stood_in_for(database)
        table_id = live.table.id
        await asyncio.gather(*first._flag_writes)
        await first.stop()
        # as the upgrade leaves such a seat: replaced, no seq
        store.mark_away(table_id, away.name, None, True, None)

        again = _manager_on(store, replace_after=3600)
        live = await again.get(table_id)
        await again.submit(await _seated(again, table_id, tokens[actor]), "call", "Pass", None)
        await _until(lambda: live.table.actor is not away, "called for the seat away")
        made = live.table.hands[0].events[-1]
        assert made.seat == away.name and made.detail["stand_in"] is True
        told = (await _welcome(again, table_id, tokens[away]))["stood_in"]
        assert told == [{"hand": 1, "kind": "call", "action": made.action}]
        await again.stop()
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
    def down(*_args, **_kwargs):
        raise StoreError("database write failed: connection refused")

    async def scenario() -> None:
        store, manager, live, tokens, conns = await _table_of_four(database, 0.05)
        _slow_seat_writes(store, monkeypatch, 0.5)
        table_id = live.table.id
        actor = live.table.actor
        away = {actor.next(), actor.next().next()}      # two people leave, the actor stays
        for seat in away:
            manager.leave(conns[seat])
        await _until(lambda: live.stand_ins == away, "both seats stood in for")
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


KEY = "a-creation-key-0123456789abcdef"


def _keyed(server, body: dict, key: str = KEY):
    return server.api("POST", "/api/tables", json=body, headers={"idempotency-key": key})


def test_a_creation_asked_again_after_a_restart_gets_the_table_it_made_and_its_tokens(own_database):
    # docs/protocol.md, POST /api/tables: the answer is the one place a table's tokens are
    # given. The server stopped after the table was stored and before its answer arrived
    # (killed here after answering: the same to the server that comes back, which had
    # kept the answers in memory only): the person's repeat made a second table, the
    # first one a table nobody could sit at.
    request = table_request({"N": "human", "E": "random", "S": "human", "W": "random"}, name="Friday")
    with ServerProcess(own_database, *QUIET) as first:
        made = _keyed(first, request)
        assert made.status_code == 201
        first.kill()
    with ServerProcess(own_database, *QUIET) as second:
        again = _keyed(second, request)
        assert again.status_code == 201, again.text
        table_id = made.json()["table"]["id"]
        assert again.json()["invitations"] == made.json()["invitations"]
        assert again.json()["table"]["id"] == table_id and again.json()["table"]["name"] == "Friday"
        assert [t["id"] for t in second.api("GET", "/api/tables").json()["tables"]] == [table_id]
        for seat, invitation in again.json()["invitations"].items():
            person = second.client(table_id, invitation["token"])
            assert person.until(lambda m: m["type"] == "welcome")["seat"] == seat
            person.close()
        # the same key with another request is refused, from another address it is
        # another request: neither is answered with this table's tokens
        other = _keyed(second, {**request, "name": "Saturday"})
        assert other.status_code == 409 and "given with another request" in other.json()["error"]["message"]
        assert _keyed(second, request, KEY + "-other").json()["table"]["id"] != table_id


def test_a_creation_is_answered_again_after_a_restart_for_ten_minutes_then_its_key_makes_a_new_table(
        own_database):
    # each server a new app: the answers kept in memory are gone, as after a restart
    config = ServerConfig(database=own_database, bot_delay=0, replace_after=None, analysis=False)
    request = table_request({s: "human" for s in "NESW"})
    with ServerThread(config) as first:
        made = _keyed(first, request).json()
        stale = _keyed(first, request, KEY + "-stale").json()
    later = {"now": utcnow() + timedelta(minutes=9, seconds=50)}
    with ServerThread(config) as second:
        second.app.state.manager.clock = lambda: later["now"]
        assert _keyed(second, request).json()["table"]["id"] == made["table"]["id"]
        later["now"] += timedelta(seconds=20)       # ten minutes after the first
        new = _keyed(second, request).json()
        assert new["table"]["id"] != made["table"]["id"]
        assert new["invitations"]["N"]["token"] != made["invitations"]["N"]["token"]
        assert len(second.api("GET", "/api/tables").json()["tables"]) == 3
    # the first's row was replaced by the new table's (the other key's is deleted as its
    # ten minutes end: the next test); the key itself is never stored
    kept = _creations(own_database)
    assert new["table"]["id"] in kept and made["table"]["id"] not in kept and stale["table"]["id"] in kept
    if "://" not in own_database:       # the SQLite file, its journal beside it
        stored = b"".join(p.read_bytes() for p in Path(own_database).parent.glob(Path(own_database).name + "*"))
        assert KEY.encode() not in stored and made["invitations"]["N"]["token"].encode() not in stored


def _creations(database: str) -> list[str]:
    store = Store(database)
    with store.engine.connect() as connection:
        kept = connection.execute(text("SELECT table_id FROM creations")).scalars().all()
    store.close()
    return list(kept)


def test_a_quiet_server_deletes_a_creations_salt_once_its_ten_minutes_are_over(own_database, monkeypatch):
    # docs/server.md, Playing: the row that gives a keyed table's tokens again was deleted
    # only by the next keyed creation (a review): on a quiet server the salt stayed with
    # the table, and with a guessable key the database gave its tokens for as long
    import flowerbridge.server.manager as manager_module

    monkeypatch.setattr(manager_module, "FORGET_SECONDS", 0.05)
    config = ServerConfig(database=own_database, bot_delay=0, replace_after=None, analysis=False)
    with ServerThread(config) as server:
        made = _keyed(server, table_request({s: "human" for s in "NESW"})).json()
        time.sleep(0.3)
        assert _creations(own_database) == [made["table"]["id"]]       # kept its ten minutes
        server.app.state.manager.clock = lambda: utcnow() + timedelta(minutes=10, seconds=1)
        deadline = time.monotonic() + 10
        while _creations(own_database) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _creations(own_database) == []
        assert server.api("GET", f"/api/tables/{made['table']['id']}").status_code == 200


def test_a_creations_salt_left_by_a_server_that_stopped_is_deleted_at_the_next_start(own_database):
    config = ServerConfig(bot_delay=0, replace_after=None, analysis=False)
    request = table_request({s: "human" for s in "NESW"})

    async def scenario() -> None:
        store = Store(own_database)
        store.migrate()
        manager = TableManager(store, config)
        await manager.create(CreateTable.model_validate(request), Repeatable.of(None, KEY, request))
        await manager.stop()
        assert len(_creations(own_database)) == 1
        later = TableManager(store, config, clock=lambda: utcnow() + timedelta(minutes=11))
        await later.start()
        deadline = time.monotonic() + 10
        while _creations(own_database) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await later.stop()
        store.close()

    asyncio.run(scenario())
    assert _creations(own_database) == []



def _create_from(address: str, config: ServerConfig, request: dict):
    """POST /api/tables with ``KEY`` to a server of its own (as after a restart), from
    ``address`` (a loopback address of 127.0.0.0/8)."""
    import httpx
    with ServerThread(config) as server, httpx.Client(
            base_url=server.url, transport=httpx.HTTPTransport(local_address=address)) as client:
        return client.post("/api/tables", json=request, headers={"Idempotency-Key": KEY})


def test_a_creation_is_answered_again_after_a_restart_only_from_the_same_address_whatever_its_order(tmp_path):
    # docs/server.md: a lost answer is given again to the same key from the same address;
    # the request is compared as read (the seats in another order are the same request)
    config = ServerConfig(database=str(tmp_path / "t.db"), bot_delay=0, replace_after=None, analysis=False)
    request = table_request({s: "human" for s in "NESW"})
    made = _create_from("127.0.0.2", config, request).json()
    reordered = {**request, "seats": dict(reversed(list(request["seats"].items())))}
    same = _create_from("127.0.0.2", config, reordered)
    assert same.status_code == 201, same.text
    assert same.json()["table"]["id"] == made["table"]["id"]
    assert same.json()["invitations"] == made["invitations"]
    new = _create_from("127.0.0.3", config, request).json()
    assert new["table"]["id"] != made["table"]["id"]
    assert {i["token"] for i in new["invitations"].values()}.isdisjoint(
        i["token"] for i in made["invitations"].values())
