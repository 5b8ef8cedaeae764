"""Exactness at scale: every entry of our DD table against DDS (endplay) on
random full Bridge deals, 1,000 by default (the tests do 100).

    python benchmarks/bench_solver_dds_check.py [--deals 1000] [--seed 7] [--workers 2] [--chunk 20]

Prints a progress line a chunk of deals, any deal that differs, and the total.
"""

from __future__ import annotations

import argparse
import random
import time

from _args import first_paragraph, measured, positive, require_core, run

require_core()

from flowerbridge.solver import BRIDGE, dd_tables  # noqa: E402
from flowerbridge.solver.bridge import to_pbn  # noqa: E402

from bench_solver import ORDER, endplay, random_bridge  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--deals", type=positive, default=1000, help="random Bridge deals checked (default 1000)")
    ap.add_argument("--seed", type=int, default=7, help="seed of the random deals (default 7)")
    ap.add_argument("--workers", type=positive, default=2, help="solver threads (default 2)")
    ap.add_argument("--chunk", type=positive, default=20,
                    help="deals per batch (a progress line each; default 20); 1: one deal at a time, its "
                         "table searched by all workers on one shared transposition table")
    args = ap.parse_args()
    calc_dd_table, _, Deal, _ = endplay(otherwise="")
    print(measured(), flush=True)
    rng = random.Random(args.seed)
    bad = 0
    done = 0
    t0 = time.perf_counter()
    while done < args.deals:
        n = min(args.chunk, args.deals - done)
        deals = [random_bridge(rng) for _ in range(n)]
        ours = dd_tables(deals, BRIDGE, workers=args.workers)
        for hands, table in zip(deals, ours):
            ref = calc_dd_table(Deal.from_pbn(to_pbn(hands))).to_list()
            if table != [list(ref[j]) for j in ORDER]:
                bad += 1
                print("DIFFERS:", to_pbn(hands), table, flush=True)
        done += n
        print(f"{done} deals checked, {bad} differ ({time.perf_counter() - t0:.0f} s)", flush=True)
    print(f"result: {done} deals, {done * 20} table entries, {bad} deals differ from DDS")


if __name__ == "__main__":
    run(main)
