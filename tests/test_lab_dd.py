"""The double-dummy analysis: best contracts and par from solver tables (issue #6).

The solver itself is tested by its own suite; here a stand-in table lets the
lab's plumbing and arithmetic be checked in milliseconds.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings, strategies as st

pytest.importorskip("flowerbridge.solver")

from flowerbridge import Deal, Denomination, Seat, Side  # noqa: E402
from flowerbridge.lab import LabError, dd, run_lab  # noqa: E402
from flowerbridge.lab.base import Table  # noqa: E402
from flowerbridge.options import RuleOptions  # noqa: E402
from lab_support import error_bars  # noqa: E402


def table_of(*deals: tuple[list[int], str]) -> Table:
    """Rows where North–South take ``ns[d]`` tricks in denomination d, whoever declares."""
    rows = []
    for ns, dealer in deals:
        row = {"deal": len(rows), "dealer": dealer}
        for d, name in enumerate(("P", "R", "A", "NT")):
            for seat in "NESW":
                row[f"dd_{name}_{seat}"] = ns[d] if seat in "NS" else 13 - ns[d]
        for side in ("NS", "EW"):
            row[f"hc_{side}"], row[f"pts_{side}"] = 30, 20
            row.update({f"fit_{side}_{s}": 7 for s in "PRA"})
        rows.append(row)
    return Table.from_rows(dd.COLUMNS, rows)


def table_with_honors(*deals: tuple[list[int], int, int]) -> Table:
    """``table_of``'s rows (dealer North) with North–South's and East–West's honor counts."""
    t = table_of(*((ns, "N") for ns, _, _ in deals))
    t.data["hc_NS"][:] = [hc_ns for _, hc_ns, _ in deals]
    t.data["hc_EW"][:] = [hc_ew for _, _, hc_ew in deals]
    return t


def stronger_by_hand(t: Table) -> tuple[list[list[int]], list[int]]:
    """Each deal's stronger side's tricks (P, R, A, NT) and honor count, row by row, apart
    from ``dd.stronger``: the side with more honor count, North–South on a tie."""
    tricks, hcs = [], []
    for i in range(len(t)):
        ns = t["hc_NS"][i] >= t["hc_EW"][i]
        seats = "NS" if ns else "EW"
        tricks.append([max(int(t[f"dd_{d}_{s}"][i]) for s in seats) for d in ("P", "R", "A", "NT")])
        hcs.append(int(t["hc_NS"][i] if ns else t["hc_EW"][i]))
    return tricks, hcs


def bid(order: int) -> str:
    return dd.BIDS[order].text if order >= 0 else "passed out"


def test_ch11_best_contract_prefers_the_highest_of_equal_scores():
    tricks = dd.side_tricks(table_of(([13, 13, 13, 13], "N"), ([9, 10, 9, 9], "N")), Side.NS)
    best, score = dd.best_contracts(tricks, RuleOptions())
    assert [bid(b) for b in best] == ["7NT", "4R"]  # 1NT+6 scores 220 too, but below the line less
    assert list(score) == [220, 120]


def test_ruling_r15_par_with_penalty_lets_the_making_side_keep_its_contract():
    t = table_of(([9, 10, 9, 9], "N"), ([6, 6, 6, 6], "E"))
    order, side, result = dd.par(t, RuleOptions())
    assert (bid(order[0]), side[0], result[0]) == ("4R", 0, 120)
    assert (bid(order[1]), side[1], result[1]) == ("1NT", 1, -40)


def test_ruling_r15_strict_par_makes_every_outbid_free():
    t = table_of(([9, 10, 9, 9], "N"), ([13, 13, 13, 13], "N"))
    order, side, result = dd.par(t, RuleOptions.strict())
    assert result[0] == 0  # EW outbid 4R for nothing, and NS can make nothing higher
    assert (bid(order[1]), result[1]) == ("7NT", 220)  # nothing outbids 7NT


