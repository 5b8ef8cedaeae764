"""How well bots bid, measured against double dummy.

For ``--boards`` seeded deals (``Deal.from_seed(seed, board)``, dealer
rotating N, E, S, W from board 1, as in ``flowerbridge match``), four bots
bid (calls only, nobody plays), the solver gives the deal's double-dummy
table, and the contract reached is compared with what the cards allow:

* makeable: the contract's tricks double dummy (its declarer, the left-hand
  opponent leading) reach its level; down 1, down 2 or more;
* missed game: a side that played a part score, defended or passed the deal
  out could make a game (3NT, 4R, 4A, 5P) with its better declarer;
* hopeless game or slam: a game- or slam-level contract down 2 or more;
* wrong denomination: the declaring side's best contract in another
  denomination scores at least 20 points (1 IMP) more than its best in the
  denomination played (both with the side's better declarer, any level);
* passed out with a makeable contract: the deal was passed out though par
  (:func:`flowerbridge.lab.dd.par`) is a contract;
* wrong side declares: par is the other side's contract and the deal loses
  IMPs against it (a contract of the wrong side 0 IMPs from par is not
  counted); counted apart when par's side made no bid in the auction (it
  never entered);
* against par: the contract's double-dummy score (honors aside, as the lab
  scores par) minus par's, in IMPs; "at par" is 0 IMPs from it, so a score
  up to 10 points from par's (scores are multiples of 10) is at par too.

It also prints how much of a side's tricks the hand valuations explain, bots
aside: for each denomination, the R² of least-squares fits (with a constant)
of each side's double-dummy tricks (its better declarer) on the side's honor
count (Chapter 10: Bright 4, Animal 2, Ribbon 1, Plain 0, ``Card.points``), on
its points (the bots' count, ``TOP_POINTS``: the four highest ranks of each
suit 4-3-2-1), and on its points and its length in the suit (in No Trump, its
longest suit) together; both sides of every deal are observations
(``docs/bidding.md``).

Scores are the match's: there is no game or slam bonus in a hand's score
(Chapter 11), so a missed game costs nothing at duplicate unless it was also
a wrong denomination; it matters below the line of a rubber only.

With ``--versus SPEC`` it also plays a bidding-only duplicate match: the bots
of ``--bots`` sit North–South at table 1 and East–West at table 2 against
``SPEC``, each table's contract is scored double dummy (honors aside), and
the difference is given in IMPs per board with a 95% interval over boards
(Student's t, as ``flowerbridge match`` gives it).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_bidding_dd.py \
        [--boards 400] [--seed bid] [--bots basic] [--versus SPEC] \
        [--cache DIR] [--json OUT] [--worst 15]

A bot is a level (``basic``) or ``module:attribute``; ``PYTHONPATH=.`` lets
``--versus`` name a module in the current folder, such as a frozen copy of
the bidding made to compare a change against (``frozen:FrozenBot``).

Double-dummy tables are cached in ``--cache``: one JSON file per seed and
solver (its name a hash of the seed, the package's version and the solver's
sources), each table kept with a hash of its deal, so a second run over the
same deals does not solve again, and a changed solver or dealing does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import statistics
from collections import Counter
from pathlib import Path

from _args import bot_spec, count, first_paragraph, measured, positive, run, seed

import numpy as np  # noqa: E402

import flowerbridge  # noqa: E402
from flowerbridge import Deal, HandState, Seat  # noqa: E402
from flowerbridge.bots.base import load_bot  # noqa: E402
from flowerbridge.bots.bidding import TOP_POINTS  # noqa: E402
from flowerbridge.bots.match import imps  # noqa: E402
from flowerbridge.calls import Denomination  # noqa: E402
from flowerbridge.cards import Suit  # noqa: E402
from flowerbridge.contract import Contract  # noqa: E402
from flowerbridge.lab.base import Table  # noqa: E402
from flowerbridge.lab.dd import BID_DENOM, BID_LEVEL, TRICK_COLUMNS, par  # noqa: E402
from flowerbridge.stats import t_quantile  # noqa: E402
from flowerbridge.options import RuleOptions  # noqa: E402
from flowerbridge.scoring import score_contract  # noqa: E402
from flowerbridge.seats import SEATS, Side  # noqa: E402

GAME = {Denomination.P: 5, Denomination.R: 4, Denomination.A: 4, Denomination.NT: 3}
OPTIONS = RuleOptions()


def digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little") + part)
    return h.hexdigest()[:16]


def cache_path(cache: Path, seed: int | str) -> Path:
    """The cache file of ``seed``'s tables under this package and solver: named by a
    hash of the seed, the package's version and the solver's sources (its C core and
    Python files), so that another solver does not read this one's tables."""
    solver = Path(flowerbridge.__file__).parent / "solver"
    sources = [f.read_bytes() for f in sorted(solver.glob("*.c")) + sorted(solver.glob("*.py"))]
    return cache / f"dd_{digest(str(seed).encode(), flowerbridge.__version__.encode(), *sources)}.json"


