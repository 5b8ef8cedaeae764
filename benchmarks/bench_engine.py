"""Complete random hands through the public, validating engine API, on one core.

Each hand: a seeded deal, a random auction (every call checked by
``HandState.call``), 52 random legal cards (each checked by ``HandState.play``)
and the itemised score. Prints hands per second.

    .venv/bin/python benchmarks/bench_engine.py [--hands N]
"""

from __future__ import annotations

import argparse
import random
import time

from flowerbridge import Deal, HandState, Phase, Seat


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5000)
    args = parser.parse_args()
    rng = random.Random(2026)
    for board in range(200):  # warm-up
        random_hand(board, rng)
    played = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    for board in range(args.hands):
        played += random_hand(board, rng).phase is Phase.FINISHED
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    print(f"engine: {args.hands} complete random hands ({played} played, "
          f"{args.hands - played} passed out) in {elapsed:.2f} s wall, {cpu:.2f} s CPU")
    print(f"engine: {args.hands / cpu:,.0f} hands/s per CPU-second on one core "
          f"({args.hands / elapsed:,.0f} by the wall clock; target 3,000)")


if __name__ == "__main__":
    main()