def test_ruling_r15_par_ties_go_to_the_pass_a_side_gains_nothing_by_bidding():
    # a sacrifice that costs what the game it stops scores is not taken: East–West's 3NT,
    # not North–South's 1A two down; under the strict reading nobody gains by opening
    order, side, result = dd.par(table_of(([4, 4, 5, 4], "N")), RuleOptions())
    assert (bid(order[0]), side[0], result[0]) == ("3NT", 1, -100)
    order, side, result = dd.par(table_of(([4, 4, 4, 4], "N")), RuleOptions.strict())
    assert (bid(order[0]), result[0]) == ("passed out", 0)


def test_ch11_no_contract_is_best_where_none_scores_above_nothing():
    # under the strict reading a failing contract costs nothing: it is still no best contract
    tricks = dd.side_tricks(table_of(([4, 4, 4, 4], "N"), ([6, 6, 6, 7], "N")), Side.NS)
    best, score = dd.best_contracts(tricks, RuleOptions.strict())
    assert [bid(b) for b in best] == ["passed out", "1NT"] and list(score) == [0, 40]


def test_lab_dd_par_sacrifice_counts_only_failing_contracts():
    # North–South make 1NT exactly (or 1 of a suit): par is theirs, and no sacrifice
    s = dd.summarize(table_of(([7, 7, 7, 7], "N"), ([4, 4, 5, 4], "N")), {},
                     {"variants": [["default", {}]]})["variants"]["default"]
    assert (s["par_sacrifice"], s["par_passed_out"]) == (0.0, 0.0)


def test_ch11_ch13_lab_dd_best_contract_game_and_par_at_the_seven_level_shares():
    # best contracts 5P (100 below the line), 4R (120), 3NT (100), 4P (80) and 7NT (220):
    # four games at 100 (R18), the 7NT deal's par at the 7 level; at 120, only 4R and 7NT
    deals = ([11, 6, 6, 6], [6, 10, 6, 6], [6, 6, 6, 9], [10, 6, 6, 6], [13, 13, 13, 13])
    t = table_of(*((ns, "N") for ns in deals))
    best, _ = dd.best_contracts(dd.side_tricks(t, Side.NS), RuleOptions())
    assert [bid(b) for b in best] == ["5P", "4R", "3NT", "4P", "7NT"]
    s = dd.summarize(t, {}, {"variants": [["default", {}], ["game-120", {"game_points": 120}]]})["variants"]
    assert (s["default"]["best_is_game"], s["default"]["par_level_7"]) == (80.0, 20.0)
    assert s["game-120"]["best_is_game"] == 40.0


