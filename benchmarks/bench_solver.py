"""Solver speed: our DD tables against DDS (endplay) on the same random Bridge
deals, and Flower Bridge DD tables and opening-lead values.

    python benchmarks/bench_solver.py [--deals 200] [--flower-deals 200] [--seed 1]

Prints figures only; nothing is asserted.

The one-table-at-a-time figures are taken in turns: DDS's table of a Bridge
deal, then ours of the same deal, for ten deals, then ours of ten Flower
Bridge deals, and so on, so that the machine's speed drifting during the run
(other work on the host) weighs on all three alike and the ratios between
them hold.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flowerbridge.solver import BRIDGE, FLOWER, DoubleDummy, dd_tables  # noqa: E402
from flowerbridge.solver.core import DEFAULT_MEMORY_MB  # noqa: E402
from flowerbridge.solver.bridge import to_pbn  # noqa: E402

from _args import count, positive, run  # noqa: E402


def random_bridge(rng: random.Random) -> list[list[int]]:
    deck = list(range(52))
    rng.shuffle(deck)
    return [sorted(deck[i * 13:(i + 1) * 13]) for i in range(4)]


def timed_batch(jobs, geometry, workers: int):
    """Run ``job(solver)`` for every job on ``workers`` threads, one solver per
    thread (each with the default memory bound split among the workers).
    Returns the results, each job's CPU seconds (its thread's time, so a busy
    machine does not inflate it) and the wall-clock seconds of the batch."""
    local = threading.local()
    per_mb = DEFAULT_MEMORY_MB / workers

    def run(job):
        solver = getattr(local, "solver", None)
        if solver is None:
            solver = local.solver = DoubleDummy(geometry, per_mb)
        t = time.thread_time()
        out = job(solver)
        return out, time.thread_time() - t

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        done = list(pool.map(run, jobs))
    wall = time.perf_counter() - t0
    return [d[0] for d in done], [d[1] for d in done], wall


def one_at_a_time(hands, geometry, workers: int):
    """One deal's table alone, searched by ``workers`` threads on one shared
    transposition table (as DDS's ``calc_dd_table`` uses its own threads for
    one table): the table and the wall-clock seconds it took."""
    t = time.perf_counter()
    table = dd_tables([hands], geometry, workers=workers)[0]
    return table, time.perf_counter() - t


def in_turns(bridge, flower, workers: int, block: int = 10):
    """DDS's table of each Bridge deal, then ours of it, deal after deal;
    every ``block`` deals, the tables of as many Flower Bridge deals (in
    blocks, so that the solvers each game's tables reuse are not given up
    at every deal): the three lists of tables and of wall-clock seconds."""
    from endplay.dds import calc_dd_table
    from endplay.types import Deal

    out = {"dds": ([], []), "bridge": ([], []), "flower": ([], [])}
    for first in range(0, max(len(bridge), len(flower)), block):
        for hands in bridge[first:first + block]:
            deal = Deal.from_pbn(to_pbn(hands))
            t = time.perf_counter()
            out["dds"][0].append(calc_dd_table(deal))
            out["dds"][1].append(time.perf_counter() - t)
            table, took = one_at_a_time(hands, BRIDGE, workers)
            out["bridge"][0].append(table)
            out["bridge"][1].append(took)
        for hands in flower[first:first + block]:
            table, took = one_at_a_time(hands, FLOWER, workers)
            out["flower"][0].append(table)
            out["flower"][1].append(took)
    return out


def ms(seconds: float) -> str:
    return f"{1000 * seconds:,.0f} ms"


def bridge_part(deals, turns, seed: int, workers: int) -> float:
    """Prints the Bridge figures; returns DDS's median time per table."""
    n = len(deals)
    ref, dds_times = turns["dds"]
    alone, latency = turns["bridge"]
    t_dds = sum(dds_times)
    ours, cpu, t_ours = timed_batch([lambda s, d=d: s.dd_table(d) for d in deals], BRIDGE, workers)

    order = (3, 2, 1, 0, 4)  # endplay: S, H, D, C, NT -> ours C, D, H, S, NT
    wrong = sum(t[i] != [list(ref[i].to_list()[j]) for j in order] for t in (ours, alone) for i in range(n))
    print(f"Bridge, {n} random deals (seed {seed})")
    print(f"  DDS, endplay calc_dd_table  : {ms(t_dds / n)} per DD table, median {ms(statistics.median(dds_times))}"
          " (wall clock; DDS runs its own threads)")
    print(f"  ours, {workers} threads           : {ms(t_ours / n)} per DD table (wall clock)")
    print(f"  ours, CPU time per table    : median {ms(statistics.median(cpu))}, "
          f"mean {ms(statistics.mean(cpu))}, slowest {ms(max(cpu))}")
    print(f"  ratio ours / DDS            : {t_ours / t_dds:.2f}   (target <= 1.0)")
    print(f"  one table at a time on {workers} threads sharing its search (as DDS), in turns with DDS: median "
          f"{ms(statistics.median(latency))}, slowest {ms(max(latency))}; "
          f"median / DDS's median {statistics.median(latency) / statistics.median(dds_times):.2f}")
    print(f"  tables differing from DDS   : {wrong} (of {2 * n}: both ways of ours)")
    return statistics.median(dds_times)


