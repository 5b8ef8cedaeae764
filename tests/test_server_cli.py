"""``flowerbridge serve`` on the command line: it prints its URL, and a port in
use, an unreachable database or a bad option is one ``error:`` line, exit 2."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from flowerbridge.server.testing import ServerProcess


def serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flowerbridge.cli", "serve", *args],
                          capture_output=True, text=True, timeout=60)


def test_serve_prints_the_url_and_serves_the_lobby(tmp_path):
    with ServerProcess(tmp_path / "t.db", "--no-analysis") as server:
        assert server.url.startswith("http://127.0.0.1:")
        assert server.api("GET", "/").status_code == 200
        assert server.api("GET", "/api/meta").json()["analysis"] is False


def test_serve_on_a_port_in_use_is_one_error_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = serve("--port", str(port), "--database", str(tmp_path / "t.db"))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}")
    assert result.stderr.count("\n") == 1


def test_serve_with_an_unreachable_database_is_one_error_line():
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = serve("--database", f"postgresql://nobody:secret@127.0.0.1:{port}/none")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("error: cannot migrate the database")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("args", [["--bot-delay", "-1"], ["--replace-after", "soon"],
                                  ["--port", "http"], ["--max-tables", "0"],
                                  ["--tables-per-minute", "²"], ["--connections-per-address", "-5"]])
def test_serve_refuses_bad_options(args, tmp_path):
    result = serve(*args, "--database", str(tmp_path / "t.db"))
    assert result.returncode == 2 and result.stderr.startswith("error: flowerbridge serve:")
