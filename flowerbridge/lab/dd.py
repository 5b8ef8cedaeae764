"""The ``dd`` analysis: double-dummy tricks, makeable levels and best contracts.

One row per deal: the solver's table (tricks for declarer's side, for each
denomination and declarer, declarer's left-hand opponent leading) and each
side's honor count and suit fits. Everything else is worked out from those
rows at summary time, so the rule variants cost no extra solving:

* the *stronger side* of a deal is the side with the larger honor count (North–South on a
  tie); a side makes what its better declarer makes;
* what a side makes by its length in a suit is taken over *both* sides of every deal: the
  stronger side by honor count also holds the top Animals (the Brights count 4 each), so its
  lengths would compare a strong Animal suit with an ordinary Plain one;
* the *best contract* of a side is its highest-scoring contract with double-dummy tricks,
  scored by the engine (:func:`~flowerbridge.scoring.score_contract`) without honors, which
  depend on who captures which card, not on the contract;
* the *par* of a deal is the result when both sides bid with full knowledge: each side in turn
  may let the last bid stand or outbid it, the dealer's side choosing first. It counts contract
  points only: honors and Bright bonuses go to whoever captures the cards, made contract or
  not (R16), and a passed-out hand scores none (R8).
"""

from __future__ import annotations

from dataclasses import fields
from functools import lru_cache
from typing import Any

import numpy as np

from ..render import count_text
from ..calls import BIDS, Denomination
from ..contract import Contract
from ..dealing import Deal
from ..options import RuleOptions
from ..scoring import score_contract
from ..seats import SEATS, Seat, Side
from .base import ENGINE_SOURCES, LAB_SOURCES, SOLVER_SOURCES, Analysis, Params, Row, Table, source_digests
from .features import SIDE_COLUMNS, SUITS, deal_features, dealer_of, rank_points
from .play import game_label, game_level
from .report import (DENOM_COLOURS, FEW, Plot, Section, TableSpec, dodged, interval_errors, legend_beside,
                     mean_interval, new_figure, nothing_drawn, pct, rate_cell, share_points,
                     whole_number_ticks)
from .variants import variant_options

FIT_MIN_SIDES = 5
"""A length held by fewer sides is left out of the by-length figures."""

HC_BUCKET = 2
"""Counts are grouped two by two for the game-makeable figures by count (a side's honor
count runs from about 15 to 55: one bucket a count left a few sides each)."""

DENOMINATIONS = tuple(Denomination)
TRICK_COLUMNS = {f"dd_{d.name}_{s.name}": int for d in DENOMINATIONS for s in SEATS}
COLUMNS = {"deal": int, "dealer": str, **TRICK_COLUMNS, **SIDE_COLUMNS, "pts_NS": int, "pts_EW": int}

# Denomination and level of each bid by its order, with a last entry for "no
# contract" so that an order of -1 (passed out) indexes it.
BID_DENOM = np.array([int(b.strain) for b in BIDS] + [-1])
BID_LEVEL = np.array([b.level for b in BIDS] + [0])


def dd_rows(seed, start: int, stop: int, params: Params) -> list[Row]:
    """The double-dummy table and side features of deals ``start..stop-1``."""
    from ..solver import dd_table

    rows = []
    for i in range(start, stop):
        deal = Deal.from_seed(seed, i)
        table = dd_table(deal)
        features = deal_features(deal)
        row: Row = {"deal": i, "dealer": dealer_of(i).name}
        row.update({f"dd_{d.name}_{s.name}": table[d][s] for d in DENOMINATIONS for s in SEATS})
        row.update({k: features[k] for k in SIDE_COLUMNS})
        # each side's high cards counted by rank (the bots' points), beside Chapter 10's count
        row.update({f"pts_{side.name}": sum(rank_points(deal.hands[s]) for s in side.seats) for side in Side})
        rows.append(row)
    return rows


# ----------------------------------------------------------- per-deal views


def side_tricks(table: Table, side: Side) -> np.ndarray:
    """Tricks ``side`` takes in each denomination with its better declarer: shape (deals, 4)."""
    a, b = side.seats
    return np.stack([np.maximum(table[f"dd_{d.name}_{a.name}"], table[f"dd_{d.name}_{b.name}"])
                     for d in DENOMINATIONS], axis=1)


