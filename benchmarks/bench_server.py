"""Load on the web server: many tables of bot-driven websocket clients at once.

Starts ``flowerbridge serve`` (a child process; no bot pause, no analysis) on
a temporary SQLite file, or on ``--database``. Creates ``--tables`` tables
with four people each; every person is a websocket client on loopback that
answers its own view with a random legal call or card as soon as it is its
turn. Prints actions per second and the time from sending an action to
receiving its broadcast, at the acting client and at all four clients
(50th and 99th percentiles). Every action is committed to the database
before it is broadcast, so the figures include a durable commit each.

With ``--restart``, each table's session is one hand longer than the hands
played, so every table is still playing when the clients leave; the server is
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

import httpx
from websockets.asyncio.client import connect

from flowerbridge.server.schemas import MAX_LENGTH
from flowerbridge.server.testing import ServerProcess

from _args import fail, positive, run as run_main, whole


class Timings:
    """Send times of pending actions and the latencies measured so far."""

    def __init__(self) -> None:
        self.sent: dict[tuple[str, int], float] = {}  # (table, seq it will get) -> send time
        self.own: list[float] = []
        self.everyone: list[float] = []
        self.actions = 0


async def person(url: str, table_id: str, token: str, timings: Timings, rng: random.Random,
                 hands: int) -> None:
    """One seat: act on every turn until ``hands`` hands are over."""
    async with connect(url.replace("http", "ws", 1) + f"/ws/tables/{table_id}",
                       max_size=2 ** 22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        acted_at = -1
        finished = 0
        async for text in ws:
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
              left_playing: bool) -> tuple[Timings, float]:
    """Play ``hands`` hands at each of ``tables`` tables; with ``left_playing`` the
    sessions are a hand longer, so the tables are still playing at the end."""
    timings = Timings()
    rng = random.Random(2026)
    seated = []
    for _ in range(tables):
        created = server.create_table({s: "human" for s in "NESW"}, hands=hands + left_playing)
        seated += [(created["table"]["id"], inv["token"])
                   for inv in created["invitations"].values()]
    start = time.perf_counter()
    await asyncio.gather(*(person(url, t, token, timings, random.Random(rng.random()), hands)
                           for t, token in seated))
    return timings, time.perf_counter() - start


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=positive, default=25, help="tables played at once (default 25)")
    parser.add_argument("--hands", type=whole(1, MAX_LENGTH), default=1, help="hands per table (default 1)")
    parser.add_argument("--restart", action="store_true",
                        help="leave every table playing, then time a restart that replays them")
    parser.add_argument("--database", help="database URL (default: a temporary SQLite file)")
    args = parser.parse_args()
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
            before = cpu_seconds(server.process.pid)
            timings, elapsed = asyncio.run(run(server.url, args.tables, args.hands, server,
                                               args.restart))
            after = cpu_seconds(server.process.pid)
        if args.restart:
            restart = start_seconds(ServerProcess(database, *options))
            empty = start_seconds(ServerProcess(Path(scratch) / "empty.db", *options))
    kind = "PostgreSQL" if database.startswith("postgres") else "SQLite"
    print(f"server load: {args.tables} tables x 4 websocket clients, {args.hands} hand(s) each, "
          f"{kind}, loopback")
    print(f"  {timings.actions} actions in {elapsed:.2f} s: {timings.actions / elapsed:.0f} actions/s")
    print(f"  action -> broadcast to the actor:   p50 {percentile(timings.own, 50):.1f} ms, "
          f"p99 {percentile(timings.own, 99):.1f} ms")
    print(f"  action -> broadcast to all 4 seats: p50 {percentile(timings.everyone, 50):.1f} ms, "
          f"p99 {percentile(timings.everyone, 99):.1f} ms")
    if before is not None and after is not None:
        print(f"  server CPU: {(after - before) / timings.actions * 1000:.1f} ms per action")
    if args.restart:
        print(f"  restart with {restart[2]} tables playing: answers after {restart[0]:.2f} s "
              f"(an empty database: {empty[0]:.2f} s), lists every table after {restart[1]:.2f} s")


if __name__ == "__main__":
    run_main(main)
