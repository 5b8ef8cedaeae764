"""The designer's lab (issue #6): analyses, reproducibility, resume, report."""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
from math import comb
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from flowerbridge import Deal, Denomination, FlowerBridgeError, Side, Suit
from flowerbridge.cli import main
from flowerbridge.lab import LabError, run, run_lab
from flowerbridge.lab.base import Table, write_atomic
from flowerbridge.lab.runner import Staged, analyses
from flowerbridge.lab.deals import deal_rows
from flowerbridge.lab.features import exact_undealt_odds, undealt_features
from flowerbridge.lab.play import COLUMNS as PLAY_COLUMNS, hand_summary, hands_per_game
from flowerbridge.lab.report import bootstrap_interval, pct, rate_cell, wilson
from flowerbridge.render import count_text
from flowerbridge.options import RuleOptions
from lab_support import error_bars, stopped_by

PYTHON = sys.executable
SMALL = dict(n=60, seed=5, bots="random", chunk_size=15)


def csv_bytes(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.csv"))}


# ------------------------------------------------------------------ deals


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), board=st.integers(0, 10**4))
def test_ruling_r20_deal_features_account_for_all_80_honor_points(seed, board):
    row = deal_rows(seed, board, board + 1, {})[0]
    seats = "NESW"
    assert sum(row[f"hc_{s}"] for s in seats) + row["undealt_honors"] == 80
    deal = Deal.from_seed(seed, board)
    for s, hand in zip(seats, deal.hands):
        assert sum(row[f"len_{s}_{suit}"] for suit in "PRA") == 13
        # each suit's own length (two suits swapped still added up to 13)
        assert all(row[f"len_{s}_{suit.letter}"] == sum(c.suit is suit for c in hand) for suit in Suit)
    assert row["hc_NS"] == row["hc_N"] + row["hc_S"]
    assert row["fit_EW_A"] == row["len_E_A"] + row["len_W_A"]
    assert row["undealt_pairs"] == len(deal.undealt) - len(set(deal.undealt))


def test_ch6_undealt_features_count_both_copies():
    from flowerbridge import parse_cards
    features = undealt_features(parse_cards("12B 12B 11R 11R 1Pa 1Pa 3B 5A"))
    assert features == {"undealt_honors": 4 + 4 + 1 + 1 + 4 + 2, "undealt_brights": 3,
                        "undealt_pairs": 3, "undealt_bright_pairs": 1, "undealt_honor_pairs": 2}


def _no_pair_of(pairs: int) -> float:
    """Chance that the 8 undealt cards of 60 hold no two copies of any of ``pairs``
    given cards, counted directly: j of the given cards with one copy undealt (either
    copy), the other 8 - j undealt cards from outside them."""
    return sum(comb(pairs, j) * 2 ** j * comb(60 - 2 * pairs, 8 - j) for j in range(9)) / comb(60, 8)


def test_ch6_mystery_discard_exact_odds_count_the_60_card_deck():
    # Chapter 2's deck: 30 cards twice; 5 of them Brights, and 20 of them count
    # for honors (Chapter 10: every card but a Plain). Counted here another way
    # than features.py's inclusion-exclusion.
    exact = exact_undealt_odds()
    assert exact["some_bright"] == pytest.approx(1 - comb(50, 8) / comb(60, 8))
    assert exact["some_pair"] == pytest.approx(1 - _no_pair_of(30))
    assert exact["some_bright_pair"] == pytest.approx(1 - _no_pair_of(5))
    assert exact["some_honor_pair"] == pytest.approx(1 - _no_pair_of(20))
    # each of the 30 cards has both copies undealt with chance (8/60)(7/59)
    assert exact["mean_pairs"] == pytest.approx(30 * 8 * 7 / (60 * 59))
    # a card's 8/60 chance of lying undealt, times the deck's 2 x (5x4 + 5x2 + 10x1) points
    assert exact["mean_honors"] == pytest.approx(8 / 60 * 80)


def test_ch10_honor_count_and_suit_length_exact_chances_count_every_hand_of_13():
    # counted another way than features.py (which groups the cards by value): card by
    # card, a polynomial in (cards taken, points) built over the 60 cards
    from flowerbridge.cards import DECK
    from flowerbridge.lab.features import exact_hand_distributions
    exact = exact_hand_distributions()
    ways = np.zeros((14, 81), dtype=object)
    ways[0, 0] = 1
    for card in DECK:
        ways[1:, card.points:] = ways[1:, card.points:] + ways[:-1, :81 - card.points]
    assert exact["honor_count"] == pytest.approx([w / comb(60, 13) for w in ways[13]], rel=1e-12, abs=1e-18)
    assert sum(exact["honor_count"]) == pytest.approx(1)
    # one suit of 20 cards among 60: hypergeometric, mean 13/3
    assert exact["suit_length"] == pytest.approx([comb(20, k) * comb(40, 13 - k) / comb(60, 13) for k in range(14)])
    assert sum(k * p for k, p in enumerate(exact["suit_length"])) == pytest.approx(13 / 3)
    # the lab's deal summary carries them beside what it sampled, and the plots name their hands
    from flowerbridge.lab.deals import COLUMNS, sections, summarize
    summary = summarize(Table.from_rows(COLUMNS, deal_rows("odds", 0, 50, {})), {}, {})
    assert summary["hand_honor_count"]["exact"] == exact["honor_count"]
    assert summary["suit_length_exact"] == exact["suit_length"]
    [section] = sections(Table.from_rows(COLUMNS, []), summary, {}, {})
    _, honors, lengths = section.plots
    assert "(200 hands, the four of each deal), with the exact chances" in honors.caption
    assert [line.get_label() for line in honors.figure.axes[0].lines] == ["exact (by counting)"]
    assert lengths.figure.axes[0].lines[-1].get_ydata() == pytest.approx(100 * np.array(exact["suit_length"]))


def test_ch6_mystery_discard_frequencies_agree_with_exact_odds():
    rows = deal_rows("odds", 0, 3000, {})
    exact = exact_undealt_odds()
    for key, column in (("some_bright", "undealt_brights"), ("some_pair", "undealt_pairs"),
                        ("some_bright_pair", "undealt_bright_pairs"),
                        ("some_honor_pair", "undealt_honor_pairs")):
        p = exact[key]
        sampled = np.mean([r[column] > 0 for r in rows])
        assert abs(sampled - p) < 4.5 * np.sqrt(p * (1 - p) / len(rows)), key
    assert abs(np.mean([r["undealt_honors"] for r in rows]) - exact["mean_honors"]) < 0.3
    assert abs(np.mean([r["undealt_pairs"] for r in rows]) - exact["mean_pairs"]) < 0.08


# -------------------------------------------------------- reproducibility


def test_lab_results_identical_with_one_and_two_workers(tmp_path):
    one = run_lab(tmp_path / "one", ["deals", "play", "variants"], workers=1, **SMALL)
    two = run_lab(tmp_path / "two", ["deals", "play", "variants"], workers=2, **SMALL)
    assert csv_bytes(one.out) == csv_bytes(two.out)
    assert (one.out / "summary.json").read_bytes() == (two.out / "summary.json").read_bytes()
    assert two.result.computed == 3 * 4


def test_lab_bots_are_named_and_a_class_given_itself_is_refused_saying_so(tmp_path):
    # load_bot and run_match take a class itself; run_lab records the bots' name in its
    # folder and its workers import them by it, so it takes a name alone: the error said
    # only "must be a level or module:attribute", as if the class were a misspelt name
    from flowerbridge.bots.basic import BasicBot
    with pytest.raises(LabError, match=r"module:attribute, not the class flowerbridge\.bots\.basic:BasicBot "
                                       r"itself \(give its path\)$"):
        run_lab(tmp_path / "x", "play", n=10, bots=BasicBot, workers=1)
    with pytest.raises(LabError, match=r"module:attribute, not int$"):
        run_lab(tmp_path / "x", "play", n=10, bots=3, workers=1)
    assert not (tmp_path / "x").exists()


def test_lab_chunk_size_does_not_change_results(tmp_path):
    a = run(tmp_path / "a", ["play"], n=30, seed=9, params={"play": {"bots": "random"}},
            workers=1, chunk_size=7)
    b = run(tmp_path / "b", ["play"], n=30, seed=9, params={"play": {"bots": "random"}},
            workers=1, chunk_size=30)
    assert csv_bytes(a.out) == csv_bytes(b.out)


def test_lab_rerun_reuses_every_saved_chunk_and_extends_n(tmp_path):
    first = run(tmp_path, ["deals"], n=40, seed=1, workers=1, chunk_size=10)
    again = run(tmp_path, ["deals"], n=40, seed=1, workers=1, chunk_size=10)
    assert (first.computed, again.computed, again.reused) == (4, 0, 4)
    more = run(tmp_path, ["deals"], n=55, seed=1, workers=1, chunk_size=10)
    assert (more.computed, more.reused) == (2, 4)
    assert list(more.tables["deals"]["deal"]) == list(range(55))


def test_lab_tables_read_from_chunks_equal_the_rows_computed(tmp_path):
    # the merged table is read column by column from the chunk files, never as
    # rows: it must hold exactly what the analysis computed, types included
    result = run(tmp_path, ["play"], n=12, seed=3, params={"play": {"bots": "random"}},
                 workers=1, chunk_size=5)
    rows = analyses()["play"].rows(3, 0, 12, analyses()["play"].params({"bots": "random"}))
    expected = Table.from_rows(PLAY_COLUMNS, rows)
    table = result.tables["play"]
    assert set(table.data) == set(expected.data)
    for name in PLAY_COLUMNS:
        assert table[name].dtype == expected[name].dtype, name
        assert table[name].tolist() == expected[name].tolist(), name


def _swapped(lines: list, i: int, j: int) -> list:
    lines = list(lines)
    lines[i], lines[j] = lines[j], lines[i]
    return lines


def _other_chunk(data: bytes, folder: Path) -> bytes:
    return (folder / "0000010-0000020.csv").read_bytes()


