"""The server's limits on what one client may ask (docs/server.md, *Limits*):
message rates, queued snapshots, connections, request bodies, tables; and
the security headers of its answers."""

from __future__ import annotations

import re
import time
from datetime import timedelta

import httpx
import pytest

from flowerbridge.server import ServerConfig
from flowerbridge.server.limits import (MAX_BODY_BYTES, MAX_SEAT_CONNECTIONS, SlidingWindow, TokenBucket,
                                        client_key)
from flowerbridge.server.manager import Connection, Snapshot
from flowerbridge.server.models import utcnow
from flowerbridge.server.testing import ServerThread, table_request


@pytest.fixture
def server(tmp_path):
    config = ServerConfig(database=str(tmp_path / "t.db"), bot_delay=0, replace_after=None,
                          analysis=False, max_tables=3, tables_per_minute=5,
                          message_rate=5, message_burst=10, connections_per_address=12)
    with ServerThread(config) as running:
        yield running


def _joined(server, table_id, token=None):
    client = server.client(table_id, token)
    client.until(lambda m: m["type"] == "snapshot")
    return client


def test_limits_are_the_numbers_docs_server_md_gives():
    # the tests below work on these limits lowered, or measured from the constants: a limit
    # raised a hundredfold passed them all (a mutation review)
    from flowerbridge.server import limits, manager
    from flowerbridge.server.config import ServerConfig

    assert (limits.MAX_SEAT_CONNECTIONS, limits.MAX_SPECTATORS, limits.MAX_SPECTATORS_PER_ADDRESS) == (8, 64, 16)
    assert (manager.MAX_QUEUED, limits.MAX_QUEUED_BYTES) == (2000, 8 * 1024 * 1024)
    assert (limits.MAX_BODY_BYTES, limits.MAX_CATCH_UP_EVENTS) == (64 * 1024, 8)
    config = ServerConfig()
    assert (config.message_rate, config.message_burst) == (20, 60)
    assert (config.connections_per_address, config.tables_per_minute, config.max_tables) == (200, 30, 1000)
    assert (config.tables_per_address, limits.MAX_TAKE_BACKS) == (100, 50)
    assert config.idle_close == 60 * 60


def test_limits_token_bucket_allows_a_burst_then_the_rate():
    now = [0.0]
    bucket = TokenBucket(rate=2.0, burst=3.0, clock=lambda: now[0])
    assert [bucket.allow("a") for _ in range(4)] == [True, True, True, False]
    now[0] = 0.5    # one more token
    assert [bucket.allow("a") for _ in range(2)] == [True, False]
    assert bucket.allow("b")    # each key its own bucket


def test_limits_tables_a_minute_are_counted_in_any_minute():
    # docs/server.md, --tables-per-minute: a token bucket of 30 a minute, 30 at once, let
    # one address make 59 tables in the first minute (30, then one every 2 seconds)
    now = [0.0]
    window = SlidingWindow(limit=30, period=60.0, clock=lambda: now[0])
    made = []
    for step in range(600):             # a request every half second for five minutes
        now[0] = step * 0.5
        if window.allow("a"):
            made.append(now[0])
    assert all(sum(1 for t in made if start <= t < start + 60) <= 30 for start in made)
    assert len(made) == 150             # and 30 in each minute all the same
    assert [window.allow("b") for _ in range(31)] == [True] * 30 + [False]   # each address its own
    window.refund("b")                  # a table refused after all gives its place back
    assert window.allow("b") and not window.allow("b")


def test_limits_token_bucket_idle_for_long_holds_no_more_than_its_burst():
    # "20 messages a second on average, 60 at once": an idle client saves up 60, no more
    now = [0.0]
    bucket = TokenBucket(rate=1.0, burst=2.0, clock=lambda: now[0])
    assert bucket.allow("a")
    now[0] = 100.0
    assert [bucket.allow("a") for _ in range(3)] == [True, True, False]


