"""The bots' strength and speed: duplicate matches scored in IMPs.

Plays ``basic`` against ``random`` and ``pimc`` against ``basic`` over the
same boards (each board at two tables, pairs swapped) and prints, for each
match, the first bot's IMPs per board with a 95% confidence interval, and
the time ``pimc`` takes per card decision at its default settings.

    .venv/bin/python benchmarks/bench_bots.py [--boards 200] [--seed bench]

Targets (issue #4): pimc beats basic by at least 1 IMP per board with the
interval clear of 0; basic clearly beats random; pimc's median decision
takes at most 1 second.
"""

from __future__ import annotations

import argparse
import os
import time

from flowerbridge.bots.match import run_match


def report(a: str, b: str, boards: int, seed: str) -> None:
    start = time.perf_counter()
    result = run_match(a, b, boards, seed)
    wall = time.perf_counter() - start
    lo, hi = result.ci95 or (float("nan"), float("nan"))
    print(f"{a} v {b}: {result.imps_per_board:+.2f} IMPs per board, 95% CI [{lo:+.2f}, {hi:+.2f}], "
          f"{result.boards} boards, {wall:.0f} s")
    for stats in result.pairs:
        d = stats.to_dict()
        rate = "—" if d["making_rate"] is None else f"{d['making_rate']:.0%}"
        print(f"  {stats.spec:<7} declared {d['declared']:>3}, made {rate:>4}, "
              f"honors/hand {d['honors_per_hand']:5.2f}, {d['decisions']} decisions, "
              f"{d['ms_per_decision']:.2f} ms mean, card decisions median {d['card_ms_median']:.1f} ms, "
              f"p90 {d['card_ms_p90']:.1f} ms, max {stats.card_ms(1.0):.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--seed", default="bench")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; pimc at its default settings")
    report("basic", "random", args.boards, args.seed)
    report("pimc", "basic", args.boards, args.seed)


if __name__ == "__main__":
    main()