def fake_dd_table(deal):
    """Tricks by suit length: a deterministic stand-in for the solver."""
    out = {}
    for d in Denomination:
        out[d] = {}
        for seat in Seat:
            mine = [c for s in (seat, seat.partner) for c in deal.hands[s]]
            length = sum(1 for c in mine if d is Denomination.NT or c.suit == d.trump)
            out[d][seat] = min(13, length if d is not Denomination.NT else length // 2)
    return out


def test_lab_dd_analysis_reports_makeable_games_and_variants(tmp_path, monkeypatch):
    monkeypatch.setattr("flowerbridge.solver.dd_table", fake_dd_table)
    study = run_lab(tmp_path, ["dd"], n=30, seed=4, workers=1, chunk_size=10)
    t = study.result.tables["dd"]
    # deal i's dealer is seat i mod 4, in every chunk (not counted from a chunk's first deal)
    assert len(t) == 30 and list(t["dealer"]) == [Seat(int(i) % 4).name for i in t["deal"]]
    summary = study.summaries["dd"]
    assert summary["game_level"] == {"P": 5, "R": 4, "A": 4, "NT": 3}
    tricks, _ = stronger_by_hand(t)
    assert summary["game_makeable"]["R"] == pytest.approx(100 * sum(r[1] >= 10 for r in tricks) / 30)
    # level L is makeable with L + 6 tricks
    for d, name in enumerate(("P", "R", "A", "NT")):
        for level in range(1, 8):
            assert summary["makeable"][name][level] == pytest.approx(
                100 * sum(r[d] >= level + 6 for r in tricks) / 30)
    # by length: both sides of every deal, not the stronger side's alone
    for i, suit in enumerate("PRA"):
        lengths = list(t[f"fit_NS_{suit}"]) + list(t[f"fit_EW_{suit}"])
        counts = {k: lengths.count(k) for k in set(lengths) if lengths.count(k) >= 5}
        assert {k: v["sides"] for k, v in summary["by_fit"][suit].items()} == counts
        side_tricks = list(dd.side_tricks(t, Side.NS)[:, i]) + list(dd.side_tricks(t, Side.EW)[:, i])
        for length, cell in summary["by_fit"][suit].items():
            game = [x >= summary["game_level"][suit] + 6 for x, k in zip(side_tricks, lengths) if k == length]
            assert cell["game_makeable"] == pytest.approx(100 * sum(game) / len(game))
    assert set(summary["variants"]) >= {"default", "strict", "plains-30"}
    for rules in summary["variants"].values():   # a passed-out hand scores nothing
        assert rules["par_zero"] >= rules["par_passed_out"]
        # every deal has a best contract in one denomination, or none makes
        assert sum(rules["best_denomination"].values()) + rules["best_none"] == pytest.approx(100)
        # par ends in one strain, or the hand is passed out
        assert sum(rules["par_denomination"].values()) + rules["par_passed_out"] == pytest.approx(100)
    report = study.report.read_text()
    assert "Double dummy" in report
    # the strain par ends in is in the report, not only in summary.json
    par_nt = summary["variants"]["default"]["par_denomination"]["NT"]
    assert re.search(rf"par: in NT %</t[hd]>\s*<td[^>]*>{par_nt:g}\b", report), par_nt


def test_ch10_lab_dd_counts_the_games_a_side_can_make_by_its_honor_count(tmp_path, monkeypatch):
    # every side of every deal, by its honor count two by two: counted here from the deals
    # themselves (Chapter 10's values, each side's better declarer in each denomination)
    monkeypatch.setattr("flowerbridge.solver.dd_table", fake_dd_table)
    study = run_lab(tmp_path, ["dd"], n=40, seed=4, workers=1)
    # and the same by the bots' points (4-3-2-1 by rank: bots/bidding.py's count)
    from flowerbridge.bots.bidding import HandFacts
    by_count: dict[str, dict[int, list]] = {"game_by_honor_count": {}, "game_by_points": {}}
    for i in range(40):
        deal = Deal.from_seed(4, i)
        table = fake_dd_table(deal)
        for a, b in ((Seat.N, Seat.S), (Seat.E, Seat.W)):
            hc = sum(c.points for s in (a, b) for c in deal.hands[s])
            points = sum(HandFacts.of(deal.hands[s]).points for s in (a, b))
            makes = {d.name: max(table[d][a], table[d][b]) >= {"P": 11, "R": 10, "A": 10, "NT": 9}[d.name]
                     for d in Denomination}
            by_count["game_by_honor_count"].setdefault(hc - hc % 2, []).append(makes)
            by_count["game_by_points"].setdefault(points - points % 2, []).append(makes)
    for key, expected in by_count.items():
        got = study.summaries["dd"][key]
        assert set(got) == {b for b, sides in expected.items() if len(sides) >= 5}, key
        assert sum(len(v) for v in expected.values()) == 80
        for b, cell in got.items():
            sides = expected[b]
            assert cell["sides"] == len(sides)
            counts = cell["game_makeable_sides"]
            for name in ("P", "R", "A", "NT"):
                assert counts[name] == sum(m[name] for m in sides), (key, b, name)
            assert counts["any"] == sum(any(m.values()) for m in sides)
            assert counts["suit"] == sum(m["P"] or m["R"] or m["A"] for m in sides)
            assert cell["game_makeable"]["any"] == pytest.approx(100 * counts["any"] / len(sides))
    # the report draws it, the two counts side by side
    assert "How often a side can make game double dummy, by its honor count" in study.report.read_text()
    left, right = dd.game_by_honor_count_plot(study.summaries["dd"]).figure.axes
    assert left.get_title().startswith("by honor count") and right.get_title().startswith("by points counted by rank")
    assert len(left.containers) == len(right.containers) == 3    # some game, 3NT, a suit game
    # ticked on the buckets' edges (30.0, 32.5, 35.0 were ticked)
    for ax in (left, right):
        ticks = ax.xaxis.get_majorticklocs()
        assert len(ticks) >= 2 and all(t == int(t) and int(t) % dd.HC_BUCKET == 0 for t in ticks), ticks


def test_lab_dd_refuses_a_bad_rule_variant_before_any_search(tmp_path, monkeypatch):
    searched = []
    monkeypatch.setattr("flowerbridge.solver.dd_table", lambda deal: searched.append(deal))
    with pytest.raises(LabError, match="variant 'odd': unknown option 'undertrick'"):
        run_lab(tmp_path, ["dd"], n=10, seed=4, workers=1, variants=[["odd", {"undertrick": 0}]])
    assert not searched and not (tmp_path / "chunks").exists()


def test_lab_dd_records_the_rule_variants_its_par_is_computed_under(tmp_path, monkeypatch):
    monkeypatch.setattr("flowerbridge.solver.dd_table", fake_dd_table)
    g50 = {"game_points": 50, "undertrick_penalty": 100}
    study = run_lab(tmp_path, ["dd"], n=10, seed=4, workers=1, variants=[["g50", g50]])
    assert list(study.summaries["dd"]["variants"]) == ["default", "g50"]
    saved = json.loads((tmp_path / "summary.json").read_text())
    assert saved["settings"]["variants"] == [["default", {}], ["g50", g50]]
    assert "g50" in study.report.read_text() and "game_points" in study.report.read_text()


def table_by_seat(dealer: str, *deals: list[int]) -> Table:
    """Rows from 16 trick counts a deal: each declarer's own, for P, R, A, NT in turn,
    North, East, South, West in each (the two sides need not add up to 13)."""
    t = table_of(*(([0, 0, 0, 0], dealer) for _ in deals))
    for d in Denomination:
        for j, seat in enumerate("NESW"):
            t.data[f"dd_{d.name}_{seat}"][:] = [tricks[4 * int(d) + j] for tricks in deals]
    return t


def par_by_minimax(tricks: list[int], dealer: str, options: RuleOptions) -> int:
    """Par (North–South's net score) by plain minimax over the 28 bids, each bid scored by
    the rules engine for its side's better declarer: a side that holds a bid may be
    outbid by the other with any higher bid; the dealer's side speaks first, and the
    hand is passed out (0) when neither side opens."""
    from functools import cache

    from flowerbridge.calls import BIDS
    from flowerbridge.contract import Contract
    from flowerbridge.scoring import score_contract

    def net(order: int, side: int) -> int:  # North–South's net when ``side`` declares the bid
        bid = BIDS[order]
        taken = max(tricks[4 * int(bid.denomination) + j] for j in ((0, 2), (1, 3))[side])
        declarer = (Seat.N, Seat.E)[side]
        won = (taken, 13 - taken) if side == 0 else (13 - taken, taken)
        score = score_contract(Contract(bid.level, bid.strain, declarer), won, ([], []), options)
        return score.total(Side.NS) - score.total(Side.EW)

    def best_for(side: int, results) -> int:
        return max(results) if side == 0 else min(results)

    @cache
    def holds(order: int, side: int) -> int:  # the net when ``side`` holds the bid, the other to answer
        other = 1 - side
        return best_for(other, [net(order, side), *(holds(k, other) for k in range(order + 1, len(BIDS)))])

    first = Seat[dealer].side
    second = 1 - int(first)
    second_alone = best_for(second, [0, *(holds(k, second) for k in range(len(BIDS)))])
    return best_for(int(first), [second_alone, *(holds(k, int(first)) for k in range(len(BIDS)))])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 13), min_size=16, max_size=16), min_size=1, max_size=8),
       st.sampled_from("NESW"), st.sampled_from([RuleOptions(), RuleOptions.strict()]))
