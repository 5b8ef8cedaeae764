"""Lab throughput: deals per second for bot play and double dummy, 1 and 2 workers.

    .venv/bin/python benchmarks/bench_lab.py [--play-n 400] [--dd-n 8] [--bots basic]

For each analysis, runs N, 2N and 4N deals with one worker and with two,
each into a fresh folder (nothing reused), and prints seconds, deals per
second, the scaling efficiency of two workers (rate with 2 / twice the rate
with 1) and how the time grows with N (seconds per deal at each N). The
workers column is the worker processes a run used: a run of one chunk is
computed in the lab's own process whatever was asked ("1 of 2", and no
efficiency). Worker start-up (a fresh interpreter per worker) is included,
as a user pays it; a warm-up run first loads everything in this process.
The load average is printed because the figures mean little on a busy
machine.
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import time

from _args import bot_spec, build_first, first_paragraph, measured, run as run_main, whole

from flowerbridge.lab import analyses, run  # noqa: E402
from flowerbridge.lab.runner import MAX_DEALS  # noqa: E402


def measure(name: str, n: int, workers: int, params: dict, chunk_size: int) -> float:
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        run(out, [name], n=n, seed="bench", params={name: params}, workers=workers,
            chunk_size=chunk_size)
        return time.perf_counter() - start


def used(workers: int, n: int, chunk_size: int) -> int:
    """The worker processes a run of ``n`` deals asked for ``workers`` uses: the lab
    computes a run of one chunk in its own process, as it does with one worker."""
    chunks = math.ceil(n / chunk_size)
    return 1 if workers == 1 or chunks <= 1 else min(workers, chunks)


def bench(name: str, base_n: int, params: dict, chunk_size: int) -> None:
    measure(name, min(base_n, chunk_size), 1, params, chunk_size)  # warm-up: imports, caches
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\n{name} {params or ''}: chunks of {chunk_size} deals (load average {load})")
    print(f"{'deals':>7} {'workers':>9} {'seconds':>9} {'deals/s':>9} {'ms/deal':>9} "
          f"{'2-worker efficiency':>20}")
    for n in (base_n, 2 * base_n, 4 * base_n):
        rates = {}
        for workers in (1, 2):
            seconds = measure(name, n, workers, params, chunk_size)
            rates[workers] = n / seconds
            real = used(workers, n, chunk_size)
            # the column says the workers a run used; two asked, one used: one chunk, no scaling to measure
            shown = str(real) if real == workers else f"{real} of {workers}"
            efficiency = "" if workers == 1 else (f"{rates[2] / (2 * rates[1]):.0%}" if real == 2
                                                  else "n/a (1 chunk)")
            print(f"{n:>7} {shown:>9} {seconds:>9.2f} {n / seconds:>9.1f} {1000 * seconds / n:>9.2f} "
                  f"{efficiency:>20}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=first_paragraph(__doc__))
    # the largest run is 4N deals (4 x 10N for deals)
    parser.add_argument("--play-n", type=whole(1, MAX_DEALS // 40), default=400,
                        help="smallest N for play (default 400; deals runs 10N)")
    parser.add_argument("--dd-n", type=whole(0, MAX_DEALS // 4), default=8,
                        help="smallest N for dd (default 8; 0 skips)")
    parser.add_argument("--bots", type=bot_spec, default="basic", help="bots for play (default basic)")
    args = parser.parse_args()
    if args.dd_n and "dd" not in analyses():    # (the dd part was left out without a word)
        build_first()
    print(measured())
    bench("deals", 10 * args.play_n, {}, 500)
    bench("play", args.play_n, {"bots": args.bots}, max(1, args.play_n // 8))
    if args.dd_n and "dd" in analyses():
        bench("dd", args.dd_n, {}, max(1, args.dd_n // 4))


if __name__ == "__main__":
    run_main(main)
