"""Complete random hands through the public, validating engine API, on one core.

Each hand: a seeded deal, a random auction (every call checked by
``HandState.call``), 52 random legal cards (each checked by ``HandState.play``)
and the itemised score. About a quarter of the random auctions are passed out:
such a hand has no play and costs about a fifth of a played one, so the
headline is the rate of played hands (52 plays each), each hand timed on its
own; passed-out hands, and all hands together, are printed apart.

    .venv/bin/python benchmarks/bench_engine.py [--hands N]
"""

from __future__ import annotations

import argparse
import random
import time

from _args import first_paragraph, measured, positive, run

from flowerbridge import Deal, HandState, Phase, Seat  # noqa: E402


def random_hand(board: int, rng: random.Random) -> HandState:
    state = HandState(Deal.from_seed("bench", board), Seat(board % 4))
    while state.phase is Phase.AUCTION:
        legal = state.legal_calls()
        if len(legal) == 1 or rng.random() < 0.7:
            state.call(legal[0])
        else:
            state.call(legal[1 + int(rng.random() * min(4, len(legal) - 1))])
    while state.phase is Phase.PLAY:
        legal = state.legal_cards()
        state.play(legal[int(rng.random() * len(legal))])
    state.score()
    return state


def rate(hands: int, seconds: float) -> str:
    return f"{hands / seconds:,.0f}" if seconds > 0 else "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=first_paragraph(__doc__))
    parser.add_argument("--hands", type=positive, default=5000, help="random hands timed (default 5000)")
    args = parser.parse_args()
    print(measured())
    rng = random.Random(2026)
    for board in range(200):  # warm-up
        random_hand(board, rng)
    # seconds by the wall clock and of CPU, for played [0] and passed-out [1] hands
    wall, cpu, hands = [0.0, 0.0], [0.0, 0.0], [0, 0]
    for board in range(args.hands):
        start, cpu_start = time.perf_counter(), time.process_time()
        passed_out = random_hand(board, rng).phase is not Phase.FINISHED
        wall[passed_out] += time.perf_counter() - start
        cpu[passed_out] += time.process_time() - cpu_start
        hands[passed_out] += 1
    print(f"engine: {args.hands} random hands, {hands[0]} played (52 plays each) and "
          f"{hands[1]} passed out, in {sum(wall):.2f} s wall, {sum(cpu):.2f} s CPU")
    met = "met" if cpu[0] > 0 and hands[0] / cpu[0] >= 3000 else "not met"
    print(f"engine: played hands (deal, auction, 52 plays, score): {rate(hands[0], cpu[0])} hands/s "
          f"per CPU-second on one core ({rate(hands[0], wall[0])} by the wall clock; target 3,000: {met})")
    print(f"engine: passed-out hands (deal, auction, score): {rate(hands[1], cpu[1])} hands/s per CPU-second "
          f"({rate(hands[1], wall[1])} by the wall clock)")
    print(f"engine: all hands together: {rate(args.hands, sum(cpu))} hands/s per CPU-second "
          f"({rate(args.hands, sum(wall))} by the wall clock)")


if __name__ == "__main__":
    run(main)
