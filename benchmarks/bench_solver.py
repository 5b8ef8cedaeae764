"""Solver speed: our DD tables against DDS (endplay) on the same random Bridge
deals, and Flower Bridge DD tables and opening-lead values.

    python benchmarks/bench_solver.py [--deals 200] [--flower-deals 200] [--seed 1]

Prints figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flowerbridge.solver import BRIDGE, FLOWER, DoubleDummy, dd_tables  # noqa: E402
from flowerbridge.solver.bridge import to_pbn  # noqa: E402


def random_bridge(rng: random.Random) -> list[list[int]]:
    deck = list(range(52))
    rng.shuffle(deck)
    return [sorted(deck[i * 13:(i + 1) * 13]) for i in range(4)]


def bridge_part(n: int, seed: int, workers: int) -> None:
    from endplay.dds import calc_dd_table
    from endplay.types import Deal

    rng = random.Random(seed)
    deals = [random_bridge(rng) for _ in range(n)]
    pbns = [to_pbn(d) for d in deals]

    t0 = time.perf_counter()
    ref = [calc_dd_table(Deal.from_pbn(p)) for p in pbns]
    t_dds = time.perf_counter() - t0

    t0 = time.perf_counter()
    ours = dd_tables(deals, BRIDGE, workers=workers)
    t_ours = time.perf_counter() - t0

    solver = DoubleDummy(BRIDGE)
    times = []
    for d in deals:
        t = time.perf_counter()
        solver.dd_table(d)
        times.append(time.perf_counter() - t)

    order = (3, 2, 1, 0, 4)  # endplay: S, H, D, C, NT -> ours C, D, H, S, NT
    wrong = sum(ours[i] != [list(ref[i].to_list()[j]) for j in order] for i in range(n))
    print(f"Bridge, {n} random deals (seed {seed})")
    print(f"  endplay calc_dd_table      : {1000 * t_dds / n:9.1f} ms per DD table")
    print(f"  ours, {workers} threads (batch)   : {1000 * t_ours / n:9.1f} ms per DD table")
    print(f"  ours, one thread           : {1000 * sum(times) / n:9.1f} ms per DD table "
          f"(median {1000 * statistics.median(times):.1f}, slowest {1000 * max(times):.1f})")
    print(f"  ratio ours(batch)/DDS      : {t_ours / t_dds:9.2f}   (target <= 1.0)")
    print(f"  tables differing from DDS  : {wrong}")


def flower_part(n: int, seed: int, workers: int) -> None:
    from flowerbridge import Deal

    deals = [Deal.from_seed(seed, board) for board in range(n)]
    hands = [[[c.index for c in h] for h in d.hands] for d in deals]
    solver = DoubleDummy(FLOWER)
    times = []
    for h in hands:
        t = time.perf_counter()
        solver.dd_table(h)
        times.append(time.perf_counter() - t)
    t0 = time.perf_counter()
    dd_tables(hands, FLOWER, workers=workers)
    t_batch = time.perf_counter() - t0

    lead = []
    rng = random.Random(seed)
    fresh = DoubleDummy(FLOWER)
    for h in hands:
        trump = rng.choice((None, 0, 1, 2))
        leader = rng.randrange(4)
        t = time.perf_counter()
        fresh.card_values(h, trump, leader)
        lead.append(time.perf_counter() - t)
    print(f"Flower Bridge, {n} random deals (seed {seed})")
    print(f"  DD table (16 results), one thread: median {1000 * statistics.median(times):.1f} ms, "
          f"mean {1000 * statistics.mean(times):.1f} ms, slowest {1000 * max(times):.1f} ms")
    print(f"  DD tables, {workers} threads (batch)  : {1000 * t_batch / n:.1f} ms per table")
    print(f"  value every card of the opening leader: median {1000 * statistics.median(lead):.1f} ms, "
          f"slowest {1000 * max(lead):.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200, help="random Bridge deals (default 200)")
    ap.add_argument("--flower-deals", type=int, default=200, help="random Flower Bridge deals (default 200)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    if args.deals:
        bridge_part(args.deals, args.seed, args.workers)
    if args.flower_deals:
        flower_part(args.flower_deals, args.seed, args.workers)


if __name__ == "__main__":
    main()
