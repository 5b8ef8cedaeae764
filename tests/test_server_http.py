"""The server's HTTP input and answers (a review's findings): bodies read as
strictly as websocket messages, HEAD, caching, ``Allow`` and ``Retry-After``,
forwarded addresses, the Host header, path numbers, and the cap on
connections. See ``docs/server.md`` and ``docs/protocol.md``."""

from __future__ import annotations

import json
import re

import pytest

from flowerbridge.server import ServerConfig
from flowerbridge.server.testing import ServerThread, table_request

PEOPLE = {s: "human" for s in "NESW"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    config = ServerConfig(database=str(tmp_path_factory.mktemp("http") / "t.db"), bot_delay=0,
                          replace_after=None, analysis=False, tables_per_minute=10_000,
                          tables_per_address=10_000)
    with ServerThread(config) as running:
        yield running


def _post(server, content: bytes):
    return server.api("POST", "/api/tables", content=content,
                      headers={"content-type": "application/json"})


# ----------------------------------------------------- bodies read strictly

SEATS = json.dumps(table_request(PEOPLE)["seats"]).encode()


@pytest.mark.parametrize("content, message", [
    (b'{"name": "a", "name": "b", "seats": ' + SEATS + b'}',
     "not JSON: the name 'name' appears twice in one object"),
    (b'{"name": NaN, "seats": ' + SEATS + b'}', "not JSON: NaN is not a JSON value"),
    (b'{"name": -Infinity, "seats": ' + SEATS + b'}', "not JSON: -Infinity is not a JSON value"),
    (b'\xef\xbb\xbf{"seats": ' + SEATS + b'}', "not JSON: it begins with a byte order mark (U+FEFF)"),
    ('{"seats": {}}'.encode("utf-16"), "not JSON: byte 0 is not UTF-8 text"),
    (b'{"name": "\xff", "seats": ' + SEATS + b'}', "not JSON: byte 10 is not UTF-8 text"),
    (b'{"name": ' + b"9" * 5000 + b'}', "a number has more than 4,300 digits"),
    # (30,000 deep: Python 3.13's JSON reader goes about 10,000 deep, 3.11's 1,000)
    (b"[" * 30000 + b"]" * 30000, "arrays and objects nested too deeply"),
    (b'{"seats": }', "not JSON: Expecting value at line 1 column 11"),
    # an option nested between what pydantic's copy of the request and the JSON reader
    # take was answered 500 (plain text, a traceback in the log)
    (b'{"options": {"undertrick_penalty": ' + b"[" * 300 + b"]" * 300 + b'}, "seats": ' + SEATS + b'}',
     "option undertrick_penalty: nested more deeply than any option is"),
    (b'{"options": {"honor_bright": [[4, 2], [4, [[1]]]]}, "seats": ' + SEATS + b'}',
     "option honor_bright: nested more deeply than any option is"),
])
def test_http_a_body_is_read_as_strictly_as_a_websocket_message(server, content, message):
    # (the server is the module's: other tests may have made tables before this one)
    before = server.api("GET", "/api/tables").json()["tables"]
    answer = _post(server, content)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "bad_request" and message in error["message"], error
    assert server.api("GET", "/api/tables").json()["tables"] == before     # no table made


def test_http_a_server_failure_is_a_json_500_with_the_headers_of_every_answer(server, monkeypatch):
    # Starlette's own 500 went out as plain text past the middleware that adds the
    # security and cache headers, which docs/server.md promises on every answer
    from flowerbridge.server import app as app_module
    ok = server.api("GET", "/api/cards")
    kept = {"content-security-policy", "x-frame-options", "x-content-type-options", "referrer-policy",
            "cache-control"}
    assert kept <= set(ok.headers)

    def broken():
        raise RuntimeError("a bug")
    monkeypatch.setattr(app_module, "card_catalogue", broken)
    failed, head = server.api("GET", "/api/cards"), server.api("HEAD", "/api/cards")
    assert (failed.status_code, head.status_code) == (500, 500)
    assert failed.json() == {"error": {"code": "internal",
                                       "message": "the server failed on this request (a bug, logged)"}}
    assert {name: failed.headers[name] for name in kept} == {name: ok.headers[name] for name in kept}
    assert head.content == b"" and kept <= set(head.headers)


# --------------------------------------------------- HEAD, Allow, caching


def test_http_head_answers_wherever_get_does_with_the_headers_and_no_body(server):
    table_id = server.create_table(PEOPLE)["table"]["id"]
    for path in ("/", f"/t/{table_id}", "/static/js/table.js", "/api/meta", "/api/cards",
                 "/api/tables", f"/api/tables/{table_id}", f"/api/tables/{table_id}/session"):
        get, head = server.api("GET", path), server.api("HEAD", path)
        assert (get.status_code, head.status_code) == (200, 200), path
        assert head.content == b"" and get.content, path
        # (the length sent: the lobby's list comes gzip-compressed, httpx unzips it)
        assert head.headers["content-length"] == get.headers["content-length"], path
        assert head.headers.get("content-encoding") == get.headers.get("content-encoding"), path
        assert head.headers["content-type"] == get.headers["content-type"], path
    assert server.api("HEAD", "/api/tables/nope").status_code == 404


@pytest.mark.parametrize("method, path, allow", [
    ("DELETE", "/api/meta", "GET, HEAD"), ("PUT", "/api/tables", "GET, HEAD, POST"),
    ("POST", "/", "GET, HEAD"), ("POST", "/static/js/table.js", "GET, HEAD"),
    ("HEAD", "/api/tables", None),      # (allowed: no 405)
])
def test_http_405_says_which_methods_are_allowed(server, method, path, allow):
    answer = server.api(method, path)
    if allow is None:
        assert answer.status_code == 200
        return
    assert answer.status_code == 405 and answer.headers["allow"] == allow
    assert answer.json()["error"] == {"code": "method_not_allowed",
                                      "message": f"{method} is not allowed on {path}"}


def test_http_pages_and_files_are_revalidated_and_api_answers_not_stored(server):
    table_id = server.create_table(PEOPLE)["table"]["id"]
    for path in ("/", f"/t/{table_id}", "/static/js/table.js", "/static/css/flowerbridge.css"):
        page = server.api("GET", path)
        assert page.status_code == 200 and page.headers["cache-control"] == "no-cache", path
        etag = page.headers["etag"]
        again = server.api("GET", path, headers={"if-none-match": etag})
        assert again.status_code == 304 and again.content == b"", path
        assert again.headers["cache-control"] == "no-cache", path
    page = server.api("GET", "/nothing/here", headers={"accept": "text/html"})
    assert page.status_code == 404 and page.headers["cache-control"] == "no-cache"
    for path in ("/api/meta", f"/api/tables/{table_id}", "/api/tables/nope"):
        assert server.api("GET", path).headers["cache-control"] == "no-store", path
    # the lobby's list is kept, and asked for again with its ETag
    assert server.api("GET", "/api/tables").headers["cache-control"] == "no-cache"
    refused = server.api("POST", "/api/tables", json={})
    assert refused.status_code == 400 and refused.headers["cache-control"] == "no-store"


# -------------------------------------------------------------- Retry-After


def _own_server(tmp_path, **config):
    return ServerThread(ServerConfig(database=str(tmp_path / "t.db"), bot_delay=0,
                                     replace_after=None, analysis=False, **config))


def test_http_too_many_tables_a_minute_says_when_the_next_may_be_made(tmp_path):
    with _own_server(tmp_path, tables_per_minute=5) as server:
        answers = [server.api("POST", "/api/tables", json=table_request(PEOPLE)) for _ in range(6)]
        assert [a.status_code for a in answers] == [201] * 5 + [429]
        # five in any minute: the next when the first of the five is a minute old
        assert 55 <= int(answers[5].headers["retry-after"]) <= 60
        assert "retry-after" not in answers[4].headers


def test_http_a_creation_asked_again_with_its_idempotency_key_gets_the_same_table_and_tokens(tmp_path):
    # the answer is the one place a table's seat tokens are given: lost on its way, the
    # table could not be sat at, and asking again made a second one (docs/protocol.md)
    request = table_request(PEOPLE)

    def create(key: str | None, body: dict = request):
        headers = {} if key is None else {"idempotency-key": key}
        return server.api("POST", "/api/tables", json=body, headers=headers)

    with _own_server(tmp_path, tables_per_minute=2) as server:
        first, again = create("k-1-0123456789abcdef"), create("k-1-0123456789abcdef")
        assert first.status_code == again.status_code == 201
        assert again.json() == first.json() and len(first.json()["invitations"]) == 4
        assert [t["id"] for t in server.api("GET", "/api/tables").json()["tables"]] == [
            first.json()["table"]["id"]]
        other = create("k-2-0123456789abcdef")           # the repeat did not count against two a minute
        assert other.status_code == 201 and other.json()["table"]["id"] != first.json()["table"]["id"]
        assert create("k-3-0123456789abcdef").status_code == 429
        reused = create("k-1-0123456789abcdef", {**request, "name": "Another"})
        assert reused.status_code == 409 and reused.json()["error"]["code"] == "conflict"
        assert "given with another request" in reused.json()["error"]["message"]
        for bad_key in ("two words and then some", "short"):   # a secret: 16 characters at least
            bad = create(bad_key)
            assert bad.status_code == 400 and f"Idempotency-Key '{bad_key}'" in bad.json()["error"]["message"]
        # a key's UTF-8 bytes are quoted as written ("Ã©" came out for "é")
        accented = create("clé-0123456789abcdef".encode())
        assert accented.status_code == 400
        assert "Idempotency-Key 'clé-0123456789abcdef'" in accented.json()["error"]["message"]
        assert create(None).status_code == 429      # no key: as before
        schema = server.api("GET", "/api/openapi.json").json()["paths"]["/api/tables"]["post"]
        assert [(p["name"], p["in"]) for p in schema["parameters"]] == [("Idempotency-Key", "header")]
        # a field left out counts as its default: the same request written out in full
        # was refused as another (409), and its tokens not given again
    (tmp_path / "defaults").mkdir()
    with _own_server(tmp_path / "defaults", tables_per_minute=5) as server:
        first = create("k-5-0123456789abcdef")
        meta = server.api("GET", "/api/meta").json()
        for written in ({"stand_in": meta["default_bot"]}, {"options": meta["default_options"]},
                        {"options": {}}, {"options": None}, {"options": {"undertrick_penalty": None}}):
            again = create("k-5-0123456789abcdef", {**request, **written})
            assert again.status_code == 201 and again.json() == first.json(), written
        assert create("k-5-0123456789abcdef", {**request, "stand_in": "random"}).status_code == 409
        assert create("k-5-0123456789abcdef", {**request, "options": {"undertrick_penalty": 0}}).status_code == 409
    (tmp_path / "refused").mkdir()
    with _own_server(tmp_path / "refused", tables_per_minute=5) as server:
        refused = create("k-4-0123456789abcdef", {**request, "options": {"undertrick_penalty": -1}})
        assert refused.status_code == 400          # not made: the key is free again
        assert create("k-4-0123456789abcdef").status_code == 201
        assert len(server.api("GET", "/api/tables").json()["tables"]) == 1


def test_http_a_table_made_but_not_answered_is_answered_to_a_repeat_not_made_again(tmp_path, monkeypatch):
    # a fault after the table was stored (a review made LiveTable.info fail once): freeing
    # the key let the repeat make a second table; keeping it taken refused the repeat (409)
    # for ten minutes, and the table made could not be sat at. Its creation is stored with
    # it, so the repeat is answered with that table, its tokens made again (repeats.py).
    from flowerbridge.server.manager import LiveTable

    info, failed = LiveTable.info, []

    def fails_once(self):
        if not failed:
            failed.append(True)
            raise RuntimeError("a fault after the table was made")
        return info(self)

    monkeypatch.setattr(LiveTable, "info", fails_once)
    key = {"idempotency-key": "made-not-answered-0123456789"}
    with _own_server(tmp_path) as server:
        assert server.api("POST", "/api/tables", json=table_request(PEOPLE), headers=key).status_code == 500
        again = server.api("POST", "/api/tables", json=table_request(PEOPLE), headers=key)
        assert again.status_code == 201, again.text
        tables = server.api("GET", "/api/tables").json()["tables"]
        assert [t["id"] for t in tables] == [again.json()["table"]["id"]]
        assert sorted(again.json()["invitations"]) == ["E", "N", "S", "W"]
        for seat, invitation in again.json()["invitations"].items():
            client = server.client(again.json()["table"]["id"], invitation["token"])
            assert client.until(lambda m: m["type"] == "welcome")["seat"] == seat
            client.close()
        assert server.api("POST", "/api/tables", json=table_request(PEOPLE), headers=key).json() == again.json()


def test_http_a_full_server_says_when_a_table_may_be_closed_to_make_room(tmp_path):
    from datetime import timedelta

    from flowerbridge.server.models import utcnow

    with _own_server(tmp_path, max_tables=2, idle_close=3600) as server:
        ids = [server.create_table(PEOPLE)["table"]["id"] for _ in range(2)]
        full = server.api("POST", "/api/tables", json=table_request(PEOPLE))
        assert full.status_code == 503 and full.json()["error"]["code"] == "full"
        assert 3500 <= int(full.headers["retry-after"]) <= 3600      # an hour idle, from now
        manager = server.app.state.manager
        manager.clock = lambda: utcnow() + timedelta(minutes=59, seconds=30)
        full = server.api("POST", "/api/tables", json=table_request(PEOPLE))
        assert full.status_code == 503 and int(full.headers["retry-after"]) == 60  # a minute at least
        watchers = [server.client(table_id) for table_id in ids]
        for watcher in watchers:
            watcher.until(lambda m: m["type"] == "snapshot")
        full = server.api("POST", "/api/tables", json=table_request(PEOPLE))
        assert full.status_code == 503 and full.headers["retry-after"] == "60"  # none can be closed
        for watcher in watchers:
            watcher.close()


# ----------------------------------------------------- numbers and wording


def test_http_a_full_server_says_how_many_tables_it_has_open_after_a_lower_most(tmp_path):
    # restarted with a lower --max-tables, it said "the server has 1 table open" with 2 open
    with _own_server(tmp_path, max_tables=2, idle_close=3600) as server:
        server.create_table(PEOPLE)
        server.create_table(PEOPLE)
    with _own_server(tmp_path, max_tables=1, idle_close=3600) as server:
        full = server.api("POST", "/api/tables", json=table_request(PEOPLE))
        assert full.status_code == 503
        assert full.json()["error"]["message"].startswith(
            "the server has 2 tables open, more than its most, 1, and none has gone")


def test_http_a_stand_in_of_no_level_is_refused_not_the_default(server):
    # "" was taken as the default bot, where every other level that is none is refused
    answer = server.api("POST", "/api/tables", json={**table_request(PEOPLE), "stand_in": ""})
    assert answer.status_code == 400 and answer.json()["error"] == {
        "code": "bad_request", "message": "stand_in: unknown bot level ''; use one of random, basic, pimc"}


def test_http_a_full_server_of_one_table_says_table(tmp_path):
    # "the server has 1 tables open"
    with _own_server(tmp_path, max_tables=1, idle_close=3600) as server:
        server.create_table(PEOPLE)
        full = server.api("POST", "/api/tables", json=table_request(PEOPLE))
        assert full.status_code == 503
        assert full.json()["error"]["message"].startswith("the server has 1 table open, its most")


@pytest.mark.parametrize("segment", ["1_0", "1.0", "+1", "-1", "-0", " 1", "1e0", "٣", "0x1", "9" * 5000])
def test_http_a_hand_number_in_a_path_is_decimal_digits_only(server, segment):
    table_id = server.create_table(PEOPLE)["table"]["id"]
    answer = server.api("GET", f"/api/tables/{table_id}/hands/{segment}")
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "bad_request"
    assert error["message"].startswith(f"hands/{segment[:40]}") and "decimal digits" in error["message"]


def test_http_a_hand_number_in_digits_is_read(server):
    created = server.create_table({s: "random" for s in "NESW"}, hands=2)
    table_id = created["table"]["id"]
    watcher = server.client(table_id)        # the bots play hand 1 while someone watches
    try:
        watcher.until(lambda m: m.get("type") == "hand_over" or bool(m.get("hand_over")), timeout=60)
    finally:
        watcher.close()
    first = server.api("GET", f"/api/tables/{table_id}/hands/1")
    assert first.status_code == 200 and first.json()["hand"] == 1
    for segment in ("01", "0001"):
        assert server.api("GET", f"/api/tables/{table_id}/hands/{segment}").json() == first.json(), segment
    for segment in ("0", "3", "9" * 30):    # no such hand in a session of two
        answer = server.api("GET", f"/api/tables/{table_id}/hands/{segment}")
        assert (answer.status_code, answer.json()["error"]["code"]) == (409, "no_hand"), segment


def test_http_a_sessions_record_and_a_hands_review_are_sent_gzip_compressed(server, fixed_table_seed):
    """GET /session, which grows with the session (420 KB at 419 hands), was sent
    whole whatever the client took; like the lobby list it is now gzip-compressed
    for a client that takes gzip, and so is a hand's review. (The seed is fixed: a
    passed-out first hand's review is too short to compress, about 1 run in 40.)"""
    created = server.create_table({s: "basic" for s in "NESW"}, hands=2)
    table_id = created["table"]["id"]
    watcher = server.client(table_id)        # four bots play while someone watches
    try:
        watcher.until(lambda m: m.get("type") == "hand_over" or bool(m.get("hand_over")), timeout=60)
    finally:
        watcher.close()
    for path in (f"/api/tables/{table_id}/session", f"/api/tables/{table_id}/hands/1"):
        plain = server.api("GET", path, headers={"Accept-Encoding": "identity"})
        assert plain.status_code == 200 and "content-encoding" not in plain.headers
        assert plain.headers["vary"] == "Accept-Encoding" and len(plain.content) > 1400
        zipped = server.api("GET", path, headers={"Accept-Encoding": "gzip"})
        assert zipped.headers["content-encoding"] == "gzip"
        assert int(zipped.headers["content-length"]) < len(plain.content) / 2
        assert zipped.json() == plain.json()        # (httpx unzips it)
        assert "content-encoding" not in server.api("GET", path, headers={"Accept-Encoding": "gzip;q=0"}).headers


def test_http_messages_say_one_table_and_not_pydantics_value_error(tmp_path):
    with _own_server(tmp_path, tables_per_minute=1, connections_per_address=1) as server:
        created = server.api("POST", "/api/tables", json=table_request(PEOPLE))
        assert created.status_code == 201
        table_id = created.json()["table"]["id"]
        first = server.client(table_id)
        first.until(lambda m: m["type"] == "snapshot")
        second = server.client(table_id, hello=False)
        error = second.until(lambda m: m["type"] == "error")
        assert error["message"].startswith("this address has 1 connection open, its most")
        first.close()
        second.close()
        refused = server.api("POST", "/api/tables", json=table_request(PEOPLE)).json()["error"]
        assert refused["message"].startswith("more than 1 table a minute from this address")
        body = {**table_request(PEOPLE), "length": {"hands": 1, "games": 1}}
        bad = server.api("POST", "/api/tables", json=body).json()["error"]["message"]
        assert bad == "length: give exactly one of hands or games"


@pytest.mark.parametrize("message, said", [
    ("{}", "type: Field required"),
    ('{"type": "dance"}', 'type: "dance" is not one of hello, call, play, sync, ping, close, hint, claim, undo'),
    ('{"type": 5}', "type: 5 is not one of hello, call, play, sync, ping, close, hint, claim, undo"),
    ("[1,2]", "a message is a JSON object, not an array"),
])
def test_http_a_websocket_message_without_a_known_type_says_so_plainly(message, said):
    from flowerbridge.server.schemas import MessageError, parse_message

    with pytest.raises(MessageError) as refused:
        parse_message(message)
    assert str(refused.value) == said


@pytest.mark.parametrize("message_id, echoed", [
    ("p1", "p1"), ("x" * 64, "x" * 64), ("x" * 65, None), (7, None), ("\ud800", None)])
def test_http_a_refused_websocket_message_echoes_its_id_only_when_the_id_is_valid(message_id, echoed):
    from flowerbridge.server.schemas import MessageError, parse_message

    with pytest.raises(MessageError) as refused:
        parse_message(json.dumps({"type": "ping", "id": message_id, "extra": 1}))
    assert refused.value.message_id == echoed


def test_http_the_lobby_list_is_revalidated_by_its_etag_and_sent_gzip_compressed(server, monkeypatch):
    """GET /api/tables was the whole list (595 KB for 1,025 tables) at every
    poll of every lobby: an unchanged list is now a 304 without a body, and a
    list sent is gzip-compressed for a client that takes gzip."""
    from flowerbridge.server import manager

    monkeypatch.setattr(manager, "LOBBY_FRESH_SECONDS", 0)   # made anew at each request
    server.create_table(PEOPLE, name="Etag table")
    plain = server.api("GET", "/api/tables", headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert plain.headers["cache-control"] == "no-cache" and plain.headers["vary"] == "Accept-Encoding"
    etag = plain.headers["etag"]
    # one tag for both forms, so a weak one (a strong tag is one representation's, RFC 9110)
    assert re.fullmatch(r'W/"[0-9a-f]{24}"', etag), etag
    zipped = server.api("GET", "/api/tables", headers={"Accept-Encoding": "gzip, deflate"})
    assert zipped.headers["content-encoding"] == "gzip" and zipped.headers["etag"] == etag
    assert int(zipped.headers["content-length"]) < len(plain.content)
    assert zipped.json() == plain.json()        # (httpx unzips it)
    for refused in ("gzip;q=0", "gzip;q=0, *", "br", "gzip;q=nonsense"):
        answer = server.api("GET", "/api/tables", headers={"Accept-Encoding": refused})
        assert "content-encoding" not in answer.headers, refused
    for header in (etag, etag.removeprefix("W/"), f'"other", {etag}', "*"):
        again = server.api("GET", "/api/tables", headers={"If-None-Match": header})
        assert (again.status_code, again.content) == (304, b""), header
        assert again.headers["etag"] == etag
    assert server.api("GET", "/api/tables", headers={"If-None-Match": '"other"'}).status_code == 200
    # a new table changes the list, and its tag
    server.create_table(PEOPLE, name="Another")
    changed = server.api("GET", "/api/tables", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag
    assert "Another" in {t["name"] for t in changed.json()["tables"]}


def test_http_kept_answers_say_being_made_expire_ten_minutes_after_the_answer_and_are_capped():
    from flowerbridge.server import repeats
    from flowerbridge.server.table import TableError

    now = [0.0]
    kept = repeats.KeptAnswers(clock=lambda: now[0])
    kept.begin("k", {"name": "a"})
    with pytest.raises(TableError, match="still being made"):
        kept.look("k", {"name": "a"})
    now[0] = 500.0
    kept.done("k", {"table": 1})
    assert kept.look("k", {"name": "a"}) == {"table": 1}
    with pytest.raises(TableError, match="given with another request"):
        kept.look("k", {"name": "b"})
    now[0] = 500.0 + repeats.KEPT_SECONDS - 1
    assert kept.look("k", {"name": "a"}) == {"table": 1}        # 10 minutes from the answer
    now[0] += 1
    assert kept.look("k", {"name": "a"}) is None
    kept.begin("gone", {})
    kept.failed("gone")
    assert kept.look("gone", {}) is None
    for n in range(repeats.MOST_KEPT + 1):
        kept.begin(n, {})
        kept.done(n, {"n": n})
    assert kept.look(0, {}) is None and kept.look(repeats.MOST_KEPT, {}) == {"n": repeats.MOST_KEPT}


def test_http_a_request_with_two_host_headers_is_refused_whichever_comes_first():
    # the first was taken: "localhost" then "evil.example" was served, the other order
    # refused (RFC 9112 says such a request is answered 400)
    import asyncio

    from flowerbridge.server.headers import HostCheck

    served = []

    async def app(scope, receive, send):
        served.append(scope["path"])

    async def answer(*hosts: bytes) -> list[dict]:
        sent: list[dict] = []

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "path": "/api/meta", "headers": [(b"host", host) for host in hosts]}
        await HostCheck(app, ["localhost"])(scope, None, send)
        return sent

    assert asyncio.run(answer(b"localhost")) == [] and served == ["/api/meta"]
    for hosts in ((b"localhost", b"evil.example"), (b"evil.example", b"localhost"), (b"localhost", b"localhost")):
        start, body = asyncio.run(answer(*hosts))
        assert start["status"] == 400
        error = json.loads(body["body"])["error"]
        assert error["code"] == "bad_host" and error["message"].startswith("the request has 2 Host headers: ")
    assert served == ["/api/meta"]


@pytest.mark.parametrize("range_header", ["bytes", "items=0-10", "bytes=", "bytes=-", "bytes=9-3", "bytes=a-b"])
def test_http_a_range_header_that_cannot_be_read_is_ignored_and_the_file_sent_whole(server, range_header):
    # RFC 9110 (14.2): a server may ignore Range, and ignores a unit it does not know;
    # Starlette's files answered these with a plain-text 400, "Malformed range header."
    whole = server.api("GET", "/static/js/table.js")
    for path, content in (("/static/js/table.js", whole.content), ("/", None)):
        answer = server.api("GET", path, headers={"range": range_header})
        assert answer.status_code == 200, (path, range_header, answer.text[:80])
        assert content is None or answer.content == content
        assert "content-range" not in answer.headers


def test_http_a_range_the_file_holds_is_sent_and_one_past_its_end_is_416(server):
    whole = server.api("GET", "/static/js/table.js").content
    part = server.api("GET", "/static/js/table.js", headers={"range": "bytes=0-9"})
    assert part.status_code == 206 and part.content == whole[:10]
    assert part.headers["content-range"] == f"bytes 0-9/{len(whole)}"
    beyond = server.api("GET", "/static/js/table.js", headers={"range": f"bytes={len(whole) + 5}-"})
    assert beyond.status_code == 416 and beyond.headers["content-range"] == f"bytes */{len(whole)}"


SEATS = {"N": {"player": "human"}, "E": {"player": "bot", "level": "random"},
         "S": {"player": "human"}, "W": {"player": "bot", "level": "random"}}


@pytest.mark.parametrize("text, code, accepted", [
    # docs/protocol.md: since "is required, a whole number from 0"; a message of at most
    # 4096 bytes; an id of any string up to 64 characters
    (json.dumps({"type": "sync"}), "bad_message", json.dumps({"type": "sync", "since": 0})),
    (json.dumps({"type": "hello", "since": -1}), "bad_message", json.dumps({"type": "hello", "since": 0})),
    (json.dumps({"type": "ping", "id": "a"}).ljust(4097), "too_large",
     json.dumps({"type": "ping", "id": "a"}).ljust(4096)),
    (json.dumps({"type": "ping", "id": "x" * 65}), "bad_message", json.dumps({"type": "ping", "id": "x" * 64})),
])
def test_protocol_messages_at_their_limits_are_taken_and_one_past_them_refused(text, code, accepted):
    from flowerbridge.server.schemas import MessageError, parse_message
    with pytest.raises(MessageError) as refused:
        parse_message(text)
    assert refused.value.code == code
    parse_message(accepted)


@pytest.mark.parametrize("change, where", [
    ({"length": {"hands": 101}}, "length.hands"),
    ({"seats": {**SEATS, "S": {"player": "human", "level": "pimc"}}}, "seats.S"),
    ({"name": "x" * 61}, "name"),
])
def test_a_table_request_one_past_its_documented_limits_is_refused_naming_where(change, where):
    # docs/protocol.md: 1 <= hands <= 100; a human has no level; a name of at most 60 characters
    from pydantic import ValidationError
    from flowerbridge.server.schemas import CreateTable
    with pytest.raises(ValidationError) as refused:
        CreateTable.model_validate({"seats": SEATS, **change})
    assert ".".join(map(str, refused.value.errors()[0]["loc"])).startswith(where)
    CreateTable.model_validate({"seats": SEATS, "length": {"hands": 100}, "name": "x" * 60})


def test_the_wheel_takes_every_file_the_server_serves_or_migrates_with_and_no_other():
    # package-data took "every file" under web/ and migrations/: a stray database or
    # editor's backup went into a wheel built from a checkout, and was served under /static/.
    # Named by kind now, a kind the globs do not name would be left out of a wheel: each
    # file there must be named, and a stray one must not.
    import tomllib
    from pathlib import Path

    import flowerbridge

    root = Path(flowerbridge.__file__).parent
    project = Path(__file__).resolve().parent.parent / "pyproject.toml"
    setuptools = tomllib.loads(project.read_text(encoding="utf-8"))["tool"]["setuptools"]
    taken = {path for pattern in setuptools["package-data"]["flowerbridge"] for path in root.glob(pattern)}
    shipped = {path for folder in ("server/web", "server/migrations") for path in (root / folder).rglob("*")
               if path.is_file() and "__pycache__" not in path.parts}
    assert shipped and shipped <= taken, sorted(str(p.relative_to(root)) for p in shipped - taken)
    excluded = setuptools["exclude-package-data"]["flowerbridge"]
    for stray in ("server/web/tables.db", "server/web/js/table.js~", "server/migrations/env.cpython-311.pyc"):
        assert any(Path(stray).match(pattern) for pattern in excluded), stray
