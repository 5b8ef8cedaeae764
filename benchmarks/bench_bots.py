"""The bots' strength and speed: duplicate matches scored in IMPs.

Plays ``basic`` against ``random`` and ``pimc`` against ``basic`` over the
same boards (each board at two tables, pairs swapped) and prints, for each
match, the first bot's IMPs per board with a 95% confidence interval and
each bot's time per decision; then, separately, the time ``pimc`` takes
over the decisions where it samples and solves, at its default settings.

    .venv/bin/python benchmarks/bench_bots.py [--boards 200] [--seed bench]

Targets (issue #4): pimc beats basic by at least 1 IMP per board with the
interval clear of 0; basic clearly beats random; pimc's median decision
takes at most 1 second.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from _args import first_paragraph, measured, positive, require_core, run, seed

from flowerbridge import Deal, HandState, Seat  # noqa: E402
from flowerbridge.bots.basic import BasicBot  # noqa: E402
from flowerbridge.bots.match import quantile, run_match  # noqa: E402
from flowerbridge.bots.pimc import PimcBot  # noqa: E402


def report(a: str, b: str, boards: int, seed: int | str) -> None:
    start = time.perf_counter()
    result = run_match(a, b, boards, seed)
    wall = time.perf_counter() - start
    ci = "n/a (one board)" if result.ci95 is None else "[{:+.2f}, {:+.2f}]".format(*result.ci95)
    print(f"{a} v {b}: {result.imps_per_board:+.2f} IMPs per board, 95% CI {ci} (Student's t, over boards), "
          f"{result.boards} boards, {wall:.0f} s")
    for stats in result.pairs:
        d = stats.to_dict()
        rate = "—" if d["making_rate"] is None else f"{d['making_rate']:.0%}"
        honors = "—" if d["honors_per_hand"] is None else f"{d['honors_per_hand']:.2f}"   # (no hand played)
        print(f"  {stats.spec:<7} declared {d['declared']:>3}, made {rate:>4}, "
              f"honors/hand {honors:>5}, {d['decisions']} decisions, "
              f"{d['ms_per_decision']:.2f} ms mean, card decisions median {d['card_ms_median']:.1f} ms, "
              f"p90 {d['card_ms_p90']:.1f} ms, max {stats.card_ms(1.0):.1f} ms, "
              f"time budget hit {d['time_budget_hits']} times")


def time_pimc(boards: int, seed: int | str) -> None:
    """Time pimc's decisions that sample and solve, on positions from hands
    bid and played by ``basic``: every card decision with a choice to make
    once the hands hold fewer than ``solve_below`` cards."""
    bot = PimcBot(seed=seed)
    times = []
    for board in range(1, boards + 1):
        state = HandState(Deal.from_seed(seed, board), Seat((board - 1) % 4))
        basic = BasicBot()
        while not state.is_over:
            seat = state.actor
            obs = state.observation(seat)
            if state.phase.value == "play" and len(obs.legal) > 1 \
                    and len(state.remaining(state.turn)) < bot.solve_below:
                start = time.perf_counter()
                bot.decide(obs)
                times.append(time.perf_counter() - start)
            state.apply(basic.act(obs), seat)
    if not times:
        print(f"pimc solving decisions: none in {boards} board(s) (no card decision with a choice "
              f"below {bot.solve_below} cards)")
        return
    print(f"pimc solving decisions (samples {bot.samples}, solve_below {bot.solve_below}, "
          f"{bot.workers} workers), {len(times)} positions from {boards} boards: "
          f"median {1000 * statistics.median(times):.0f} ms, mean {1000 * statistics.fmean(times):.0f} ms, "
          f"p90 {1000 * quantile(times, 0.9):.0f} ms, max {1000 * max(times):.0f} ms, "
          f"time budget hit {bot.budget_hits} times")


def main() -> None:
    parser = argparse.ArgumentParser(description=first_paragraph(__doc__))
    parser.add_argument("--boards", type=positive, default=200,
                        help="duplicate boards per match (default 200; the interval needs 2 or more)")
    parser.add_argument("--seed", type=seed, default="bench", help="seed of the deals (default bench)")
    args = parser.parse_args()
    require_core()  # pimc solves
    print(measured())
    print(f"{os.cpu_count()} cores; pimc at its default settings")
    report("basic", "random", args.boards, args.seed)
    report("pimc", "basic", args.boards, args.seed)
    time_pimc(max(1, args.boards // 10), args.seed)


if __name__ == "__main__":
    run(main)
