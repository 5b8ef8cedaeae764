"""Opening leads judged double dummy: ``basic``'s rules against ``pimc`` solving the lead.

Each board is bid by ``basic`` (dealer rotating); at the opening lead the
leader's card is chosen by ``basic`` and by ``pimc`` with ``solve_below=14``
(it samples and solves the opening lead too, where by default it plays
``basic``'s), and both cards are judged on the true deal: the defenders'
double-dummy tricks after each lead against the best lead's. Prints the
mean tricks each lead gives away, the paired difference with a 95%
confidence interval (Student's t, over boards), how many contracts the
best lead defeats and how many each bot's lead defeats, and the time
``pimc`` takes over a lead.

    .venv/bin/python benchmarks/bench_leads.py [--boards 300] [--seed leads] [--samples 24]

What it says of `pimc`'s default (`docs/bots.md`, *Why `solve_below`*): a
better lead is worth its seconds only if the difference is clear of 0.
"""

from __future__ import annotations

import argparse
import statistics
import time

from _args import first_paragraph, measured, positive, require_core, run, seed, whole

require_core()      # (pimc and the judge solve)

from flowerbridge import Deal, HandState, Phase, Seat  # noqa: E402
from flowerbridge.bots.basic import BasicBot  # noqa: E402
from flowerbridge.bots.match import quantile  # noqa: E402
from flowerbridge.stats import t_quantile  # noqa: E402
from flowerbridge.bots.pimc import PimcBot  # noqa: E402
from flowerbridge.solver.game import card_values  # noqa: E402


def t95(values: list[float]) -> tuple[float, float] | None:
    """The mean's 95% confidence interval (Student's t, as a match's), or None under two values."""
    if len(values) < 2:
        return None
    mean, se = statistics.fmean(values), statistics.stdev(values) / len(values) ** 0.5
    half = t_quantile(len(values) - 1) * se
    return mean - half, mean + half


def main() -> None:
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--boards", type=positive, default=300, help="seeded boards, 1 to N (default 300)")
    ap.add_argument("--seed", type=seed, default="leads", help="seed of the deals (default leads)")
    ap.add_argument("--samples", type=whole(1, 10_000), default=24,
                    help="pimc's worlds a decision (default 24, its own default)")
    args = ap.parse_args()
    print(measured(), flush=True)
    lost: dict[str, list[int]] = {"basic": [], "pimc": []}
    defeated = {"best": 0, "basic": 0, "pimc": 0}
    seconds: list[float] = []
    for board in range(1, args.boards + 1):
        state = HandState(Deal.from_seed(args.seed, board), Seat((board - 1) % 4))
        bidder = BasicBot()
        while state.phase is Phase.AUCTION:
            seat = state.actor
            state.apply(bidder.act(state.observation(seat)), seat)
        if state.phase is not Phase.PLAY:     # passed out: no lead
            continue
        values = card_values(state)           # the defenders' tricks after each card led
        best = max(values.values())
        seen = state.observation(state.actor)
        start = time.perf_counter()
        pimc = PimcBot(seed=board, samples=args.samples, solve_below=14, time_budget=None).act(seen)
        seconds.append(time.perf_counter() - start)
        cards = {"basic": BasicBot().act(seen), "pimc": pimc}
        assert state.contract is not None
        needed = 14 - state.contract.tricks_required      # the defenders' tricks that defeat it
        defeated["best"] += best >= needed
        for name, card in cards.items():
            lost[name].append(best - values[card])
            defeated[name] += values[card] >= needed
    n = len(seconds)
    if not n:
        print("no board reached an opening lead")
        return
    print(f"{n} opening leads ({args.boards} boards, seed {args.seed!r}; pimc {args.samples} worlds a lead)")
    for name in ("basic", "pimc"):
        worse = sum(1 for x in lost[name] if x)
        print(f"  {name:<5} gives away {statistics.fmean(lost[name]):.3f} tricks a lead against the best "
              f"lead; worse than the best in {worse}; defeats {defeated[name]} of the {defeated['best']} "
              "contracts the best lead defeats")
    diff = [b - p for b, p in zip(lost["basic"], lost["pimc"])]
    ci = t95([float(d) for d in diff])
    shown = "n/a (one lead)" if ci is None else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"
    print(f"  pimc's lead saves {statistics.fmean(diff):+.3f} tricks a lead, 95% CI {shown}; "
          f"better on {sum(1 for d in diff if d > 0)}, worse on {sum(1 for d in diff if d < 0)}")
    print(f"  pimc's lead takes median {statistics.median(seconds):.2f} s, p90 {quantile(seconds, 0.9):.2f} s, "
          f"longest {max(seconds):.2f} s")


if __name__ == "__main__":
    run(main)