def stronger(table: Table) -> np.ndarray:
    """True where North–South is the stronger side (honor count, NS on a tie)."""
    return table["hc_NS"] >= table["hc_EW"]


def stronger_view(table: Table) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tricks by denomination, honor count and fits (P, R, A) of each deal's stronger side."""
    ns = stronger(table)
    tricks = np.where(ns[:, None], side_tricks(table, Side.NS), side_tricks(table, Side.EW))
    hc = np.where(ns, table["hc_NS"], table["hc_EW"])
    fits = np.stack([np.where(ns, table[f"fit_NS_{s.letter}"], table[f"fit_EW_{s.letter}"])
                     for s in SUITS], axis=1)
    return tricks, hc, fits


def both_sides_view(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """Tricks by denomination (2 × deals, 4) and fits (2 × deals, 3: P, R, A) of
    every side: North–South's rows for the deals in order, then East–West's."""
    tricks = np.concatenate([side_tricks(table, Side.NS), side_tricks(table, Side.EW)])
    fits = np.concatenate([np.stack([table[f"fit_{side}_{s.letter}"] for s in SUITS], axis=1)
                           for side in ("NS", "EW")])
    return tricks, fits


@lru_cache(maxsize=None)
def _value_table(options: RuleOptions) -> np.ndarray:
    """Net score to the declaring side by [bid order, tricks taken], honors aside."""
    values = np.zeros((len(BIDS), 14), dtype=np.int64)
    for bid in BIDS:
        contract = Contract(bid.level, bid.strain, Seat.N)
        for taken in range(14):
            score = score_contract(contract, (taken, 13 - taken), ([], []), options)
            values[bid.order, taken] = score.total(Side.NS) - score.total(Side.EW)
    return values


def contract_values(tricks: np.ndarray, options: RuleOptions) -> np.ndarray:
    """Net score of every bid (axis 1, in bid order) for a side taking ``tricks`` (deals, 4)."""
    values = _value_table(options)
    denoms = np.array([b.denomination for b in BIDS])
    return values[np.arange(len(BIDS))[None, :], tricks[:, denoms]]


def best_contracts(tricks: np.ndarray, options: RuleOptions) -> tuple[np.ndarray, np.ndarray]:
    """Each deal's highest-scoring bid (its order, or -1 when no contract makes
    and passing is best) and its score, for a side taking ``tricks``.

    On equal scores the higher bid wins: with no bonus for game, ``1NT`` making
    thirteen tricks scores what ``7NT`` does, but ``7NT`` puts the points below
    the line, towards game.
    """
    values = contract_values(tricks, options)
    best = values.shape[1] - 1 - values[:, ::-1].argmax(axis=1)
    score = values[np.arange(len(best)), best]
    return np.where(score > 0, best, -1), np.maximum(score, 0)


def par(table: Table, options: RuleOptions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Par of each deal: (bid order or -1 when passed out, side 0 NS / 1 EW, NS net score).

    Backward induction over the bids, highest first: when side ``s`` holds
    bid ``k``, the other side lets it stand or outbids it with whichever
    higher bid serves it best, knowing that ``s`` may answer in turn.
    """
    n = len(table)
    value = np.stack([contract_values(side_tricks(table, Side.NS), options),
                      -contract_values(side_tricks(table, Side.EW), options)], axis=2)
    sign = np.array([1, -1])  # NS maximises the NS net score, EW minimises it
    bids = len(BIDS)
    outcome = np.zeros((n, bids, 2), dtype=np.int64)       # NS net when side s holds bid k
    final = np.zeros((n, bids, 2, 2), dtype=np.int64)      # (bid, side) the auction ends in
    best = np.full((n, 2), np.iinfo(np.int64).min)          # best for side o of bidding above k
    best_end = np.full((n, 2, 2), -1, dtype=np.int64)
    rows = np.arange(n)
    for k in range(bids - 1, -1, -1):
        for s in (0, 1):
            o = 1 - s
            stand = value[:, k, s]
            outbid = best[:, o] > sign[o] * stand
            outcome[:, k, s] = np.where(outbid, sign[o] * best[:, o], stand)
            final[:, k, s] = np.where(outbid[:, None], best_end[:, o], [k, s])
        for s in (0, 1):
            better = sign[s] * outcome[:, k, s] > best[:, s]
            best[:, s] = np.where(better, sign[s] * outcome[:, k, s], best[:, s])
            best_end[:, s] = np.where(better[:, None], final[:, k, s], best_end[:, s])
    first = np.array([Seat[name].side for name in table["dealer"]])
    second = 1 - first
    # The side that speaks second opens or lets the hand be passed out (0).
    second_open = best[rows, second] > 0
    second_result = np.where(second_open, sign[second] * best[rows, second], 0)
    second_end = np.where(second_open[:, None], best_end[rows, second], [-1, 0])
    first_open = best[rows, first] > sign[first] * second_result
    result = np.where(first_open, sign[first] * best[rows, first], second_result)
    end = np.where(first_open[:, None], best_end[rows, first], second_end)
    return end[:, 0], end[:, 1], result


DD_UNSEEN = frozenset({"declarer", "honor_ribbon", "honor_animal", "honor_bright",
                       "five_bright_bonus", "ten_bright_bonus"})
"""The rule options the double-dummy model cannot see: it takes each side's better
declarer (so who declares, R9, changes nothing) and scores the contract alone (honors
and Bright bonuses follow the cards captured, R16–R17)."""


def changed_options(options: RuleOptions) -> set[str]:
    """The options in which ``options`` differ from the default rules."""
    written = RuleOptions()
    return {f.name for f in fields(RuleOptions) if getattr(options, f.name) != getattr(written, f.name)}


# ---------------------------------------------------------------- summary


def summarize(table: Table, params: Params, settings: Params) -> dict:
    default = RuleOptions()
    tricks, hc, _ = stronger_view(table)
    n = len(table)
    game = {d.name: game_level(d, default) for d in DENOMINATIONS}
    summary: dict[str, Any] = {
        "deals": n,
        "mean_tricks": {d.name: float(tricks[:, d].mean()) for d in DENOMINATIONS},
        "makeable": {d.name: {level: pct(np.count_nonzero(tricks[:, d] >= level + 6), n)
                              for level in range(1, 8)} for d in DENOMINATIONS},
        "game_level": game,
        "game_makeable": {d.name: pct(np.count_nonzero(tricks[:, d] >= game[d.name] + 6), n)
                          for d in DENOMINATIONS},
        "game_makeable_deals": {d.name: int(np.count_nonzero(tricks[:, d] >= game[d.name] + 6))
                                for d in DENOMINATIONS},
        "any_game": pct(np.count_nonzero(np.any(
            tricks >= np.array([game[d.name] + 6 for d in DENOMINATIONS]), axis=1)), n),
    }
    # by length: every side of every deal (see the module's docstring), a length held
    # by fewer than 5 sides left out
    side_tricks_, side_fits = both_sides_view(table)
    by_fit: dict[str, dict[int, dict[str, float]]] = {}
    for suit in SUITS:
        d = Denomination(suit)
        by_fit[d.name] = {}
        for length in range(int(side_fits[:, suit].min()), int(side_fits[:, suit].max()) + 1):
            mask = side_fits[:, suit] == length
            if mask.sum() >= FIT_MIN_SIDES:
                t = side_tricks_[mask, d]
                by_fit[d.name][length] = {"sides": int(mask.sum()), "mean_tricks": float(t.mean()),
                                          "game_makeable": pct(np.count_nonzero(t >= game[d.name] + 6),
                                                               mask.sum()),
                                          "game_makeable_sides": int(np.count_nonzero(t >= game[d.name] + 6))}
    summary["by_fit"] = by_fit
    summary["game_by_honor_count"] = game_by_count(np.concatenate([table["hc_NS"], table["hc_EW"]]),
                                                   side_tricks_, game)
    summary["game_by_points"] = game_by_count(np.concatenate([table["pts_NS"], table["pts_EW"]]),
                                              side_tricks_, game)
    buckets = (hc // 5) * 5
    # each denomination's mean with its 95 % interval (Student's t: one value a deal)
    summary["by_honor_count"] = {int(b): {d.name: float(tricks[buckets == b, d].mean())
                                          for d in DENOMINATIONS}
                                 | {"deals": int((buckets == b).sum()),
                                    "interval": {d.name: list(mean_interval(tricks[buckets == b, d])[1:])
                                                 for d in DENOMINATIONS}}
                                 for b in np.unique(buckets) if (buckets == b).sum() >= 5}
    summary["variants"] = {}
    # rule sets that change only what the model cannot see equal the reference by
    # construction: left out, and named
    summary["variants_unseen"] = {}
    rows = np.arange(n)
    for index, (name, options) in enumerate(variant_options(settings["variants"])):
        changed = changed_options(options)
        if index and changed and changed <= DD_UNSEEN:
            summary["variants_unseen"][name] = sorted(changed)
            continue
        game_at = np.array([game_level(d, options) for d in DENOMINATIONS])
        best, score = best_contracts(tricks, options)
        order, side, result = par(table, options)
        bid = order >= 0
        taken = np.where((side == 0)[:, None], side_tricks(table, Side.NS),
                         side_tricks(table, Side.EW))[rows, BID_DENOM[order]]
        summary["variants"][name] = {
            "best_denomination": {d.name: pct(np.count_nonzero(BID_DENOM[best] == d), n)
                                  for d in DENOMINATIONS},
            "best_none": pct(np.count_nonzero(best < 0), n),   # no contract makes
            "best_is_game": pct(np.count_nonzero((best >= 0)
                                                 & (BID_LEVEL[best] >= game_at[BID_DENOM[best]])), n),
            "mean_best_score": float(score.mean()),
            "par_passed_out": pct(np.count_nonzero(~bid), n),
            # passed out, or (strict reading) a failing contract that costs nothing
            "par_zero": pct(np.count_nonzero(result == 0), n),
            "par_sacrifice": pct(np.count_nonzero(bid & (taken < BID_LEVEL[order] + 6)), n),
            "par_level_7": pct(np.count_nonzero(BID_LEVEL[order] == 7), n),
            "par_denomination": {d.name: pct(np.count_nonzero(bid & (BID_DENOM[order] == d)), n)
                                 for d in DENOMINATIONS},
            "mean_abs_par": float(np.abs(result).mean()),
        }
    return summary


GAME_KINDS = ("any", "suit", "P", "R", "A", "NT")
"""What ``game_by_honor_count`` counts: some game, a game in some suit, each game."""


def game_by_count(side_hc: np.ndarray, side_tricks_: np.ndarray, game: dict[str, int]) -> dict[int, dict]:
    """How often a side can make game against a count of its cards (``side_hc``, in the
    order of :func:`both_sides_view`: Chapter 10's honor count, or the bots' points by
    rank), every side of every deal, by buckets of :data:`HC_BUCKET` counts keyed by
    their lowest: ``sides``, and for each of :data:`GAME_KINDS` ``game_makeable`` (%)
    and ``game_makeable_sides``; buckets of fewer than :data:`FIT_MIN_SIDES` sides left out."""
    makes = np.asarray(side_tricks_ >= np.array([game[d.name] + 6 for d in DENOMINATIONS]))
    suits = [int(d) for d in DENOMINATIONS if d is not Denomination.NT]
    kinds: dict[str, Any] = {"any": makes.any(axis=1), "suit": makes[:, suits].any(axis=1)} | {
        d.name: makes[:, int(d)] for d in DENOMINATIONS}
    start = (side_hc // HC_BUCKET) * HC_BUCKET
    out = {}
    for b in np.unique(start):
        member = start == b
        sides = int(member.sum())
        if sides >= FIT_MIN_SIDES:
            counts = {k: int(np.count_nonzero(kinds[k][member])) for k in GAME_KINDS}
            out[int(b)] = {"sides": sides, "game_makeable": {k: pct(c, sides) for k, c in counts.items()},
                           "game_makeable_sides": counts}
    return out


def sections(table: Table, summary: dict, params: Params, settings: Params) -> list[Section]:
    names = [d.name for d in DENOMINATIONS]
    tricks = TableSpec(
        f"The stronger side (more honor count) over {count_text(summary['deals'], 'deal')}, double dummy",
        ["", *names],
        [["mean tricks", *(summary["mean_tricks"][d] for d in names)],
         ["game at", *(game_label(summary["game_level"][d], d) for d in names)],
         ["game makeable % (95% interval)",
          *(rate_cell(summary["game_makeable_deals"][d], summary["deals"]) for d in names)],
         *([f"level {level} makeable %", *(summary["makeable"][d][level] for d in names)]
           for level in range(1, 8))])
    vs = summary["variants"]
    variants = TableSpec(
        "Best contract of the stronger side, and par, under each rule set",
        ["", *vs],
        [*([f"best in {d} %", *(vs[v]["best_denomination"][d] for v in vs)] for d in names),
         ["no contract makes %", *(vs[v]["best_none"] for v in vs)],
         ["best contract is a game %", *(vs[v]["best_is_game"] for v in vs)],
         ["mean best score", *(vs[v]["mean_best_score"] for v in vs)],
         ["par: passed out %", *(vs[v]["par_passed_out"] for v in vs)],
         ["par: scores nothing %", *(vs[v]["par_zero"] for v in vs)],
         ["par: a sacrifice %", *(vs[v]["par_sacrifice"] for v in vs)],
         ["par: at the 7 level %", *(vs[v]["par_level_7"] for v in vs)],
         # (which strain par is in: the question of No Trump against the suits, with best_denomination)
         *([f"par: in {d} %", *(vs[v]["par_denomination"][d] for v in vs)] for d in names),
         ["par: mean |score|", *(vs[v]["mean_abs_par"] for v in vs)]])
    unseen = summary.get("variants_unseen", {})
    return [Section(
        "Double dummy: what the cards can make",
        "Tricks are the solver's, for the better declarer of the stronger side (in the plot by "
        "length, of every side); the undealt cards play no part. Scores, par included, are the "
        "contract's alone (contract points, overtricks and undertrick penalties): honors and "
        "Bright bonuses go to whoever captures the cards, made contract or not, and a passed-out "
        "hand scores none. So the model cannot see who declares (R9: it takes each side's "
        "better declarer), honors or Bright bonuses"
        + (f"; the rule sets that change only those ({', '.join(unseen)}) equal "
           f"'{next(iter(vs))}' here by construction and are left out." if unseen else "."),
        [tricks, variants], [game_by_fit_plot(summary), tricks_by_honor_count_plot(summary),
                             game_by_honor_count_plot(summary)])]


def game_by_fit_plot(summary: dict) -> Plot:
    """Game makeable in each suit against a side's length there (every side of every
    deal), with 95 % Wilson intervals."""
    fig = new_figure(8, 3.6)
    ax = fig.add_subplot()
    for d, colour, shift in zip(("P", "R", "A"), DENOM_COLOURS, dodged(3, 0.15)):
        fit = summary["by_fit"][d]
        drawn = sum(fit[k]["sides"] for k in fit)
        share_points(ax, {k: (fit[k]["game_makeable_sides"], fit[k]["sides"]) for k in fit}, colour,
                     f"{d}: game = {game_label(summary['game_level'][d], d)} ({count_text(drawn, 'side')})", shift)
    ax.set_xlabel("a side's length in the suit (of 20)")
    ax.set_ylabel("game makeable in that suit, %")
    if any(summary["by_fit"][d] for d in ("P", "R", "A")):
        whole_number_ticks(ax)
        legend_beside(ax)
    else:
        nothing_drawn(ax, f"no length in a suit was held by {FIT_MIN_SIDES} sides or more:\n"
                          "more deals would draw it")
    return Plot(fig, "How often a side (either side of every deal) can make game in a suit, by its "
                     "length there: a Plains game needs 11 tricks, a Ribbons or Animals game 10. "
                     "Bars: 95% (Wilson) intervals; the legend gives the sides drawn; the suits' "
                     "points at one length are set a little apart. Only lengths "
                     f"held by {FIT_MIN_SIDES} sides or more are drawn, hollow where they are fewer "
                     f"than {FEW}.")


def game_by_honor_count_plot(summary: dict) -> Plot:
    """Game makeable against a side's honor count (every side of every deal): some
    game, 3NT, and a game in some suit, with 95 % Wilson intervals; beside it, the
    same against the side's points counted by rank, as the bots count them."""
    from matplotlib.ticker import MaxNLocator
    fig = new_figure(9, 3.8)
    left, right = fig.subplots(1, 2, sharey=True)
    game = summary["game_level"]
    series = (("any", "black", "some game"), ("NT", DENOM_COLOURS[3], f"{game_label(game['NT'], 'NT')}"),
              ("suit", DENOM_COLOURS[1], f"a game in some suit ({', '.join(game_label(game[d], d) for d in 'PRA')})"))
    counts = (("game_by_honor_count", left, "by honor count\n(Chapter 10: Bright 4, Animal 2, Ribbon 1)",
               "honor counts"),
              ("game_by_points", right, "by points counted by rank\n(the bots': 4-3-2-1, each suit's top four)",
               "points"))
    for key, ax, what, plural_name in counts:
        ax.set_title(what, fontsize=9)
        by = summary[key]
        for (kind, colour, label), shift in zip(series, dodged(3, 0.2)):
            share_points(ax, {b: (by[b]["game_makeable_sides"][kind], by[b]["sides"]) for b in by}, colour,
                         label, shift + (HC_BUCKET - 1) / 2)
        ax.set_xlabel(f"a side's count (buckets of {HC_BUCKET})", fontsize=9)
        # ticks on the buckets' edges, whole counts (they read 30.0, 32.5, 35.0)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[s for s in (1, 2, 4, 5, 10)
                                                                    if s % HC_BUCKET == 0]))
        if not by:
            nothing_drawn(ax, f"no bucket of {plural_name} was held by {FIT_MIN_SIDES} sides or more:\n"
                              "more deals would draw it")
    left.set_ylabel("game makeable, %")
    if summary["game_by_honor_count"] or summary["game_by_points"]:
        legend_beside(right)
    sides = sum(v["sides"] for v in summary["game_by_honor_count"].values())
    return Plot(fig, f"How often a side can make game double dummy, by its honor count (Chapter 10, left) "
                     f"and by its points counted by rank as the bots count them (right), every side of "
                     f"every deal ({count_text(sides, 'side')} in the buckets drawn at left), with 95% (Wilson) "
                     f"intervals; each point stands at its bucket's centre, hollow where it holds fewer "
                     f"than {FEW} sides, and buckets of fewer than {FIT_MIN_SIDES} are left out.")


