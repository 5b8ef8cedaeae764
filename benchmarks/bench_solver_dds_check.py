"""Exactness at scale: every entry of our DD table against DDS (endplay) on
1,000 random full Bridge deals (the tests do 100).

    python benchmarks/bench_solver_dds_check.py [--deals 1000] [--seed 7] [--workers 2]

Prints the number of deals checked and any that differ.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flowerbridge.solver import BRIDGE, dd_tables  # noqa: E402
from flowerbridge.solver.bridge import to_pbn  # noqa: E402

from _args import positive, run  # noqa: E402
from bench_solver import random_bridge  # noqa: E402


def main() -> None:
    from endplay.dds import calc_dd_table
    from endplay.types import Deal

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive, default=1000, help="random Bridge deals checked (default 1000)")
    ap.add_argument("--seed", type=int, default=7, help="seed of the random deals (default 7)")
    ap.add_argument("--workers", type=positive, default=2, help="solver threads (default 2)")
    ap.add_argument("--chunk", type=positive, default=20,
                    help="deals per batch (progress lines); 1: one deal at a time, its table "
                         "searched by all workers on one shared transposition table")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    order = (3, 2, 1, 0, 4)  # endplay: S, H, D, C, NT -> ours C, D, H, S, NT
    bad = 0
    done = 0
    t0 = time.perf_counter()
    while done < args.deals:
        n = min(args.chunk, args.deals - done)
        deals = [random_bridge(rng) for _ in range(n)]
        ours = dd_tables(deals, BRIDGE, workers=args.workers)
        for hands, table in zip(deals, ours):
            ref = calc_dd_table(Deal.from_pbn(to_pbn(hands))).to_list()
            if table != [list(ref[j]) for j in order]:
                bad += 1
                print("DIFFERS:", to_pbn(hands), table, flush=True)
        done += n
        print(f"{done} deals checked, {bad} differ ({time.perf_counter() - t0:.0f} s)", flush=True)
    print(f"result: {done} deals, {done * 20} table entries, {bad} deals differ from DDS")


if __name__ == "__main__":
    run(main)