def deal_digest(deal: Deal) -> str:
    """A hash of a deal's four hands (the cards' indices, seat by seat)."""
    return digest(repr([[c.index for c in hand] for hand in deal.hands]).encode())


def dd_tables(seed: int | str, boards: int, cache: Path | None) -> list[dict[str, dict[str, int]]]:
    """DD tables of boards 1..boards as {denomination name: {seat name: tricks}}; a
    cached table is used only if its deal's hash is the deal's."""
    from flowerbridge.solver import dd_table_many

    path = cache_path(cache, seed) if cache else None
    deals = {b: Deal.from_seed(seed, b) for b in range(1, boards + 1)}
    hashes = {b: deal_digest(deal) for b, deal in deals.items()}
    known: dict[str, dict] = {}
    if path and path.exists():
        known = json.loads(path.read_text())
    missing = [b for b in deals if known.get(str(b), {}).get("deal") != hashes[b]]
    for start in range(0, len(missing), 20):
        chunk = missing[start:start + 20]
        tables = dd_table_many([deals[b] for b in chunk], workers=2)
        for b, t in zip(chunk, tables):
            known[str(b)] = {"deal": hashes[b],
                             "table": {d.name: {s.name: int(t[d][s]) for s in SEATS} for d in Denomination}}
        if path:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(known))
        print(f"  solved {min(start + 20, len(missing))}/{len(missing)} deals", flush=True)
    return [known[str(b)]["table"] for b in deals]


def bid_out(deal: Deal, dealer: Seat, bots: dict[Seat, object]) -> HandState:
    """The hand after the auction: every call asked of the seat's bot."""
    state = HandState(deal, dealer, OPTIONS)
    while state.phase.name == "AUCTION":
        seat = state.actor
        state.apply(bots[seat].act(state.observation(seat)), seat)
    return state


def dd_score(contract: Contract | None, dd: dict) -> int:
    """North–South net of ``contract`` played double dummy, honors aside."""
    if contract is None:
        return 0
    taken = dd[contract.denomination.name][contract.declarer.name]
    tricks = (taken, 13 - taken) if contract.side is Side.NS else (13 - taken, taken)
    s = score_contract(contract, tricks, ([], []), OPTIONS)
    return s.total(Side.NS) - s.total(Side.EW)


def side_best(dd: dict, side: Side, denom: Denomination) -> tuple[int, int]:
    """(tricks, best score for the side at any level) in ``denom`` with its better declarer."""
    a, b = side.seats
    t = max(dd[denom.name][a.name], dd[denom.name][b.name])
    best = max(_value(level, denom, t) for level in range(1, 8))
    return t, best


def _value(level: int, denom: Denomination, taken: int) -> int:
    s = score_contract(Contract(level, denom, Seat.N), (taken, 13 - taken), ([], []), OPTIONS)
    return s.total(Side.NS) - s.total(Side.EW)