def test_ruling_r15_par_is_the_minimax_of_the_auction_over_every_declarers_tricks(deals, dealer, options):
    t = table_by_seat(dealer, *deals)
    order, side, result = dd.par(t, options)
    assert list(result) == [par_by_minimax(tricks, dealer, options) for tricks in deals]
    # the auction ends in a contract worth the par to its side, or passed out at 0
    _, ns_best = dd.best_contracts(dd.side_tricks(t, Side.NS), options)
    _, ew_best = dd.best_contracts(dd.side_tricks(t, Side.EW), options)
    assert (-ew_best <= result).all() and (result <= ns_best).all()
    values = [dd.contract_values(dd.side_tricks(t, s), options) for s in (Side.NS, Side.EW)]
    for i in range(len(deals)):
        if order[i] < 0:
            assert result[i] == 0
        else:
            assert (1, -1)[side[i]] * values[side[i]][i, order[i]] == result[i]


def test_a_side_s_tricks_are_those_of_its_better_declarer():
    # North takes 10 tricks in Ribbons, South 7; East 4, West 6: the side takes the more
    tricks = [0] * 16
    tricks[4:8] = [10, 4, 7, 6]
    t = table_by_seat("N", tricks)
    assert list(dd.side_tricks(t, Side.NS)[0]) == [0, 10, 0, 0]
    assert list(dd.side_tricks(t, Side.EW)[0]) == [0, 6, 0, 0]
    order, side, result = dd.par(t, RuleOptions())
    assert (bid(order[0]), side[0]) == ("4R", 0) and result[0] > 0