def test_limits_tables_a_minute_still_hold_an_address_once_over_10000_addresses_are_counted():
    # past 10,000 addresses the window forgets those with nothing left in the minute,
    # not the ones that have
    now = [0.0]
    window = SlidingWindow(limit=2, period=60.0, clock=lambda: now[0])
    for i in range(10_001):
        window.allow(f"k{i}")
    now[0] = 100.0
    assert [window.allow("a") for _ in range(4)] == [True, True, False, False]
    assert len(window._times) < 100


def test_limits_a_refused_table_gives_back_the_place_it_took_not_an_earlier_tables():
    now = [0.0]
    window = SlidingWindow(limit=2, period=60.0, clock=lambda: now[0])
    assert window.allow("a")                  # a table made at 0
    now[0] = 50.0
    assert window.allow("a")                  # a request at 50, refused after all
    window.refund("a")
    now[0] = 55.0
    assert window.allow("a")                  # a table made at 55
    now[0] = 61.0                             # the one made at 0 has left the minute
    assert window.allow("a")


def test_limits_refusals_are_logged_for_at_most_32_keys_an_hour():
    from flowerbridge.server.limits import Sparing
    sparing = Sparing()
    assert sum(sparing.first(f"origin {i}") for i in range(100)) == 32
    assert not sparing.first("origin 0")      # each once an hour


def test_limits_retry_after_is_when_the_window_lets_the_next_in():
    now = [0.0]
    window = SlidingWindow(limit=3, period=60.0, clock=lambda: now[0])
    for t in (0.0, 10.0, 20.0):
        now[0] = t
        assert window.allow("a")
    now[0] = 30.0
    assert not window.allow("a") and window.wait("a") == 30.0     # the first is a minute old at 60
    now[0] = 59.9
    assert not window.allow("a")
    now[0] = 60.0
    assert window.wait("a") == 0.0 and window.allow("a")
    assert window.wait("a") == 10.0                              # (at 70 the one made at 10 leaves)


def test_limits_a_flood_of_syncs_is_refused_unread_and_the_server_stays_responsive(server):
    created = server.create_table({s: "human" for s in "NESW"})
    table_id = created["table"]["id"]
    watcher = _joined(server, table_id)
    start = time.monotonic()
    for _ in range(300):
        watcher.send({"type": "sync", "since": 10**6})  # each would be a full snapshot
    assert server.api("GET", "/api/meta").status_code == 200

    def answered() -> tuple[int, int]:  # each sync: a snapshot (after the join's own) or refused
        return (sum(m["type"] == "snapshot" for m in watcher.messages) - 1,
                sum(m.get("code") == "too_fast" for m in watcher.messages))

    watcher.until(lambda m: sum(answered()) == 300)   # (on a slow machine, not at once)
    time.sleep(1.0)     # the bucket refills a little: the connection works again
    watcher.send({"type": "ping", "id": "after"})
    assert watcher.until(lambda m: m.get("id") == "after")["type"] == "pong"
    elapsed = time.monotonic() - start
    snapshots, refused = answered()
    read = 10 + 5 * elapsed + 1     # at most the burst and what the rate refilled
    assert snapshots <= read and refused >= 300 - read
    assert not watcher.closed


def test_limits_a_snapshot_is_counted_as_a_catch_up_queued_until_it_is_sent():
    # (what lets a sync be answered by a snapshot still queued: test_server_catch_up.py)
    conn = Connection()
    conn.send(Snapshot('{"type": "snapshot"}'))
    conn.send({"type": "presence"})
    assert conn.catch_ups_queued == 1 and conn.queued_bytes == len('{"type": "snapshot"}') + len('{"type": "presence"}')
    text = conn.queue.get_nowait()
    assert text is not None
    conn.sent(text)
    assert conn.catch_ups_queued == 0