def par_scores(dds: list[dict], dealers: list[Seat]) -> tuple[list[str], list[int]]:
    rows = [{"deal": i, "dealer": dealers[i].name,
             **{f"dd_{d.name}_{s.name}": dd[d.name][s.name] for d in Denomination for s in SEATS}}
            for i, dd in enumerate(dds)]
    table = Table.from_rows({"deal": int, "dealer": str, **TRICK_COLUMNS}, rows)
    order, side, result = par(table, OPTIONS)
    names = []
    for o, s in zip(order, side):
        names.append("Pass" if o < 0 else f"{BID_LEVEL[o]}{Denomination(BID_DENOM[o]).name} {Side(s).name}")
    return names, [int(r) for r in result]


FITS = ("honor count", "points", "points + length")
"""The hand valuations whose fit to a side's tricks :func:`trick_fits` measures."""


def trick_fits(seed: int | str, dds: list[dict]) -> dict[str, list[float | None]]:
    """R² of a side's double-dummy tricks fitted on each of :data:`FITS`, by denomination."""
    rows: dict[Denomination, list[tuple[int, int, int, int]]] = {d: [] for d in Denomination}
    for board, dd in enumerate(dds, start=1):
        hands = Deal.from_seed(seed, board).hands
        for side in Side:
            cards = [c for seat in side.seats for c in hands[seat]]
            honors = sum(c.points for c in cards)
            points = sum(TOP_POINTS.get(c.rank, 0) for c in cards)
            lengths = [sum(1 for c in cards if c.suit is s) for s in Suit]
            for d in Denomination:
                length = max(lengths) if d is Denomination.NT else lengths[d]
                rows[d].append((honors, points, length, side_best(dd, side, d)[0]))
    fits = {}
    for d, observed in rows.items():
        a = np.array(observed, dtype=float)
        fits[d.name] = [r_squared(a[:, columns], a[:, 3]) for columns in ([0], [1], [1, 2])]
    return fits


def r_squared(x: np.ndarray, y: np.ndarray) -> float | None:
    """R² of the least-squares fit of ``y`` on the columns of ``x`` and a constant;
    None where it means nothing (no more observations than parameters + 1, or ``y`` constant)."""
    spread = y - y.mean()
    if len(y) <= x.shape[1] + 2 or not spread.any():
        return None
    design = np.column_stack([np.ones(len(y)), x])
    coefficients = np.linalg.lstsq(design, y, rcond=None)[0]
    residuals = y - design @ coefficients
    return round(float(1 - residuals @ residuals / (spread @ spread)), 3)