def test_lab_dd_comparison_plots_draw_95_percent_intervals_and_their_sample_sizes():
    # in a 100-deal run 4R at 11 cards spiked to 68.4 % from 13 of 19 sides, drawn like
    # a point on 400
    import numpy as np
    from flowerbridge.lab.report import wilson
    summary = {"game_level": {"P": 5, "R": 4, "A": 4, "NT": 3},
               "by_fit": {d: {10: {"sides": 400, "game_makeable_sides": 60, "game_makeable": 15.0},
                              11: {"sides": 19, "game_makeable_sides": 13, "game_makeable": 100 * 13 / 19}}
                          for d in "PRA"}}
    plot = dd.game_by_fit_plot(summary)
    axes = plot.figure.axes[0]
    bars = error_bars(axes)
    assert len(bars) == 3
    assert np.allclose(sorted(bars[1]), sorted([wilson(60, 400), wilson(13, 19)]))
    assert [t.get_text() for t in axes.get_legend().get_texts()][1] == "R: game = 4R (419 sides)"
    assert "95% (Wilson) intervals" in plot.caption
    summary["by_honor_count"] = {20: {"P": 5.0, "R": 6.0, "A": 7.0, "NT": 6.5, "deals": 12,
                                      "interval": {"P": [4.0, 6.0], "R": [5.5, 6.5], "A": [6.0, 8.0],
                                                   "NT": [6.0, 7.0]}},
                                 25: {"P": 6.0, "R": 7.0, "A": 8.0, "NT": 7.5, "deals": 340,
                                      "interval": {"P": [5.9, 6.1], "R": [6.9, 7.1], "A": [7.9, 8.1],
                                                   "NT": [7.4, 7.6]}}}
    axes = dd.tricks_by_honor_count_plot(summary).figure.axes[0]
    bars = error_bars(axes)
    assert len(bars) == 4
    assert sorted(bars[0]) == [(4.0, 6.0), (5.9, 6.1)]
    assert {"12", "340"} <= {t.get_text() for t in axes.texts}      # the deals behind each bucket
    # at each bucket's centre: honor counts 20-24 at 22, 25-29 at 27
    assert sorted(t.get_position()[0] for t in axes.texts if t.get_text() in ("12", "340")) == [22, 27]