def test_limits_a_client_that_lets_bytes_pile_up_is_dropped(monkeypatch):
    monkeypatch.setattr("flowerbridge.server.manager.MAX_QUEUED_BYTES", 100)
    conn = Connection()
    conn.send("x" * 60)
    conn.send("y" * 60)     # 120 bytes unsent: dropped, backlog forgotten
    assert conn.dropped and conn.close_code == 1008
    assert conn.queue.get_nowait() is None and conn.queued_bytes == 0
    conn.send("z")
    assert conn.queue.empty()


def _one_too_many(server, table_id, token, tabs, words, *, hello=True):
    """Open one more connection than allowed: it is refused ``too_many`` (close
    code 4429, the message naming ``words``); once one of ``tabs`` closes there
    is room again. Returns the connection let in then. (``hello=False`` where
    the refusal comes on opening, before the hello is read: the socket may be
    closed before the client could send it.)"""
    extra = server.client(table_id, token, hello=hello)
    refusal = extra.until(lambda m: m["type"] == "error")
    assert refusal["code"] == "too_many" and words in refusal["message"]
    extra.recv(timeout=5)
    assert extra.closed and extra.ws.close_code == 4429
    tabs[0].ws.close()
    return _let_in(server, table_id, token)


def _let_in(server, table_id, token=None):
    """A connection that joins once there is room: the server counts a closed
    one out when it has seen it close, which may take a moment on a busy
    machine. Each try until then is refused ``too_many``."""
    from websockets.exceptions import ConnectionClosed

    deadline = time.monotonic() + 20
    while True:
        try:
            client = server.client(table_id, token)
        except ConnectionClosed:    # refused on opening, before the hello went out
            pass
        else:
            answer = client.until(lambda m: m["type"] in ("snapshot", "error"))
            if answer["type"] == "snapshot":
                return client
            assert answer["code"] == "too_many", answer
            client.close()
        assert time.monotonic() < deadline, "the closed connection was never counted out"
        time.sleep(0.05)


def test_limits_connections_per_seat_are_capped(server):
    created = server.create_table({s: "human" for s in "NESW"})
    table_id, token = created["table"]["id"], created["invitations"]["N"]["token"]
    tabs = [_joined(server, table_id, token) for _ in range(MAX_SEAT_CONNECTIONS)]
    assert _one_too_many(server, table_id, token, tabs, "seat N").view is not None


def test_limits_spectators_of_a_table_from_one_address_are_capped(server, monkeypatch):
    # one address could take every spectator's place at a table (64)
    monkeypatch.setattr("flowerbridge.server.manager.MAX_SPECTATORS_PER_ADDRESS", 3)
    created = server.create_table({s: "human" for s in "NESW"})
    table_id, token = created["table"]["id"], created["invitations"]["N"]["token"]
    other_id = server.create_table({s: "human" for s in "NESW"})["table"]["id"]
    tabs = [_joined(server, table_id) for _ in range(3)]
    assert _joined(server, other_id).view is not None           # another table: its own count
    assert _joined(server, table_id, token).view is not None    # a seat: not a spectator
    again = _one_too_many(server, table_id, None, tabs, "this address has 3 spectator connections")
    assert again.view is not None


def test_limits_connections_from_one_address_are_capped(server):
    created = server.create_table({s: "human" for s in "NESW"})
    table_id = created["table"]["id"]
    # the socket is counted from its opening, whatever table or seat it asks for
    tabs = [_joined(server, table_id) for _ in range(12)]
    again = _one_too_many(server, table_id, None, tabs, "this address has 12 connections", hello=False)
    assert again.view is not None                        # room again
    for tab in [*tabs[1:], again]:
        tab.ws.close()
    deadline = time.monotonic() + 20     # every closed socket is counted out, once the server sees it close
    while server.app.state.connections:
        assert time.monotonic() < deadline, server.app.state.connections
        time.sleep(0.05)
    assert server.app.state.connections == {}


