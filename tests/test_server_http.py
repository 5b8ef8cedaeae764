"""The server's HTTP input and answers (a review's findings): bodies read as
strictly as websocket messages, HEAD, caching, ``Allow`` and ``Retry-After``,
forwarded addresses, the Host header, path numbers, and the cap on
connections. See ``docs/server.md`` and ``docs/protocol.md``."""

from __future__ import annotations

import json

import pytest

from flowerbridge.server import ServerConfig
from flowerbridge.server.testing import ServerThread, table_request

PEOPLE = {s: "human" for s in "NESW"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    config = ServerConfig(database=str(tmp_path_factory.mktemp("http") / "t.db"), bot_delay=0,
                          replace_after=None, analysis=False, tables_per_minute=10_000)
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
    (b"[" * 5000 + b"]" * 5000, "arrays and objects nested too deeply"),
    (b'{"seats": }', "not JSON: Expecting value at line 1 column 11"),
])
def test_http_a_body_is_read_as_strictly_as_a_websocket_message(server, content, message):
    answer = _post(server, content)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "bad_request" and message in error["message"], error
    assert server.api("GET", "/api/tables").json()["tables"] == []


# --------------------------------------------------- HEAD, Allow, caching


def test_http_head_answers_wherever_get_does_with_the_headers_and_no_body(server):
    table_id = server.create_table(PEOPLE)["table"]["id"]
    for path in ("/", f"/t/{table_id}", "/static/js/table.js", "/api/meta", "/api/cards",
                 "/api/tables", f"/api/tables/{table_id}", f"/api/tables/{table_id}/session"):
        get, head = server.api("GET", path), server.api("HEAD", path)
        assert (get.status_code, head.status_code) == (200, 200), path
        assert head.content == b"" and get.content, path
        assert head.headers["content-length"] == str(len(get.content)), path
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
    for path in ("/api/meta", "/api/tables", f"/api/tables/{table_id}", "/api/tables/nope"):
        assert server.api("GET", path).headers["cache-control"] == "no-store", path
    refused = server.api("POST", "/api/tables", json={})
    assert refused.status_code == 400 and refused.headers["cache-control"] == "no-store"