def measure(seed: int | str, boards: int, spec: str, dds: list[dict], worst: int) -> dict:
    dealers = [Seat((b - 1) % 4) for b in range(1, boards + 1)]
    par_names, pars = par_scores(dds, dealers)
    c: Counter = Counter()
    dev_imps: list[int] = []
    by_kind: Counter = Counter()
    loss_by_kind: Counter = Counter()
    worst_rows = []
    contracts: Counter = Counter()
    for b in range(1, boards + 1):
        i = b - 1
        dd = dds[i]
        deal = Deal.from_seed(seed, b)
        bots = {s: load_bot(spec, seed=f"{seed}/{b}/{s.name}") for s in Seat}
        state = bid_out(deal, dealers[i], bots)
        contract = state.contract
        score = dd_score(contract, dd)
        dev = imps(score - pars[i])
        dev_imps.append(abs(dev))
        auction = " ".join(str(ev.call) for ev in state.calls)
        kind = "at par" if dev == 0 else "other"
        c["deals"] += 1
        for side in Side:
            game = any(side_best(dd, side, d)[0] >= GAME[d] + 6 for d in Denomination)
            if not game:
                continue
            c["side could make game"] += 1
            bid_game = (contract is not None and contract.side is side
                        and contract.level >= GAME[contract.denomination])
            if bid_game:
                c["game bid when makeable"] += 1
            elif contract is None:
                c["missed game: passed out"] += 1
            elif contract.side is side:
                c["missed game: played a part score"] += 1
            else:
                c["missed game: defended"] += 1
        if contract is None:
            c["passed out"] += 1
            if par_names[i] != "Pass":
                c["passed out, par is a contract"] += 1
                kind = "passed out, par is a contract"
        else:
            contracts[f"{contract.level}{contract.denomination.name}"] += 1
            c["contracts"] += 1
            taken = dd[contract.denomination.name][contract.declarer.name]
            need = contract.level + 6
            if taken >= need:
                c["makeable"] += 1
            elif taken == need - 1:
                c["down 1"] += 1
            else:
                c["down 2+"] += 1
            game_or_more = contract.level >= GAME[contract.denomination]
            if game_or_more:
                c["game or slam bid"] += 1
                if taken <= need - 2:
                    c["hopeless game/slam (down 2+)"] += 1
            _, chosen = side_best(dd, contract.side, contract.denomination)
            others = max(side_best(dd, contract.side, d)[1] for d in Denomination if d is not contract.denomination)
            if others >= chosen + 20:
                c["wrong denomination"] += 1
            par_side = par_names[i].split()[-1] if par_names[i] != "Pass" else None
            if dev != 0:
                if par_side is not None and par_side != contract.side.name:
                    kind = "wrong side declares"
                    if not any(ev.call.is_bid and ev.seat.side.name == par_side for ev in state.calls):
                        c["wrong side declares, par's side never bid"] += 1
                elif taken < need:
                    kind = "went down (side of par)"
                elif others >= chosen + 20:
                    kind = "wrong denomination"
                else:
                    kind = "other (declarer seat/level)"
        by_kind[kind] += 1
        loss_by_kind[kind] += abs(dev)
        worst_rows.append((abs(dev), b, dealers[i].name, auction,
                           "Pass" if contract is None else f"{contract.code}", score, par_names[i], pars[i]))
    n = boards
    nc = max(1, c["contracts"])
    figures = {
        "seed": seed, "boards": n, "bots": spec,
        "contracts": c["contracts"],
        "makeable % of contracts": round(100 * c["makeable"] / nc, 1),
        "down 1 % of contracts": round(100 * c["down 1"] / nc, 1),
        "down 2+ % of contracts": round(100 * c["down 2+"] / nc, 1),
        "game or slam bid": c["game or slam bid"],
        "hopeless game/slam (down 2+)": c["hopeless game/slam (down 2+)"],
        "side could make game": c["side could make game"],
        "game bid when makeable": c["game bid when makeable"],
        "missed game: played a part score": c["missed game: played a part score"],
        "missed game: defended": c["missed game: defended"],
        "missed game: passed out": c["missed game: passed out"],
        "wrong denomination (>=20 pts)": c["wrong denomination"],
        "passed out": c["passed out"],
        "passed out, par is a contract": c["passed out, par is a contract"],
        "wrong side declares, par's side never bid": c["wrong side declares, par's side never bid"],
        "at par %": round(100 * sum(1 for d in dev_imps if d == 0) / n, 1),
        "mean |IMPs vs par|": round(statistics.fmean(dev_imps), 3),
        "deviation from par by kind (deals, IMPs)": {k: [by_kind[k], loss_by_kind[k]] for k in by_kind},
        "contracts reached": dict(contracts.most_common()),
    }
    worst_rows.sort(reverse=True)
    figures["worst"] = [{"imps": r[0], "board": r[1], "dealer": r[2], "auction": r[3], "contract": r[4],
                         "dd_score": r[5], "par": r[6], "par_score": r[7]} for r in worst_rows[:worst]]
    return figures


