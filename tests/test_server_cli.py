"""``flowerbridge serve`` on the command line: it prints its URL, and a port in
use, an unreachable database or a bad option is one ``error:`` line, exit 2."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

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


def _first_line(*args: str, env: dict[str, str] | None = None) -> str:
    """The first line a ``serve`` started with ``args`` prints (it is then stopped)."""
    process = subprocess.Popen([sys.executable, "-m", "flowerbridge.cli", "serve", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        assert process.stdout is not None
        return process.stdout.readline()
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_serve_without_a_database_names_its_default_file_by_its_path(tmp_path):
    # README: the default database is flowerbridge.db in the user's data directory; its
    # line said "database: sqlite:////home/...", where a file given by --database is a path
    line = _first_line("--port", "0", "--no-analysis", env={**os.environ, "XDG_DATA_HOME": str(tmp_path)})
    assert f"(database: {tmp_path / 'flowerbridge' / 'flowerbridge.db'}; " in line, line
    assert (tmp_path / "flowerbridge" / "flowerbridge.db").is_file()


def _route_out_address(target: str = "192.0.2.1") -> str:
    """The address a packet to ``target`` would leave from, as the kernel's tables say
    (Linux: the longest matching route in /proc/net/route, then its interface's
    address by SIOCGIFADDR), or 127.0.0.1 where none leads there or it is loopback:
    found apart from the UDP-socket probe that ``serve`` uses."""
    import fcntl
    import ipaddress
    import struct

    wanted = int(ipaddress.IPv4Address(target))
    best: tuple[int, str] | None = None
    for line in Path("/proc/net/route").read_text().splitlines()[1:]:
        fields = line.split()
        # the table writes each address's bytes in reverse (the kernel's little-endian order)
        destination, mask = (int.from_bytes(bytes.fromhex(f), "little") for f in (fields[1], fields[7]))
        if wanted & mask == destination and (best is None or mask.bit_count() > best[0]):
            best = (mask.bit_count(), fields[0])
    if best is None:
        return "127.0.0.1"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", best[1].encode()[:15]))
    address = socket.inet_ntoa(packed[20:24])
    return "127.0.0.1" if address.startswith("127.") else address


@pytest.mark.parametrize("every", ["0.0.0.0", "0"])
def test_serve_on_every_address_prints_one_the_others_can_reach(every, tmp_path):
    # it printed http://0.0.0.0:PORT/, and a lobby opened there (or at 127.0.0.1)
    # made invitation links that pointed the others at their own machines; the
    # name 0 listens on every address too (it printed http://0:PORT/)
    line = _first_line("--host", every, "--port", "0", "--database", str(tmp_path / "t.db"), "--no-analysis")
    assert "0.0.0.0" not in line and "//0:" not in line, line
    host = re.match(r"Flower Bridge is at http://([0-9.]+):\d+/", line)
    assert host, line
    assert "open the lobby at the one the others reach" in line
    if sys.platform == "linux":     # the address of the route out, by the kernel's own tables
        assert host[1] == _route_out_address(), line


def test_serve_reachable_from_other_machines_says_to_put_a_proxy_in_front(tmp_path):
    # nothing here times out a client that never finishes its request: a few hundred such
    # shut everyone out (a security review); docs/server.md said so, serve nothing
    note = ("note: other machines can reach this server: on a network you do not trust, put it behind a "
            "reverse proxy that times out slow clients (docs/server.md, Beyond this machine)\n")
    # on loopback (an IPv4-mapped one too), or behind a proxy named by --forwarded-allow-ips: no note
    for more, noted in ((["--host", "0.0.0.0"], True), ([], False), (["--host", "::ffff:127.0.0.1"], False),
                        (["--host", "0.0.0.0", "--forwarded-allow-ips", "127.0.0.1"], False)):
        process = subprocess.Popen([sys.executable, "-m", "flowerbridge.cli", "serve", "--port", "0", *more,
                                    "--database", str(tmp_path / "t.db"), "--no-analysis"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert process.stdout.readline().startswith("Flower Bridge is at http://")
            time.sleep(0.5)     # (the note, if any, is written straight after that line)
        finally:
            process.terminate()
            _, err = process.communicate(timeout=30)
        assert (note in err) is noted, (more, err)


def test_serve_s_network_address_is_the_outward_route_s_never_loopback(monkeypatch):
    from flowerbridge.cli import serve as serve_module

    class Probe:
        """A UDP socket whose route out leaves by ``address`` (or fails)."""
        address: str | OSError = "192.0.2.7"

        def __init__(self, *args):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def connect(self, where):
            if isinstance(Probe.address, OSError):
                raise Probe.address

        def getsockname(self):
            return (Probe.address, 40000)

    monkeypatch.setattr(socket, "socket", Probe)
    said = {}
    for address in ["192.0.2.7", "10.1.2.3", "127.0.0.1", "127.0.1.1", "0.0.0.0", OSError("no route")]:
        Probe.address = address
        said[str(address)] = serve_module.network_address()
    assert said == {"192.0.2.7": "192.0.2.7", "10.1.2.3": "10.1.2.3", "127.0.0.1": None,
                    "127.0.1.1": None, "0.0.0.0": None, "no route": None}


def test_serve_on_a_port_in_use_is_one_error_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = serve("--port", str(port), "--database", str(tmp_path / "t.db"))
    assert result.returncode == 2 and result.stdout == ""
    # (and what to do: 8000, make run's, is many tools' default)
    assert result.stderr == (f"error: cannot listen on 127.0.0.1:{port}: Address already in use (another port: "
                             "--port N, or --port 0 for any free one; make run PORT=N)\n")
    assert not (tmp_path / "t.db").exists()  # the refused server leaves nothing behind


def test_serve_with_an_unreachable_database_is_one_error_line():
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = serve("--port", "0", "--database", f"postgresql://nobody:secret@127.0.0.1:{port}/none")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"error: cannot open database postgresql://nobody:***@127.0.0.1:{port}/none: ")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_a_second_serve_on_a_database_in_use_is_refused_until_the_first_stops(tmp_path):
    """docs/server.md, Running it: one server per database. The lock goes with the
    server however it stops: SIGTERM, Ctrl+C (SIGINT) or SIGKILL."""
    database = str(tmp_path / "t.db")
    lock = tmp_path / "t.db.lock"
    with ServerProcess(database, "--no-analysis") as first:
        result = serve("--port", "0", "--database", database)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.startswith("error: another flowerbridge server is using this "
                                        f"database ({database}; {lock} is locked)")
        assert result.stderr.count("\n") == 1
        assert first.api("GET", "/api/tables").status_code == 200
    assert not lock.exists()    # SIGTERM: stopped in order, the lock let go and taken away
    with ServerProcess(database, "--no-analysis") as second:
        assert second.process is not None
        second.process.send_signal(signal.SIGINT)
        second.process.wait(timeout=30)
    assert not lock.exists()
    with ServerProcess(database, "--no-analysis") as third:
        third.kill()
    assert lock.exists()    # left by a killed server, but not locked: the next one starts
    with ServerProcess(database, "--no-analysis") as fourth:
        assert fourth.api("GET", "/api/tables").status_code == 200


# Run as the server's interpreter starts: its event loop is made slowly, after the URL
# line, the database locked and migrated, before uvicorn has put in its signal handlers;
# and with CLOSING set, the store is closed slowly (a second stop can come meanwhile).
SLOW_START = """
import asyncio, os, pathlib, time
import uvicorn.config