def test_limits_a_request_body_over_the_limit_is_refused_with_413(server):
    body = b'{"seats": {}, "name": "' + b"x" * MAX_BODY_BYTES + b'"}'
    answer = server.api("POST", "/api/tables", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 413 and answer.json()["error"]["code"] == "too_large"

    def chunks():   # no Content-Length: counted as it streams
        for _ in range(MAX_BODY_BYTES // 1024 + 2):
            yield b" " * 1024

    answer = httpx.post(f"{server.url}/api/tables", content=chunks(),
                        headers={"content-type": "application/json"}, timeout=10)
    assert answer.status_code == 413 and answer.json()["error"]["code"] == "too_large"
    assert server.api("GET", "/api/tables").json()["tables"] == []


def test_limits_tables_open_at_once(server):
    request = table_request({s: "human" for s in "NESW"})
    answers = [server.api("POST", "/api/tables", json=request) for _ in range(6)]
    # three open at most; a refusal makes no table, so it is not counted against the
    # five a minute: the sixth request is refused as full, not as too many
    assert [a.status_code for a in answers] == [201, 201, 201, 503, 503, 503]
    assert {a.json()["error"]["code"] for a in answers[3:]} == {"full"}
    assert len(server.api("GET", "/api/tables").json()["tables"]) == 3


def test_limits_only_tables_made_count_against_tables_a_minute(tmp_path):
    config = ServerConfig(database=str(tmp_path / "t.db"), bot_delay=0, replace_after=None,
                          analysis=False, max_tables=100, tables_per_minute=5)
    request = table_request({s: "human" for s in "NESW"})
    with ServerThread(config) as server:
        for _ in range(8):      # refused for what they ask: they make no table and cost nothing
            bad = server.api("POST", "/api/tables", json={**request, "options": {"undertrick_penalty": -1}})
            assert bad.status_code == 400 and bad.json()["error"]["code"] != "too_many"
        answers = [server.api("POST", "/api/tables", json=request) for _ in range(6)]
        assert [a.status_code for a in answers] == [201] * 5 + [429]
        assert answers[5].json()["error"]["code"] == "too_many"
        assert len(server.api("GET", "/api/tables").json()["tables"]) == 5


def test_limits_one_address_holds_its_most_open_tables_and_another_once_one_ends(tmp_path):
    # one address at 30 tables a minute filled a server of 1,000 in half an hour, and took
    # each room made again (a security review): it may hold --tables-per-address open
    config = ServerConfig(database=str(tmp_path / "t.db"), bot_delay=0, replace_after=None,
                          analysis=False, max_tables=100, tables_per_minute=100, tables_per_address=2)
    request = table_request({"N": "human", "E": "random", "S": "random", "W": "random"})
    with ServerThread(config) as server:
        made = [server.api("POST", "/api/tables", json=request) for _ in range(3)]
        assert [a.status_code for a in made] == [201, 201, 429]
        assert made[2].json()["error"] == {"code": "too_many", "message": "this address has 2 open tables, its "
                                           "most: close one, or let one end, first"}
        assert made[2].headers["retry-after"] == "60"
        assert len(server.api("GET", "/api/tables").json()["tables"]) == 2
        first = made[0].json()
        north = _joined(server, first["table"]["id"], first["invitations"]["N"]["token"])
        north.send({"type": "close", "id": "c"})
        north.until(lambda m: m["type"] == "snapshot" and m["table"]["closed"])
        north.close()
        assert server.api("POST", "/api/tables", json=request).status_code == 201    # room again
        # (and the closed one is let go of: an address that never came back kept its ids)
        kept = server.app.state.manager._made_by
        assert first["table"]["id"] not in {table_id for ids in kept.values() for table_id in ids}
        assert sum(len(ids) for ids in kept.values()) == 2


def test_security_headers_on_pages_static_files_and_the_api(server):
    for path in ("/", "/t/abc", "/static/js/table.js", "/api/meta", "/api/tables/nope", "/api/openapi.json"):
        headers = server.api("GET", path).headers
        policy = headers["content-security-policy"]
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy, path
        assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
    # no page of the server's runs a script from elsewhere: FastAPI's docs pages, which
    # load theirs from a CDN (beside the lobby's kept seat links), are not served
    for path in ("/api/docs", "/docs", "/redoc"):
        assert server.api("GET", path).status_code == 404, path
    assert "/api/tables" in server.api("GET", "/api/openapi.json").json()["paths"]


# ------------------------------------------------- idle tables closed to make room


def _clock_ahead(server, minutes):
    """The server's clock ``minutes`` ahead of the real one: every table looks
    idle that long more (its events are stamped with the real time)."""
    server.app.state.manager.clock = lambda: utcnow() + timedelta(minutes=minutes)


def _left(server, table_id, seat=None):
    """Wait until the server has seen every connection of ``seat`` (the
    spectators when ``None``) at the table close."""
    deadline = time.monotonic() + 20
    while True:
        info = server.api("GET", f"/api/tables/{table_id}").json()
        if (info["seats"][seat]["connected"] if seat else info["spectators"]) in (False, 0):
            return info
        assert time.monotonic() < deadline, "the server did not see the connection close"
        time.sleep(0.05)


def _call(server, created, seat, call="Pass"):
    """``seat`` connects, makes ``call`` at its turn, and leaves."""
    table_id = created["table"]["id"]
    client = _joined(server, table_id, created["invitations"][seat]["token"])
    client.send({"type": "call", "call": call, "seq": client.seq})
    client.until(lambda m: m["type"] == "call")
    client.close()
    return _left(server, table_id, seat)


def _closed_minutes(info):
    found = re.fullmatch(r"closed after (\d+) minutes without play to make room", info["closed"] or "")
    assert found, info["closed"]
    return int(found[1])


def test_limits_a_full_server_closes_the_table_idle_longest_and_creates_the_new_one(server):
    people = {s: "human" for s in "NESW"}
    first = server.create_table(people)
    second = server.create_table(people)
    third = server.create_table(people)
    _call(server, first, "N")       # the first table played last: the second is idle longest
    before = server.api("GET", f"/api/tables/{second['table']['id']}").json()
    _clock_ahead(server, 61)
    answer = server.api("POST", "/api/tables", json=table_request(people))
    assert answer.status_code == 201
    closed = server.api("GET", f"/api/tables/{second['table']['id']}").json()
    assert closed["status"] == "over" and _closed_minutes(closed) >= 61
    assert closed["seq"] == before["seq"] + 1       # the close is an event of its log
    listed = {t["id"] for t in server.api("GET", "/api/tables").json()["tables"]}
    assert listed == {first["table"]["id"], third["table"]["id"], answer.json()["table"]["id"]}
    for kept in (first, third):
        info = server.api("GET", f"/api/tables/{kept['table']['id']}").json()
        assert info["status"] == "playing" and info["closed"] is None


def test_limits_a_full_server_closes_no_table_open_in_a_browser_or_played_lately(server):
    people = {s: "human" for s in "NESW"}
    created = [server.create_table(people) for _ in range(2)]
    _clock_ahead(server, 120)
    created.append(server.create_table(people))     # room: nothing is closed, however idle
    ids = [c["table"]["id"] for c in created]
    assert len(server.api("GET", "/api/tables").json()["tables"]) == 3
    _clock_ahead(server, 30)        # played (dealt) within the last hour: not idle
    refused = server.api("POST", "/api/tables", json=table_request(people))
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "full"
    seated = [_joined(server, c["table"]["id"], c["invitations"]["E"]["token"]) for c in created]
    _clock_ahead(server, 120)       # idle long enough, but each has a seat's connection open
    refused = server.api("POST", "/api/tables", json=table_request(people))
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "full"
    assert "without play and without a player" in refused.json()["error"]["message"]
    assert [server.api("GET", f"/api/tables/{i}").json()["status"] for i in ids] == ["playing"] * 3
    seated[1].close()
    _left(server, ids[1], "E")
    assert server.api("POST", "/api/tables", json=table_request(people)).status_code == 201
    assert [server.api("GET", f"/api/tables/{i}").json()["status"] for i in ids] == \
        ["playing", "over", "playing"]
    for client in (seated[0], seated[2]):
        client.close()


def test_limits_a_full_server_closes_an_idle_table_that_only_spectators_watch(server):
    # one spectator's socket on each table kept a full server full for good (a security
    # review: ten addresses, a hundred tables and a hundred sockets each, at the defaults)
    people = {s: "human" for s in "NESW"}
    created = [server.create_table(people) for _ in range(3)]
    ids = [c["table"]["id"] for c in created]
    watchers = [_joined(server, table_id) for table_id in ids]
    _clock_ahead(server, 120)
    answer = server.api("POST", "/api/tables", json=table_request(people))
    assert answer.status_code == 201
    statuses = [server.api("GET", f"/api/tables/{i}").json()["status"] for i in ids]
    assert sorted(statuses) == ["over", "playing", "playing"]
    # its spectator is told, as at a close by its person (its page went on showing a live table)
    watcher = watchers[statuses.index("over")]
    snapshot = watcher.until(lambda m: m["type"] == "snapshot" and m["table"]["closed"])
    assert _closed_minutes(snapshot["table"]) >= 120
    for watcher in watchers:
        watcher.close()


def test_limits_a_seat_back_at_a_table_closed_to_make_room_sees_it_over_and_why_and_cannot_act(server):
    people = {s: "human" for s in "NESW"}
    created = server.create_table(people)
    table_id = created["table"]["id"]
    _call(server, created, "N")
    for _ in range(2):
        server.create_table(people)
    _clock_ahead(server, 90)
    assert server.api("POST", "/api/tables", json=table_request(people)).status_code == 201
    closed = server.api("GET", f"/api/tables/{table_id}").json()
    assert _closed_minutes(closed) >= 90
    east = server.client(table_id, created["invitations"]["E"]["token"])    # East's turn
    welcome = east.until(lambda m: m["type"] == "welcome")
    snapshot = east.until(lambda m: m["type"] == "snapshot")
    for table in (welcome["table"], snapshot["table"]):
        assert table["status"] == "over" and table["closed"] == closed["closed"]
    assert snapshot["seq"] == closed["seq"] and snapshot["view"]["legal"] == []
    east.send({"type": "call", "call": "Pass", "id": "late"})
    error = east.until(lambda m: m["type"] == "error")
    assert error["code"] == "table_over" and error["id"] == "late"
    assert closed["closed"] in error["message"]
    assert server.api("GET", f"/api/tables/{table_id}").json()["seq"] == closed["seq"]
    # North, back with what it had seen (before the close), is told by a snapshot too
    north = server.client(table_id, created["invitations"]["N"]["token"], since=closed["seq"] - 1)
    assert north.until(lambda m: m["type"] in ("snapshot", "close"))["type"] == "snapshot"
    east.close()
    north.close()


@pytest.mark.parametrize("host, key", [
    ("192.0.2.7", "192.0.2.7"),
    ("2001:db8:1:2:ffff:abcd:1234:5", "2001:db8:1:2::/64"),
    ("2001:DB8:1:2::1", "2001:db8:1:2::/64"),
    ("::ffff:192.0.2.7", "192.0.2.7"),
    ("::1", "::/64"),
    ("testclient", "testclient"),      # not an address (Starlette's test client): as given
    (None, None),
])
def test_limits_count_an_ipv6_client_by_its_64_and_an_ipv4_one_by_its_address(host, key):
    assert client_key(host) == key
