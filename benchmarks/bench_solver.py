"""Solver speed: our DD tables against DDS's (endplay's) on the same random
Bridge deals, and Flower Bridge DD tables and opening-lead values.

    python benchmarks/bench_solver.py [--deals 200] [--flower-deals 200] [--seed 1] [--workers 2]

Prints figures only; nothing is asserted. DDS (the ``endplay`` package) is
needed for the Bridge part only (``--deals 0`` skips it).

Ours and DDS's are compared like for like, in two pairs, DDS on as many
threads as ours (``--workers``):

* one table at a time: DDS's ``calc_dd_table`` (its threads share the
  table's five denominations) against ours with the threads sharing the
  table's search on one transposition table (``dd_tables([deal])``);
* in batches of ten deals: DDS's ``calc_all_tables`` (its threads share the
  deals' denominations) against ours on the same ten (one deal a thread,
  each thread's solver kept from batch to batch, as DDS keeps its memory).

Every figure but the opening leads' is taken in turns, ten deals at a time:
each Bridge deal's table by DDS, then by us; then the ten as a batch by DDS,
then by us; then ten Flower Bridge deals one at a time and as a batch; and so
on, so that the machine's speed drifting during the run (other work on the
host) weighs on all alike and the ratios between them hold. Times are by the
wall clock, with the process's CPU time beside them (all its threads, DDS's
included); a table's own CPU time in our batches is its thread's.
"""

from __future__ import annotations

import argparse
import random
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from _args import count, fail, first_paragraph, measured, require_core, run, whole

require_core()

from flowerbridge.solver import BRIDGE, FLOWER, DoubleDummy, dd_tables  # noqa: E402
from flowerbridge.solver.bridge import to_pbn  # noqa: E402
from flowerbridge.solver.core import DEFAULT_MEMORY_MB  # noqa: E402

BLOCK = 10
"""Deals a turn: each pair's figures are taken on these before the next turn's."""

ORDER = (3, 2, 1, 0, 4)
"""endplay's denominations S, H, D, C, NT as ours are ordered: C, D, H, S, NT."""


def random_bridge(rng: random.Random) -> list[list[int]]:
    deck = list(range(52))
    rng.shuffle(deck)
    return [sorted(deck[i * 13:(i + 1) * 13]) for i in range(4)]


def endplay(otherwise: str = ", or give --deals 0 to time Flower Bridge alone"):
    """endplay's ``calc_dd_table``, ``calc_all_tables``, ``Deal`` and its DDS
    module, or a one-line error if it is not installed (``otherwise`` ends it)."""
    try:
        import endplay._dds as dds
        from endplay.dds import calc_all_tables, calc_dd_table
        from endplay.types import Deal
    except ImportError as exc:
        fail(f"DDS, the reference, is missing (the endplay package: {exc}): install it "
             f"(pip install endplay){otherwise}", status=1)
    return calc_dd_table, calc_all_tables, Deal, dds


def threads(n: int) -> str:
    return f"{n} thread" if n == 1 else f"{n} threads"


def sharing(n: int) -> str:
    """How our threads solve one table at a time."""
    return f"on {threads(n)} sharing its search" if n > 1 else "on 1 thread"


def one_a_thread(n: int) -> str:
    """How our threads solve a batch."""
    return f"on {threads(n)}, one deal a thread" if n > 1 else "on 1 thread"


def clocks() -> tuple[float, float]:
    """The wall clock and the process's CPU time (all its threads)."""
    return time.perf_counter(), time.process_time()


class Figures:
    """One way of solving: its tables, and per call the wall-clock and CPU
    seconds (per table one at a time, per batch in batches)."""

    def __init__(self) -> None:
        self.tables: list = []
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.thread_cpu: list[float] = []  # our batches: each table's thread CPU time

    def timed(self, solve, *args):
        w, c = clocks()
        out = solve(*args)
        w2, c2 = clocks()
        self.wall.append(w2 - w)
        self.cpu.append(c2 - c)
        return out