@pytest.mark.parametrize("damage, message", [
    (lambda b, f: b.replace(b"\n", b",extra\n", 2).replace(b",extra", b"", 1), "line 2: "),
    (lambda b, f: b.replace(b"\n0,", b"\nx,", 1), "column deal holds 'x'"),
    (lambda b, f: b.replace(b"\n0,", b"\n99999999999999999999,", 1), "not a whole number"),
    (lambda b, f: b[:60] + b"\xff" + b[61:], "byte 60 is not UTF-8"),
    (lambda b, f: b[:-3], "does not end with a whole line"),                      # cut short
    (lambda b, f: b.split(b"\n", 1)[0], "does not end with a whole line"),       # header alone, cut
    (lambda b, f: b.split(b"\n", 1)[0] + b"\n", "does not hold deals 0 to 9"),  # rows lost
    (lambda b, f: b[:b.rindex(b"\n", 0, -1) + 1], "does not hold deals 0 to 9"),  # last row lost
    (_other_chunk, "does not hold deals 0 to 9"),                                 # another chunk's rows
    (lambda b, f: b"", "does not end with a whole line"),
    (lambda b, f: b"deal,x\n", "delete it and run again, or use a new output folder"),
    (lambda b, f: b + b.split(b"\n")[-2] + b"\n", "does not hold deals 0 to 9"),    # a row twice
    (lambda b, f: b"\n".join(_swapped(b.split(b"\n"), 1, 2)), "does not hold deals 0 to 9"),  # out of order
    (lambda b, f: b.replace(b"\n1,", b"\n+1,", 1), "not written as the lab writes"),
    (lambda b, f: b.replace(b"\n1,", b"\n\"1\",", 1), "not written as the lab writes"),
    (lambda b, f: b.replace(b"\n", b"\r\n"), "not written as the lab writes"),
    (lambda b, f: b.replace(b"\n1,", b"\n" + b"7" * 200_000 + b",", 1), "not CSV as the lab writes it"),
])
def test_lab_damaged_chunk_is_one_clear_error_naming_it_and_changes_nothing(tmp_path, capsys, damage, message):
    run(tmp_path, ["deals"], n=20, seed=1, workers=1, chunk_size=10)
    merged = (tmp_path / "deals.csv").read_bytes()
    chunk = tmp_path / "chunks" / "deals" / "0000000-0000010.csv"
    chunk.write_bytes(damage(chunk.read_bytes(), chunk.parent))
    status = main(["lab", "deals", "--n", "20", "--seed", "1", "--out", str(tmp_path), "--workers", "1"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert str(chunk) in err and message in err and "delete it" in err
    assert (tmp_path / "deals.csv").read_bytes() == merged           # the merged file as it was
    assert not list(tmp_path.glob(".*.tmp"))                          # no half-written file left


@pytest.mark.parametrize("damage", [
    lambda lines: lines[:3] + lines[4:],                          # one rule set's row gone
    lambda lines: lines[:3] + [lines[3]] + lines[3:],              # one row twice
    lambda lines: lines[:2] + [lines[3], lines[2]] + lines[4:],    # two rule sets swapped in a deal
])
def test_lab_variants_chunk_must_hold_each_deals_rule_sets_in_order(tmp_path, capsys, damage):
    run(tmp_path, ["variants"], n=6, seed=1, params={"variants": {"bots": "random"}},
        workers=1, chunk_size=3)
    before = csv_bytes(tmp_path)
    chunk = tmp_path / "chunks" / "variants" / "0000003-0000006.csv"
    lines = chunk.read_text().splitlines(keepends=True)
    chunk.write_text("".join(damage(lines)))
    status = main(["lab", "variants", "--n", "6", "--seed", "1", "--bots", "random",
                   "--out", str(tmp_path), "--workers", "1"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and str(chunk) in err
    assert "each with the same variant rows in order" in err
    assert csv_bytes(tmp_path) == before


def test_lab_variants_chunk_read_first_must_hold_each_rule_set_once_a_deal(tmp_path, capsys):
    # a single chunk whose every deal holds one rule set twice (and another not) set the
    # pattern the rest were checked against: it was merged
    run(tmp_path, ["variants"], n=3, seed=1, params={"variants": {"bots": "random"}}, workers=1, chunk_size=3)
    before = csv_bytes(tmp_path)
    chunk = tmp_path / "chunks" / "variants" / "0000000-0000003.csv"
    text = chunk.read_text()
    assert ",strict," in text and ",first-named," in text
    chunk.write_text(text.replace(",first-named,", ",strict,"))
    status = main(["lab", "variants", "--n", "3", "--seed", "1", "--bots", "random",
                   "--out", str(tmp_path), "--workers", "1"])
    err = capsys.readouterr().err
    assert status == 2 and str(chunk) in err and "each with the same variant rows in order" in err
    assert csv_bytes(tmp_path) == before


def test_lab_chunk_holding_each_deal_twice_is_refused(tmp_path, capsys):
    # rows per deal were taken from each file alone: a chunk with every row twice, in order,
    # was merged (400 hands of 300 deals in the summary)
    run(tmp_path, ["deals"], n=20, seed=1, workers=1, chunk_size=10)
    before = csv_bytes(tmp_path)
    chunk = tmp_path / "chunks" / "deals" / "0000010-0000020.csv"
    header, *rows = chunk.read_text().splitlines(keepends=True)
    chunk.write_text(header + "".join(row + row for row in rows))
    status = main(["lab", "deals", "--n", "20", "--seed", "1", "--out", str(tmp_path), "--workers", "1"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and str(chunk) in err and "a row each" in err
    assert csv_bytes(tmp_path) == before


def test_lab_variants_rule_set_missing_from_every_chunk_is_refused_naming_the_file(tmp_path, capsys):
    # the rule sets were learnt from the first chunk: one gone from every chunk was a
    # traceback (numpy's "operands could not be broadcast together")
    run(tmp_path, ["variants"], n=6, seed=1, params={"variants": {"bots": "random"}},
        workers=1, chunk_size=3)
    before = csv_bytes(tmp_path)
    chunks = sorted((tmp_path / "chunks" / "variants").iterdir())
    for chunk in chunks:
        chunk.write_text("".join(line for line in chunk.read_text().splitlines(keepends=True)
                                 if ",strict," not in line))
    status = main(["lab", "variants", "--n", "6", "--seed", "1", "--bots", "random",
                   "--out", str(tmp_path), "--workers", "1"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and str(chunks[0]) in err, err
    assert csv_bytes(tmp_path) == before


def test_lab_text_cell_with_a_control_character_is_refused(tmp_path, capsys):
    run(tmp_path, ["play"], n=4, seed=1, params={"play": {"bots": "random"}}, workers=1, chunk_size=4)
    chunk = tmp_path / "chunks" / "play" / "0000000-0000004.csv"
    chunk.write_bytes(chunk.read_bytes().replace(b",N,", b",N\x00,", 1))
    assert main(["lab", "play", "--n", "4", "--seed", "1", "--bots", "random", "--out", str(tmp_path)]) == 2
    assert "control character" in capsys.readouterr().err


def test_lab_damaged_chunk_of_one_analysis_leaves_every_merged_file_as_it_was(tmp_path, capsys):
    # a longer run reads every analysis' chunks before it writes any merged file,
    # so deals.csv does not move on to 30 deals while play.csv stays at 20
    run(tmp_path, ["deals", "play"], n=20, seed=1, params={"play": {"bots": "random"}},
        workers=1, chunk_size=10)
    before = csv_bytes(tmp_path)
    chunk = tmp_path / "chunks" / "play" / "0000000-0000010.csv"
    chunk.write_bytes(chunk.read_bytes()[:-5])
    status = main(["lab", "deals", "play", "--n", "30", "--seed", "1", "--bots", "random",
                   "--chunk-size", "10", "--out", str(tmp_path), "--workers", "1"])
    assert status == 2 and str(chunk) in capsys.readouterr().err
    assert csv_bytes(tmp_path) == before


def _result_files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file() and p.name != "lab.json"}


@pytest.mark.parametrize("stop", ["merge", "summary", "report"])
def test_lab_run_stopped_while_writing_its_results_leaves_the_earlier_ones_whole(tmp_path, monkeypatch, stop):
    # Ctrl-C while the report was drawn left new CSV files and summary.json beside the old
    # report.html: a finished run's files disagreed
    import flowerbridge.lab.runner as runner_module
    import flowerbridge.lab.study as study_module
    run_lab(tmp_path, ["deals", "play"], n=10, seed=1, bots="random", workers=1, chunk_size=5)
    before = _result_files(tmp_path)
    assert set(before) == {"deals.csv", "play.csv", "summary.json", "report.html"}

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    if stop == "merge":     # the second merged CSV file
        written = []
        real = runner_module.Staged.write

        def write(self, name, text):
            if written:
                raise KeyboardInterrupt
            written.append(name)
            real(self, name, text)
        monkeypatch.setattr(runner_module.Staged, "write", write)
    elif stop == "summary":
        monkeypatch.setattr(study_module, "earlier_results", interrupted)
    else:
        monkeypatch.setattr(study_module, "render_html", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_lab(tmp_path, ["deals", "play"], n=20, seed=1, bots="random", workers=1, chunk_size=5)
    assert _result_files(tmp_path) == before           # the earlier run's, all of them
    assert not list(tmp_path.glob(".*"))                # and nothing half-staged
    assert len(list(tmp_path.glob("chunks/play/*.csv"))) == 4      # the work done is kept
    monkeypatch.undo()
    study = run_lab(tmp_path, ["deals", "play"], n=20, seed=1, bots="random", workers=1, chunk_size=5)
    assert study.result.computed == 0
    after = _result_files(tmp_path)
    assert set(after) == set(before) and all(after[name] != before[name] for name in after)
    assert json.loads(after["summary.json"])["n"] == 20 and b"20 deals from seed" in after["report.html"]


def test_lab_summary_json_is_strict_json_even_for_one_deal(tmp_path):
    # a mean's interval from one deal was written as NaN, which JSON.parse refuses
    run_lab(tmp_path, ["deals", "play", "variants"], n=1, seed=1, bots="random", workers=1, report=False)
    text = (tmp_path / "summary.json").read_text()

    def refuse(constant):
        raise AssertionError(f"{constant} in summary.json")
    summary = json.loads(text, parse_constant=refuse)
    assert summary["summaries"]["deals"]["undealt"]["sampled_interval"]["mean_honors"] == [None, None]


def test_lab_summary_json_keeps_a_seed_past_what_json_readers_keep_exact_as_its_digits(tmp_path):
    # jq read 12345678901234567890 as 12345678901234567000, another seed (as demo and play save it)
    run_lab(tmp_path, ["deals"], n=2, seed=12345678901234567890, workers=1, report=False)
    assert json.loads((tmp_path / "summary.json").read_text())["seed"] == "12345678901234567890"
    run_lab(tmp_path / "small", ["deals"], n=2, seed=7, workers=1, report=False)
    assert json.loads((tmp_path / "small" / "summary.json").read_text())["seed"] == 7


def test_lab_run_without_a_report_removes_the_earlier_one_it_would_contradict(tmp_path):
    run_lab(tmp_path, ["deals"], n=10, seed=1, workers=1)
    run_lab(tmp_path, ["deals"], n=20, seed=1, workers=1, report=False)
    assert not (tmp_path / "report.html").exists()
    assert json.loads((tmp_path / "summary.json").read_text())["n"] == 20


def test_lab_result_file_that_is_a_directory_is_named_and_no_result_is_replaced(tmp_path, capsys):
    # it said "error: .../.report.html.9834.staged: Is a directory", a name of the lab's
    # own, after putting the new deals.csv and summary.json in place beside the old report
    out = tmp_path / "o"
    assert main(["lab", "deals", "--n", "3", "--seed", "1", "--out", str(out), "--workers", "1", "--quiet"]) == 0
    before = {name: (out / name).read_bytes() for name in ("deals.csv", "summary.json")}
    (out / "report.html").unlink()
    (out / "report.html").mkdir()
    capsys.readouterr()
    assert main(["lab", "deals", "--n", "5", "--seed", "1", "--out", str(out), "--workers", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {out / 'report.html'} is a directory: the lab writes its report.html there " \
                  "(move the directory away)\n"
    assert {name: (out / name).read_bytes() for name in before} == before
    assert not list(out.glob(".*staged*"))


def test_lab_a_large_run_says_it_is_merging_and_summing_up(tmp_path, capsys, monkeypatch):
    # 300,000 deals took minutes after "variants 100%" with nothing said, reused chunks or not
    monkeypatch.setattr("flowerbridge.lab.runner.SUMMING_UP_SAID_FROM", 20)
    for _ in range(2):      # computed, then every chunk reused
        assert main(["lab", "deals", "--n", "20", "--seed", "1", "--out", str(tmp_path), "--workers", "1"]) == 0
        assert capsys.readouterr().err.splitlines()[-1] == "lab: merging and summing up 20 deals"
    assert main(["lab", "deals", "--n", "20", "--seed", "1", "--out", str(tmp_path), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_lab_progress_in_a_log_is_a_plain_line_per_analysis_finished(tmp_path, capsys):
    # standard error is no terminal here (captured): no bar's escape codes, but
    # a line when each analysis is done, so a long run in a log shows it is alive
    status = main(["lab", "deals", "play", "--n", "20", "--seed", "1", "--bots", "random",
                   "--out", str(tmp_path), "--workers", "1"])
    err = capsys.readouterr().err
    assert status == 0 and "\x1b" not in err
    assert err.splitlines()[0].startswith("lab: deals 20 of 20 deals (100%), ")
    assert err.splitlines()[1].startswith("lab: play 20 of 20 deals (100%), ")
    assert len(err.splitlines()) == 2
    # --quiet says nothing; a run that reuses every chunk has nothing to report
    assert main(["lab", "deals", "--n", "20", "--seed", "1", "--out", str(tmp_path / "q"),
                 "--workers", "1", "--quiet"]) == 0
    assert main(["lab", "deals", "--n", "20", "--seed", "1", "--out", str(tmp_path / "q"),
                 "--workers", "1"]) == 0
    assert capsys.readouterr().err == ""


def test_lab_summary_line_counts_chunks_in_words(tmp_path, capsys):
    assert main(["lab", "deals", "--n", "20", "--seed", "1", "--out", str(tmp_path),
                 "--workers", "1", "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "20 deals, seed 1: 1 chunk computed, 0 reused"
    assert main(["lab", "deals", "--n", "1200", "--seed", "1", "--out", str(tmp_path),
                 "--workers", "1", "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "1,200 deals, seed 1: 3 chunks computed, 0 reused"
    assert main(["lab", "deals", "--n", "1000", "--seed", "2", "--chunk-size", "1", "--out", str(tmp_path / "b"),
                 "--workers", "1", "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "1,000 deals, seed 2: 1,000 chunks computed, 0 reused"


def test_lab_run_of_one_deal_says_one_deal_and_one_hand(tmp_path, capsys):
    # "1 deals, seed 0", "1 hands bid and played", "(1 games)"
    assert main(["lab", "deals", "play", "--n", "1", "--bots", "random", "--out", str(tmp_path), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("1 deal, seed 0: 2 chunks computed, 0 reused\n")
    page = (tmp_path / "report.html").read_text()
    assert "<p>1 hand bid and played by" in page and "1 deal from seed" in page and "1 deals" not in page
    assert "1 hands" not in page


def test_lab_progress_lines_give_deals_done_rate_and_time_left(capsys):
    from flowerbridge.lab.runner import _progress_lines
    advance = _progress_lines({"play": (100, 1000)}, every=0.0)
    advance("play", 300)
    line = capsys.readouterr().err
    assert line.startswith("lab: play 400 of 1,000 deals (40%), ") and " deals/s, about " in line
    assert line.rstrip().endswith(" left")


def test_lab_progress_lines_time_each_analysis_from_its_own_start(monkeypatch, capsys):
    # the analyses run one after another: the second's rate counts from the last
    # chunk of the first, not from the start of the run
    from flowerbridge.lab import runner
    clock = iter([0.0, 100.0, 110.0, 130.0])
    monkeypatch.setattr(runner.time, "monotonic", lambda: next(clock))
    advance = runner._progress_lines({"deals": (0, 1000), "play": (0, 100)}, every=0.0)
    advance("deals", 1000)                      # at 100 s: 10 deals/s
    advance("play", 10)                         # at 110 s: 10 in 10 s
    advance("play", 40)                         # at 130 s: 50 in 30 s
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "lab: deals 1,000 of 1,000 deals (100%), 10.0 deals/s"
    assert lines[1] == "lab: play 10 of 100 deals (10%), 1.0 deals/s, about 2 min left"
    assert lines[2] == "lab: play 50 of 100 deals (50%), 1.7 deals/s, about 30 s left"


def test_lab_folder_of_another_seed_or_setting_is_refused(tmp_path):
    run(tmp_path, ["deals"], n=10, seed=1, workers=1)
    with pytest.raises(LabError, match="seed 1"):
        run(tmp_path, ["deals"], n=10, seed=2, workers=1)
    with pytest.raises(LabError, match="holds a deals run with chunk size 500, not 3"):
        run(tmp_path, ["deals"], n=10, seed=1, workers=1, chunk_size=3)


def test_lab_settings_that_clash_with_the_folders_are_named_with_what_resumes_it(tmp_path, capsys):
    # "holds a deals run with other settings ({...whole JSON...}): use another output folder"
    # named neither the setting that clashed nor what to do
    out = tmp_path / "run"
    assert main(["lab", "deals", "variants", "--n", "4", "--seed", "1", "--bots", "random",
                 "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["lab", "deals", "--n", "4", "--seed", "1", "--chunk-size", "37", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"error: {out} holds a deals run with chunk size 500, not 37: dropping --chunk-size resumes "
        "it (the folder keeps the size it was begun with), or use another output folder\n")
    assert main(["lab", "variants", "--n", "4", "--seed", "1", "--bots", "basic", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (f"error: {out} holds a variants run with bots 'random', not "
                                       "'basic': --bots random resumes it, or use another output folder\n")
    assert main(["lab", "variants", "--n", "4", "--seed", "1", "--bots", "random", "--out", str(out),
                 "--variant", 'strict={"undertrick_penalty": 10}']) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {out} holds a variants run with the rule variants default, strict, "
                          "first-named, no-honors, no-bright-bonus, plains-30, plains-25, not default, strict: the "
                          "same "
                          "--variant options resume it, or use another output folder")
    assert "undertrick_penalty" not in err        # the names tell them apart: not the whole JSON


def test_lab_variant_of_other_options_under_the_same_name_is_named(tmp_path):
    first = [["default", {}], ["p", {"undertrick_penalty": 10}]]
    run(tmp_path, ["variants"], n=2, seed=1, params={"variants": {"bots": "random", "variants": first}})
    with pytest.raises(LabError) as error:
        run(tmp_path, ["variants"], n=2, seed=1, chunk_size=50,
            params={"variants": {"bots": "random", "variants": [["default", {}], ["p", {"undertrick_penalty": 20}]]}})
    assert str(error.value) == (
        f"{tmp_path} holds a variants run with the rule variant 'p' as {{\"undertrick_penalty\": 10}}, not "
        "{\"undertrick_penalty\": 20}; chunk size 100, not 50: the same --variant options resume it; "
        "dropping --chunk-size resumes it (the folder keeps the size it was begun with), or use another "
        "output folder")


def _package_copy(tmp_path: Path, monkeypatch) -> Path:
    """A copy of the package's sources, which the lab's fingerprints read from now on."""
    import shutil
    import flowerbridge.lab.base as base
    copy = tmp_path / "package"
    shutil.copytree(base.PACKAGE, copy, ignore=shutil.ignore_patterns("*.so", "web", "__pycache__"))
    monkeypatch.setattr(base, "PACKAGE", copy)
    return copy


def test_lab_folder_resumed_with_other_code_is_refused_naming_what_changed(tmp_path, monkeypatch):
    # a larger --n after the bots changed merged old-bot and new-bot hands without a word
    package = _package_copy(tmp_path, monkeypatch)
    out = tmp_path / "run"
    run(out, ["deals", "play"], n=10, seed=1, params={"play": {"bots": "random"}}, workers=1, chunk_size=10)
    recorded = json.loads((out / "lab.json").read_text())["analyses"]
    assert "flowerbridge/bots/basic.py" in recorded["play"]["code"]
    assert "flowerbridge/bots/basic.py" not in recorded["deals"]["code"]    # no bot deals a card
    # edits elsewhere (the server, the web client, the CLI, the report) change no result
    for other in ("server/app.py", "cli/lab.py", "lab/report.py", "lab/designer.py", "notation.py"):
        (package / other).write_text((package / other).read_text() + "\n# edited\n")
    again = run(out, ["deals", "play"], n=20, seed=1, params={"play": {"bots": "random"}}, workers=1)
    assert (again.computed, again.reused) == (2, 2)
    (package / "bots" / "basic.py").write_text((package / "bots" / "basic.py").read_text() + "\n# edited\n")
    run(out, ["deals"], n=30, seed=1, workers=1)        # deals depend on no bot
    manifest = (out / "lab.json").read_bytes()
    chunks = sorted(p.name for p in out.glob("chunks/*/*.csv"))
    with pytest.raises(LabError) as error:
        run(out, ["play"], n=30, seed=1, params={"play": {"bots": "random"}}, workers=1)
    assert str(error.value) == (f"{out} holds a play run computed by other code (flowerbridge/bots/basic.py "
                                "changed since it was begun); its saved chunks would be merged with this "
                                f"code's results: use a new --out folder, or delete {out} to compute it all again")
    assert (out / "lab.json").read_bytes() == manifest and sorted(p.name for p in out.glob("chunks/*/*.csv")) == chunks
    (package / "state.py").write_text((package / "state.py").read_text() + "\n# edited\n")
    with pytest.raises(LabError, match=r"holds a deals run computed by other code \(flowerbridge/state.py changed"):
        run(out, ["deals"], n=30, seed=1, workers=1)


def test_lab_folder_of_a_version_that_recorded_no_code_is_refused(tmp_path, capsys):
    run(tmp_path, ["deals"], n=10, seed=1, workers=1)
    manifest = json.loads((tmp_path / "lab.json").read_text())
    del manifest["analyses"]["deals"]["code"]
    (tmp_path / "lab.json").write_text(json.dumps(manifest))
    status = main(["lab", "deals", "--n", "20", "--seed", "1", "--out", str(tmp_path), "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and "holds a deals run begun by an earlier version of flowerbridge, which did " \
                           "not record the code behind its results" in err
    assert "use a new --out folder, or delete" in err
    assert len(list(tmp_path.glob("chunks/deals/*.csv"))) == 1


def test_lab_fingerprints_hold_the_files_docs_lab_md_names():
    # docs/lab.md, resuming: the engine's files and the lab's base and features for every
    # analysis, with its own module; the bots' for play and variants (a file left out of the
    # list let a chunk computed by other code of it be merged)
    engine = {f"flowerbridge/{m}.py" for m in ("calls", "cards", "contract", "dealing", "errors", "observation",
                                               "options", "scoring", "seats", "state")}
    lab = {"flowerbridge/lab/base.py", "flowerbridge/lab/features.py"}
    bots = {f"flowerbridge/bots/{m}.py" for m in ("base", "basic", "bidding", "knowledge", "pimc", "sampling")}
    solver = {f"flowerbridge/solver/{m}" for m in ("__init__.py", "core.py", "game.py", "_core.c", "_core_flower.c")}
    found = analyses()
    assert set(found["deals"].code({})) == engine | lab | {"flowerbridge/lab/deals.py"}
    assert set(found["play"].code({"bots": "basic"})) == engine | lab | bots | {"flowerbridge/lab/play.py"}
    assert set(found["play"].code({"bots": "pimc"})) == engine | lab | bots | solver | {"flowerbridge/lab/play.py"}
    assert set(found["variants"].code({"bots": "basic"})) == \
        engine | lab | bots | {"flowerbridge/lab/play.py", "flowerbridge/lab/variants.py"}
    if "dd" in found:
        assert set(found["dd"].code({})) == engine | lab | solver | {"flowerbridge/lab/dd.py"}


def test_lab_dd_and_pimc_runs_record_the_solvers_sources_and_basic_ones_do_not():
    from flowerbridge.lab.play import bot_code
    assert "flowerbridge/solver/_core.c" in bot_code("pimc")
    assert "flowerbridge/solver/_core.c" not in bot_code("basic")
    assert "module test_lab" in bot_code("test_lab:SlowBot")
    if "dd" in analyses():
        assert "flowerbridge/solver/_core.c" in analyses()["dd"].code({})


def test_lab_resume_without_chunk_size_keeps_the_folders_own(tmp_path):
    # A folder begun with a chunk size other than today's default (given
    # explicitly, or the default of an older version) resumes under it when
    # none is asked for, and reuses every saved chunk.
    first = run(tmp_path, ["deals"], n=40, seed=1, workers=1, chunk_size=10)
    again = run(tmp_path, ["deals"], n=45, seed=1, workers=1)
    assert (first.computed, again.computed, again.reused) == (4, 1, 4)
    manifest = json.loads((tmp_path / "lab.json").read_text())
    assert manifest["analyses"]["deals"]["chunk_size"] == 10
    assert sorted(p.name for p in (tmp_path / "chunks" / "deals").glob("*.csv"))[-1] == "0000040-0000045.csv"
    # a new analysis in the same folder gets its own default
    run(tmp_path, ["play"], n=2, seed=1, params={"play": {"bots": "random"}}, workers=1)
    manifest = json.loads((tmp_path / "lab.json").read_text())
    assert manifest["analyses"]["play"]["chunk_size"] == analyses()["play"].chunk_size


def test_lab_manifest_without_analyses_is_refused_unchanged(tmp_path):
    bad = '{"format": "flowerbridge-lab", "seed": 1, "analyses": []}'
    (tmp_path / "lab.json").write_text(bad)
    with pytest.raises(LabError, match="not a lab manifest"):
        run(tmp_path, ["deals"], n=10, seed=1, workers=1)
    assert (tmp_path / "lab.json").read_text() == bad


@pytest.mark.parametrize("manifest", [b"[]", b"null", b'"lab"', b"\xff\xfe{}"])
def test_lab_manifest_that_is_not_an_object_is_refused_unchanged(tmp_path, manifest):
    (tmp_path / "lab.json").write_bytes(manifest)
    with pytest.raises(LabError, match="lab.json: not a lab manifest"):
        run(tmp_path, ["deals"], n=10, seed=1, workers=1)
    assert (tmp_path / "lab.json").read_bytes() == manifest


def test_lab_folder_with_files_but_no_lab_run_is_refused_unchanged(tmp_path, capsys):
    (tmp_path / "summary.json").write_text('{"mine": 1}')
    status = main(["lab", "deals", "--n", "10", "--out", str(tmp_path), "--quiet"])
    assert status == 2
    assert "holds files but no lab run (no lab.json)" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json"]
    assert (tmp_path / "summary.json").read_text() == '{"mine": 1}'


@pytest.mark.parametrize("under", ["", "sub"])
def test_lab_out_that_is_a_file_is_said_to_be_no_folder_and_left_alone(tmp_path, capsys, under):
    # it said "cannot make the output folder (File exists)"
    afile = tmp_path / "afile"
    afile.write_text("mine")
    out = afile / under if under else afile
    status = main(["lab", "deals", "--n", "10", "--out", str(out), "--quiet"])
    assert status == 2
    assert f"{afile} exists and is not a folder: give another output folder" in capsys.readouterr().err
    assert afile.read_text() == "mine"


FAILING_BOT = """
from flowerbridge.bots import RandomBot

class FailBot(RandomBot):
    def act(self, observation):
        raise RuntimeError("this bot fails on purpose")
"""


def test_lab_run_that_saves_nothing_leaves_the_folders_settings_as_they_were(tmp_path, monkeypatch):
    (tmp_path / "failbot.py").write_text(FAILING_BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "run"
    run(out, ["deals"], n=20, seed=1, workers=1)
    manifest = (out / "lab.json").read_bytes()
    with pytest.raises(FlowerBridgeError):
        run(out, ["play"], n=20, seed=1, params={"play": {"bots": "failbot:FailBot"}}, workers=1)
    assert (out / "lab.json").read_bytes() == manifest
    # the same folder takes the corrected run
    fixed = run(out, ["play"], n=20, seed=1, params={"play": {"bots": "random"}}, workers=1)
    assert fixed.computed == 1


SLOW_BOT = """
import time
from flowerbridge.bots import RandomBot

class SlowBot(RandomBot):
    # Slow enough that a run can be stopped midway, even when the test's own
    # process is starved of CPU for a few seconds (a 30-deal run takes ~5 s).
    def act(self, observation):
        time.sleep(0.005)
        return super().act(observation)
"""


def _lab_command(out: Path, n: int) -> list[str]:
    return [PYTHON, "-m", "flowerbridge.cli", "lab", "play", "--n", str(n), "--seed", "7",
            "--bots", "slowbot:SlowBot", "--chunk-size", "3", "--workers", "2", "--out", str(out),
            "--quiet"]


def _slow_lab(tmp_path: Path, n: int) -> tuple[subprocess.Popen, Path, dict[str, str]]:
    """``lab play`` of ``n`` deals by SlowBot (:func:`_lab_command`) started into
    ``tmp_path/run``, its output piped: the process, the folder and its environment."""
    (tmp_path / "slowbot.py").write_text(SLOW_BOT)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = tmp_path / "run"
    proc = subprocess.Popen(_lab_command(out, n), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    return proc, out, env


def _wait_for_chunks(out: Path, proc: subprocess.Popen, count: int) -> None:
    deadline = time.monotonic() + 60
    while len(list((out / "chunks" / "play").glob("*.csv"))) < count:
        assert proc.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be interrupted"


STUCK_BOT = """
import os, time
from flowerbridge.bots import RandomBot

class StuckBot(RandomBot):
    # A chunk that never ends (as a long double-dummy chunk seems to); the worker
    # says that it has reached it, by a file named by its process id
    def act(self, observation):
        open(os.path.join(os.environ["STUCK"], str(os.getpid())), "w").close()
        time.sleep(3600)
"""


def test_lab_ctrl_c_with_workers_ends_them_and_exits_at_once(tmp_path):
    # The workers ignore Ctrl-C (the driver's to handle); the driver must end them.
    # It shut the pool down first, which (before Python 3.14) forgot its processes,
    # so nothing ended them and the exit waited for their chunks to finish.
    (tmp_path / "stuckbot.py").write_text(STUCK_BOT)
    stuck = tmp_path / "stuck"
    stuck.mkdir()
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path]), "STUCK": str(stuck)}
    command = [PYTHON, "-m", "flowerbridge.cli", "lab", "play", "--n", "6", "--bots", "stuckbot:StuckBot",
               "--chunk-size", "3", "--workers", "2", "--out", str(out), "--quiet"]
    # (SIGINT at its default, as from a terminal, also where the suite runs with it ignored)
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while len(list(stuck.iterdir())) < 2:              # both workers are stuck in their chunks
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    # the driver alone: workers ignore it anyway (it hung until the chunks ended: an hour)
    err = stopped_by(proc, signal.SIGINT)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert err.strip() == "interrupted before any chunk was finished: nothing was saved"
    assert not out.exists()                            # a run that saved nothing leaves nothing


SLOW_START = """
import os, time
# in a lab worker only: a slow start-up, so that a Ctrl-C can reach it there (longer
# than the driver once waited for its workers: it exited, and a worker finishing its
# start-up after that printed a traceback, the pool's shared counter gone)
if b"spawn_main" in open("/proc/self/cmdline", "rb").read():
    open(os.path.join(os.environ["STARTED"], str(os.getpid())), "w").close()
    time.sleep(15)
"""


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs Linux's /proc")
def test_lab_ctrl_c_while_workers_start_up_is_one_line_without_their_fatal_errors(tmp_path):
    # A worker ignored Ctrl-C only from its initializer on: one pressed while its
    # interpreter started up printed "Fatal Python error: init_import_site" and a traceback
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(SLOW_START)    # run as each interpreter starts
    started = tmp_path / "started"
    started.mkdir()
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site"), "STARTED": str(started)}
    out = tmp_path / "run"
    proc = subprocess.Popen([PYTHON, "-m", "flowerbridge.cli", "lab", "deals", "--n", "20",
                             "--chunk-size", "5", "--workers", "2", "--out", str(out), "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 30
    while len(list(started.iterdir())) < 2:        # both workers are starting up
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    # A terminal's Ctrl-C reaches the whole process group, the workers with the driver; the
    # driver ends the workers at once, so that theirs would be a race: sent to them first
    for worker in started.iterdir():
        os.kill(int(worker.name), signal.SIGINT)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.3)                 # and Ctrl-C again, while the driver ends its workers
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err == "interrupted before any chunk was finished: nothing was saved\n"
    assert not out.exists()


@pytest.mark.parametrize("existing", [False, True])
def test_lab_ctrl_c_as_the_progress_bar_starts_changes_nothing(tmp_path, monkeypatch, existing):
    # Between the manifest's write and the loop over the chunks (the chunk folders
    # made, the progress bar started) a Ctrl-C left the folder and its settings
    # behind, though the run said nothing was saved: the next command was refused.
    from flowerbridge.lab import runner
    out = tmp_path / "above" / "run"
    if existing:
        run(out, ["deals"], n=4, seed=1, workers=1)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} if existing else None

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "_progress", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(out, ["deals", "play"], n=8, seed=1, workers=1, params={"play": {"bots": "basic"}})
    if existing:        # as it was: no settings of the play analysis recorded, no folder of its chunks
        assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
        assert not (out / "chunks" / "play").exists()
    else:               # nothing at all: the folders made above it gone too
        assert not (tmp_path / "above").exists()
    monkeypatch.undo()
    assert run(out, ["play"], n=8, seed=1, workers=1, params={"play": {"bots": "random"}}).computed == 1


def test_lab_a_manifest_left_half_written_by_a_kill_does_not_block_the_run(tmp_path):
    # killed as it wrote a new folder's lab.json, a run left only its temporary file:
    # the folder was then refused as one holding files but no lab run
    out = tmp_path / "run"
    out.mkdir()
    (out / ".lab.json.0a1b2c3d.tmp").write_text('{"seed": ')
    assert run(out, ["deals"], n=4, seed=1, workers=1).computed == 1
    assert sorted(p.name for p in out.iterdir()) == ["chunks", "deals.csv", "lab.json"]
    (out / "notes.txt").write_text("mine")            # (a file of someone else's is still refused)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(LabError, match="holds files but no lab run"):
        run(tmp_path / "other", ["deals"], n=4, seed=1, workers=1)


def _hold_folder(out: Path) -> subprocess.Popen:
    """Another process holding ``out``'s lab lock, as a run under way does."""
    code = ("import sys, time\n"
            "from pathlib import Path\n"
            "from flowerbridge.lab.runner import FolderLock\n"
            "FolderLock.take(Path(sys.argv[1]))\n"
            "print('taken', flush=True)\n"
            "time.sleep(120)\n")
    holder = subprocess.Popen([PYTHON, "-c", code, str(out)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "taken\n"
    return holder


def test_lab_a_run_refused_a_folder_another_made_and_took_meanwhile_removes_none_of_it(tmp_path, monkeypatch):
    # the folder was found missing, then another run made it and took it before this one's
    # mkdir: this one, refused, removed the other's folder with its work (a review)
    out = tmp_path / "new" / "run"
    holders = []
    mkdir = Path.mkdir

    def meanwhile(self, *args, **kwargs):
        if self == out and not holders:
            mkdir(self, parents=True)
            (out / "a-chunk.csv").write_text("the other run's\n")
            holders.append(_hold_folder(out))
        return mkdir(self, *args, **kwargs)
    monkeypatch.setattr(Path, "mkdir", meanwhile)
    try:
        with pytest.raises(LabError, match="is in use by another lab run"):
            run(out, ["deals"], n=4, seed=1, workers=1)
        assert (out / "a-chunk.csv").read_text() == "the other run's\n" and (out / ".lab.lock").exists()
    finally:
        for holder in holders:
            holder.kill()
            holder.wait(timeout=30)


def test_lab_a_folder_another_run_is_using_is_refused_unchanged(tmp_path, capsys, monkeypatch):
    # Two runs in one folder recorded their settings over each other's (a lab.json
    # naming only one run's analyses), and one's undo could remove what the other did
    monkeypatch.syspath_prepend(str(tmp_path))
    proc, out, _ = _slow_lab(tmp_path, 30)
    try:
        _wait_for_chunks(out, proc, 1)
        manifest = (out / "lab.json").read_bytes()
        status = main(["lab", "deals", "--n", "30", "--seed", "7", "--out", str(out), "--quiet"])
        err = capsys.readouterr().err
        assert status == 2
        assert f"{out} is in use by another lab run (process {proc.pid})" in err
        assert "Traceback" not in err
        assert (out / "lab.json").read_bytes() == manifest
        assert not (out / "chunks" / "deals").exists()
    finally:
        _, first_err = proc.communicate(timeout=300)
    assert proc.returncode == 0, first_err
    assert sorted(p.name for p in out.iterdir()) == ["chunks", "lab.json", "play.csv", "report.html", "summary.json"]
    assert run(out, ["play"], n=30, seed=7, params={"play": {"bots": "slowbot:SlowBot"}},
               chunk_size=3, workers=1).computed == 0


def test_lab_a_run_killed_outright_leaves_its_folder_to_the_next(tmp_path):
    out = tmp_path / "run"
    run(out, ["deals"], n=4, seed=1, workers=1)
    holder = _hold_folder(out)
    with pytest.raises(LabError, match=f"in use by another lab run \\(process {holder.pid}\\)"):
        run(out, ["deals"], n=8, seed=1, workers=1)
    holder.kill()       # (killed outright: its lock file stays, its lock goes)
    holder.wait(timeout=30)
    assert (out / ".lab.lock").exists()
    assert run(out, ["deals"], n=8, seed=1, workers=1).computed == 1
    assert sorted(p.name for p in out.iterdir()) == ["chunks", "deals.csv", "lab.json"]


def test_lab_a_new_folder_a_killed_run_left_its_lock_in_is_no_folder_of_other_files(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    holder = _hold_folder(out)
    holder.kill()
    holder.wait(timeout=30)
    assert [p.name for p in out.iterdir()] == [".lab.lock"]
    assert run(out, ["deals"], n=4, seed=1, workers=1).computed == 1
    assert sorted(p.name for p in out.iterdir()) == ["chunks", "deals.csv", "lab.json"]


def test_lab_a_run_that_fails_before_its_work_lets_go_of_the_folder(tmp_path, monkeypatch):
    # a run failing after it had locked the folder and before its work (a fingerprint
    # that could not be made, a lab.json that could not be read) kept the lock: every
    # later run of this process was refused as "in use by another lab run"
    from flowerbridge.lab import runner
    out = tmp_path / "run"
    run(out, ["deals"], n=4, seed=1, workers=1)

    def broken(*args):
        raise RuntimeError("no fingerprint")
    with monkeypatch.context() as patched:
        patched.setattr(runner, "_code", broken)
        for _ in range(2):
            with pytest.raises(RuntimeError, match="no fingerprint"):
                run(out, ["deals"], n=8, seed=1, workers=1)
    (out / "lab.json").unlink()
    (out / "lab.json").mkdir()      # (an unreadable manifest: said so, not IsADirectoryError)
    for _ in range(2):
        with pytest.raises(LabError, match="lab.json: cannot read the lab manifest"):
            run(out, ["deals"], n=4, seed=1, workers=1)
    assert not (out / ".lab.lock").exists()


def test_lab_a_lock_file_that_cannot_be_written_is_said_and_let_go_of(tmp_path, monkeypatch):
    # (a full disk as the lock took the run's process number: a raw OSError, the lock kept)
    import errno

    from flowerbridge.lab import runner

    def full(*args):
        raise OSError(errno.ENOSPC, "No space left on device")
    with monkeypatch.context() as patched:
        patched.setattr(runner.os, "pwrite", full)
        with pytest.raises(LabError, match=r"\.lab\.lock: cannot write the run's lock file \(No space left"):
            runner.FolderLock.take(tmp_path)
    runner.FolderLock.take(tmp_path).release()      # (let go of: taken again at once)


def test_lab_a_run_whose_lock_file_cannot_be_written_leaves_no_folder_it_made(tmp_path, monkeypatch):
    # docs/lab.md: a run that fails before it has saved a chunk leaves no folder behind, nor
    # the folders above it that it made (the new output folder stayed, empty)
    import errno

    from flowerbridge.lab import runner

    def full(*args):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(runner.os, "pwrite", full)
    with pytest.raises(LabError, match=r"cannot write the run's lock file \(No space left"):
        run(tmp_path / "new" / "run", ["deals"], n=4, seed=1, workers=1)
    assert list(tmp_path.iterdir()) == []


def test_lab_a_refused_run_lets_go_of_the_folder(tmp_path):
    out = tmp_path / "run"
    run(out, ["deals"], n=4, seed=1, workers=1)
    with pytest.raises(LabError, match="seed 1, not 2"):
        run(out, ["deals"], n=4, seed=2, workers=1)
    assert not (out / ".lab.lock").exists()
    holder = _hold_folder(out)      # (the lock was let go of: another process takes it)
    holder.kill()
    holder.wait(timeout=30)


def test_lab_a_worker_whose_driver_is_gone_before_it_starts_ends_at_once():
    # A driver killed while its workers started up left them to init: each took init
    # for the driver it watched, and waited on the pool's queue for ever
    code = ("from flowerbridge.lab.runner import _worker_start\n"
            "import time\n"
            "_worker_start(None, None, 999_999_999)\n"      # not this process' parent
            "time.sleep(10)\n"
            "print('still here')\n")
    done = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", "")


@pytest.mark.parametrize("how", ["ctrl-c", "kill"])
def test_lab_interrupted_run_resumes_without_recomputing(tmp_path, monkeypatch, how):
    (tmp_path / "slowbot.py").write_text(SLOW_BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    n = 30
    out = tmp_path / "run"
    # A terminal's Ctrl-C reaches a program whose SIGINT is at its default; a
    # test run started in the background (CI under `nohup ... &`) inherits
    # SIGINT ignored, which Python would keep, so the child resets it.
    proc = subprocess.Popen(_lab_command(out, n), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    _wait_for_chunks(out, proc, 2)
    if how == "ctrl-c":
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130
        assert "run the same command to resume" in err and "Traceback" not in err
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    saved = {p.name: p.read_bytes() for p in (out / "chunks" / "play").glob("*.csv")}
    assert 2 <= len(saved) < n // 3
    if how == "ctrl-c":     # (SIGKILL may land as a chunk is written: its temporary file stays)
        assert not list((out / "chunks" / "play").glob(".*.tmp"))
    # one such left (as a SIGKILL can), for the resume to remove
    stale = out / "chunks" / "play" / ".0000027-0000030.csv.0123abcd.tmp"
    stale.write_text("half a chunk")
    resumed = subprocess.run(_lab_command(out, n), capture_output=True, text=True, timeout=300,
                             env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert not stale.exists() and not list((out / "chunks" / "play").glob(".*.tmp"))
    reused = int(re.search(r" chunks? computed, (\d+) reused", resumed.stdout)[1])
    assert reused == len(saved)
    for name, data in saved.items():  # finished chunks are kept, not rewritten
        assert (out / "chunks" / "play" / name).read_bytes() == data
    fresh = run(tmp_path / "fresh", ["play"], n=n, seed=7,
                params={"play": {"bots": "slowbot:SlowBot"}}, chunk_size=3, workers=2)
    assert (out / "play.csv").read_bytes() == (fresh.out / "play.csv").read_bytes()


def test_lab_terminated_by_kill_stops_as_after_ctrl_c_and_resumes(tmp_path):
    # (SIGTERM, `kill PID`, killed the driver outright: its workers ended by themselves,
    # and Python's resource tracker warned of "6 leaked semaphore objects")
    proc, out, env = _slow_lab(tmp_path, 30)
    _wait_for_chunks(out, proc, 2)
    err = stopped_by(proc, signal.SIGTERM)              # the driver alone, as kill does
    assert proc.returncode == 143
    assert err == f"terminated: finished work is saved in {out}; run the same command to resume\n", err
    saved = {p.name: p.read_bytes() for p in (out / "chunks" / "play").glob("*.csv")}
    assert len(saved) >= 2 and not list(out.rglob(".*.tmp")) and not list(out.glob(".*.staged"))
    resumed = subprocess.run(_lab_command(out, 30), capture_output=True, text=True, timeout=300, env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert int(re.search(r" chunks? computed, (\d+) reused", resumed.stdout)[1]) == len(saved)
    assert all((out / "chunks" / "play" / name).read_bytes() == data for name, data in saved.items())


def test_lab_worker_killed_is_one_error_line_and_the_run_resumes(tmp_path):
    proc, out, env = _slow_lab(tmp_path, 30)
    _wait_for_chunks(out, proc, 1)
    workers = subprocess.run(["pgrep", "-P", str(proc.pid), "-f", "spawn_main"],
                             capture_output=True, text=True).stdout.split()
    assert workers
    os.kill(int(workers[0]), signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert err.startswith("error: a worker process stopped unexpectedly") and err.count("\n") == 1
    resumed = subprocess.run(_lab_command(out, 30), capture_output=True, text=True, timeout=300,
                             env=env)
    assert resumed.returncode == 0 and "0 reused" not in resumed.stdout


DYING_BOT = """
import os
import time
from flowerbridge.bots import RandomBot
from flowerbridge.bots.base import bot_seed

DIE = {bot_seed(7, int(os.environ["DIE_AT"]), seat) for seat in "NESW"}
SLOW = {bot_seed(7, int(os.environ["SLOW_AT"]), seat) for seat in "NESW"}

class DyingBot(RandomBot):
    # its worker process ends at deal DIE_AT (as one killed, or out of memory), while
    # the chunk of deal SLOW_AT is still being computed on the other worker
    def __init__(self, seed=None):
        super().__init__(seed)
        if seed in DIE:
            os._exit(3)
        if seed in SLOW:
            time.sleep(30)
"""


@pytest.mark.parametrize("slow, dies, kept", [
    (0, 5, "nothing was saved"),
    (5, 10, "1 chunk finished by this run is saved in {out}: run the same command to resume"),
])
def test_lab_worker_that_dies_names_its_chunk_and_says_truly_what_was_kept(tmp_path, slow, dies, kept):
    # it said "finished chunks are saved: run the same command to resume" when the folder
    # had been removed, and did not say which chunk
    (tmp_path / "dyingbot.py").write_text(DYING_BOT)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "SLOW_AT": str(slow), "DIE_AT": str(dies)}
    out = tmp_path / "run"
    # chunks 0-4, 5-9 and 10-14 on 2 workers: one slow, one whose worker dies, and
    # (dying at 10) 0-4 finished first
    done = subprocess.run([PYTHON, "-m", "flowerbridge.cli", "lab", "play", "--n", "15", "--seed", "7",
                           "--bots", "dyingbot:DyingBot", "--chunk-size", "5", "--workers", "2",
                           "--out", str(out), "--quiet"], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2
    assert done.stderr == (f"error: a worker process stopped unexpectedly computing play, deals {dies}-{dies + 4} "
                           f"(it exited with status 3); {kept.format(out=out)}\n")
    assert out.exists() == (dies == 10)
    if dies == 10:
        assert [p.name for p in (out / "chunks" / "play").iterdir()] == ["0000000-0000005.csv"]


UNGUARDED = """
from flowerbridge.lab import run_lab
run_lab({out!r}, ["deals"], n=20, seed=1, chunk_size=10, workers=2, report=False)
"""


def test_lab_script_without_main_guard_is_told_to_add_it_in_one_error(tmp_path):
    # each "spawn" worker imports the main script again, so an unguarded run_lab ran again
    # in every worker: their tracebacks (RuntimeError, "bootstrapping phase"), then "a worker
    # process stopped unexpectedly (killed, or out of memory)", which misled
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED.format(out=str(tmp_path / "run")))
    _lab_script_fails_once(tmp_path, [str(script)], None, "RuntimeError",
                           "LabError: the worker processes stopped as they started: each imports "
                           "the main script again, and this one starts the lab whenever it is "
                           'imported; call run_lab under `if __name__ == "__main__":` when using '
                           "workers > 1; nothing was saved\n")


def _lab_script_fails_once(tmp_path, args, script, hidden, ending):
    """Python run on ``args`` (``script`` on its standard input) ends with one
    traceback, the LabError ``ending``, none of the workers' ``hidden`` errors,
    and no output folder."""
    done = subprocess.run([PYTHON, *args], input=script, capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.count("Traceback") == 1 and hidden not in done.stderr
    assert done.stderr.endswith(ending)
    assert not (tmp_path / "run").exists()


def test_lab_script_from_standard_input_with_workers_is_refused_before_starting_them(tmp_path):
    # a worker cannot import "<stdin>" again: each stopped with a FileNotFoundError traceback
    out = tmp_path / "run"
    guarded = "if __name__ == '__main__':\n" + "".join(
        "    " + line + "\n" for line in UNGUARDED.format(out=str(out)).strip().splitlines())
    _lab_script_fails_once(tmp_path, ["-"], guarded, "FileNotFoundError",
                           "LabError: worker processes import the main script again as they "
                           "start, and <stdin> is not a file they can read: save the script to "
                           'a file and run that (call run_lab under `if __name__ == "__main__":` '
                           "when using workers > 1), or use workers=1\n")


def test_lab_workers_end_when_their_driver_is_killed(tmp_path):
    # SIGKILL leaves the driver no time to shut its pool down: each worker sees
    # its parent gone and ends itself (they ran on, adopted by init, for ever).
    (tmp_path / "slowbot.py").write_text(SLOW_BOT)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = tmp_path / "run"
    proc = subprocess.Popen(_lab_command(out, 300), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)
    _wait_for_chunks(out, proc, 1)
    workers = [int(pid) for pid in subprocess.run(["pgrep", "-P", str(proc.pid), "-f", "spawn_main"],
                                                  capture_output=True, text=True).stdout.split()]
    assert workers
    proc.kill()
    proc.wait(timeout=30)
    deadline = time.monotonic() + 20
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = [pid for pid in workers if Path(f"/proc/{pid}").exists()
                 and "Z" not in Path(f"/proc/{pid}/stat").read_text().split(")")[-1][:3]]
    assert not alive, f"workers {alive} outlived their driver"


# ------------------------------------------------------------ play, variants


def test_r18_hands_per_game_counts_hands_until_a_side_reaches_100():
    rows = [dict.fromkeys(PLAY_COLUMNS, 0) for _ in range(6)]
    for row, (ns, ew) in zip(rows, [(60, 0), (0, 90), (40, 0), (0, 0), (120, 0), (0, 30)]):
        row.update(below_NS=ns, below_EW=ew)
    table = Table.from_rows(PLAY_COLUMNS, rows)
    assert hands_per_game(table, 100) == [3, 2]


def test_report_wilson_interval_matches_the_textbook_values():
    lo, hi = wilson(0, 10)
    assert lo == 0 and hi == pytest.approx(27.75, abs=0.01)
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(100 - hi) and hi == pytest.approx(76.34, abs=0.01)
    assert wilson(0, 0) == (0.0, 100.0)
    assert rate_cell(5, 10) == "50.0 (23.7–76.3)" and rate_cell(0, 0) == "-"
    assert rate_cell(3, 1000) == "0.30 (0.10–0.88)"
    # the decimals follow the interval, not the share alone: 0 of 3 is not "0.00 (0.00–56.15)"
    assert rate_cell(0, 3) == "0.0 (0.0–56.2)" and rate_cell(5, 1000) == "0.5 (0.2–1.2)"


def test_report_a_mean_whose_interval_starts_below_zero_reads_with_to_not_a_dash():
    # "25.1 (-1.97–52.2)": the dash after a minus sign read as another minus
    from flowerbridge.lab.report import mean_cell

    assert mean_cell(25.1, -1.97, 52.2) == "25.1 (-1.97 to 52.2)"
    assert mean_cell(10.7, 10.6, 10.8) == "10.7 (10.6–10.8)"
    assert mean_cell(-3.5, -5.25, -1.75) == "-3.50 (-5.25 to -1.75)"


def test_report_cells_keep_three_significant_digits_beside_each_other():
    from flowerbridge.lab.report import fmt
    # a sampled 78.9 beside an exact 79.0, not 79; 0.900 beside 1.00 (0.9996 rounds to 1.00)
    assert [fmt(v) for v in (78.9, 79.0, 4.5, 0.475, 0.9, 0.9996, 0.007, 0.0)] == \
        ["78.9", "79.0", "4.50", "0.475", "0.900", "1.00", "0.00700", "0"]
    # from 1,000 on, whole and grouped (999.9 rounds up to 1,000, never 1e+03); counts grouped
    assert [fmt(v) for v in (999.9, 1234.5, np.float64(12.25))] == ["1,000", "1,234", "12.2"]
    assert [fmt(v) for v in (25639, np.int64(1314), 7, "5P", "61.2 (59.8–62.6)")] == \
        ["25,639", "1,314", "7", "5P", "61.2 (59.8–62.6)"]


def test_report_tables_scroll_in_their_own_frame_with_text_left_and_figures_right():
    from flowerbridge.lab.report import TableSpec, table_html, table_markdown
    page = table_html(TableSpec("rule sets", ["rule set", "options", "hands"],
                                [["strict", "undertrick_penalty=0", 100000], ["default", "the default rules", 5]]))
    assert page.startswith("<div class='table'><table>") and page.endswith("</table></div>")
    assert "<th class='text'>options</th>" in page and "<th>hands</th>" in page
    assert "<td class='text'>undertrick_penalty=0</td>" in page and "<td>100,000</td>" in page
    # the Markdown of the designer's report aligns its columns the same way
    markdown = table_markdown(TableSpec("rule sets", ["rule set", "options", "hands"], [["strict", "x=0", 5]]))
    assert "|---|---|---:|" in markdown
    # "-" (nothing to show) in a column of text is text; in a column of figures, a figure
    page = table_html(TableSpec("run", ["analysis", "parameters", "deals"],
                                [["deals", "-", "-"], ["play", '{"bots": "basic"}', 7]]))
    assert "<th class='text'>parameters</th>" in page and "<td class='text'>-</td><td>-</td>" in page


def test_lab_variant_option_written_as_a_whole_fraction_is_recorded_as_the_number_it_reads(tmp_path):
    # {"undertrick_penalty": 1.0} played as 1 but was recorded, and shown in a clash, as 1.0
    variants = [["x", {"undertrick_penalty": 1.0, "honor_bright": [4.0, 2]}]]
    run_lab(tmp_path, "variants", n=2, seed=1, workers=1, bots="random", variants=variants, report=False)
    [(name, recorded)] = json.loads((tmp_path / "lab.json").read_text())["analyses"]["variants"]["params"][
        "variants"][1:]
    assert name == "x" and json.dumps(recorded) == '{"undertrick_penalty": 1, "honor_bright": [4, 2]}'


def test_lab_variants_report_names_only_what_each_rule_set_changes(tmp_path):
    result = run_lab(tmp_path, ["variants"], workers=1, n=8, seed=2, bots="random")
    page = (result.out / "report.html").read_text()
    assert "<td class='text'>the default rules</td>" in page
    # strict: R15's option alone, said as the tables say it
    assert "<td class='text'>no undertrick penalty (R15, the rulebook as written)</td>" in page
    assert "final-bidder" not in page                                    # the default, said nowhere


def test_lab_points_plot_names_its_hands_and_draws_each_whole_scores_interval(tmp_path):
    # a stacked chart of means across the rule sets had neither its sample nor an interval
    from flowerbridge.lab.variants import points_plot
    study = run_lab(tmp_path, ["variants"], workers=1, n=12, seed=2, bots="random")
    vs = study.summaries["variants"]["variants"]
    plot = points_plot(vs)
    assert "the same 12 hands under each" in plot.caption
    [bars] = [c for c in plot.figure.axes[0].containers if c.get_label() == "whole score: 95% interval"]
    tops = [seg[1][1] for seg in bars.lines[2][0].get_segments()]
    assert tops == pytest.approx([vs[n]["points_per_hand_total"][2] for n in vs])


def test_report_bootstrap_interval_of_a_rate_and_of_a_difference_of_rates():
    rng = np.random.default_rng(1)
    n = 4000
    group = rng.integers(0, 2, n).astype(bool)                # two cells, about 2,000 rows each
    success = np.where(group, rng.random(n) < 0.3, rng.random(n) < 0.5)
    member = np.stack([group, ~group], axis=1)
    hits = np.stack([success, success], axis=1)
    lo, hi = bootstrap_interval(member[:, :1], hits[:, :1], lambda r: r[:, 0])
    rate = 100 * success[group].mean()
    half = 196 * np.sqrt(rate / 100 * (1 - rate / 100) / group.sum())
    assert lo < rate < hi and (hi - lo) / 2 == pytest.approx(half, rel=0.2)
    lo, hi = bootstrap_interval(member, hits, lambda r: r[:, 1] - r[:, 0])
    assert lo < 100 * (success[~group].mean() - success[group].mean()) < hi and lo > 10
    assert bootstrap_interval(member, hits, lambda r: r[:, 1] - r[:, 0]) == (lo, hi)  # seeded


def test_report_bootstrap_interval_is_a_95_percent_interval():
    # 200 successes of 400 rows: the binomial 95 % half-width is 1.96 * sqrt(.25 / 400)
    # = 4.9 points (a 90 % interval would be 4.1, a 99 % one 6.4).
    n = 400
    member = np.ones((n, 1), dtype=bool)
    hits = (np.arange(n) % 2 == 0)[:, None]
    halves = []
    for seed in range(4):
        lo, hi = bootstrap_interval(member, hits, lambda r: r[:, 0], resamples=4000, seed=seed)
        assert lo < 50 < hi
        halves.append((hi - lo) / 2)
    assert np.mean(halves) == pytest.approx(196 * np.sqrt(0.25 / n), rel=0.05)


def test_report_percentage_of_nothing_is_zero():
    assert pct(0, 0) == 0.0 and pct(3, 0) == 0.0
    assert pct(1, 4) == 25.0 and pct(np.int64(3), np.int64(4)) == 75.0
    assert rate_cell(0, 0) == "-"


def test_report_bootstrap_interval_takes_counts_for_a_row_that_counts_twice():
    # a deal's two sides in one cell: its counts are resampled together
    rng = np.random.default_rng(2)
    n = 3000
    first, second = rng.random(n) < 0.4, rng.random(n) < 0.4
    member = np.full((n, 1), 2)
    hits = (first.astype(int) + second)[:, None]
    lo, hi = bootstrap_interval(member, hits, lambda r: r[:, 0])
    rate = 100 * (first.sum() + second.sum()) / (2 * n)
    assert lo < rate < hi and hi - lo < 4
    # as counts, a row counting once gives what the booleans give
    as_bool = bootstrap_interval(member > 0, first[:, None], lambda r: r[:, 0])
    assert bootstrap_interval(np.ones((n, 1), int), first.astype(int)[:, None], lambda r: r[:, 0]) == as_bool


def test_r17_bright_rates_count_a_hand_once_when_both_sides_earn_five_bright():
    rows = [dict.fromkeys(PLAY_COLUMNS, 0) for _ in range(4)]
    rows[0].update(five_NS=1, five_EW=1)
    rows[1].update(five_NS=1)
    rows[2].update(ten_EW=1)
    summary = hand_summary(Table.from_rows(PLAY_COLUMNS, rows), RuleOptions())
    assert summary["five_bright_rate"] == 50.0 and summary["ten_bright_rate"] == 25.0


def test_lab_play_rows_hold_the_declaring_sides_honor_count_and_one_bright_bonus_at_most(tmp_path):
    # docs/lab.md: decl_hc is the declaring side's honor count; five_ is 1 where the side
    # earned the Five Bright, or the Ten Bright, bonus (at most one of the two)
    study = run_lab(tmp_path, ["play"], workers=1, **SMALL)
    t = study.result.tables["play"]
    deals = deal_rows(SMALL["seed"], 0, SMALL["n"], {})
    sides = [str(x) for x in t["side"]]
    assert {"NS", "EW"} <= set(sides)
    for i, side in enumerate(sides):
        if side in ("NS", "EW"):
            assert t["decl_hc"][i] == deals[int(t["deal"][i])][f"hc_{side}"]
    for side in Side:
        five, ten = t[f"five_{side.name}"], t[f"ten_{side.name}"]
        assert not (five & ten).any()
        assert ((five | ten) == (t[f"bright_{side.name}"] > 0)).all()
    assert (t["ten_NS"] | t["ten_EW"]).any()      # (a Ten Bright among these hands)


def test_ruling_r15_r16_r17_variants_rescore_the_same_play(tmp_path):
    study = run_lab(tmp_path, ["variants"], workers=1, **SMALL)
    t = study.result.tables["variants"]
    rows = {name: t.where(t["variant"] == name) for name in
            ("default", "strict", "no-honors", "no-bright-bonus", "plains-30", "plains-25", "first-named")}
    base = rows["default"]
    for name in ("strict", "no-honors", "no-bright-bonus", "plains-30", "plains-25"):
        assert list(rows[name]["contract"]) == list(base["contract"])
        assert list(rows[name]["tricks"]) == list(base["tricks"])
        assert not rows[name]["replayed"].any()
    assert not rows["strict"]["penalty"].any() and base["penalty"].any()
    assert list(rows["strict"]["below_NS"]) == list(base["below_NS"])
    for side in Side:
        assert not rows["no-honors"][f"honors_{side.name}"].any()
        assert not rows["no-bright-bonus"][f"bright_{side.name}"].any()
        assert list(rows["no-honors"][f"bright_{side.name}"]) == list(base[f"bright_{side.name}"])
    plains = base["denom"] == "P"
    made_plains = plains & (base["made"] == 1)
    assert made_plains.any()
    assert (rows["plains-30"]["contract_points"][made_plains] * 2
            == base["contract_points"][made_plains] * 3).all()
    assert (rows["plains-25"]["contract_points"][made_plains] * 4
            == base["contract_points"][made_plains] * 5).all()
    # a hand's winner changes where the side ahead on the hand's points is another, either
    # way (a count of one way only passed)
    def ahead(r):
        return [(int(a) + int(b) > int(c) + int(d)) - (int(a) + int(b) < int(c) + int(d)) for a, b, c, d in
                zip(r["below_NS"], r["above_NS"], r["below_EW"], r["above_EW"])]
    summary = study.summaries["variants"]["variants"]
    for name, r in rows.items():
        flips = [(x, y) for x, y in zip(ahead(base), ahead(r)) if x != y]
        assert summary[name]["winner_changed_hands"] == len(flips), name
        if name == "strict":
            assert len({x < y for x, y in flips}) == 2      # (both ways among these hands)


def test_ruling_r9_first_named_replays_only_hands_whose_declarer_changes(tmp_path):
    study = run_lab(tmp_path, ["variants"], workers=1, **{**SMALL, "n": 150})
    t = study.result.tables["variants"]
    base, first = t.where(t["variant"] == "default"), t.where(t["variant"] == "first-named")
    replayed = first["replayed"] == 1
    assert replayed.any()
    assert (first["declarer"][replayed] != base["declarer"][replayed]).all()
    assert (first["contract"] == base["contract"]).all()  # same auction, same final bid
    assert (first["declarer"][~replayed] == base["declarer"][~replayed]).all()
    assert (first["tricks"][~replayed] == base["tricks"][~replayed]).all()


def test_lab_bad_variant_is_one_clear_error(tmp_path, capsys):
    status = main(["lab", "variants", "--n", "5", "--out", str(tmp_path), "--quiet",
                   "--variant", 'odd={"undertrick": 0}'])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("error: variant 'odd': unknown option 'undertrick'") and err.count("\n") == 1


@pytest.mark.parametrize("name", ["a\nb", "tab\there", "\udcff"])
def test_lab_variant_name_that_cannot_be_written_is_refused_before_any_work(tmp_path, capsys, name):
    # a variant's name goes in every CSV row and the report: a line break in it
    # made every chunk unreadable after the whole run
    status = main(["lab", "variants", "--n", "5", "--out", str(tmp_path / "run"), "--quiet",
                   "--variant", f'{name}={{"undertrick_penalty": 0}}'])
    err = capsys.readouterr().err
    assert status == 2 and "a name is printable text" in err and err.count("\n") == 1
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("name", [" ", " x", "x "])
def test_lab_variant_name_blank_or_with_spaces_at_its_ends_is_refused(tmp_path, capsys, name):
    # " " was a variant, a blank column in the CSV and a nameless line in the report
    status = main(["lab", "variants", "--n", "5", "--out", str(tmp_path / "run"), "--quiet",
                   "--variant", f'{name}={{"undertrick_penalty": 0}}'])
    err = capsys.readouterr().err
    assert status == 2 and err == f"error: variant {name!r}: a name is text without spaces at its ends\n"
    assert not (tmp_path / "run").exists()


def test_lab_variant_option_given_as_null_takes_its_default_as_in_a_record():
    from flowerbridge.lab.variants import variant_options
    from flowerbridge.options import RuleOptions

    assert variant_options([["x", {"undertrick_penalty": None, "declarer": "first-named"}]]) == [
        ("x", RuleOptions(declarer="first-named"))]


def test_lab_analyses_may_be_named_after_the_options(tmp_path, capsys):
    out = tmp_path / "run"
    status = main(["lab", "deals", "--n", "5", "--out", str(out), "--quiet", "play",
                   "--bots", "random", "--workers", "1"])
    assert status == 0, capsys.readouterr().err
    assert (out / "deals.csv").exists() and (out / "play.csv").exists()
    # what is left over and is not a name is still refused
    assert main(["lab", "--n", "5", "--out", str(out), "--bogus"]) == 2
    assert "unknown option --bogus" in capsys.readouterr().err


def test_lab_out_that_names_no_folder_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["lab", "deals", "--n", "5", "--out", "", "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("error: --out names no folder")
    assert not (tmp_path / "lab-output").exists()


def test_lab_api_compares_against_the_rules_as_written_first(tmp_path):
    study = run_lab(tmp_path / "a", ["variants"], n=4, seed=5, bots="random", workers=1,
                    variants=[["strict", {"undertrick_penalty": 0}]])
    summary = study.summaries["variants"]
    assert list(summary["variants"]) == ["default", "strict"] and summary["reference"] == "default"
    with pytest.raises(LabError, match="non-empty list"):
        run_lab(tmp_path / "c", ["variants"], n=4, seed=5, bots="random", workers=1, variants=[])
    with pytest.raises(LabError, match="variant 'default' is kept for the default rules"):
        run_lab(tmp_path / "b", ["variants"], n=4, seed=5, bots="random", workers=1,
                variants=[["default", {"undertrick_penalty": 0}], ["x", {}]])
    # the same rules twice compared the same hands with themselves: "no change" everywhere
    for variants, said in (([["pen50", {"undertrick_penalty": 50}]],
                            "variant 'pen50' has the rules of 'default' \\(undertrick_penalty 50, as the default "
                            "rules have it\\): it would show no change anywhere"),
                           ([["a", {"undertrick_penalty": 0}], ["b", {"undertrick_penalty": 0.0}]],
                            "variant 'b' has the rules of 'a': it would show no change anywhere")):
        with pytest.raises(LabError, match=f"^{said}"):
            run_lab(tmp_path / "d", ["variants"], n=4, seed=5, bots="random", workers=1, variants=variants)
    assert not (tmp_path / "d").exists()


def test_lab_unknown_bot_is_one_clear_error(tmp_path, capsys):
    status = main(["lab", "play", "--n", "5", "--out", str(tmp_path), "--quiet", "--bots", "nobody"])
    assert status == 2
    assert capsys.readouterr().err.startswith("error: unknown bot 'nobody'")


@pytest.mark.parametrize("analysis", ["play", "variants"])
def test_lab_a_bot_that_fails_is_one_error_naming_the_deal_it_failed_in(tmp_path, capsys, monkeypatch, analysis):
    # (the chunk alone was named, "deals 0-99": which deal failed, nobody could tell)
    (tmp_path / "laterbot.py").write_text(
        "class FailsInPlay:\n"
        "    def act(self, observation):\n"
        "        if len(observation.plays) == 30:\n"
        "            raise RuntimeError('lost the count')\n"
        "        legal = observation.legal\n"
        "        return legal[1] if observation.phase == 'auction' and not observation.auction else legal[0]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    status = main(["lab", analysis, "--n", "5", "--out", str(tmp_path / "out"), "--quiet", "--workers", "1",
                   "--bots", "laterbot:FailsInPlay"])
    assert status == 2
    err = capsys.readouterr().err
    assert re.fullmatch(rf"error: {analysis}, deals 0-4: deal 0: the bot at \w+ failed: RuntimeError: lost the count\n",
                        err), err


def test_lab_a_bots_own_keyboard_interrupt_in_a_worker_is_its_failure_not_a_ctrl_c(tmp_path, capsys, monkeypatch):
    # workers ignore Ctrl-C: a KeyboardInterrupt there is the bot's, and was reported as the
    # person's ("interrupted: finished work is saved ..."), bot, chunk and deal unnamed
    (tmp_path / "kibot.py").write_text(
        "class Interrupts:\n"
        "    def act(self, observation):\n"
        "        if len(observation.plays) == 30:\n"
        "            raise KeyboardInterrupt('from the bot')\n"
        "        legal = observation.legal\n"
        "        return legal[1] if observation.phase == 'auction' and not observation.auction else legal[0]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    status = main(["lab", "play", "--n", "4", "--chunk-size", "2", "--out", str(tmp_path / "out"), "--quiet",
                   "--workers", "2", "--bots", "kibot:Interrupts"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert re.fullmatch(r"error: play, deals (0-1|2-3): deal [0-3]: the bot at \w+ failed: "
                        r"KeyboardInterrupt: from the bot\n", err), err


# ------------------------------------------------------------------ report


def test_lab_default_folder_stays_in_lab_output_whatever_the_seed(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["lab", "deals", "--n", "1", "--seed", "x/../../escaped", "--workers", "1", "--quiet"]) == 0
    [folder] = (tmp_path / "lab-output").iterdir()
    assert folder.name.startswith("seed-x_______escaped-") and (folder / "deals.csv").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lab-output"]


def test_lab_default_folders_of_seeds_that_differ_only_in_unsafe_characters_differ(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for seed in ("a/b", "a_b", "서울", "..", "7"):
        assert main(["lab", "deals", "--n", "1", "--seed", seed, "--workers", "1", "--quiet"]) == 0
    names = sorted(p.name for p in (tmp_path / "lab-output").iterdir())
    assert len(names) == 5 and "seed-a_b" in names and "seed-7" in names


@pytest.mark.parametrize(("text", "words"), [
    ('{"undertrick_penalty": 0, "undertrick_penalty": 50}', "the name 'undertrick_penalty' appears twice"),
    ('{"undertrick_penalty": NaN}', "NaN is not a JSON value"),
    ('{"undertrick_penalty": 0', "malformed JSON at column 25: Expecting"),
    # (it said "malformed JSON (Invalid control character at at column 8)")
    ('{"a": "\x01"}', "malformed JSON at column 8: control character U+0001 inside a string"),
    # (it said "variant ['x', []]: expected [name, {option: value}]")
    ("[]", "the rules are a JSON object of options, not an array, e.g. x='{\"undertrick_penalty\": 0}'"),
    ("null", "the rules are a JSON object of options, not null"),
])
def test_lab_variant_of_malformed_json_is_one_error_and_writes_nothing(tmp_path, capsys, text, words):
    assert main(["lab", "variants", "--n", "1", "--out", str(tmp_path / "v"), "--quiet",
                 "--variant", f"x={text}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --variant x: ") and words in err and err.count("\n") == 1
    assert not (tmp_path / "v").exists()


@pytest.mark.parametrize("argv, named", [(["--designer", "loop.md"], "loop"),
                                          (["--designer", "r.md", "--out", "loop"], "loop")])
def test_lab_designer_refuses_a_figures_or_output_folder_behind_a_loop_of_symbolic_links(
        tmp_path, monkeypatch, capsys, argv, named):
    # Python 3.11's pathlib raised RuntimeError ("Symlink loop") from resolve(): a traceback
    monkeypatch.chdir(tmp_path)
    os.symlink("loop2", tmp_path / "loop")
    os.symlink("loop", tmp_path / "loop2")
    assert main(["lab", *argv, "--n", "1", "--workers", "1", "--quiet"]) == 2
    assert capsys.readouterr().err == f"error: {named}: Too many levels of symbolic links\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loop", "loop2"]


def test_lab_refuses_a_variant_named_default_and_dd_n_without_the_designer(tmp_path, capsys):
    assert main(["lab", "variants", "--n", "1", "--out", str(tmp_path / "v"), "--quiet",
                 "--variant", 'default={"undertrick_penalty": 0}']) == 2
    assert "--variant default: that name is kept for the default rules" in capsys.readouterr().err
    for k in ("3", "0"):    # 0 too: given and ignored, it was taken as not given
        assert main(["lab", "--n", "1", "--dd-n", k, "--out", str(tmp_path / "d"), "--quiet"]) == 2
        assert "--dd-n belongs to --designer" in capsys.readouterr().err
        assert not (tmp_path / "d").exists()
    assert main(["lab", "--designer", str(tmp_path / "no" / "r.md"), "--n", "1", "--quiet"]) == 2
    assert "there is no folder" in capsys.readouterr().err
    (tmp_path / "afile").write_text("")     # a file where its folder should be
    assert main(["lab", "--designer", str(tmp_path / "afile" / "r.md"), "--n", "1", "--quiet"]) == 2
    assert capsys.readouterr().err == f"error: --designer {tmp_path / 'afile' / 'r.md'}: {tmp_path / 'afile'} is not a folder\n"
    (tmp_path / "afile").unlink()
    # an unset "$REPORT" ran the analyses named instead, as if no report were asked for
    assert main(["lab", "play", "--designer", "", "--n", "1", "--out", str(tmp_path / "e"), "--quiet"]) == 2
    assert capsys.readouterr().err == "error: --designer '': give the report's file name, e.g. --designer report.md\n"
    # a name longer than the folder takes: refused before the study, not after it (with
    # the figures' folder made)
    long = str(tmp_path / ("r" * 256 + ".md"))
    assert main(["lab", "--designer", long, "--n", "1", "--out", str(tmp_path / "l"), "--quiet"]) == 2
    assert capsys.readouterr().err.endswith(": the file name is longer than its folder takes (255 bytes)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_lab_refuses_a_setting_no_named_analysis_reads(tmp_path, capsys):
    # bots play only for play and variants; variants are read by variants and dd; a
    # Ray cluster brings its own workers: each would be silently ignored, so each is
    # refused before any folder is made
    for argv, message in (
            (["deals", "--bots", "random"], "bots play only for the play and variants analyses"),
            (["deals", "--variant", 'x={"undertrick_penalty": 0}'],
             "rule variants are compared only by the variants and dd analyses"),
            (["deals", "--ray", "127.0.0.1:1", "--workers", "2"], "with a Ray cluster")):
        assert main(["lab", *argv, "--n", "1", "--out", str(tmp_path / "x"), "--quiet"]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and message in captured.err and captured.err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    # a misspelt analysis is named as such, not taken for one that reads no bots
    assert main(["lab", "dael", "--bots", "random", "--n", "1", "--out", str(tmp_path / "x"), "--quiet"]) == 2
    assert "unknown analysis 'dael'" in capsys.readouterr().err
    # what the named analyses do read is taken as before
    assert main(["lab", "play", "--bots", "random", "--n", "2", "--workers", "1",
                 "--out", str(tmp_path / "p"), "--quiet"]) == 0


def test_lab_refuses_an_analysis_named_twice(tmp_path, capsys):
    # `lab deals play deals` ran deals once and said nothing of the second name
    assert main(["lab", "deals", "play", "deals", "--n", "1", "--out", str(tmp_path / "x"), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "error: deals named more than once: name each analysis once\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_lab_number_of_deals_is_bounded(tmp_path):
    with pytest.raises(LabError, match="between 1 and 100,000,000"):
        run(tmp_path, ["deals"], n=10**11, seed=1, workers=1, chunk_size=1)
    assert not (tmp_path / "chunks").exists()


def test_lab_command_writes_html_report_csv_and_summary(tmp_path, capsys):
    out = tmp_path / "rep"
    status = main(["lab", "deals", "play", "variants", "--n", "40", "--seed", "3", "--bots", "random",
                   "--workers", "1", "--out", str(out), "--quiet"])
    assert status == 0
    assert f"report: {out / 'report.html'}" in capsys.readouterr().out
    page = (out / "report.html").read_text()
    assert page.count("<img") >= 5 and "data:image/png;base64," in page
    assert "src='http" not in page  # self-contained
    summary = json.loads((out / "summary.json").read_text())
    assert summary["summaries"]["deals"]["deals"] == 40
    assert summary["summaries"]["play"]["hands"] == 40
    header = (out / "play.csv").read_text().splitlines()[0]
    assert header.startswith("deal,dealer,contract,denom,level,declarer")
    assert len((out / "variants.csv").read_text().splitlines()) == 1 + 40 * 7     # 7 rule sets
    assert "made % (95% interval)" in page and "winner changes % (95% interval)" in page


def test_lab_variants_comparison_gives_each_rule_sets_made_share_with_its_interval(tmp_path):
    from flowerbridge.lab.report import rate_cell
    from flowerbridge.lab.variants import DEFAULT_VARIANTS, sections
    study = run_lab(tmp_path, ["variants"], workers=1, **{**SMALL, "n": 20})
    summary = study.summaries["variants"]
    settings = {"variants": [[k, v] for k, v in DEFAULT_VARIANTS]}
    tables = [t for sec in sections(study.result.tables["variants"], summary,
                                    study.result.params["variants"], settings) for t in sec.tables]
    [made] = [row for t in tables for row in t.rows if row[0] == "made % (95% interval)"]
    for name, cell in zip(summary["variants"], made[1:]):
        v = summary["variants"][name]
        assert v["contracts"] == 20 - v["passed_out"] and cell == rate_cell(v["made"], v["contracts"])
        assert "(" in cell and "–" in cell
    # the changes are counted against the reference: for itself no figure ("0.00 (0.00-0.19)" was)
    for what in ("hands whose margin changes % (95% interval)", "hands whose winner changes % (95% interval)"):
        [row] = [row for t in tables for row in t.rows if row[0] == what]
        cells = dict(zip(summary["variants"], row[1:]))
        assert cells.pop(summary["reference"]) == "-" and all("(" in c for c in cells.values())


def test_lab_play_section_gives_the_bright_bonus_shares_as_the_designer_report_does(tmp_path):
    # ("45.15% of hands, Ten Bright in 2.800%": the report said 45.2% and 2.80%)
    from flowerbridge.lab.play import sections
    study = run_lab(tmp_path, ["play"], workers=1, **{**SMALL, "n": 20})
    summary = study.summaries["play"]
    [section, *_] = sections(study.result.tables["play"], summary, study.result.params["play"], {})
    from flowerbridge.lab.report import wilson
    assert summary["five_bright_rate"] == pytest.approx(100 * summary["five_bright_hands"] / 20)
    five = wilson(summary["five_bright_hands"], 20)
    assert (f"Five Bright bonus in {summary['five_bright_rate']:.1f}% (95% interval {five[0]:.1f}–{five[1]:.1f}%) "
            f"of hands (either side), Ten Bright in {summary['ten_bright_rate']:.2f}% (") in section.text
    # and how far honors set the two sides apart, beside the whole score (the designer's report alone said it)
    assert (f"Honors and Bright bonuses set the two sides {summary['honor_margin']:.1f} points apart a hand "
            f"on average, the whole score {summary['score_margin']:.1f}.") in section.text


def test_report_paired_bootstrap_of_a_change_cancels_what_both_cells_share():
    # two rule sets measured on the same deals: what they share cancels out of the change
    from flowerbridge.lab.report import bootstrap_draws, paired_change, ratio_of_sums
    rng = np.random.default_rng(1)
    base = rng.normal(50, 30, 500)
    num = np.stack([base, base + 2 + rng.normal(0, 1, 500)], axis=1)
    den = np.ones_like(num)
    estimates, draws = ratio_of_sums(num, den), bootstrap_draws(num, den)
    change, lo, hi = paired_change(estimates, draws, 0, 1)
    assert change == pytest.approx(num[:, 1].mean() - num[:, 0].mean())
    assert lo < change < hi and hi - lo < 0.3          # unpaired, it would be about 7 wide
    same = np.stack([base, base], axis=1)
    assert paired_change(ratio_of_sums(same, den), bootstrap_draws(same, den), 0, 1) == [0.0, 0.0, 0.0]
    empty = np.stack([np.ones(500), np.zeros(500)], axis=1)
    assert paired_change(ratio_of_sums(empty, empty), bootstrap_draws(empty, empty), 0, 1) is None


def test_report_bootstrap_resamples_rows_alike_as_one_with_the_same_spread(monkeypatch):
    # a hand's twin tricks (0 to 13 of 13) over 30,000 hands were resampled row by row: 2 s a
    # column, eight times a report. k rows alike drawn Poisson(k) times together is the same law.
    import flowerbridge.lab.report as report
    rng = np.random.default_rng(2)
    counts = rng.binomial(13, 0.2, 20_000).astype(np.float64)[:, None]
    tricks = np.full_like(counts, 13.0)
    alike = report.bootstrap_draws(counts, tricks, resamples=2000)
    monkeypatch.setattr(report, "ALIKE_CELLS", 0)      # every row its own, as before
    one_by_one = report.bootstrap_draws(counts, tricks, resamples=2000)
    assert alike.shape == one_by_one.shape == (2000, 1)
    assert alike.mean() == pytest.approx(counts.sum() / tricks.sum(), rel=1e-3)
    # the spread of a share of 260,000 tricks, either way: within 10 % of each other, and of
    # the binomial's own
    sd = np.sqrt(0.2 * 0.8 / tricks.sum())
    assert alike.std() == pytest.approx(one_by_one.std(), rel=0.1)
    assert alike.std() == pytest.approx(sd, rel=0.1)


def test_report_bootstrap_draws_the_same_whatever_the_block_of_weights_drawn_at_once(monkeypatch):
    # 300,000 deals drew 100 x 300,000 weights at once, twice over (480 MB): blocks are bounded,
    # and the Poisson stream, drawn row after row, gives the same draws
    import flowerbridge.lab.report as report
    rng = np.random.default_rng(3)
    num, den = rng.normal(10, 5, (3000, 6)), rng.integers(0, 3, (3000, 6)).astype(np.float64)
    whole = report.bootstrap_draws(num, den, resamples=250)
    monkeypatch.setattr(report, "BOOTSTRAP_BLOCK", 3000 * 7)        # 7 resamples a block
    # (equal but for the last bits of a sum, which BLAS adds in another order for another shape)
    assert np.allclose(report.bootstrap_draws(num, den, resamples=250), whole, rtol=1e-12, atol=0, equal_nan=True)


def test_r18_game_blocks_count_each_game_in_the_block_where_it_ends():
    from flowerbridge.lab.play import game_block_size, game_blocks
    below = [60, 0, 50, 0, 0, 100, 30, 0, 80]      # games end at hands 2, 5 and 8 (0-based)
    table = Table.from_rows(PLAY_COLUMNS, [{**{c: 0 for c in PLAY_COLUMNS}, "below_NS": b} for b in below])
    hands, games = game_blocks(table, 100, 4)
    assert hands.tolist() == [3.0, 3.0, 3.0] and games.tolist() == [1.0, 1.0, 1.0]
    hands, games = game_blocks(table, 100, 3)
    assert hands.tolist() == [3.0, 3.0, 3.0] and games.tolist() == [1.0, 1.0, 1.0]
    assert (game_block_size(20000), game_block_size(1000), game_block_size(200), game_block_size(199)) \
        == (100, 50, 10, None)


def test_r18_game_blocks_hold_three_games_at_least_where_games_are_long():
    # Blocks were sized from the hands alone: with games of 46 hands (a game score of
    # 1,000) 300 hands went in blocks of 15, most holding no game, and an interval was
    # given as if the hands of one game were independent.
    from flowerbridge.lab.play import GAMES_PER_BLOCK, game_block_size
    assert GAMES_PER_BLOCK == 3
    assert game_block_size(20000, 4700) == 100          # games of 4 or 5 hands: as before
    assert game_block_size(400, 93) == 20
    assert game_block_size(1200, 60) == 60               # 20 hands a game: 3 games a block
    assert game_block_size(20000, 400) == 150            # 50 hands a game
    assert game_block_size(400, 24) is None             # 16.7 hands a game: 8 blocks, too few
    assert game_block_size(300, 6) is None
    assert game_block_size(100000, 2000) == 150


def test_lab_a_chunks_temporary_file_is_known_past_deal_9999999():
    # chunk names are zero-padded to 7 digits, and runs go up to 100,000,000 deals
    from flowerbridge.lab.runner import _UNFINISHED_CHUNK
    assert _UNFINISHED_CHUNK.fullmatch(".12000000-12001000.csv.a619bbd3.tmp")
    assert _UNFINISHED_CHUNK.fullmatch(".0000027-0000030.csv.0123abcd.tmp")
    assert not _UNFINISHED_CHUNK.fullmatch(".manifest.json.0123abcd.tmp")


def test_r18_the_rule_set_with_the_longest_games_sets_the_paired_blocks(tmp_path):
    # Blocks are resampled under every rule set together, so one size serves all: the one
    # whose games take the most hands sets it (here too long for 400 hands: no interval).
    # A rule set that finishes no game at all has none to compare, and sets no size (its
    # zero games had put the blocks back to 20 hands for the long games beside it).
    study = run_lab(tmp_path, ["variants"], workers=1, n=400, seed=9, bots="basic",
                    variants=[["default", {}], ["long", {"game_points": 1000}],
                              ["never", {"game_points": 100000}]])
    vs = study.summaries["variants"]["variants"]
    assert vs["default"]["game_block"] == 20 and vs["long"]["game_block"] is None
    assert vs["never"]["games"] == 0 and vs["never"]["game_block"] is None
    for name in ("long", "never"):
        assert vs[name]["vs_reference"]["game_block"] is None
        assert vs[name]["vs_reference"]["hands_per_game"] is None


def test_lab_variants_give_each_change_against_default_with_a_paired_interval(tmp_path):
    # made % had each rule set's own Wilson interval, which cannot say whether a
    # difference from default is real; hands per game and declarer's net had none
    from flowerbridge.lab.report import change_cell
    from flowerbridge.lab.variants import sections
    # (the basic bots: the random bots' games take 16 hands, too long for blocks of
    # hands to be resampled in a run of 400, and give no interval)
    study = run_lab(tmp_path, ["variants"], workers=2, n=400, seed=9, bots="basic")
    summary = study.summaries["variants"]
    vs = summary["variants"]
    assert "vs_reference" not in vs["default"]
    for name in ("strict", "no-honors", "plains-30"):     # re-scored: the same contracts made
        assert vs[name]["vs_reference"]["made"] == [0.0, 0.0, 0.0]
    p30 = vs["plains-30"]["vs_reference"]
    assert p30["game_block"] == 20
    change, lo, hi = p30["hands_per_game"]
    assert change == pytest.approx(vs["plains-30"]["hands_per_game"] - vs["default"]["hands_per_game"])
    assert lo <= change <= hi
    # paired, the change is known better than either rule set's own figure (the difference of
    # two unpaired figures would have an interval about 1.4 times as wide as each one's)
    own = vs["default"]["hands_per_game_interval"]
    assert own[0] < vs["default"]["hands_per_game"] < own[1] and hi - lo < (own[1] - own[0]) / 1.4
    net, nlo, nhi = vs["strict"]["vs_reference"]["declarer_net"]["R"]
    assert net == pytest.approx(vs["strict"]["by_denom"]["R"]["mean_declarer_net"]
                                - vs["default"]["by_denom"]["R"]["mean_declarer_net"])
    assert 0 < nlo <= net <= nhi        # no penalty: declarers lose less
    first = vs["first-named"]["vs_reference"]["made"]
    assert first[0] == pytest.approx(vs["first-named"]["make_rate"] - vs["default"]["make_rate"])
    tables = [t for sec in sections(study.result.tables["variants"], summary,
                                    study.result.params["variants"], {}) for t in sec.tables]
    [paired] = [t for t in tables if t.caption.startswith("Change against 'default' on the same deals")]
    assert "blocks of 20 consecutive hands" in paired.caption and paired.headers[1:] == list(vs)[1:]
    rows = {row[0]: row[1:] for row in paired.rows}
    # games made % is of the games bid (not of every contract in the denomination)
    from flowerbridge.lab.play import contract_table
    by_denom = vs["default"]["by_denom"]
    table = contract_table(vs["default"], "contracts")
    games_made = table.headers.index("games made % (95% interval)")
    checked = 0
    for row in table.rows:
        if row[0] in by_denom and by_denom[row[0]]["games_bid"]:
            d = by_denom[row[0]]
            assert row[games_made] == rate_cell(d["games_made"], d["games_bid"])
            checked += d["games_bid"] != d["contracts"]
    assert checked
    assert rows["made %, points"][0] == "no change"
    column = paired.headers.index("plains-30") - 1
    assert rows["hands per game"][column] == change_cell(p30["hands_per_game"])
    assert re.fullmatch(r"[-+][\d.]+ \([-+][\d.]+ to [-+][\d.]+\)", rows["hands per game"][column])
    [compare] = [t for t in tables if t.caption.startswith("The same 400 hands")]
    assert "hands per game (95% interval)" in [row[0] for row in compare.rows]


def test_lab_a_change_against_default_resting_on_one_deal_has_no_interval(tmp_path):
    # one deal gave "-36.0 (-36.0 to -36.0)": resampling one row gives it again, an
    # interval of no width that read as an exact result
    from flowerbridge.lab.report import change_cell
    study = run_lab(tmp_path, ["variants"], workers=1, n=1, seed=1, bots="random", report=False)
    vs = study.summaries["variants"]["variants"]
    changes = [c for name in vs if name != "default"
               for c in (vs[name]["vs_reference"]["made"], *vs[name]["vs_reference"]["declarer_net"].values())
               if c is not None]
    assert changes and all(np.isnan(lo) and np.isnan(hi) for _, lo, hi in changes)
    assert all(" to " not in change_cell(c) for c in changes)
    # a re-scored variant makes the same contracts: no change, as with an interval
    assert change_cell(vs["strict"]["vs_reference"]["made"]) == "no change"
    two = run_lab(tmp_path / "two", ["variants"], workers=1, n=40, seed=1, bots="random", report=False)
    made = two.summaries["variants"]["variants"]["strict"]["vs_reference"]["made"]
    assert np.isfinite(made[1]) and np.isfinite(made[2])


def test_lab_docs_name_every_csv_column_of_every_analysis():
    # docs/lab.md said the columns were "documented in each module"; play's, variants' and
    # deals' were not, and made = 0 on a passed-out row misled a mean of the column
    text = (Path(__file__).parent.parent / "docs" / "lab.md").read_text()
    section = text.split("## The CSV columns", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`([a-z_A-Z]+)`", section))
    ranges = re.findall(r"`([a-z_A-Z]+)` … `([a-z_A-Z]+)`", section)
    for name, analysis in analyses().items():
        columns = list(analysis.columns)
        covered = set(named)
        for first, last in ranges:
            if first in columns and last in columns:
                covered |= set(columns[columns.index(first):columns.index(last) + 1])
        assert f"`{name}.csv`" in section
        assert not [c for c in columns if c not in covered], name
    assert "**0 also where passed out**" in section and "**0 at No Trump**" in section
    assert "**and honors and Bright bonuses**" in section


def test_lab_a_denomination_nobody_contracted_in_has_no_mean_and_its_cells_say_so(tmp_path):
    # the play table said "-" for No Trump's net score where no contract was in it,
    # the variants table 0 in every column; summary.json stored 0.0 means of nothing
    from flowerbridge.lab.variants import sections
    study = run_lab(tmp_path, ["play", "variants"], workers=1, n=3, seed=3, bots="basic")
    play = study.summaries["play"]
    empty = [d for d, cell in play["by_denom"].items() if not cell["contracts"]]
    assert empty, "this seed's three deals leave some denomination uncontracted"
    for d in empty:
        assert [play["by_denom"][d][k] for k in ("mean_level", "mean_tricks", "mean_declarer_net")] \
            == [None, None, None]
    summary = study.summaries["variants"]
    tables = [t for sec in sections(study.result.tables["variants"], summary,
                                    study.result.params["variants"], {"variants": []}) for t in sec.tables]
    for d in empty:
        for label in (f"declarer's net per contract (honors included), {d}: mean (95% interval)",
                      f"declarer's net per contract (honors included), {d}"):   # its change vs default
            [row] = [row for t in tables for row in t.rows if row[0] == label]
            assert set(row[1:]) == {"-"}


def test_lab_by_length_lines_break_where_a_length_is_missing_and_ticks_are_whole(tmp_path):
    # a line was drawn straight across a length left out (too few contracts), and the
    # level and length axes had ticks at 1.5 and 9.5
    import math

    from flowerbridge.lab.play import game_tricks_plot, sections
    from flowerbridge.lab.report import broken_line
    xs, ys = broken_line({"8": 10.0, "10": 30.0, "11": 35.0})
    assert xs == [8, 9, 10, 11] and ys[0] == 10.0 and math.isnan(ys[1]) and ys[2:] == [30.0, 35.0]
    assert broken_line({}) == ([], [])
    study = run_lab(tmp_path, ["play"], workers=1, n=8, seed=3, bots="basic")
    plots = {plot.caption.split(",")[0].split(":")[0]: plot.figure
             for section in sections(study.result.tables["play"], study.summaries["play"],
                                     study.result.params["play"], {}) for plot in section.plots}
    fits = {"P": {8: 10.0, 10: 20.0}, "R": {8: 30.0, 9: 40.0}, "A": {9: 50.0, 11: 60.0}}
    by_length = game_tricks_plot({"by_denom": {d: {"game_level": 4, "by_fit": {
        f: {"game_tricks": v, "contracts": 100, "game_tricks_contracts": int(v)} for f, v in fits[d].items()}}
        for d in fits}}).figure.axes[0]
    plains = by_length.get_lines()[0].get_ydata()
    assert len(plains) == 3 and math.isnan(plains[1])
    for axes in (plots["Contract levels reached."].axes[0], by_length):
        ticks = axes.get_xticks()
        assert len(ticks) and all(float(t).is_integer() for t in ticks), ticks
    made = plots["How often contracts make"].axes[0]
    from matplotlib.container import BarContainer, ErrorbarContainer
    contracted = [d for d, cell in study.summaries["play"]["by_denom"].items() if cell["contracts"]]
    [bars] = [c for c in made.containers if isinstance(c, BarContainer)]
    assert made.get_xlabel() and len(bars) == len(contracted)
    assert any(isinstance(c, ErrorbarContainer) for c in made.containers)


def test_lab_make_rate_plot_draws_a_denomination_whose_every_contract_made(tmp_path):
    # 6 of 6 made: Wilson's upper end, 100 % less a rounding, lay below the 100 % bar
    # and matplotlib refused the negative error bar, so the play report failed
    from flowerbridge.lab.play import sections
    study = run_lab(tmp_path, ["play"], workers=1, n=8, seed=3, bots="basic")
    summary = json.loads(json.dumps(study.summaries["play"]))
    assert wilson(6, 6)[1] < pct(6, 6)
    summary["by_denom"]["P"].update(contracts=6, made=6, make_rate=pct(6, 6))
    [section] = sections(study.result.tables["play"], summary, study.result.params["play"], {})
    made = section.plots[0].figure.axes[0]
    contracted = [cell for cell in summary["by_denom"].values() if cell["contracts"]]
    [bars] = error_bars(made)
    assert np.allclose(bars, [wilson(cell["made"], cell["contracts"]) for cell in contracted], atol=1e-9)


def test_lab_make_rate_bars_name_the_contracts_each_rests_on_and_levels_say_what_passed_out(tmp_path):
    # a bar of 1 contract at 100 % looked as sure as one of 91 (its interval's cap cut off at
    # the top), and the levels' bars added up to fewer hands than were played, unsaid
    from flowerbridge.lab.play import sections
    study = run_lab(tmp_path, ["play"], workers=1, n=8, seed=3, bots="basic")
    summary = json.loads(json.dumps(study.summaries["play"]))
    summary["by_denom"]["P"].update(contracts=1, made=1, make_rate=100.0)
    summary["passed_out"] = 2
    [section] = sections(study.result.tables["play"], summary, study.result.params["play"], {})
    made = section.plots[0].figure.axes[0]
    made.figure.canvas.draw()
    contracted = {d: cell["contracts"] for d, cell in summary["by_denom"].items() if cell["contracts"]}
    assert [t.get_text() for t in made.get_xticklabels()] == [f"{d}\n{count_text(n, 'contract')}"
                                                             for d, n in contracted.items()]
    assert "P\n1 contract" in [t.get_text() for t in made.get_xticklabels()]
    assert made.get_ylim()[1] > 100
    assert section.plots[2].caption == "Contract levels reached (the 2 hands passed out are not drawn)."


def test_lab_game_tricks_by_length_plot_draws_wilson_intervals_and_names_its_contracts():
    # points on 25 contracts were drawn like points on 400, with nothing to tell them apart
    from flowerbridge.lab.play import game_tricks_plot
    fits = {"P": {9: (1, 25), 10: (40, 400)}, "R": {9: (13, 19), 10: (80, 400)},
            "A": {9: (20, 100), 10: (90, 400)}}
    summary = {"by_denom": {d: {"game_level": 5 if d == "P" else 4, "by_fit": {
        f: {"contracts": n, "game_tricks_contracts": k, "game_tricks": pct(k, n)} for f, (k, n) in cells.items()}}
        for d, cells in fits.items()}}
    plot = game_tricks_plot(summary)
    axes = plot.figure.axes[0]
    bars = error_bars(axes)
    assert len(bars) == 3
    for series, d in zip(bars, "PRA"):
        expected = [wilson(k, n) for k, n in fits[d].values()]
        assert np.allclose(series, expected), (d, series, expected)
    labels = [t.get_text() for t in axes.get_legend().get_texts()]
    assert labels == ["P: 11+ tricks (425 contracts)", "R: 10+ tricks (419 contracts)",
                      "A: 10+ tricks (500 contracts)"]
    hollow = [line for line in axes.get_lines() if line.get_markerfacecolor() in ("white", (1, 1, 1, 1))]
    # 25 and 19 contracts, at length 9: P's set left of it (the suits' points apart), R's on it
    assert np.allclose(sorted(float(x) for line in hollow for x in line.get_xdata()), [9 - 0.15, 9])
    filled = max(line.get_zorder() for line in axes.get_lines() if line not in hollow)
    assert all(line.get_zorder() > filled for line in hollow)       # drawn over the filled markers
    assert "95% (Wilson) intervals" in plot.caption and "hollow" in plot.caption


def test_lab_by_length_plots_set_the_suits_apart_so_that_none_hides_another():
    # two suits with the same share and interval at a length were drawn one over the other:
    # the legend named Plains, the plot showed none (a dd run of 10 deals)
    from flowerbridge.lab import dd
    from flowerbridge.lab.play import game_tricks_plot
    cells = {7: {"contracts": 25, "game_tricks_contracts": 0, "game_tricks": 0.0},
             8: {"contracts": 25, "game_tricks_contracts": 5, "game_tricks": 20.0}}
    play = {"by_denom": {d: {"game_level": 4, "by_fit": cells} for d in "PRA"}}
    fits = {7: {"sides": 5, "game_makeable_sides": 0, "game_makeable": 0.0}}
    dd_summary = {"game_level": {"P": 5, "R": 4, "A": 4, "NT": 3}, "by_fit": {d: fits for d in "PRA"}}
    for figure in (game_tricks_plot(play).figure, dd.game_by_fit_plot(dd_summary).figure):
        axes = figure.axes[0]
        series = [line for line in axes.get_lines() if line.get_linestyle() != "None"]
        xs = [tuple(float(x) for x in line.get_xdata()) for line in series]
        assert len(xs) == 3 and len(set(xs)) == 3, xs                          # three places, not one
        assert all(abs(x - round(x)) < 0.5 for line in xs for x in line)         # each by its length
        figure.canvas.draw()
        legend, frame = axes.get_legend().get_window_extent(), axes.get_window_extent()
        assert legend.x0 >= frame.x1           # beside the axes: it covers no point nor bar


def test_lab_report_settings_write_a_variants_name_as_it_was_given(tmp_path):
    # every other table of report.html showed 한국; the run's settings wrote "\ud55c\uad6d"
    result = run_lab(tmp_path, ["variants"], n=4, seed=5, bots="random", workers=1,
                     variants=[["한국", {"undertrick_penalty": 100}]])
    page = (result.out / "report.html").read_text()
    settings = page[page.index("Settings of this run"):]
    assert "한국" in settings[:settings.index("</table>")] and "\\ud55c" not in page


def test_lab_by_length_plots_of_a_small_run_say_why_nothing_is_drawn():
    # a 30-hand run drew them empty: a tick at length 0, percentages below 0 and a legend of
    # "(0 contracts)" under a text that said no length had enough contracts
    from flowerbridge.lab import dd
    from flowerbridge.lab.play import game_tricks_plot
    empty_play = {"by_denom": {d: {"game_level": 4, "by_fit": {}} for d in "PRA"}}
    empty_dd = {"game_level": {"P": 5, "R": 4, "A": 4, "NT": 3}, "by_fit": {d: {} for d in "PRA"}}
    for plot, why in ((game_tricks_plot(empty_play), "no trump length had 20 contracts or more"),
                      (dd.game_by_fit_plot(empty_dd), "no length in a suit was held by 5 sides or more")):
        axes = plot.figure.axes[0]
        assert [t.get_text().startswith(why) for t in axes.texts] == [True]
        assert axes.get_legend() is None and list(axes.get_xticks()) == list(axes.get_yticks()) == []


def test_lab_undealt_table_gives_the_sampled_share_with_its_interval_beside_the_exact_one(tmp_path):
    # "both copies of a Bright undealt" sampled 9.60 % beside exact 7.77 %: without an
    # interval the designer could not tell noise from a bug
    from flowerbridge.lab.deals import undealt_plot, undealt_table
    study = run_lab(tmp_path, ["deals"], n=300, seed=2, workers=1)
    summary = study.summaries["deals"]
    table = undealt_table(summary)
    assert table.headers == ["", "sampled (95% interval)", "exact"]
    assert "300 deals" in table.caption
    rows = {row[0]: row for row in table.rows}
    bright = rows["both copies of a Bright undealt %"]
    k = int(np.count_nonzero(study.result.tables["deals"]["undealt_bright_pairs"] > 0))
    assert summary["undealt"]["sampled_deals"]["some_bright_pair"] == k
    assert bright[1] == rate_cell(k, 300) and bright[2] == pytest.approx(100 * exact_undealt_odds()["some_bright_pair"])
    honors = study.result.tables["deals"]["undealt_honors"]
    mean, lo, hi = rows["honor count undealt (mean)"][1].replace("(", "").replace(")", "").replace("–", " ").split()
    half = 1.968 * honors.std(ddof=1) / np.sqrt(300)
    assert float(lo) == pytest.approx(honors.mean() - half, abs=0.06) and float(hi) == pytest.approx(honors.mean() + half, abs=0.06)
    axes = undealt_plot(summary).figure.axes[0]
    [bars] = error_bars(axes)
    keys = ("some_bright", "some_pair", "some_honor_pair", "some_bright_pair")
    assert np.allclose(bars, [wilson(summary["undealt"]["sampled_deals"][key], 300) for key in keys])
    assert "sampled (300 deals)" in [t.get_text() for t in axes.get_legend().get_texts()]


def test_report_t_quantile_matches_students_tables():
    from flowerbridge.lab.report import t_quantile
    # (at 1 and 2 degrees of freedom the expansion gave 11.30 and 4.27: a mean of two
    # values had an interval 11 % too narrow)
    for df, table in ((1, 12.7062), (2, 4.3027), (3, 3.1824), (4, 2.7764), (5, 2.5706), (10, 2.2281),
                      (30, 2.0423), (120, 1.9799)):
        assert t_quantile(df) == pytest.approx(table, abs=0.0005), df


def test_report_mean_interval_is_students_t_interval_of_the_mean():
    from flowerbridge.lab.report import mean_interval
    mean, lo, hi = mean_interval(np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
    assert mean == 3.5 and hi - mean == pytest.approx(2.571 * np.std([1, 2, 3, 4, 5, 6], ddof=1) / np.sqrt(6), abs=0.01)


def test_lab_play_rows_are_the_engines_scores_and_variants_score_the_same_hands(tmp_path):
    from flowerbridge.lab.play import play_deal
    study = run_lab(tmp_path, ["play", "variants"], workers=1, **{**SMALL, "n": 20})
    play, var = study.result.tables["play"], study.result.tables["variants"]
    default = var.where(var["variant"] == "default")
    for column in PLAY_COLUMNS:
        assert list(play[column]) == list(default[column]), column
    for i in range(20):
        score = play_deal(5, i, "random").score().to_dict()
        for side in ("NS", "EW"):
            assert play[f"below_{side}"][i] == score["below"][side]
            assert play[f"above_{side}"][i] == score["above"][side]
            assert play[f"honors_{side}"][i] == score["honors"][side]
        assert play["contract"][i] == (score["contract"] or "")


def test_lab_game_level_where_no_single_contract_makes_game_is_named_so(tmp_path):
    # game_points above what 7NT scores: game comes from part-scores alone (R18); the
    # report said "game at 8P"
    from flowerbridge.lab.play import contract_table, game_level, hand_summary
    options = RuleOptions(game_points=300)
    assert {game_level(d, options) for d in Denomination} == {8}
    study = run_lab(tmp_path, ["play"], workers=1, **{**SMALL, "n": 12})
    summary = hand_summary(study.result.tables["play"], options)
    table = contract_table(summary, "contracts")
    column = table.headers.index("game at")
    assert [row[column] for row in table.rows] == ["no single contract"] * 4 + ["-"]   # (and passed out)
    assert all(row[table.headers.index("games bid")] == 0 for row in table.rows[:4])
    default = contract_table(study.summaries["play"], "contracts")
    assert [row[column] for row in default.rows] == ["5P", "4R", "4A", "3NT", "-"]


@pytest.mark.parametrize("option, value, message, keyword, api_message", [
    ("--workers", "0", "--workers 0: give a whole number from 1 to 256", "workers",
     "workers must be from 1 to 256, not 0"),
    ("--workers", "100000", "--workers 100000: give a whole number from 1 to 256", "workers",
     "workers must be from 1 to 256, not 100,000"),
    ("--chunk-size", "0", "--chunk-size 0: give a whole number from 1 to 100,000", "chunk_size",
     "chunk size must be from 1 to 100,000, not 0"),
    ("--chunk-size", "100000000", "--chunk-size 100000000: give a whole number from 1 to 100,000", "chunk_size",
     "chunk size must be from 1 to 100,000, not 100,000,000"),
    ("--n", "0", "--n 0: give a whole number from 1 to 100,000,000", "n",
     "the number of deals must be between 1 and 100,000,000, not 0"),
])
def test_lab_workers_chunk_size_and_n_are_bounded_before_any_work(tmp_path, capsys, option, value, message,
                                                                   keyword, api_message):
    # --workers 100000 started as many interpreters as there were chunks; the
    # command's messages name its options ("workers must be ..." named none)
    size = [] if option == "--n" else ["--n", "20"]
    status = main(["lab", "deals", *size, "--out", str(tmp_path / "run"), option, value, "--quiet"])
    assert status == 2 and capsys.readouterr().err == f"error: {message}\n"
    assert not (tmp_path / "run").exists()
    # the library's own check, named as its arguments are
    arguments = {"n": 20, "seed": 1, **{keyword: int(value)}}
    with pytest.raises(LabError) as refused:
        run(tmp_path / "run", ["deals"], **arguments)
    assert str(refused.value) == api_message
    assert not (tmp_path / "run").exists()


def test_lab_api_takes_one_analysis_named_alone_and_refuses_settings_that_are_not_whole_numbers(tmp_path):
    # run_lab(out, "variants") read the name as its letters ("a named more than once");
    # workers="1" failed with TypeError inside the checks
    study = run_lab(tmp_path / "one", "deals", n=4, seed=1, workers=1, report=False)
    assert list(study.summaries) == ["deals"] and len(study.result.tables["deals"]) == 4
    assert list(run(tmp_path / "run", "deals", n=4, seed=1, workers=1).tables) == ["deals"]   # (run too)
    # a seed no deal can be made from is refused before the folder is touched (it failed
    # in the first chunk); NumPy's whole numbers deal as Python's
    for seed in (1.5, None):
        with pytest.raises(LabError, match=f"^seed must be a whole number or a string, not {seed}$"):
            run_lab(tmp_path / "seed", "deals", n=4, seed=seed, workers=1)
        assert not (tmp_path / "seed").exists()
    numpy_seed = run_lab(tmp_path / "np", "deals", n=4, seed=np.int64(1), workers=1, report=False)
    assert numpy_seed.result.seed == 1 and (numpy_seed.result.tables["deals"]["hc_N"]
                                            == study.result.tables["deals"]["hc_N"]).all()
    for keyword, value, said in [("workers", "1", "workers must be from 1 to 256, not '1'"),
                                 ("workers", 1.0, "workers must be from 1 to 256, not 1.0"),
                                 ("chunk_size", 2.5, "chunk size must be from 1 to 100,000, not 2.5")]:
        with pytest.raises(LabError) as refused:
            run_lab(tmp_path / "bad", "deals", n=4, seed=1, **{keyword: value})
        assert str(refused.value) == said
        assert not (tmp_path / "bad").exists()


def test_lab_narrower_later_run_names_the_earlier_runs_csv_it_leaves_beside_its_report(tmp_path, capsys,
                                                                                     monkeypatch):
    # `lab deals play --n 20` then `lab deals --n 40` in one folder: the report and summary
    # cover deals alone, and play.csv (20 deals) stood beside them without a word
    monkeypatch.setattr("flowerbridge.lab.report.png_bytes", lambda figure: b"\x89PNG figure")
    out = tmp_path / "ov"
    common = ["--seed", "5", "--workers", "1", "--out", str(out), "--quiet"]
    assert main(["lab", "deals", "play", "--n", "20", "--bots", "random", *common]) == 0
    assert "earlier run" not in capsys.readouterr().out
    play = (out / "play.csv").read_bytes()
    assert main(["lab", "deals", "--n", "40", *common]) == 0
    said = capsys.readouterr().out
    assert f"{out / 'play.csv'} is from an earlier run of 20 deals, not in this report\n" in said
    assert (out / "play.csv").read_bytes() == play           # kept as it was
    summary = json.loads((out / "summary.json").read_text())
    assert list(summary["summaries"]) == ["deals"] and summary["earlier_results"] == {"play.csv": 20}
    assert "Also in this folder, from an earlier run and not in this report: <code>play.csv</code> " \
           "(20 deals)." in (out / "report.html").read_text()
    # run again with play, and all is of this run
    assert main(["lab", "deals", "play", "--n", "40", "--bots", "random", *common]) == 0
    assert "earlier run" not in capsys.readouterr().out
    assert json.loads((out / "summary.json").read_text())["earlier_results"] == {}


def test_lab_run_too_big_for_the_memory_available_is_refused_before_any_work(tmp_path, capsys,
                                                                            monkeypatch):
    # every row is held in the driving process from the merge on: a run too big for the
    # machine failed there, after all its computing
    from flowerbridge.lab.runner import memory_needed
    monkeypatch.setattr("flowerbridge.lab.runner.available_memory", lambda: 300 * 2**20)
    out = tmp_path / "big"
    status = main(["lab", "--n", "100000", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert status == 2
    assert err == ("error: 100,000 deals of deals, play, variants need about 686 MB of memory in this "
                   "process, which holds every row to merge them and sum them up, and 300 MB is "
                   "available: run fewer deals (--n) or analyses, or on a machine with more memory\n")
    assert not out.exists()
    # the designer's report counts both its runs, whose rows it holds together
    status = main(["lab", "--designer", str(tmp_path / "r.md"), "--n", "100000", "--out", str(out),
                   "--quiet"])
    assert status == 2 and "deals of deals, play and variants need about 686 MB" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "r").exists()
    # what fits runs
    assert memory_needed({"deals": {}}, 1000) < 300 * 2**20
    assert main(["lab", "deals", "--n", "1000", "--out", str(out), "--quiet"]) == 0


def test_lab_memory_estimate_is_above_what_merging_and_summing_up_take(tmp_path):
    import tracemalloc
    from flowerbridge.lab.runner import MEMORY_BASE, memory_needed
    taken = {}
    for n in (1000, 5000):
        run(tmp_path / str(n), ["deals"], n=n, seed=1, workers=1)       # computed; then measured:
        tracemalloc.start()
        run_lab(tmp_path / str(n), ["deals"], n=n, seed=1, workers=1, report=False)
        taken[n] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    per_deal = (taken[5000] - taken[1000]) / 4000
    assert per_deal < memory_needed({"deals": {}}, 1) - MEMORY_BASE < 2 * per_deal


def test_write_atomic_through_a_symlink_writes_the_file_it_leads_to(tmp_path):
    # (the link was replaced by a regular file: a designer's report kept elsewhere, and
    # linked to, was cut off from the link and left as it was)
    target = tmp_path / "keep" / "r.md"
    target.parent.mkdir()
    target.write_text("old\n", encoding="utf-8")
    link = tmp_path / "r.md"
    link.symlink_to(target)
    write_atomic(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text(encoding="utf-8") == "new\n"
    assert sorted(os.listdir(tmp_path)) == ["keep", "r.md"] and os.listdir(target.parent) == ["r.md"]


def test_write_atomic_keeps_the_permissions_of_the_file_it_replaces(tmp_path):
    # (the new file had 0666 less the umask: a report kept private became readable to all)
    report = tmp_path / "r.md"
    report.write_text("old\n", encoding="utf-8")
    report.chmod(0o640)
    write_atomic(report, ["new", "\n"])
    assert report.read_text(encoding="utf-8") == "new\n" and stat.S_IMODE(report.stat().st_mode) == 0o640


def test_a_result_file_that_is_a_symlink_stays_a_link_with_its_permissions(tmp_path):
    # a merged CSV linked to a file kept elsewhere: the staged file was renamed over the link
    # (which became a regular file, the file it led to left stale) with new permissions
    out = tmp_path / "out"
    out.mkdir()
    kept = tmp_path / "kept" / "deals.csv"
    kept.parent.mkdir()
    kept.write_text("stale\n", encoding="utf-8")
    kept.chmod(0o600)
    (out / "deals.csv").symlink_to(kept)
    staged = Staged(out)
    staged.write("deals.csv", "deal\n1\n")
    assert kept.read_text(encoding="utf-8") == "stale\n"             # not in place until the commit
    staged.commit()
    assert (out / "deals.csv").is_symlink() and os.readlink(out / "deals.csv") == str(kept)
    assert kept.read_text(encoding="utf-8") == "deal\n1\n" and stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert os.listdir(out) == ["deals.csv"] and os.listdir(kept.parent) == ["deals.csv"]


def test_a_run_removes_the_result_files_staged_by_a_run_killed_as_it_wrote_them(tmp_path):
    # (SIGKILL while the results were written left a hidden copy of every merged CSV
    # in the folder for good, another at each such kill)
    run_lab(tmp_path, ["deals"], n=10, seed=1, workers=1, chunk_size=5)
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()                                        # a process number no process has now
    dead = [f".deals.csv.{ended.pid}.staged", f".summary.json.{ended.pid}.staged",
            f"..deals.csv.{ended.pid}.staged.0a1b2c3d.tmp"]
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    alive = [f".deals.csv.{running.pid}.staged", ".notes.staged", "..x.staged.tmp"]
    for name in dead + alive:
        (tmp_path / name).write_text("deal\n1\n", encoding="utf-8")
    results = {name: (tmp_path / name).read_bytes() for name in ("deals.csv", "summary.json")}
    try:
        run_lab(tmp_path, ["deals"], n=10, seed=1, workers=1, chunk_size=5)
    finally:
        running.kill()
        running.wait()
    assert not [name for name in dead if (tmp_path / name).exists()]
    assert all((tmp_path / name).exists() for name in alive)    # a running process's, or not the lab's
    assert {name: (tmp_path / name).read_bytes() for name in results} == results


def test_report_axes_of_whole_numbers_tick_whole_numbers_with_one_length_drawn():
    # (one trump length drawn, at 10: ticks 9.45, 9.60 ... 10.50 on a length)
    from flowerbridge.lab.report import new_figure, whole_number_ticks
    ax = new_figure().add_subplot()
    ax.plot([10], [50.0], "o")
    whole_number_ticks(ax)
    ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)


def ticked_whole_numbers(ax) -> list[int]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    FigureCanvasAgg(ax.figure).draw()
    low, high = ax.get_xlim()
    return [int(t) for t in ax.get_xticks() if low <= t <= high]


def test_lab_by_length_plots_tick_the_lowest_and_highest_length_drawn():
    # (a small run: Animals at 10 cards drawn at 10.15, Ribbons at 11: the axis began
    # past 10 and its one tick, 11, stood under the Ribbons point alone)
    from flowerbridge.lab.dd import game_by_fit_plot
    from flowerbridge.lab.play import game_tricks_plot
    play = {d: {"game_level": 4, "by_fit": {}} for d in "PRA"}
    play["R"]["by_fit"] = {"11": {"contracts": 21, "game_tricks_contracts": 9}}
    play["A"]["by_fit"] = {"10": {"contracts": 35, "game_tricks_contracts": 20}}
    dd = {"game_level": {"P": 5, "R": 4, "A": 4},
          "by_fit": {"P": {"9": {"sides": 40, "game_makeable_sides": 3}},
                     "R": {"9": {"sides": 40, "game_makeable_sides": 5},
                           "10": {"sides": 30, "game_makeable_sides": 9}},
                     "A": {"8": {"sides": 35, "game_makeable_sides": 1},
                           "9": {"sides": 33, "game_makeable_sides": 4}}}}
    for plot, lengths in ((game_tricks_plot({"by_denom": play}), {10, 11}), (game_by_fit_plot(dd), {8, 9, 10})):
        assert lengths <= set(ticked_whole_numbers(plot.figure.axes[0]))


def test_lab_manifest_with_an_impossible_chunk_size_is_no_lab_manifest(tmp_path, capsys):
    # (it was blamed on a --chunk-size never given: "dropping --chunk-size resumes it")
    assert main(["lab", "deals", "--n", "10", "--seed", "1", "--out", str(tmp_path), "--quiet"]) == 0
    capsys.readouterr()
    manifest = tmp_path / "lab.json"
    recorded = json.loads(manifest.read_text(encoding="utf-8"))
    for bad in (0, "100", 10 ** 9, True):
        recorded["analyses"]["deals"]["chunk_size"] = bad
        manifest.write_text(json.dumps(recorded), encoding="utf-8")
        assert main(["lab", "deals", "--n", "10", "--seed", "1", "--out", str(tmp_path), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err == (f"error: {manifest}: not a lab manifest (its deals run's chunk_size is "
                       f"{json.dumps(bad)}, not a whole number from 1 to 100,000)\n"), err
        assert json.loads(manifest.read_text(encoding="utf-8"))["analyses"]["deals"]["chunk_size"] == bad


def test_lab_a_result_it_cannot_write_is_named_not_its_hidden_temporary_file(tmp_path, capsys):
    # (it read ".../chunks/deals/.0000000-0000005.csv.b93e61c3.tmp: Not a directory")
    command = ["lab", "deals", "--n", "10", "--seed", "1", "--out", str(tmp_path), "--chunk-size", "5",
               "--workers", "1", "--quiet"]
    assert main(command) == 0
    capsys.readouterr()
    chunks = tmp_path / "chunks" / "deals"
    for chunk in chunks.iterdir():
        chunk.unlink()
    chunks.rmdir()
    chunks.write_text("in the way\n", encoding="utf-8")       # a file where the folder was
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err == f"error: {chunks / '0000000-0000005.csv'}: Not a directory\n", err


@pytest.mark.parametrize("pathconf", ["missing", -1, 0])
def test_files_the_name_limit_falls_back_to_255_where_the_system_gives_none(tmp_path, monkeypatch, pathconf):
    # Windows has no os.pathconf (every write raised AttributeError), and POSIX may call
    # the limit indeterminate (-1: shortening the temporary name never ended)
    import os

    from flowerbridge import _files

    if pathconf == "missing":
        monkeypatch.delattr(os, "pathconf")
    else:
        monkeypatch.setattr(os, "pathconf", lambda path, name: pathconf)
    assert _files.name_max(tmp_path) == 255
    target = tmp_path / ("s" * 250 + ".json")
    _files.replace_whole(target, lambda fh: fh.write(b"{}"))
    assert target.read_bytes() == b"{}" and os.listdir(tmp_path) == [target.name]


def test_files_replace_whole_names_its_target_when_the_folder_cannot_take_the_file(tmp_path):
    from flowerbridge._files import replace_whole
    target = tmp_path / "gone" / "lab.json"                   # no such folder
    with pytest.raises(FileNotFoundError) as err:
        replace_whole(target, lambda fh: fh.write(b"{}"))
    assert err.value.filename == str(target)
    (tmp_path / "dir.json").mkdir()                           # the rename refused: a folder there
    with pytest.raises(IsADirectoryError) as err:
        replace_whole(tmp_path / "dir.json", lambda fh: fh.write(b"{}"))
    assert err.value.filename == str(tmp_path / "dir.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.json"]       # no temporary file left


def test_report_figure_with_a_korean_label_is_drawn_without_a_warning_per_glyph(monkeypatch):
    # (a variant named '한국' printed "UserWarning: Glyph 54620 (...) missing from font(s)
    # DejaVu Sans." and its source line for each glyph; a font that has them is used where installed)
    import warnings

    from matplotlib.text import Text

    from flowerbridge.lab import report

    def figure():
        fig = report.new_figure()
        ax = fig.add_subplot()
        ax.bar(["default", "한국", "日本"], [1, 2, 3])
        ax.set_title("규칙 한국")
        return fig

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        png = report.png_bytes(figure())
    assert png.startswith(b"\x89PNG") and not [w for w in caught if "Glyph" in str(w.message)]
    monkeypatch.setattr(report, "installed_fonts", lambda: {"DejaVu Sans", "NanumGothic", "Noto Sans CJK KR"})
    fig = figure()
    report.png_bytes(fig)
    title = [t for t in fig.findobj(Text) if t.get_text() == "규칙 한국"]
    assert title and title[0].get_fontfamily() == ["DejaVu Sans", "Noto Sans CJK KR", "NanumGothic"]


def test_lab_play_summary_gives_no_figure_where_there_is_nothing_to_count_and_its_table_adds_up(tmp_path):
    # a denomination with no contract had game_tricks 0.0 beside make_rate null; No Trump got a
    # by-length entry for a "fit" of 0 cards (decl_fit is 0 there); the contracts table's % of
    # hands added up to 98 with the passed-out hands left out; and a deals-only run listed six
    # rule sets in its settings as compared
    from flowerbridge.lab.play import contract_table
    study = run_lab(tmp_path / "play", ["play"], n=4, seed=8, bots="random", workers=1, report=False)
    play = study.summaries["play"]
    empty = [d for d, cell in play["by_denom"].items() if not cell["contracts"]]
    assert empty == ["P", "NT"] and play["passed_out"] == 1       # (seed 8's four hands)
    for d in empty:
        cell = play["by_denom"][d]
        assert (cell["make_rate"], cell["game_tricks"], cell["mean_tricks"]) == (None, None, None)
    table = contract_table(play, "contracts")
    share = table.headers.index("% of hands")
    assert table.rows[-1][:3] == ["passed out", 1, 25.0]
    assert sum(row[share] for row in table.rows) == pytest.approx(100)
    assert sum(row[1] for row in table.rows) == 4
    many = run_lab(tmp_path / "many", ["play"], n=400, seed=2, bots="random", workers=1, report=False)
    nt = many.summaries["play"]["by_denom"]["NT"]
    assert nt["contracts"] >= 20 and nt["by_fit"] == {}
    assert any(many.summaries["play"]["by_denom"][d]["by_fit"] for d in "PRA")
    saved = json.loads((tmp_path / "play" / "summary.json").read_text())
    assert saved["settings"]["variants"] is None
    assert saved["summaries"]["play"]["by_denom"][empty[0]]["game_tricks"] is None
    compared = run_lab(tmp_path / "vs", ["variants"], n=4, seed=5, workers=1, report=False)
    assert json.loads((tmp_path / "vs" / "summary.json").read_text())["settings"]["variants"]
    assert compared.summaries["variants"]


def test_lab_more_workers_than_cpus_is_taken_with_a_note_saying_they_only_share_them(tmp_path, capsys,
                                                                                    monkeypatch):
    # 256 workers on 2 CPUs were taken without a word (and took 66 s on 3,000 chunks)
    from flowerbridge.lab import runner as runner_module

    monkeypatch.setattr(runner_module, "usable_cpus", lambda: 2)
    for workers, noted in (("2", False), ("3", True)):
        out = tmp_path / f"w{workers}"
        assert main(["lab", "deals", "--n", "4", "--out", str(out), "--workers", workers]) == 0
        err = capsys.readouterr().err
        assert ("note: --workers 3 on 2 CPUs: workers beyond one a CPU share them" in err) is noted, err
        assert len(list(out.glob("chunks/deals/*.csv"))) == 1
    # --quiet asks for nothing but errors
    assert main(["lab", "deals", "--n", "4", "--out", str(tmp_path / "q"), "--workers", "3", "--quiet"]) == 0
    assert "note" not in capsys.readouterr().err


def test_lab_variant_changes_count_any_margin_that_moves_and_a_tie_made_or_broken_as_a_winner_change():
    from flowerbridge.lab.variants import changes
    reference = np.array([10, -10, 0, 30, 5])
    margin = np.array([0, -20, 0, 40, -5])   # tie made, EW further ahead, same, NS further, swapped
    assert changes(margin, reference) == (4, 2)
    assert changes(np.array([10, -10, 30]), np.array([20, 0, 30])) == (2, 1)     # a tie broken
    assert changes(reference, reference) == (0, 0)


def test_lab_plains_30_variant_scores_plains_contracts_and_overtricks_as_ribbons():
    # docs/lab.md: plains-30 is "Plains scored like Ribbons"
    from flowerbridge import Contract, Denomination, Seat
    from flowerbridge.lab.variants import DEFAULT_VARIANTS, variant_options
    from flowerbridge.scoring import score_contract
    options = dict(variant_options([list(v) for v in DEFAULT_VARIANTS]))["plains-30"]
    for level in range(1, 8):
        for taken in range(level + 6, 14):
            plains, ribbons = (score_contract(Contract(level, d, Seat.N), (taken, 13 - taken), ([], []), options)
                               for d in (Denomination.P, Denomination.R))
            assert [i.points for i in plains.items] == [i.points for i in ribbons.items], (level, taken)
            assert len(plains.items) == (2 if taken > level + 6 else 1)          # overtricks scored too


def test_lab_plains_25_variant_scores_plains_25_a_level_with_game_at_4p():
    # the designer's report weighs Plains at 25 a level (4 x 25 = 100, game at 4P) beside
    # plains-30: both are run by default, so that its advice rests on a measured figure
    from flowerbridge import Contract, Denomination, Seat
    from flowerbridge.lab.variants import DEFAULT_VARIANTS, variant_options
    from flowerbridge.scoring import score_contract
    options = dict(variant_options([list(v) for v in DEFAULT_VARIANTS]))["plains-25"]
    for level in range(1, 8):
        for taken in range(level + 6, 14):
            score = score_contract(Contract(level, Denomination.P, Seat.N), (taken, 13 - taken), ([], []), options)
            assert [i.points for i in score.items] == [25 * level] + ([25 * (taken - level - 6)] if taken > level + 6
                                                                     else [])
    assert 3 * 25 < options.game_points <= 4 * 25


def test_lab_share_points_are_hollow_under_30_cases_and_filled_from_30():
    from matplotlib.figure import Figure
    from flowerbridge.lab.report import FEW, share_points
    ax = Figure().add_subplot()
    share_points(ax, {8: (10, FEW), 9: (10, FEW - 1)}, "k", "x")
    hollow = [list(line.get_xdata()) for line in ax.lines if line.get_markerfacecolor() in ("white", (1, 1, 1, 1))]
    assert FEW == 30 and hollow == [[9]]


def test_lab_play_summary_figures_are_recounted_from_the_engines_hands(tmp_path):
    # docs/lab.md: every figure of the play summary, recounted here from the engine's own
    # hands and scores (not from the lab's rows): tricks of the declaring side, the side's
    # trump fit, games bid at the game level or above (5P, 4R, 4A, 3NT), tricks enough for
    # game, the declarer's net with everything above the line, margins, per-hand points
    # over every hand dealt, the Five and Ten Bright rates
    from flowerbridge.lab.play import play_deal
    n = 120
    study = run_lab(tmp_path, ["play"], workers=1, **{**SMALL, "n": n})
    summary, rows = study.summaries["play"], study.result.tables["play"]
    game_at = {"P": 5, "R": 4, "A": 4, "NT": 3}
    per = {d: {"contracts": 0, "made": 0, "games_bid": 0, "games_made": 0, "tricks": [], "game_tricks": 0,
               "net": [], "fits": []} for d in game_at}
    honor_gaps, overtricks, five, ten = [], 0, 0, 0
    for i in range(n):
        state = play_deal(SMALL["seed"], i, "random")
        score = state.score()
        sides = {side: (score.below(side), score.above(side), score.honors(side) + score.bright_bonus(side))
                 for side in Side}
        honor_gaps.append(abs(sides[Side.NS][2] - sides[Side.EW][2]))
        overtricks += sum(item.points for item in score.items if item.rule == "R14")
        bonuses = [item.label for item in score.items if item.rule == "R17"]
        five += any(label.startswith("Five") for label in bonuses)
        ten += any(label.startswith("Ten") for label in bonuses)
        contract = score.contract
        if contract is None:
            continue
        d = contract.denomination.name
        side = contract.side
        taken = score.tricks[side]
        assert rows["tricks"][i] == taken
        cell = per[d]
        cell["contracts"] += 1
        cell["made"] += taken >= contract.level + 6
        cell["games_bid"] += contract.level >= game_at[d]
        cell["games_made"] += contract.level >= game_at[d] and taken >= contract.level + 6
        cell["tricks"].append(taken)
        cell["game_tricks"] += taken >= game_at[d] + 6
        ours, theirs = sides[side], sides[side.other]
        cell["net"].append(ours[0] + ours[1] - theirs[0] - theirs[1])
        if contract.trump is not None:
            fit = sum(card.suit is contract.trump for seat in (contract.declarer, contract.declarer.partner)
                      for card in state.deal.hands[seat])
            assert rows["decl_fit"][i] == fit
            cell["fits"].append(fit)
    for d, cell in per.items():
        got = summary["by_denom"][d]
        assert (got["contracts"], got["made"], got["games_bid"], got["games_made"]) == \
            (cell["contracts"], cell["made"], cell["games_bid"], cell["games_made"]), d
        assert got["game_level"] == game_at[d]
        if cell["contracts"]:
            assert got["mean_tricks"] == pytest.approx(np.mean(cell["tricks"]))
            assert got["game_tricks"] == pytest.approx(100 * cell["game_tricks"] / cell["contracts"])
            assert got["mean_declarer_net"] == pytest.approx(np.mean(cell["net"]))
        if cell["fits"]:
            assert set(got["by_fit"]) <= set(cell["fits"])
    assert sum(cell["games_bid"] for cell in per.values()) > 0         # the rule was exercised
    assert summary["honor_margin"] == pytest.approx(np.mean(honor_gaps))
    assert summary["points_per_hand"]["overtricks"] == pytest.approx(overtricks / n)
    # the whole score a hand is the sum of its sources, with a t interval around it
    whole, lo, hi = summary["points_per_hand_total"]
    assert whole == pytest.approx(sum(summary["points_per_hand"].values()))
    assert lo < whole < hi
    assert (summary["five_bright_rate"], summary["ten_bright_rate"]) == \
        (pytest.approx(100 * five / n), pytest.approx(100 * ten / n))
    assert five > ten                                                   # (Five Bright is the commoner)


def test_r12_twin_counts_of_the_rules_example_hand():
    # docs/rules.md's example hand (docs/examples/hand1.json): both copies of a card fall in
    # tricks 1 (6A), 2 (2R), 4 (1Pa), 6 (7A) and 12 (9P); only in trick 12 does the first copy
    # win, North's 9P over East's, an opponent's, played after it (R12)
    from flowerbridge.lab.play import twin_counts
    from flowerbridge.records import loads
    record = loads((Path(__file__).resolve().parent.parent / "docs" / "examples" / "hand1.json").read_text())
    assert twin_counts(record.state) == (5, 1)


def test_r12_a_twin_from_the_winners_partner_decides_no_side():
    # the first copy wins whichever copy partner plays: the trick is the side's either way
    from types import SimpleNamespace

    from flowerbridge.cards import parse_card
    from flowerbridge.lab.play import twin_counts
    from flowerbridge.seats import Seat
    nine, low, ten = parse_card("9P"), parse_card("2P"), parse_card("10P")
    partners = SimpleNamespace(plays=[(Seat.N, nine), (Seat.E, low), (Seat.S, nine), (Seat.W, low)], winner=Seat.N)
    opponents = SimpleNamespace(plays=[(Seat.N, nine), (Seat.E, nine), (Seat.S, low), (Seat.W, low)], winner=Seat.N)
    beaten = SimpleNamespace(plays=[(Seat.N, nine), (Seat.E, nine), (Seat.S, ten), (Seat.W, low)], winner=Seat.S)
    assert twin_counts(SimpleNamespace(tricks=[partners])) == (1, 0)
    assert twin_counts(SimpleNamespace(tricks=[opponents])) == (1, 1)
    assert twin_counts(SimpleNamespace(tricks=[beaten])) == (1, 0)     # (twins, but a higher card won)
    assert twin_counts(SimpleNamespace(tricks=[partners, opponents, beaten])) == (3, 1)


def test_lab_play_summary_twin_figures_are_recounted_from_the_engines_tricks(tmp_path):
    # docs/lab.md: twin_tricks and twin_wins of tricks_played, recounted from the engine's
    # tricks; the sentence of the report says them with their intervals
    from flowerbridge.lab.play import play_deal, twin_shares
    n = 60
    study = run_lab(tmp_path, ["play"], workers=1, **{**SMALL, "n": n})
    summary = study.summaries["play"]
    both = won = hands = played = 0
    for i in range(n):
        state = play_deal(SMALL["seed"], i, "random")
        if state.contract is None:
            continue
        played += 1
        won_here = 0
        for trick in state.tricks:
            seats = {}
            for seat, card in trick.plays:
                seats.setdefault(card.index, []).append(seat)
            pairs = [s for s in seats.values() if len(s) == 2]
            both += bool(pairs)
            won_here += any(s[0] is trick.winner and s[1].side is not trick.winner.side for s in pairs)
        won += won_here
        hands += won_here > 0
    assert (summary["tricks_played"], summary["twin_tricks"], summary["twin_wins"], summary["twin_win_hands"]) \
        == (13 * played, both, won, hands)
    assert both > won > 0                                               # (the rule was exercised)
    lo, hi = summary["twin_win_interval"]
    assert summary["twin_win_rate"] == pytest.approx(100 * won / (13 * played))
    assert lo < summary["twin_win_rate"] < hi
    said = twin_shares(summary)
    assert f"in {summary['twin_trick_rate']:.1f}% (95% interval " in said and f"of the {13 * played:,} tricks" in said


def test_lab_a_bot_that_takes_no_seed_is_built_without_one(tmp_path, monkeypatch):
    # (load_bot passes a factory only the keywords it takes; a TypeError inside the bot's
    # own constructor is the bot's fault, said as such, not a reason to build it unseeded)
    from flowerbridge.lab.play import make_bots
    (tmp_path / "seedless.py").write_text(
        "from flowerbridge.bots import RandomBot\n"
        "class Seedless:\n"
        "    def __init__(self):\n"
        "        self.inner = RandomBot(seed=1)\n"
        "    def act(self, observation):\n"
        "        return self.inner.act(observation)\n"
        "class Broken:\n"
        "    def __init__(self, seed):\n"
        "        raise TypeError('bug inside the bot')\n"
        "    def act(self, observation):\n"
        "        return None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    bots = make_bots("seedless:Seedless", 7, 0)
    assert sorted(s.name for s in bots) == ["E", "N", "S", "W"]
    assert all(type(b).__name__ == "Seedless" for b in bots.values())
    with pytest.raises(LabError, match="bug inside the bot"):
        make_bots("seedless:Broken", 7, 0)


def test_ch14_lab_deals_counts_the_brights_a_side_is_dealt_beside_what_it_earns(tmp_path):
    # Five Bright needs one copy of each of the five Brights captured, Ten Bright all ten
    # (Chapter 14): how often a side is dealt them, counted here from the deals themselves
    study = run_lab(tmp_path, ["deals"], n=300, seed=9, workers=1)
    held = study.summaries["deals"]["brights_held"]
    five = ten = 0
    spread = [0] * 6
    for i in range(300):
        deal = Deal.from_seed(9, i)
        sides = [[c for s in side.seats for c in deal.hands[s] if c.kind.name == "BRIGHT"]
                 for side in (Side.NS, Side.EW)]
        five += any(len(set(cards)) == 5 for cards in sides)
        ten += any(len(cards) == 10 for cards in sides)
        for cards in sides:
            spread[len(set(cards))] += 1
    assert held["deals"] == {"five": five, "ten": ten} and held["distinct_histogram"] == spread
    assert 15 < held["share"]["five"] < 40      # (26.3 % exactly, by counting)
    report = study.report.read_text()
    assert "deals where a side holds one of each of the five Brights" in report
    assert "deals where a side holds all ten Bright copies" in report
    # the spread is of sides, two a deal (it was headed "% of deals")
    assert "sides holding 5 different Brights" in report and sum(spread) == 600
