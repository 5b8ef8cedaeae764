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