class Ours:
    """Our solvers: one table at a time on ``workers`` threads sharing its search,
    and batches of deals on a pool of ``workers`` threads, one deal a thread, each
    thread keeping a solver per game (the default memory bound split among them)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pool = ThreadPoolExecutor(max_workers=workers)
        self.local = threading.local()
        self.alone: dict = {}  # one thread: a solver per game, kept (dd_tables would make one a call)

    def solver(self, geometry, memory_mb: float) -> DoubleDummy:
        solvers = self.local.__dict__.setdefault("solvers", {})
        if geometry not in solvers:
            solvers[geometry] = DoubleDummy(geometry, memory_mb)
        return solvers[geometry]

    def one(self, hands, geometry):
        """One deal's table (on ``workers`` threads sharing its search)."""
        if self.workers == 1:
            if geometry not in self.alone:
                self.alone[geometry] = DoubleDummy(geometry)
            return self.alone[geometry].dd_table(hands)
        return dd_tables([hands], geometry, workers=self.workers)[0]

    def batch(self, jobs, geometry) -> tuple[list, list[float]]:
        """``job(solver)`` for every job, one a thread: the results and each
        job's CPU seconds (its thread's, so a busy machine does not inflate it)."""
        per_mb = DEFAULT_MEMORY_MB / self.workers

        def one(job):
            solver = self.solver(geometry, per_mb)
            t = time.thread_time()
            out = job(solver)
            return out, time.thread_time() - t

        done = list(self.pool.map(one, jobs))
        return [d[0] for d in done], [d[1] for d in done]


def in_turns(bridge, flower, ours: Ours) -> dict[str, Figures]:
    """The figures of every pair, taken in turns (see the module's docstring)."""
    out = {k: Figures() for k in ("dds", "bridge", "dds batch", "bridge batch", "flower", "flower batch")}
    if bridge:
        calc_dd_table, calc_all_tables, Deal, dds = endplay()
        dds.SetMaxThreads(ours.workers)

    def our_batch(name, block, geometry):
        tables, cpu = out[name].timed(ours.batch, [lambda s, h=h: s.dd_table(h) for h in block], geometry)
        out[name].tables += tables
        out[name].thread_cpu += cpu

    for first in range(0, max(len(bridge), len(flower)), BLOCK):
        block = bridge[first:first + BLOCK]
        if block:
            deals = [Deal.from_pbn(to_pbn(hands)) for hands in block]
            for hands, deal in zip(block, deals):
                out["dds"].tables.append(out["dds"].timed(calc_dd_table, deal))
                out["bridge"].tables.append(out["bridge"].timed(ours.one, hands, BRIDGE))
            out["dds batch"].tables += list(out["dds batch"].timed(calc_all_tables, deals))
            our_batch("bridge batch", block, BRIDGE)
        block = flower[first:first + BLOCK]
        for hands in block:
            out["flower"].tables.append(out["flower"].timed(ours.one, hands, FLOWER))
        if block:
            our_batch("flower batch", block, FLOWER)
    return out


def ms(seconds: float) -> str:
    return f"{1000 * seconds:,.0f} ms"


def per_table(f: Figures, n: int) -> str:
    """Wall clock and CPU time per table, the sums over ``n`` tables."""
    return f"{ms(sum(f.wall) / n)} per table, CPU {ms(sum(f.cpu) / n)} (all threads)"


def bridge_part(n: int, turns: dict[str, Figures], seed: int, workers: int) -> None:
    dds, alone, dds_batch, batch = (turns[k] for k in ("dds", "bridge", "dds batch", "bridge batch"))
    ref = [[list(t.to_list()[j]) for j in ORDER] for t in dds.tables]
    wrong = sum(t[i] != ref[i] for t in (alone.tables, batch.tables) for i in range(n))
    wrong_dds = sum([list(t.to_list()[j]) for j in ORDER] != ref[i] for i, t in enumerate(dds_batch.tables))
    on, size = threads(workers), min(BLOCK, n)
    print(f"Bridge, {n} random deal{'s' * (n > 1)} (seed {seed}); every pair timed in turns, {BLOCK} deals a turn")
    print(f"  one table at a time, DDS calc_dd_table on {on}: {per_table(dds, n)}; "
          f"median {ms(statistics.median(dds.wall))}")
    print(f"  one table at a time, ours {sharing(workers)}: {per_table(alone, n)}; "
          f"median {ms(statistics.median(alone.wall))}, slowest {ms(max(alone.wall))}")
    print(f"  ratio ours / DDS, one table at a time: {sum(alone.wall) / sum(dds.wall):.2f} per table "
          f"(target <= 1.0), medians {statistics.median(alone.wall) / statistics.median(dds.wall):.2f}; "
          f"in CPU time {sum(alone.cpu) / sum(dds.cpu):.2f}")
    print(f"  batches of {size}, DDS calc_all_tables on {on}: {per_table(dds_batch, n)}")
    print(f"  batches of {size}, ours {one_a_thread(workers)}: {per_table(batch, n)}")
    print(f"  ratio ours / DDS, in batches: {sum(batch.wall) / sum(dds_batch.wall):.2f} per table; "
          f"in CPU time {sum(batch.cpu) / sum(dds_batch.cpu):.2f}")
    print(f"  ours, a table's CPU time on its thread in the batches: median {ms(statistics.median(batch.thread_cpu))}, "
          f"mean {ms(statistics.mean(batch.thread_cpu))}, slowest {ms(max(batch.thread_cpu))}")
    print(f"  tables differing from DDS's calc_dd_table: ours {wrong} (of {2 * n}: one at a time and in batches), "
          f"DDS's calc_all_tables {wrong_dds} (of {n})")