made = uvicorn.config.Config.get_loop_factory

def get_loop_factory(self):
    factory = made(self) or asyncio.new_event_loop
    def slowly():
        pathlib.Path(os.environ["MAKING_LOOP"]).touch()
        time.sleep(30)
        return factory()
    return slowly

uvicorn.config.Config.get_loop_factory = get_loop_factory

if os.environ.get("CLOSING"):
    from flowerbridge.server.store import Store
    close = Store.close

    def close_slowly(self):
        pathlib.Path(os.environ["CLOSING"]).touch()
        time.sleep(float(os.environ.get("CLOSE_SECONDS", "2")))
        close(self)

    Store.close = close_slowly
"""


def _wait_for(path: Path, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while not path.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert path.exists(), process.communicate(timeout=30)


@pytest.mark.parametrize("stops, status, said", [
    ([signal.SIGINT], 130, "interrupted\n"),
    ([signal.SIGTERM], -signal.SIGTERM, ""),
    # a second stop while the first closes the store: the lock is let go all the same
    ([signal.SIGTERM, signal.SIGTERM], -signal.SIGTERM, ""),
    ([signal.SIGINT, signal.SIGTERM], -signal.SIGTERM, ""),
    ([signal.SIGTERM, signal.SIGINT], 130, "interrupted\n")])
def test_serve_stopped_before_uvicorn_takes_its_signals_stops_in_order(stops, status, said, tmp_path):
    """docs/server.md, Running it: Ctrl+C and SIGTERM let the lock go, even in the moment
    between the URL line and the server's own signal handlers. A Ctrl-C there printed
    "coroutine 'Server.serve' was never awaited" under ``interrupted``; a SIGTERM ended the
    process at once, its FILE.lock left behind, as did a second stop during the clean-up."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(SLOW_START)
    making, closing = tmp_path / "making", tmp_path / "closing"
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site"), "MAKING_LOOP": str(making)}
    if len(stops) > 1:
        env["CLOSING"] = str(closing)
    process = subprocess.Popen(
        [sys.executable, "-m", "flowerbridge.cli", "serve", "--port", "0", "--database",
         str(tmp_path / "t.db"), "--no-analysis"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        _wait_for(making, process)
        assert (tmp_path / "t.db.lock").exists()    # taken: the server had started
        process.send_signal(stops[0])
        if len(stops) > 1:
            _wait_for(closing, process)
            process.send_signal(stops[1])
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert out.startswith("Flower Bridge is at http://127.0.0.1:")
    assert process.returncode == status and err == said
    assert not (tmp_path / "t.db.lock").exists()


def test_serve_stopped_by_sigterm_ends_even_where_its_clean_up_hangs(tmp_path):
    """A SIGTERM before uvicorn's handlers cleans up, then ends the process; a clean-up that
    hangs (here closing the store takes a minute) does not keep the process: it ends
    after STOP_PATIENCE seconds, by SIGALRM."""
    from flowerbridge.cli import serve as serve_command

    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(SLOW_START)
    making, closing = tmp_path / "making", tmp_path / "closing"
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site"), "MAKING_LOOP": str(making),
           "CLOSING": str(closing), "CLOSE_SECONDS": "60"}
    process = subprocess.Popen(
        [sys.executable, "-m", "flowerbridge.cli", "serve", "--port", "0", "--database",
         str(tmp_path / "t.db"), "--no-analysis"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env)
    try:
        _wait_for(making, process)
        process.send_signal(signal.SIGTERM)
        _wait_for(closing, process)
        process.communicate(timeout=serve_command.STOP_PATIENCE + 20)     # (a hang guard)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == -signal.SIGALRM


def test_serve_stopped_and_then_interrupted_as_it_shuts_down_ends_quietly(tmp_path):
    """docs/server.md, Running it: a Ctrl+C while a SIGTERM's shutdown runs (an impatient
    second stop) ends the server at once, by the signal, the lock let go. The app's
    shutdown was cancelled with a traceback of uvicorn's."""
    with ServerProcess(tmp_path / "t.db", "--no-analysis") as server:
        assert server.process is not None
        assert server.api("GET", "/api/tables").status_code == 200     # serving
        server.process.send_signal(signal.SIGTERM)
        time.sleep(0.005)
        server.process.send_signal(signal.SIGINT)
        server.process.wait(timeout=30)
        rest = server.process.stdout.read() if server.process.stdout else ""
    assert server.process.returncode == -signal.SIGTERM
    assert rest == ""   # (stderr joins stdout there)
    assert not (tmp_path / "t.db.lock").exists()


@pytest.mark.parametrize("gap", [0.0, 0.01, 0.05])
def test_serve_interrupted_twice_ends_as_interrupted_without_a_traceback(tmp_path, gap):
    """docs/server.md, Running it: a second Ctrl+C while the first one's stop runs (an
    impatient operator, or `timeout -s INT`, which sends two) ends the server as one does,
    "interrupted", the lock let go. uvicorn raised both Ctrl+Cs again as it returned, and
    the second one, inside the event loop, printed tracebacks of the app's shutdown (127
    lines with a socket open)."""
    with ServerProcess(tmp_path / "t.db", "--no-analysis") as server:
        assert server.process is not None
        created = server.create_table({s: "human" for s in "NESW"})
        client = server.client(created["table"]["id"], created["invitations"]["N"]["token"])
        client.until(lambda m: m["type"] == "snapshot")     # a websocket open through the stop
        server.process.send_signal(signal.SIGINT)
        time.sleep(gap)
        server.process.send_signal(signal.SIGINT)
        server.process.wait(timeout=30)
        rest = server.process.stdout.read() if server.process.stdout else ""
        client.close()
    assert "Traceback" not in rest and "ERROR" not in rest, rest
    assert server.process.returncode == 130 and rest.endswith("interrupted\n"), rest
    assert not (tmp_path / "t.db.lock").exists()


def test_serve_closes_on_a_text_frame_that_is_not_utf8_and_logs_nothing(tmp_path):
    """docs/protocol.md, Errors: a text frame that is not UTF-8 closes the connection with
    1007 (RFC 6455). uvicorn logged each as an ERROR with a traceback: any client could
    fill the server's log. The server goes on serving."""
    import os
    import struct

    with ServerProcess(tmp_path / "t.db", "--no-analysis") as server:
        assert server.process is not None and server.process.stdout is not None
        created = server.create_table({s: "human" for s in "NESW"})
        client = server.client(created["table"]["id"], created["invitations"]["N"]["token"])
        client.until(lambda m: m["type"] == "snapshot")
        payload = b'{"type": "ping", "id": "\xff"}'
        key = os.urandom(4)     # a client's frame is masked: a final text frame (opcode 1)
        client.ws.socket.sendall(struct.pack("!BB", 0x81, 0x80 | len(payload)) + key
                                 + bytes(b ^ key[i % 4] for i, b in enumerate(payload)))
        for _ in range(100):    # (what was sent before the frame, then the close)
            if client.recv(timeout=10) is None:
                break
        assert client.ws.close_code == 1007
        client.close()
        other = server.client(created["table"]["id"], created["invitations"]["E"]["token"])
        assert other.until(lambda m: m["type"] == "snapshot")
        other.close()
        server.process.terminate()
        server.process.wait(timeout=30)
        logged = server.process.stdout.read()
    assert "Invalid UTF-8" not in logged and "Traceback" not in logged, logged


def test_serve_answers_a_message_over_the_protocols_size_with_too_large(tmp_path):
    """docs/protocol.md, Errors: a message over 4096 bytes gets ``too_large`` and the
    socket stays open (the server reads messages up to 1 MiB, then closes with 1009)."""
    with ServerProcess(tmp_path / "t.db", "--no-analysis") as server:
        created = server.create_table({s: "human" for s in "NESW"})
        client = server.client(created["table"]["id"], created["invitations"]["N"]["token"])
        client.until(lambda m: m["type"] == "snapshot")
        client.send({"type": "ping", "id": "x" * (100 << 10)})
        error = client.until(lambda m: m["type"] == "error")
        assert error["code"] == "too_large" and "at most 4096" in error["message"]
        client.send({"type": "ping", "id": "after"})
        assert client.until(lambda m: m["type"] == "pong")["id"] == "after"
        client.send({"type": "ping", "id": "x" * (2 << 20)})
        assert client.recv(timeout=10) is None and client.ws.close_code == 1009
        client.close()


def test_serve_takes_no_compressed_websocket_messages(tmp_path):
    # with compression, 1 KB on the wire was unpacked to a 1 MiB message before the app
    # could refuse it: a stream of them from one address held a core (a security review)
    with ServerProcess(tmp_path / "t.db", "--no-analysis") as server:
        created = server.create_table({s: "human" for s in "NESW"})
        client = server.client(created["table"]["id"], created["invitations"]["N"]["token"])
        client.until(lambda m: m["type"] == "snapshot")
        assert "permessage-deflate" in client.ws.request.headers.get("Sec-WebSocket-Extensions", "")  # asked
        assert client.ws.response.headers.get("Sec-WebSocket-Extensions") is None     # and not granted
        client.close()


@pytest.mark.parametrize("args", [["--bot-delay", "-1"], ["--replace-after", "soon"],
                                  ["--host", ""], ["--host", " "], ["--port", "http"],
                                  ["--bot-delay", "86401"], ["--replace-after", "-1"],
                                  ["--port", "70000"], ["--port", "-1"],
                                  ["--max-tables", "0"], ["--idle-close", "0"],
                                  ["--idle-close", "soon"], ["--idle-close", "30s"],
                                  ["--idle-close", "366d"],
                                  ["--tables-per-minute", "²"], ["--connections-per-address", "-5"],
                                  ["--max-connections", "0"], ["--max-connections", "many"]])
def test_serve_refuses_bad_options(args, tmp_path):
    result = serve(*args, "--database", str(tmp_path / "t.db"))
    assert result.returncode == 2 and result.stderr.startswith("error: flowerbridge serve:")


@pytest.mark.parametrize("host", ["\udcff", ":", "\uff10.0.0.0", "bridge example.org", "*.example.org"])
def test_serve_refuses_a_host_that_is_no_address_or_host_name(host, tmp_path):
    # a --host of a byte that is not UTF-8 reached the socket, which raised
    # (a traceback, status 1); ':' was tried as '::0'
    result = serve("--host", host, "--port", "0", "--database", str(tmp_path / "t.db"))
    assert result.returncode == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: flowerbridge serve: argument --host: ")
    assert "is not an IP address or host name" in result.stderr
    assert not (tmp_path / "t.db").exists()


def test_serve_takes_the_hosts_the_socket_resolves():
    # names with underscores (a container's), Unicode names (by their IDNA form) and
    # addresses as written: the check above must not refuse what the socket takes
    from flowerbridge.cli.serve import _host

    for host in ("proj_web_1", "bücher.de", "LOCALHOST.", "::ffff:127.0.0.1", "10.0.0.1", "::", "0"):
        assert _host(host) == host


def test_serve_takes_idle_close_in_minutes_or_as_a_duration():
    from flowerbridge.cli.serve import _idle_close

    assert [_idle_close(text) for text in ("60", "90m", "1.5h", "2 h", "1d")] == \
        [60 * 60, 90 * 60, 90 * 60, 120 * 60, 24 * 60 * 60]
    result = serve("--idle-close", "0")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: flowerbridge serve: argument --idle-close: '0': give minutes")


@pytest.mark.parametrize("database, message", [
    ("sqlite://", "sqlite:// is an in-memory database, which loses every table when the server stops"),
    ("sqlite:///:memory:", "is an in-memory database"),
    ("{tmp}/no/such/folder/t.db", "cannot open database {tmp}/no/such/folder/t.db: there is no folder"),
    ("{tmp}", "cannot open database {tmp}: {tmp} is a folder, not a file"),   # (it named no path)
    ("postgresql://fb@127.0.0.1:1/fb\udcff", "is not valid text (UTF-8)"),
])
def test_serve_refuses_a_database_that_would_lose_tables_or_a_missing_folder(database, message, tmp_path):
    result = serve("--port", "0", "--database", database.format(tmp=tmp_path))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("error: ") and message.format(tmp=tmp_path) in result.stderr
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "no").exists()


def test_serve_refuses_a_database_path_that_is_no_regular_file(tmp_path):
    # --database /dev/null: SQLite left /dev/null-journal and a lock file beside the
    # device, and the error said "disk I/O error" with no word of which database
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    result = serve("--port", "0", "--database", str(pipe))
    assert result.returncode == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    assert result.stderr == f"error: cannot open database {pipe}: {pipe} is not a regular file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


@pytest.mark.parametrize("given, named", [("loop", "loop"), ("sqlite:///loop", "loop"),
                                          ("loop/t.db", "loop")])
def test_serve_and_prune_refuse_a_database_behind_a_loop_of_symbolic_links(tmp_path, monkeypatch, cli,
                                                                          given, named):
    # Python 3.11's pathlib raised RuntimeError ("Symlink loop") from the lock's resolve():
    # a traceback; prune said "there is no database"
    monkeypatch.chdir(tmp_path)
    os.symlink("loop2", tmp_path / "loop")
    os.symlink("loop", tmp_path / "loop2")
    for argv in (["serve", "--port", "0"], ["prune", "--older-than", "1"]):
        status, out, err = cli(*argv, "--database", given)
        assert (status, out) == (2, "")
        assert err == f"error: cannot open database {given}: {named}: Too many levels of symbolic links\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loop", "loop2"]


