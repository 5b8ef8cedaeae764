"""Load on the web server: many tables of bot-driven websocket clients at once.

Starts ``flowerbridge serve`` (a child process; no bot pause, no analysis) on
a temporary SQLite file, or on ``--database``. Creates ``--tables`` tables
with four people each; every person is a websocket client on loopback that
answers its own view with a random legal call or card as soon as it is its
turn. Prints actions per second, the server's CPU time per action, and two
latencies (50th and 99th percentiles): to the acting client (from its
sending an action to its receiving the action's broadcast) and to all four
seats (from the sending to each seat's receiving it, every delivery
counted). The clocks start once every client has joined its table, so the
set-up (tables created, websockets connecting) is left out. Every action is
committed to the database before it is broadcast, so the figures include a
durable commit each.

With ``--restart``, each table's session is one hand longer than the hands
played (so ``--hands`` is at most 99 there), so every table is still playing when the clients leave; the server is
then stopped and started again on the same database, and the time it takes to
answer is printed beside the time a server on an empty database takes, and
the time until its lobby lists every table (each replayed from its log).

    .venv/bin/python benchmarks/bench_server.py [--tables 25] [--hands 1] [--restart] [--database URL]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from _args import fail, first_paragraph, measured, positive, run as run_main, whole

import httpx  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from flowerbridge.server.schemas import MAX_LENGTH  # noqa: E402
from flowerbridge.server.testing import ServerProcess  # noqa: E402


class Timings:
    """Send times of pending actions and the latencies measured so far, and the
    run's clocks: started once every client has joined its table (set-up left
    out), stopped when the last client has seen its last hand end (its leaving
    left out)."""

    def __init__(self, clients: int, server_pid: int) -> None:
        self.sent: dict[tuple[str, int], float] = {}  # (table, seq it will get) -> send time
        self.own: list[float] = []
        self.everyone: list[float] = []
        self.actions = 0
        self.clients = clients
        self.pid = server_pid
        self.joined = self.finished = 0
        self.go = asyncio.Event()
        self.start = self.end = 0.0
        self.cpu: list[float | None] = [None, None]  # the server's CPU seconds at start and end

    def join(self) -> None:
        """A client is seated and welcomed; the last one starts the clocks."""
        self.joined += 1
        if self.joined == self.clients:
            self.cpu[0] = cpu_seconds(self.pid)
            self.start = time.perf_counter()
            self.go.set()

    def finish(self) -> None:
        """A client has seen its last hand end; the last one stops the clocks."""
        self.finished += 1
        if self.finished == self.clients:
            self.end = time.perf_counter()
            self.cpu[1] = cpu_seconds(self.pid)


async def person(url: str, table_id: str, token: str, timings: Timings, rng: random.Random,
                 hands: int) -> None:
    """One seat: once every client has joined, act on every turn until ``hands``
    hands are over."""
    async with connect(url.replace("http", "ws", 1) + f"/ws/tables/{table_id}",
                       max_size=2 ** 22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        welcome = await ws.recv()  # seated: the table's other messages wait in the socket
        timings.join()
        await timings.go.wait()

        async def messages():
            yield welcome
            async for text in ws:
                yield text

        acted_at = -1
        finished = 0
        async for text in messages():
            now = time.perf_counter()
            message = json.loads(text)
            seq = message.get("seq")
            if message["type"] in ("call", "play", "deal"):
                sent = timings.sent.get((table_id, seq))
                if sent is not None:
                    timings.everyone.append(now - sent)
                    if message.get("by", message.get("seat")) == message["view"]["seat"]:
                        timings.own.append(now - sent)
            if message.get("hand_over") is not None:
                finished += 1
                if finished == hands:
                    timings.finish()
                    return
            view = message.get("view")
            if view and view["legal"] and seq is not None and seq != acted_at:
                acted_at = seq
                legal = view["legal"]
                if view["phase"] == "auction":
                    choice = legal[0] if len(legal) == 1 or rng.random() < 0.7 \
                        else rng.choice(legal[1:5])
                    action = {"type": "call", "call": choice, "seq": seq}
                else:
                    action = {"type": "play", "card": rng.choice(legal), "seq": seq}
                timings.sent[table_id, seq + 1] = time.perf_counter()
                timings.actions += 1
                await ws.send(json.dumps(action))


def cpu_seconds(pid: int) -> float | None:
    """CPU time a process has used so far (Linux ``/proc``; ``None`` elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run(url: str, tables: int, hands: int, server: ServerProcess,
              left_playing: bool) -> Timings:
    """Play ``hands`` hands at each of ``tables`` tables; with ``left_playing`` the
    sessions are a hand longer, so the tables are still playing at the end."""
    rng = random.Random(2026)
    seated = []
    for _ in range(tables):
        created = server.create_table({s: "human" for s in "NESW"}, hands=hands + left_playing)
        seated += [(created["table"]["id"], inv["token"])
                   for inv in created["invitations"].values()]
    timings = Timings(len(seated), server.process.pid)
    await asyncio.gather(*(person(url, t, token, timings, random.Random(rng.random()), hands)
                           for t, token in seated))
    return timings


def start_seconds(server: ServerProcess) -> tuple[float, float, int]:
    """Seconds from starting ``server`` to its first answer, and to its lobby's
    list of every open table (which waits for each to be loaded), and how many
    the list holds; the server stops after."""
    start = time.perf_counter()
    with server:
        httpx.get(f"{server.url}/api/meta", timeout=600).raise_for_status()
        answered = time.perf_counter() - start
        lobby = httpx.get(f"{server.url}/api/tables", timeout=600)
        lobby.raise_for_status()
        return answered, time.perf_counter() - start, len(lobby.json()["tables"])


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=first_paragraph(__doc__))
    parser.add_argument("--tables", type=positive, default=25, help="tables played at once (default 25)")
    parser.add_argument("--hands", type=whole(1, MAX_LENGTH), default=1,
                        help=f"hands per table (default 1; at most {MAX_LENGTH}, {MAX_LENGTH - 1} with --restart)")
    parser.add_argument("--restart", action="store_true",
                        help="leave every table playing, then time a restart that replays them")
    parser.add_argument("--database", help="database URL (default: a temporary SQLite file)")
    args = parser.parse_args()
    if args.restart and args.hands >= MAX_LENGTH:
        # each session is then one hand longer than the hands played, and a session holds at most MAX_LENGTH
        parser.error(f"argument --hands: must be at most {MAX_LENGTH - 1} with --restart (each table's session "
                     f"is then a hand longer, and a session is at most {MAX_LENGTH} hands), not {args.hands}")
    print(measured(), flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        database = args.database or str(Path(scratch) / "bench.db")
        # all its tables and clients come from one address in a few seconds: lift those limits
        options = ("--bot-delay", "0", "--replace-after", "never", "--no-analysis",
                   "--tables-per-minute", str(max(30, args.tables)),
                   "--connections-per-address", str(max(200, 4 * args.tables)),
                   "--max-tables", str(max(1000, args.tables)))
        server = ServerProcess(database, *options)
        with contextlib.ExitStack() as stack:
            try:
                stack.enter_context(server)
            except RuntimeError as exc:  # it did not start: its first line says why (a bad --database)
                lines = str(exc).partition(": ")[2].strip().splitlines()
                said = lines[0].removeprefix("error: ") if lines else str(exc)
                fail(f"argument --database: {said}" if args.database else said)
            timings = asyncio.run(run(server.url, args.tables, args.hands, server, args.restart))
        if args.restart:
            restart = start_seconds(ServerProcess(database, *options))
            empty = start_seconds(ServerProcess(Path(scratch) / "empty.db", *options))
    kind = "PostgreSQL" if database.startswith("postgres") else "SQLite"
    print(f"server load: {args.tables} tables x 4 websocket clients, {args.hands} hand(s) each, "
          f"{kind}, loopback")
    if not timings.end:     # a client's connection ended before its last hand: no figures to give
        fail("a client's connection ended before its last hand", status=1)
    elapsed = timings.end - timings.start
    print(f"  {timings.actions} actions in {elapsed:.2f} s: {timings.actions / elapsed:.0f} actions/s "
          f"(from the last client's joining to the last hand's end: set-up left out)")
    print(f"  latency to the acting client (its action sent -> its broadcast back): "
          f"p50 {percentile(timings.own, 50):.1f} ms, p99 {percentile(timings.own, 99):.1f} ms")
    print(f"  latency to all four seats (an action sent -> its broadcast at each seat, every delivery): "
          f"p50 {percentile(timings.everyone, 50):.1f} ms, p99 {percentile(timings.everyone, 99):.1f} ms")
    before, after = timings.cpu
    if before is not None and after is not None:
        print(f"  server CPU: {(after - before) / timings.actions * 1000:.1f} ms per action (the same span)")
    if args.restart:
        print(f"  restart with {restart[2]} tables playing: answers after {restart[0]:.2f} s "
              f"(an empty database: {empty[0]:.2f} s), lists every table after {restart[1]:.2f} s")


if __name__ == "__main__":
    run_main(main)