def tricks_by_honor_count_plot(summary: dict) -> Plot:
    """Mean double-dummy tricks by the stronger side's honor count, with 95 % intervals
    and the deals behind each bucket."""
    fig = new_figure()
    ax = fig.add_subplot()
    hc = summary["by_honor_count"]
    xs = [int(b) + 2 for b in hc]
    for d, colour, shift in zip(("P", "R", "A", "NT"), DENOM_COLOURS, dodged(4, 0.5)):
        means = np.array([hc[b][d] for b in hc], dtype=float)
        errors = interval_errors(means, [hc[b]["interval"][d] for b in hc])
        ax.errorbar([x + shift for x in xs], means, yerr=errors, marker="o", color=colour, capsize=3, label=d)
    for x, b in zip(xs, hc):    # the deals behind each bucket, along the top
        ax.text(x, 1.01, f"{hc[b]['deals']:,}", transform=ax.get_xaxis_transform(),
                ha="center", va="bottom", fontsize=7, color="#555555")
    ax.set_xlabel("the stronger side's honor count (bucket centre)")
    ax.set_ylabel("mean double-dummy tricks")
    if hc:
        legend_beside(ax)
    else:   # (a few deals: empty axes said nothing of why)
        nothing_drawn(ax, "no bucket of honor counts holds 5 deals:\nmore deals would draw it")
    return Plot(fig, "Double-dummy tricks by the stronger side's honor count, each denomination, "
                     "with 95% (Student's t) intervals, set a little apart around each bucket's centre; a "
                     "bucket spans 5 honor counts, and the number along the top is the deals in it (a bucket "
                     "of fewer than 5 deals is left out).")


def code(params: Params) -> dict[str, str]:
    """The source its rows depend on: the engine, the features of a deal and the solver."""
    return source_digests((*ENGINE_SOURCES, *LAB_SOURCES, "lab/dd.py", *SOLVER_SOURCES))


ANALYSIS = Analysis("dd", "Double dummy", COLUMNS, dd_rows, summarize, sections, chunk_size=10, code=code)