def test_serve_takes_a_home_folder_in_a_sqlite_url_as_in_a_path(tmp_path, monkeypatch):
    # sqlite:///~/t.db: the checks looked in the home folder, SQLite opened ./~/t.db
    # ("unable to open database file": no folder ~ here)
    from flowerbridge.server.store import Store

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    monkeypatch.chdir(tmp_path)
    store = Store("sqlite:///~/t.db")
    try:
        store.lock()
        store.migrate()
    finally:
        store.close()
    assert (tmp_path / "home" / "t.db").is_file() and not (tmp_path / "~").exists()


def test_serve_believes_no_forwarded_address_unless_told_which_proxy_to_trust(tmp_path):
    """A client cannot pick its own address for the limits per address with
    X-Forwarded-For; a proxy named by --forwarded-allow-ips can."""
    from flowerbridge.server.testing import table_request

    request = table_request({s: "human" for s in "NESW"})
    forged = {"x-forwarded-for": "1.2.3.4"}
    with ServerProcess(tmp_path / "t.db", "--no-analysis", "--tables-per-minute", "1") as server:
        assert server.api("POST", "/api/tables", json=request).status_code == 201
        assert server.api("POST", "/api/tables", json=request).status_code == 429
        assert server.api("POST", "/api/tables", json=request, headers=forged).status_code == 429
    with ServerProcess(tmp_path / "u.db", "--no-analysis", "--tables-per-minute", "1",
                       "--forwarded-allow-ips", "::1, 127.0.0.0/8") as server:
        assert server.api("POST", "/api/tables", json=request).status_code == 201
        assert server.api("POST", "/api/tables", json=request).status_code == 429
        assert server.api("POST", "/api/tables", json=request, headers=forged).status_code == 201