def flower_part(hands, turns, seed: int, workers: int, dds_median: float | None) -> None:
    n = len(hands)
    alone, latency = turns["flower"]
    batch, cpu, wall = timed_batch([lambda s, h=h: s.dd_table(h) for h in hands], FLOWER, workers)

    rng = random.Random(seed)
    leads = [(h, rng.choice((None, 0, 1, 2)), rng.randrange(4)) for h in hands]
    _, lead, _ = timed_batch([lambda s, a=a: s.card_values(*a) for a in leads], FLOWER, workers)
    print(f"Flower Bridge, {n} random deals (seed {seed})")
    print(f"  DD table (16 results), CPU time: median {ms(statistics.median(cpu))}, "
          f"mean {ms(statistics.mean(cpu))}, slowest {ms(max(cpu))}")
    print(f"  DD tables, {workers} threads            : {ms(wall / n)} per table (wall clock)")
    print(f"  one table at a time on {workers} threads sharing its search (as DDS): median "
          f"{ms(statistics.median(latency))}, slowest {ms(max(latency))} (wall clock); "
          f"{sum(a != b for a, b in zip(alone, batch))} differ from the same tables on one thread")
    print(f"  value every card of the opening leader: median {ms(statistics.median(lead))}, "
          f"slowest {ms(max(lead))}")
    if dds_median is not None:
        print(f"  median table / DDS's median Bridge table (both one table at a time on {workers} threads, "
              f"in turns): {statistics.median(latency) / dds_median:.2f}   (target <= 1.0)")
        print(f"  median CPU time of a table / DDS's median Bridge table: {statistics.median(cpu) / dds_median:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=count, default=200, help="random Bridge deals (default 200; 0 skips Bridge)")
    ap.add_argument("--flower-deals", type=count, default=200,
                    help="random Flower Bridge deals (default 200; 0 skips Flower Bridge)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random deals (default 1)")
    ap.add_argument("--workers", type=positive, default=2, help="solver threads (default 2)")
    args = ap.parse_args()
    if not args.deals and not args.flower_deals:
        ap.error("argument --deals and --flower-deals: both are 0, so there is nothing to measure")
    from flowerbridge import Deal

    rng = random.Random(args.seed)
    bridge = [random_bridge(rng) for _ in range(args.deals)]
    flower = [[[c.index for c in h] for h in Deal.from_seed(args.seed, board).hands]
              for board in range(args.flower_deals)]
    from flowerbridge.solver import _core

    build = "profile-guided" if getattr(_core, "PROFILE_GUIDED", 0) else "plain (no profile-guided optimisation)"
    print(f"solver core: {build} build")
    turns = in_turns(bridge, flower, args.workers)
    dds_median = bridge_part(bridge, turns, args.seed, args.workers) if bridge else None
    if flower:
        flower_part(flower, turns, args.seed, args.workers, dds_median)


if __name__ == "__main__":
    run(main)