def versus(seed: int | str, boards: int, a: str, b: str, dds: list[dict]) -> dict:
    """Bidding-only duplicate: ``a`` NS at table 1, EW at table 2; DD scores."""
    results = []
    for board in range(1, boards + 1):
        deal = Deal.from_seed(seed, board)
        dealer = Seat((board - 1) % 4)
        nets = []
        for t in range(2):
            specs = {s: (a if (s.side is Side.NS) == (t == 0) else b) for s in Seat}
            bots = {s: load_bot(specs[s], seed=f"{seed}/{board}/{t}/{s.name}") for s in Seat}
            nets.append(dd_score(bid_out(deal, dealer, bots).contract, dds[board - 1]))
        results.append(imps(nets[0] - nets[1]))
    mean = statistics.fmean(results)
    ci = None  # no interval from one board
    if len(results) >= 2:
        half = t_quantile(len(results) - 1) * statistics.stdev(results) / math.sqrt(len(results))
        ci = [round(mean - half, 3), round(mean + half, 3)]
    return {"a": a, "b": b, "boards": boards, "imps_per_board": round(mean, 3), "ci95": ci,
            "ci95 is": "Student's t interval of the mean over boards",
            "boards_changed": sum(1 for r in results if r)}


def main() -> None:
    ap = argparse.ArgumentParser(description=first_paragraph(__doc__))
    ap.add_argument("--boards", type=positive, default=400,
                    help="seeded deals, boards 1 to N (default 400; the --versus interval needs 2 or more)")
    ap.add_argument("--seed", type=seed, default="bid", help="seed of the deals (default bid)")
    ap.add_argument("--bots", type=bot_spec, default="basic",
                    help="the bots that bid: a level or module:attribute (default basic)")
    ap.add_argument("--versus", type=bot_spec, default=None, metavar="SPEC",
                    help="also a bidding-only duplicate match of --bots against these bots")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/flowerbridge-dd-cache"),
                    help="folder of the double-dummy tables solved before (default /tmp/flowerbridge-dd-cache)")
    ap.add_argument("--json", type=Path, default=None, metavar="OUT", help="also write the figures to OUT as JSON")
    ap.add_argument("--worst", type=count, default=15, help="deals furthest from par listed (default 15; 0: none)")
    args = ap.parse_args()
    # checked before the deals are solved (a folder, or one not to be written, met at the end
    # as a traceback, the run's figures not written)
    if args.json and not args.json.parent.is_dir():
        ap.error(f"argument --json: there is no folder {args.json.parent}")
    if args.json and (args.json.is_dir() or not os.access(args.json.parent, os.W_OK)
                      or (args.json.exists() and not os.access(args.json, os.W_OK))):
        ap.error(f"argument --json: {args.json} " + ("is a folder" if args.json.is_dir() else "may not be written"))
    if args.cache.exists() and not args.cache.is_dir():
        ap.error(f"argument --cache: {args.cache} is not a folder")
    try:
        args.cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        ap.error(f"argument --cache: cannot make the folder {args.cache}: {exc.strerror or exc}")
    if not os.access(args.cache, os.W_OK):
        ap.error(f"argument --cache: the folder {args.cache} may not be written")
    print(measured(), flush=True)
    dds = dd_tables(args.seed, args.boards, args.cache)
    figures = measure(args.seed, args.boards, args.bots, dds, args.worst)
    fits = trick_fits(args.seed, dds)
    figures["R² of a side's tricks on " + " / ".join(FITS)] = {
        d: " / ".join("n/a" if r is None else f"{r:.2f}" for r in row) for d, row in fits.items()}
    if args.versus:
        figures["versus"] = versus(args.seed, args.boards, args.bots, args.versus, dds)
    for k, v in figures.items():
        if k == "worst":
            print("worst deals against par:")
            for row in v:
                print(f"  {row['imps']:>2} IMPs  board {row['board']:>3} ({row['dealer']}) {row['auction']:<45} "
                      f"-> {row['contract']:<6} {row['dd_score']:>5}  par {row['par']} {row['par_score']}")
        else:
            print(f"{k}: {v}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    run(main)