def test_serve_counts_an_ipv6_client_by_its_64_for_the_limits_per_address(tmp_path):
    """A host is given a whole IPv6 /64: counted address by address, one client passed
    every limit per address by changing its address (a security review's finding)."""
    from flowerbridge.server.testing import table_request

    request = table_request({s: "human" for s in "NESW"})

    def create(client: str) -> int:
        return server.api("POST", "/api/tables", json=request,
                          headers={"x-forwarded-for": client}).status_code

    with ServerProcess(tmp_path / "t.db", "--no-analysis", "--tables-per-minute", "1",
                       "--forwarded-allow-ips", "::1, 127.0.0.0/8") as server:
        assert create("2001:db8:1:2::1") == 201
        assert create("2001:db8:1:2:ffff:abcd:1234:5") == 429     # the same /64
        assert create("2001:db8:1:3::1") == 201                   # the next /64
        assert create("192.0.2.7") == 201
        assert create("::ffff:192.0.2.7") == 429                  # the same IPv4 client
        assert create("192.0.2.8") == 201


@pytest.mark.parametrize("value, words", [
    ("", "'' is not an IP address or network"),
    ("127.0.0.1,proxy", "'proxy' is not an IP address or network"),
    ("10.0.0.1/8", "has host bits set"),
    ("*,10.0.0.1", "'*' is not an IP address"),
])
def test_serve_refuses_a_bad_forwarded_allow_ips(value, words, tmp_path):
    result = serve("--forwarded-allow-ips", value, "--database", str(tmp_path / "t.db"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: flowerbridge serve: argument --forwarded-allow-ips:")
    assert words in result.stderr, result.stderr


def _handshake_status(url: str, host: str, origin: str | None = None) -> bytes:
    """The status line answering a websocket handshake sent with ``host`` (and ``origin``)."""
    from urllib.parse import urlsplit

    where = urlsplit(url)
    origin_line = "" if origin is None else f"Origin: {origin}\r\n"
    with socket.create_connection((where.hostname, where.port), timeout=10) as sock:
        sock.sendall(f"GET /ws/tables/abc HTTP/1.1\r\nHost: {host}\r\n{origin_line}Upgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n".encode())
        return sock.recv(4096).split(b"\r\n")[0]


def test_serve_on_loopback_answers_only_requests_addressed_to_a_loopback_host(tmp_path):
    """A DNS-rebinding page (its own name resolving to 127.0.0.1) is refused."""
    with ServerProcess(tmp_path / "t.db", "--no-analysis") as server:
        port = server.url.rsplit(":", 1)[1]
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", "LocalHost", "127.8.9.10",
                     f"[::1]:{port}", "localhost."):
            assert server.api("GET", "/api/meta", headers={"host": host}).status_code == 200, host
        for host in (f"evil.example:{port}", "127.0.0.1.evil.example", "localhost.evil.example",
                     "0.0.0.0", "[::2]", "10.0.0.1", "[::1]evil.example", "[::1]:80evil.example",
                     "localhost:evil.example"):
            refused = server.api("GET", "/", headers={"host": host})
            assert refused.status_code == 400, host
            error = refused.json()["error"]
            assert error["code"] == "bad_host" and "this server answers only to localhost" in error["message"]
            assert server.api("POST", "/api/tables", headers={"host": host}).status_code == 400
        assert _handshake_status(server.url, f"evil.example:{port}") == b"HTTP/1.1 400 Bad Request"
        assert _handshake_status(server.url, f"localhost:{port}").startswith(b"HTTP/1.1 101")
    with ServerProcess(tmp_path / "t.db", "--no-analysis", "--allowed-hosts",
                       "bridge.example.org,*.example.net") as server:
        for host, status in (("bridge.example.org", 200), ("a.b.example.net:8000", 200),
                             ("localhost", 200), ("example.net", 400), ("evil.example", 400)):
            assert server.api("GET", "/api/meta", headers={"host": host}).status_code == status, host
    with ServerProcess(tmp_path / "t.db", "--no-analysis", "--allowed-hosts", "*") as server:
        assert server.api("GET", "/api/meta", headers={"host": "evil.example"}).status_code == 200


def test_serve_refuses_a_websocket_opened_by_a_page_of_another_site(tmp_path):
    """Cross-site websocket hijacking: a page elsewhere that a person has open could watch
    tables from their browser and hold their connections; refused before the handshake is
    answered (a security review's finding). Programs send no Origin and are welcome."""
    with ServerProcess(tmp_path / "t.db", "--no-analysis") as server:
        port = server.url.rsplit(":", 1)[1]
        host = f"127.0.0.1:{port}"
        for origin in (None, f"http://127.0.0.1:{port}", f"HTTP://127.0.0.1:{port}"):
            assert _handshake_status(server.url, host, origin).startswith(b"HTTP/1.1 101"), origin
        assert _handshake_status(server.url, f"[::1]:{port}", f"http://[::1]:{port}").startswith(
            b"HTTP/1.1 101")
        for origin in ("https://evil.example", f"http://localhost:{port}", "http://127.0.0.1:3000",
                       "null", f"file://127.0.0.1:{port}", "http://[::1", ""):
            assert _handshake_status(server.url, host, origin) == b"HTTP/1.1 403 Forbidden", origin
        # through a proxy that passes the host on without its port (nginx's $host), or
        # with the scheme's default port ($host:$server_port)
        for host, origin, welcome in (("localhost", "https://localhost", True),
                                      ("localhost", "https://localhost:8443", True),
                                      ("localhost", "https://evil.example", False),
                                      ("localhost:443", "https://localhost", True),
                                      ("localhost:80", "http://localhost", True),
                                      ("localhost:443", "http://localhost", False),
                                      ("localhost:80", "https://localhost:80", True)):
            status = _handshake_status(server.url, host, origin)
            assert status.startswith(b"HTTP/1.1 101" if welcome else b"HTTP/1.1 403"), (host, origin)
    # a proxy that passes its own address as the Host: the site's name, given with
    # --allowed-hosts, is welcome; a refused site is logged once, saying what to change
    # (only a name it gives: not an address or a network, nor localhost, on another port)
    with ServerProcess(tmp_path / "t.db", "--no-analysis", "--allowed-hosts",
                       "bridge.example.org,*.example.net,127.0.0.1,[::1],localhost.,10.0.0.0/8") as server:
        host = server.url.removeprefix("http://")
        for origin in ("https://bridge.example.org", "https://a.example.net:8443"):
            assert _handshake_status(server.url, host, origin).startswith(b"HTTP/1.1 101"), origin
        for _ in range(2):
            assert _handshake_status(server.url, host, "https://evil.example") == b"HTTP/1.1 403 Forbidden"
        for origin in ("http://localhost:3000", "http://127.0.0.1:3000", "http://[::1]:3000",
                       "http://10.1.2.3:8000", "https://example.net"):
            assert _handshake_status(server.url, host, origin) == b"HTTP/1.1 403 Forbidden", origin
        server.process.terminate()
        log = server.process.stdout.read()
    told = [line for line in log.splitlines() if "refused a websocket" in line]
    assert len(told) == 6 and '"https://evil.example"' in told[0] and "--allowed-hosts" in told[0], log


def test_serve_takes_as_sites_the_names_allowed_hosts_gives_not_the_machine_s_own_name(tmp_path):
    """``--host vm --allowed-hosts bridge.example.org``: vm is answered as a Host, but a
    page at vm on another port is no page of this server's (a review's finding)."""
    from flowerbridge.server import ServerConfig
    from flowerbridge.server.testing import ServerThread

    config = ServerConfig(database=str(tmp_path / "t.db"), analysis=False,
                          allowed_hosts=("localhost", "127.0.0.0/8", "::1", "bridge.example.org", "vm"),
                          site_names=("bridge.example.org",))
    with ServerThread(config) as server:
        port = server.url.rsplit(":", 1)[1]
        for origin, welcome in ((f"http://vm:{port}", True), ("https://bridge.example.org", True),
                                ("http://vm:3000", False), ("https://vm", False)):
            status = _handshake_status(server.url, f"vm:{port}", origin)
            assert status.startswith(b"HTTP/1.1 101" if welcome else b"HTTP/1.1 403"), origin


def test_serve_logs_a_refused_site_once_an_hour_and_at_most_32_sites_an_hour(monkeypatch, caplog):
    from flowerbridge.server import limits, realtime

    now = [1000.0]
    monkeypatch.setattr(limits.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(realtime, "_ORIGINS_TOLD", limits.Sparing())
    caplog.set_level("WARNING", logger="flowerbridge.server")

    def told(*origins: str) -> int:
        caplog.clear()
        for origin in origins:
            realtime._tell_refused_origin(origin, "localhost:8000")
        return sum("refused a websocket" in r.getMessage() for r in caplog.records)

    assert told("https://evil.example", "https://evil.example", " HTTPS://Evil.example ") == 1
    assert told(*(f"https://{n}.example" for n in range(40))) == 31     # 32 sites an hour
    now[0] += 3599
    assert told("https://evil.example", "https://other.example") == 0
    now[0] += 1                                                          # an hour on
    assert told("https://evil.example", "https://other.example") == 2


def test_serve_logs_a_refused_host_once_with_its_level(tmp_path):
    """docs/server.md, Logging: the server's own messages reach standard error from INFO up,
    each with its level as uvicorn's are. A request refused for its Host (a proxy passing a
    name the server was not given) was not logged at all."""
    with ServerProcess(tmp_path / "t.db", "--no-analysis") as server:
        assert server.process is not None and server.process.stdout is not None
        for _ in range(3):
            assert server.api("GET", "/api/meta", headers={"Host": "evil.example"}).status_code == 400
        server.process.terminate()
        server.process.wait(timeout=30)
        logged = server.process.stdout.read()
    refused = [line for line in logged.splitlines() if "refused a request" in line]
    assert refused == ['WARNING:  refused a request: the Host header names "evil.example": this server '
                       "answers only to localhost, 127.0.0.0/8, ::1; if it is this server's name behind a "
                       "proxy, name it with --allowed-hosts"], logged


def test_serve_warns_when_the_open_files_limit_holds_fewer_connections_than_it_may_take(tmp_path):
    """docs/server.md, Logging: under `ulimit -n 300` (soft and hard) the server started
    without a word, then connections past the limit failed their handshakes."""
    import resource
    from urllib.request import urlopen

    def low_limit() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_NOFILE, (300, 300))

    def output(connections: str) -> str:
        process = subprocess.Popen(
            [sys.executable, "-m", "flowerbridge.cli", "serve", "--port", "0", "--database",
             str(tmp_path / f"{connections}.db"), "--no-analysis", "--max-connections", connections],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=low_limit)
        try:
            assert process.stdout is not None
            first = process.stdout.readline()
            assert first.startswith("Flower Bridge is at http://127.0.0.1:"), first
            # answered only once uvicorn runs, after the warning (a fixed sleep lost the race
            # on a loaded machine: stopped before it warned, the server said nothing)
            port = re.search(r":(\d+)/", first)
            assert port is not None
            with urlopen(f"http://127.0.0.1:{port.group(1)}/api/health", timeout=60) as answer:
                assert answer.status == 200
        finally:
            process.terminate()
            process.wait(timeout=30)
        # read through the text stream: communicate() reads the pipe itself, and lost the
        # warning where readline had taken it into the stream's buffer with the first line
        # (the server wrote both before the test read, on a loaded machine)
        assert process.stdout is not None
        return process.stdout.read()

    assert output("500").splitlines()[0] == (
        "WARNING:  this process may have only 300 files open (ulimit -n), and each connection is one: "
        "about 236 connections at once, not the 500 of --max-connections; raise the limit or lower "
        "--max-connections")
    assert "files open" not in output("200")      # 200 connections and the server's own files fit


def test_serve_says_it_migrated_an_earlier_versions_tables_and_its_test_helper_reads_past_that(tmp_path):
    """docs/server.md, Logging: a migration at start is logged (it was silent), and
    ServerProcess, which read the first line as the URL's, finds the URL past it."""
    from flowerbridge.server.store import ALEMBIC_INI, Store

    path = tmp_path / "old.db"
    store = Store(str(path))
    store.migrate()
    store.close()
    done = subprocess.run([sys.executable, "-m", "alembic", "-c", str(ALEMBIC_INI), "-x", f"url=sqlite:///{path}",
                           "downgrade", "0001"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with ServerProcess(path, "--no-analysis") as server:
        assert server.process is not None and server.process.stdout is not None
        assert server.api("GET", "/api/health").json() == {"status": "ok"}
        server.process.terminate()
        server.process.wait(timeout=30)
        rest = server.process.stdout.read()
    # (stderr joins stdout in ServerProcess: the line came before the URL's)
    from alembic.script import ScriptDirectory

    from flowerbridge.server.store import MIGRATIONS

    head = ScriptDirectory(str(MIGRATIONS)).get_current_head()
    assert server.before == f"INFO:     migrated the database {path} from revision 0001 to {head}\n"
    assert "migrated" not in rest and server.url.startswith("http://127.0.0.1:")


def test_serve_run_inside_another_program_leaves_its_logging_as_it_was(capsys):
    # the handler and the INFO level serve put on the flowerbridge logger stayed after it returned
    import logging

    from flowerbridge.cli import main

    logger = logging.getLogger("flowerbridge")
    before = (list(logger.handlers), logger.level)
    assert main(["serve", "--port", "0", "--database", "/no such folder/x.db"]) == 2
    assert "there is no folder" in capsys.readouterr().err
    assert (list(logger.handlers), logger.level) == before


def test_serve_elsewhere_than_loopback_answers_any_host_unless_given_a_list():
    from flowerbridge.cli.serve import allowed_hosts
    from flowerbridge.server.headers import HostNames

    loopback = ("localhost", "127.0.0.0/8", "::1")
    assert [allowed_hosts(host, None) for host in ("127.0.0.1", "127.1.2.3", "::1", "localhost")] == \
        [loopback] * 4
    # 127.0.0.1 written as IPv6 is loopback too (it answered any Host: DNS rebinding got
    # in), and a Host header naming it so is a loopback name
    assert allowed_hosts("::ffff:127.0.0.1", None) == loopback
    assert HostNames(loopback).allows("::ffff:127.0.0.1") and not HostNames(loopback).allows("::ffff:10.0.0.1")
    assert [allowed_hosts(host, None) for host in ("0.0.0.0", "::", "192.168.1.5")] == [None] * 3
    assert allowed_hosts("0.0.0.0", ["bridge.example.org"]) == (*loopback, "bridge.example.org")
    assert allowed_hosts("127.0.0.1", ["*"]) is None
    # loopback by where the socket is bound: a name of 127.0.0.1 (--host vm) answered any
    # Host, so a DNS-rebinding page got in; it answers the loopback names and its own
    assert allowed_hosts("vm", None, None, "127.0.0.1") == (*loopback, "vm")
    assert allowed_hosts("vm", ["bridge.example.org"], None, "127.0.0.1") == (*loopback, "bridge.example.org", "vm")
    assert allowed_hosts("vm", None, None, "192.168.1.5") is None
    assert allowed_hosts("vm", ["bridge.example.org"], None, "192.168.1.5") == (
        *loopback, "bridge.example.org", "vm", "192.168.1.5")
    # the machine's own address, the one it listens on or prints for every address, is
    # answered too (the address serve printed was refused bad_host beside a list)
    assert allowed_hosts("192.168.1.5", ["bridge.example.org"]) == (*loopback, "bridge.example.org",
                                                                   "192.168.1.5")
    assert allowed_hosts("0.0.0.0", ["bridge.example.org"], "192.168.1.5") == \
        (*loopback, "bridge.example.org", "192.168.1.5")
    assert allowed_hosts("0.0.0.0", None, "192.168.1.5") is None


@pytest.mark.parametrize("value", ["", "bridge.example.org,", "http://bridge.example.org",
                                   "bridge.example.org:8000", "two words", "10.0.0.1/8"])
def test_serve_refuses_a_bad_allowed_hosts(value, tmp_path):
    result = serve("--allowed-hosts", value, "--database", str(tmp_path / "t.db"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: flowerbridge serve: argument --allowed-hosts:")
    assert "is not a host name or address" in result.stderr, result.stderr


def test_serve_caps_the_connections_open_at_once(tmp_path):
    from urllib.parse import urlsplit

    with ServerProcess(tmp_path / "t.db", "--no-analysis", "--max-connections", "4") as server:
        assert server.api("GET", "/api/meta").status_code == 200
        where = urlsplit(server.url)
        idle = [socket.create_connection((where.hostname, where.port), timeout=10) for _ in range(3)]
        try:
            for sock in idle[:2]:     # half a request, never finished
                sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            # the fourth connection is served (uvicorn counted the one arriving: 4 took 3)
            assert server.api("GET", "/api/meta").status_code == 200
            idle.append(socket.create_connection((where.hostname, where.port), timeout=10))
            assert server.api("GET", "/api/meta").status_code == 503
        finally:
            for sock in idle:
                sock.close()
        deadline = time.monotonic() + 10
        while server.api("GET", "/api/meta").status_code != 200:
            assert time.monotonic() < deadline, "the closed connections were never counted out"
            time.sleep(0.1)


def test_serve_raises_its_open_files_limit_towards_the_connections_it_takes():
    resource = pytest.importorskip("resource")
    from flowerbridge.cli.serve import FILES_BESIDE, _allow_files

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, soft), hard))
        _allow_files(1000)      # connections, and the server's own files beside them
        assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == min(1000 + FILES_BESIDE, hard)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_the_server_runs_without_the_test_extra_and_its_test_helpers_say_they_need_it():
    # a plain install has no httpx: the app must not import it, and the helpers
    # for tests (in the package, so benchmarks can use them) name the extra
    script = ("import sys; sys.modules['httpx'] = None\n"
              "import flowerbridge.server.app, flowerbridge.cli.serve\n"
              "try:\n"
              "    import flowerbridge.server.testing\n"
              "except ModuleNotFoundError as exc:\n"
              "    print(exc.name, '|', exc)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    name, message = done.stdout.strip().split(" | ")
    assert name == "httpx"
    assert "needs httpx" in message and "pip install 'flowerbridge[test]'" in message


STALLS = {
    # headers and the start of a body, the rest never sent: a request in progress
    "sending": (b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100\r\n\r\n{\"seats\"",
                r"1 request\(s\) still in progress were cut short"),
    # requests for a script whose answers are never read: a connection left open, and
    # perhaps an answer on its way ("0 request(s)" was said where none was)
    "reading": (b"GET /static/js/table.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 400,
                r"(1 request\(s\) still in progress|connections still open) were cut short"),
}


@pytest.mark.parametrize("stall", STALLS)
def test_serve_stopped_while_a_client_stalls_mid_request_cuts_it_short_and_ends(tmp_path, stall):
    """docs/server.md, Running it: a stop gives requests in progress and connections still
    open GRACE_SECONDS, then cuts them short. A client that stopped sending its request's
    body held the server after SIGTERM for as long as it kept the connection open
    (uvicorn's shutdown waited for it without end); cut short, it left no traceback in the
    log, and a client that does not read its answers is not called a request."""
    from flowerbridge.cli import serve as serve_command

    sent, said = STALLS[stall]
    with ServerProcess(tmp_path / "t.db", "--no-analysis") as server:
        assert server.process is not None
        assert server.api("GET", "/api/meta").status_code == 200     # serving
        host, port = server.url.removeprefix("http://").rsplit(":", 1)
        with socket.socket() as stalled:
            stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            stalled.connect((host, int(port)))
            stalled.sendall(sent)
            # (the request is read up to its body; the answers fill the buffers: 0.5 s did not
            # always suffice under load, and the stop then found no request to wait for)
            time.sleep(1.5)
            start = time.monotonic()
            server.process.send_signal(signal.SIGTERM)
            try:
                server.process.wait(timeout=serve_command.GRACE_SECONDS + 20)
            except subprocess.TimeoutExpired:
                pytest.fail("serve still ran 25 seconds after SIGTERM, held by a stalled client")
            took = time.monotonic() - start
        log = server.process.stdout.read() if server.process.stdout else ""
    assert server.process.returncode == -signal.SIGTERM
    assert took >= serve_command.GRACE_SECONDS - 1     # the client was given the grace
    assert re.fullmatch(f"WARNING:  stopping: {said}\n", log), log
    assert not (tmp_path / "t.db.lock").exists()


@pytest.mark.parametrize("count, said", [(2, "stopping: 2 request(s) still in progress were cut short"),
                                         (0, "stopping: connections still open were cut short")])
def test_serve_a_stop_that_cuts_connections_short_says_what_it_cut(count, said):
    """uvicorn's grace covers connections still open as well as requests: where it cut
    only connections short, its count of requests is 0, and the line said "0 request(s)
    ... were cut short". A cancellation's traceback other than the stop's is kept."""
    import asyncio
    import logging

    from flowerbridge.server.realtime import _StopsCutShort

    record = logging.LogRecord("uvicorn.error", logging.ERROR, __file__, 1,
                               "Cancel %s running task(s), timeout graceful shutdown exceeded",
                               (count,), None)
    assert _StopsCutShort().filter(record)
    assert (record.getMessage(), record.levelname) == (said, "WARNING")
    stop = asyncio.CancelledError("Task cancelled, timeout graceful shutdown exceeded")
    other = asyncio.CancelledError()
    for error, kept in ((stop, False), (other, True)):
        failed = logging.LogRecord("uvicorn.error", logging.ERROR, __file__, 1,
                                   "Exception in ASGI application\n", (), (type(error), error, None))
        assert _StopsCutShort().filter(failed) is kept


@pytest.mark.parametrize("database", ["", " "])
def test_serve_refuses_an_empty_database(database, tmp_path):
    # (an unset "$DB": not the default database unasked, nor a file named " ")
    result = subprocess.run([sys.executable, "-m", "flowerbridge.cli", "serve", "--port", "0", "--database",
                             database], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("error: flowerbridge serve: argument --database: give a database (leave the "
                             "option out for the default)\n")
    assert list(tmp_path.iterdir()) == []


def test_serve_replace_after_0_stands_in_at_once_and_never_not_at_all():
    from flowerbridge.cli.serve import _replace_after
    assert (_replace_after("0"), _replace_after("86400"), _replace_after(" Never ")) == (0.0, 86400.0, None)


@pytest.mark.parametrize("own_database", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
def test_serve_prints_its_postgresql_database_with_the_password_masked(own_database):
    # docs/server.md: printed URLs mask a password (a schema of its own: the server's
    # lock is the schema's, and the tests of the shared one run on one worker)
    from sqlalchemy.engine import make_url
    password = make_url(own_database).password
    database = own_database
    assert password
    with ServerProcess(database, "--no-analysis") as server:
        line = server.started
    assert line.startswith("Flower Bridge is at http://127.0.0.1:")
    assert ":***@" in line and f":{password}@" not in line