def flower_part(hands, turns: dict[str, Figures], seed: int, ours: Ours) -> None:
    n = len(hands)
    alone, batch, dds = turns["flower"], turns["flower batch"], turns["dds"]
    on, size = threads(ours.workers), min(BLOCK, n)
    rng = random.Random(seed)
    leads = [(h, rng.choice((None, 0, 1, 2)), rng.randrange(4)) for h in hands]
    _, lead = ours.batch([lambda s, a=a: s.card_values(*a) for a in leads], FLOWER)
    differ = sum(a != b for a, b in zip(alone.tables, batch.tables))
    print(f"Flower Bridge, {n} random deal{'s' * (n > 1)} (seed {seed}), in turns with the Bridge deals")
    print(f"  one table at a time, ours {sharing(ours.workers)}: median {ms(statistics.median(alone.wall))}, "
          f"slowest {ms(max(alone.wall))}, {per_table(alone, n)}; "
          f"{differ} differ from the same tables in the batches (one thread each)")
    print(f"  batches of {size}, ours {one_a_thread(ours.workers)}: {per_table(batch, n)}")
    print(f"  a table's CPU time on its thread in the batches (16 results): median "
          f"{ms(statistics.median(batch.thread_cpu))}, mean {ms(statistics.mean(batch.thread_cpu))}, "
          f"slowest {ms(max(batch.thread_cpu))}")
    print(f"  value every card of the opening leader (after the turns; its thread's CPU time): "
          f"median {ms(statistics.median(lead))}, slowest {ms(max(lead))}")
    if dds.wall:
        print(f"  median table / DDS's median Bridge table, one table at a time on {on} each, in turns: "
              f"{statistics.median(alone.wall) / statistics.median(dds.wall):.2f}   (target <= 1.0); "
              f"in CPU time (all threads of each) {statistics.median(alone.cpu) / statistics.median(dds.cpu):.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--deals", type=count, default=200,
                    help="random Bridge deals (default 200; 0 skips Bridge, and DDS is not needed)")
    ap.add_argument("--flower-deals", type=count, default=200,
                    help="random Flower Bridge deals (default 200; 0 skips Flower Bridge)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random deals (default 1)")
    # (at most 256: each of a batch's solvers gets its share of the default memory, 1 MB at least)
    ap.add_argument("--workers", type=whole(1, 256), default=2,
                    help="solver threads, ours and DDS's, 1 to 256 (default 2)")
    args = ap.parse_args()
    if not args.deals and not args.flower_deals:
        ap.error("argument --deals and --flower-deals: both are 0, so there is nothing to measure")
    if args.deals:
        endplay()   # missing: said before anything is solved
    from flowerbridge import Deal

    rng = random.Random(args.seed)
    bridge = [random_bridge(rng) for _ in range(args.deals)]
    flower = [[[c.index for c in h] for h in Deal.from_seed(args.seed, board).hands]
              for board in range(args.flower_deals)]
    from flowerbridge.solver import _core

    build = "profile-guided" if getattr(_core, "PROFILE_GUIDED", 0) else "plain (no profile-guided optimisation)"
    print(measured())
    print(f"solver core: {build} build; {threads(args.workers)}")
    ours = Ours(args.workers)
    try:
        turns = in_turns(bridge, flower, ours)
        if bridge:
            bridge_part(len(bridge), turns, args.seed, args.workers)
        if flower:
            flower_part(flower, turns, args.seed, ours)
    finally:
        ours.pool.shutdown()


if __name__ == "__main__":
    run(main)
