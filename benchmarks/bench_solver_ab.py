"""Paired timing of two builds of the compiled solver core, in one process.

    python benchmarks/bench_solver_ab.py OTHER [--deals 8] [--seed 2] [--rounds 2] [--threads 1]

OTHER is another build of the core: a checkout whose `flowerbridge/solver/` holds a built
extension, or the extension file itself. This checkout's build (A) and OTHER (B) solve the
same Flower Bridge DD tables deal by deal, in turns (which goes first alternates), so that
both meet the same machine: on a shared machine whose speed drifts by a fifth from one run to
the next, timings of separate runs cannot tell a 5 % change, and these can (two copies of
one build come out within about 2 %). Every table must be the same from both builds.

--threads 1 times one-thread tables (CPU time); --threads 2 times one table at a time on two
threads sharing its search, as `dd_tables([deal])` does (wall clock). Prints, per build, the
sum and median of the per-deal medians, and B / A.
"""

from __future__ import annotations

import argparse
import glob
import importlib.machinery
import importlib.util
import os
import statistics
import time

from _args import first_paragraph, measured, positive, require_core, run

require_core()

from flowerbridge import Deal  # noqa: E402
from flowerbridge.solver import FLOWER, DoubleDummy, core, dd_tables  # noqa: E402


def load_other(path: str):
    """The other build's extension module, loaded beside this checkout's under another name
    (an ``argparse`` ``type=``: a path that is not a built core is a usage error)."""
    if os.path.isdir(path):
        found = glob.glob(os.path.join(path, "flowerbridge", "solver", "_core.*.so"))
        if not found:
            raise argparse.ArgumentTypeError(f"no built solver core under {path}/flowerbridge/solver/")
        path = found[0]
    if not os.path.isfile(path):
        raise argparse.ArgumentTypeError(f"{path}: no such file or folder")
    # the module's init function is named after the last part of its name: _core
    loader = importlib.machinery.ExtensionFileLoader("other_build._core", path)
    spec = importlib.util.spec_from_file_location("other_build._core", path, loader=loader)
    try:
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except ImportError as exc:
        raise argparse.ArgumentTypeError(f"{path} is not a built solver core extension ({exc})") from None
    if not hasattr(module, "Solver"):
        raise argparse.ArgumentTypeError(f"{path} is an extension but not the solver core (it has no Solver)")
    return module


def main() -> None:
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("other", metavar="OTHER", type=load_other,
                    help="another checkout (built) or its _core extension file")
    ap.add_argument("--deals", type=positive, default=8, help="Flower Bridge deals (default 8)")
    ap.add_argument("--seed", type=int, default=2, help="seed of the deals (default 2)")
    ap.add_argument("--rounds", type=positive, default=2, help="times each deal is solved by each build (default 2)")
    ap.add_argument("--threads", type=int, choices=(1, 2), default=1,
                    help="1: one-thread tables, CPU time; 2: one table at a time on two threads, "
                         "wall clock (default 1)")
    args = ap.parse_args()
    other = args.other
    deals = [[[c.index for c in hand] for hand in Deal.from_seed(args.seed, b).hands]
             for b in range(args.deals)]

    if args.threads == 1:
        solvers = [DoubleDummy(FLOWER), DoubleDummy(FLOWER)]
        g = FLOWER
        solvers[1]._core = other.Solver(g.suits, g.ranks, g.copies, 256.0)

        def solve(which: int, hands) -> tuple[list, float]:
            t = time.process_time()
            table = solvers[which].ns_table(hands)
            return table, time.process_time() - t
    else:
        # each build with its own idle teams (tables already allocated and touched)
        builds = [(core._CoreSolver, {}), (other.Solver, {})]

        def solve(which: int, hands) -> tuple[list, float]:
            core._CoreSolver, core._idle = builds[which]
            t = time.perf_counter()
            table = dd_tables([hands], FLOWER, workers=2)[0]
            return table, time.perf_counter() - t

        for which in (0, 1):
            solve(which, deals[0])

    times: list[list[list[float]]] = [[[] for _ in deals], [[] for _ in deals]]
    for r in range(args.rounds):
        for i, hands in enumerate(deals):
            order = (0, 1) if (i + r) % 2 == 0 else (1, 0)
            tables = {}
            for which in order:
                tables[which], seconds = solve(which, hands)
                times[which][i].append(seconds)
            if tables[0] != tables[1]:
                raise SystemExit(f"error: deal {i} (seed {args.seed}): the builds' tables differ")
    med = [[statistics.median(t) for t in times[w]] for w in (0, 1)]
    kind = "CPU time, one thread" if args.threads == 1 else "wall clock, one table at a time on 2 threads"
    print(measured())
    print(f"{args.deals} Flower Bridge deals (seed {args.seed}), {args.rounds} rounds, {kind}")
    from flowerbridge.solver import _core

    for w, name, module in ((0, "A (this checkout)", _core), (1, f"B ({os.path.normpath(other.__file__)})", other)):
        # PROFILE_GUIDED: builds before the fourteenth session lack it
        build = {1: "profile-guided", 0: "plain"}.get(getattr(module, "PROFILE_GUIDED", None), "build unknown")
        print(f"  {name}, {build}: sum {sum(med[w]):.2f} s, median {1000 * statistics.median(med[w]):.0f} ms")
    ratios = [b / a for a, b in zip(med[0], med[1])]
    print(f"  B / A: sum {sum(med[1]) / sum(med[0]):.3f}, median per deal {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    run(main)