def test_lab_dd_tricks_by_honor_count_keep_each_means_t_interval(tmp_path, monkeypatch):
    import numpy as np
    from flowerbridge.lab.report import t_quantile
    monkeypatch.setattr("flowerbridge.solver.dd_table", fake_dd_table)
    study = run_lab(tmp_path, ["dd"], n=40, seed=4, workers=1)
    t = study.result.tables["dd"]
    tricks, hc = stronger_by_hand(t)
    assert study.summaries["dd"]["by_honor_count"]
    for bucket, cell in study.summaries["dd"]["by_honor_count"].items():
        values = np.array([r[2] for r, h in zip(tricks, hc) if (h // 5) * 5 == bucket])
        half = t_quantile(len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
        assert cell["interval"]["A"] == pytest.approx([values.mean() - half, values.mean() + half])


def test_lab_dd_summary_counts_the_stronger_side_by_honor_count_north_south_on_a_tie():
    import numpy as np
    from flowerbridge.lab.report import t_quantile
    t = table_with_honors(([10, 10, 10, 10], 22, 18),   # NS stronger: 10 tricks (EW's 3)
                          ([3, 3, 3, 3], 18, 22),       # EW stronger: 10 (NS's 3)
                          ([4, 4, 4, 4], 17, 23),       # EW: 9 (NS's 4)
                          ([9, 9, 9, 9], 21, 19),       # NS: 9 (EW's 4)
                          ([6, 6, 6, 6], 20, 20))       # a tie, NS: 6 (EW's 7)
    summary = dd.summarize(t, {}, {"variants": [["default", {}]]})
    assert summary["mean_tricks"]["A"] == pytest.approx(8.8)            # (10+10+9+9+6) / 5
    assert summary["game_makeable"]["R"] == pytest.approx(40)           # 4R: 10 tricks, deals 1 and 2
    assert summary["game_makeable_deals"]["NT"] == 4                    # 3NT: 9 tricks, all but the tie
    # the stronger sides hold 22, 22, 23, 21 and 20: one bucket of 5 (the weaker, 15s, only 4)
    assert list(summary["by_honor_count"]) == [20]
    cell = summary["by_honor_count"][20]
    half = t_quantile(4) * np.sqrt(2.7 / 5)                              # variance 10.8 / 4
    assert cell["deals"] == 5 and cell["P"] == pytest.approx(8.8)
    assert cell["interval"]["A"] == pytest.approx([8.8 - half, 8.8 + half])


def test_lab_dd_leaves_out_rule_sets_it_cannot_tell_from_default_and_says_why(tmp_path, monkeypatch):
    # first-named, no-honors and no-bright-bonus equalled default in every dd row by
    # construction (each side's better declarer, honors left out), shown as if measured
    monkeypatch.setattr("flowerbridge.solver.dd_table", fake_dd_table)
    mixed = {"honor_bright": [0, 0], "undertrick_penalty": 100}
    from flowerbridge.lab.variants import DEFAULT_VARIANTS
    variants = [[n, o] for n, o in DEFAULT_VARIANTS]
    study = run_lab(tmp_path, ["dd"], n=10, seed=4, workers=1, variants=[*variants, ["mixed", mixed]])
    summary = study.summaries["dd"]
    assert list(summary["variants"]) == ["default", "strict", "plains-30", "plains-25", "mixed"]
    assert summary["variants_unseen"] == {
        "first-named": ["declarer"], "no-honors": ["honor_animal", "honor_bright", "honor_ribbon"],
        "no-bright-bonus": ["five_bright_bonus", "ten_bright_bonus"]}
    [section] = dd.sections(study.result.tables["dd"], summary, {}, {})
    assert "the rule sets that change only those (first-named, no-honors, no-bright-bonus) equal " \
           "'default' here by construction and are left out." in section.text
    assert section.tables[1].headers == ["", "default", "strict", "plains-30", "plains-25", "mixed"]


def test_lab_counts_points_by_rank_as_the_bots_do():
    # written in the lab so that its rows do not hang on the bidding system's source:
    # it must stay the bots' count
    from flowerbridge.bots.bidding import TOP_POINTS, HandFacts
    from flowerbridge.lab.features import RANK_POINTS, rank_points
    assert RANK_POINTS == TOP_POINTS
    deal = Deal.from_seed("pts", 0)
    assert [rank_points(deal.hands[s]) for s in Seat] == [HandFacts.of(deal.hands[s]).points for s in Seat]
