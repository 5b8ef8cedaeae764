"""Deterministic solver counts: search nodes of one-thread DD tables, and a
checksum of their values, for judging a change to the search independently
of the machine's speed.

    python benchmarks/bench_solver_counts.py [--bridge 12] [--flower 6] [--seed 1]

For each game it prints the trick nodes (searches entered at the start of a
trick), all nodes, table look-ups and hits, the CPU time, and the first 8 hex
digits of an MD5 of every table's values.  A change that only makes nodes
cheaper must leave every count and the checksum as they were; one that
changes the tree must leave the checksum.  The deals are those of
``bench_solver.py`` with the same seed (its first ones).  Instructions, the
steadier measure of a node's cost on a shared machine, come from running
this under ``valgrind --tool=cachegrind``.  Prints figures only.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import time

from _args import count, first_paragraph, measured, require_core, run

require_core()

from flowerbridge import Deal  # noqa: E402
from flowerbridge.solver import BRIDGE, FLOWER, DoubleDummy  # noqa: E402

from bench_solver import random_bridge  # noqa: E402


def counts(name: str, geometry, deals) -> None:
    solver = DoubleDummy(geometry)
    digest = hashlib.md5()
    start = time.process_time()
    for hands in deals:
        digest.update(repr(solver.ns_table(hands)).encode())
    cpu = time.process_time() - start
    st = solver.stats
    print(f"{name}, {len(deals)} DD tables: trick nodes {st['trick_nodes']:,}, nodes {st['nodes']:,}, "
          f"look-ups {st['lookups']:,} ({st['hits']:,} decided), values {digest.hexdigest()[:8]}, "
          f"CPU {cpu:.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--bridge", type=count, default=12, help="random Bridge deals (default 12; 0 skips Bridge)")
    ap.add_argument("--flower", type=count, default=6,
                    help="random Flower Bridge deals (default 6; 0 skips Flower Bridge)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the deals, as bench_solver.py's (default 1)")
    args = ap.parse_args()
    if not args.bridge and not args.flower:
        ap.error("argument --bridge and --flower: both are 0, so there is nothing to count")
    print(measured())
    rng = random.Random(args.seed)
    if args.bridge:
        counts("Bridge", BRIDGE, [random_bridge(rng) for _ in range(args.bridge)])
    if args.flower:
        counts("Flower Bridge", FLOWER, [[[c.index for c in h] for h in Deal.from_seed(args.seed, b).hands]
                                         for b in range(args.flower)])


if __name__ == "__main__":
    run(main)
