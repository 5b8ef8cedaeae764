"""The designer's report (issue #6, part 4): one command, four questions, figures beside it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from flowerbridge import PASS, FlowerBridgeError
from flowerbridge.cli import main


def test_lab_designer_report_answers_the_six_questions(tmp_path, monkeypatch, capsys):
    pytest.importorskip("flowerbridge.solver")
    from test_lab_dd import fake_dd_table
    monkeypatch.setattr("flowerbridge.solver.dd_table", fake_dd_table)
    report = tmp_path / "docs" / "designer-report.md"
    report.parent.mkdir()  # the report's folder must exist (its figures' folder is made beside it)
    status = main(["lab", "--designer", str(report), "--n", "80", "--seed", "3", "--dd-n", "40",
                   "--bots", "random", "--workers", "1", "--out", str(tmp_path / "run"), "--quiet"])
    assert status == 0, capsys.readouterr().err
    text = report.read_text()
    for heading in ("## 1. Is a 30-point Ribbon or Animal contract worth a 20-point Plain one?",
                    "## 2. What does the mystery discard hide?",
                    "## 3. How much do honors and Bright bonuses weigh against contract points?",
                    "## 4. What does an undertrick penalty change? (The rulebook states none; R15 adds 50 a trick.)",
                    "## 5. How much honor count makes a game? (Chapter 10)",
                    "## 6. How often does the identical-card rule decide a trick? (R12)",
                    "## What the data suggest"):
        assert heading in text
    assert "Built from **80 deals** (seed 3)" in text
    # the command that rebuilds it, from the same folder
    assert f"--n 80 --seed 3 --dd-n 40 --bots random --out {tmp_path / 'run'}" in text
    assert "Counting the contract's score alone, par under the strict reading scores nothing in" in text
    assert "game makeable (%) in a suit by a side's length in it, both sides of every deal" in text
    assert "the side ahead on the hand changes in" in text and "% (95% interval " in text
    assert "a tie made or broken counts as a change" in text     # what "changes" counts
    assert "analysed the first **40** of these deals" in text
    for figure in ("undealt", "points", "games", "honor-games"):
        assert f"(designer-report/{figure}.png)" in text
        assert (tmp_path / "docs" / "designer-report" / f"{figure}.png").stat().st_size > 1000
    assert (tmp_path / "run" / "report.html").exists() and (tmp_path / "run" / "dd" / "dd.csv").exists()
    assert "(the double-dummy part's in its `dd/` folder)" in text   # where to find dd.csv


def test_lab_designer_report_refuses_more_dd_deals_than_deals(tmp_path, capsys):
    status = main(["lab", "--designer", str(tmp_path / "r.md"), "--n", "10", "--dd-n", "11",
                   "--out", str(tmp_path / "run"), "--quiet"])
    assert status == 2
    assert capsys.readouterr().err == "error: --dd-n must be from 0 to the number of deals, --n (10), not 11\n"


@pytest.mark.parametrize("report, extra, complaint", [
    ("report", [], "needs a file name with a suffix"),          # its figures' folder would be itself
    ("folder.md/", [], "folder.md: is a folder; the designer's report is a file"),   # (was: "needs a suffix")
    ("r.md", ["play"], "drop analyses"),
    ("r.md", ["--variant", 'x={"undertrick_penalty": 0}'], "drop --variant"),
    ("r.md", ["--chunk-size", "5"], "drop --chunk-size"),
])
def test_lab_designer_report_refuses_what_it_cannot_honour_before_any_work(tmp_path, capsys,
                                                                          report, extra, complaint):
    (tmp_path / "folder.md").mkdir()
    status = main(["lab", "--designer", str(tmp_path / report), "--n", "4", *extra,
                   "--out", str(tmp_path / "run"), "--quiet"])
    assert status == 2 and complaint in capsys.readouterr().err
    assert not (tmp_path / "run" / "chunks").exists()       # nothing was computed


def test_lab_designer_report_refuses_a_file_in_the_way_of_its_figures_before_any_work(tmp_path,
                                                                                    capsys):
    (tmp_path / "r").write_text("not a folder")
    status = main(["lab", "--designer", str(tmp_path / "r.md"), "--n", "4",
                   "--out", str(tmp_path / "run"), "--quiet"])
    assert status == 2 and "in the way of the report's figures folder" in capsys.readouterr().err
    assert not (tmp_path / "run" / "chunks").exists()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc, where no folder can be made")
def test_lab_designer_report_refuses_a_figures_folder_it_cannot_make_before_any_work(tmp_path, capsys):
    # it found out after the whole run (hours, with --dd-n), in words that did not say what failed
    status = main(["lab", "--designer", "/proc/flowerbridge-report.md", "--n", "4",
                   "--out", str(tmp_path / "run"), "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("error: /proc/flowerbridge-report: cannot make the "
                                          "report's figures folder: "), err
    assert not (tmp_path / "run").exists()


def test_lab_designer_report_that_fails_leaves_no_empty_figures_folder(tmp_path, capsys):
    status = main(["lab", "--designer", str(tmp_path / "r.md"), "--n", "4", "--bots", "no-such-bot",
                   "--out", str(tmp_path / "run"), "--quiet"])
    assert status == 2 and "no-such-bot" in capsys.readouterr().err
    assert not (tmp_path / "r").exists() and not (tmp_path / "r.md").exists()


def test_lab_designer_report_refuses_a_seed_it_cannot_write_and_keeps_the_old_report(tmp_path,
                                                                                     capsys):
    report = tmp_path / "r.md"
    report.write_text("the report of an earlier run")
    status = main(["lab", "--designer", str(report), "--n", "4", "--seed", "a\udcffb",
                   "--out", str(tmp_path / "run"), "--quiet"])
    err = capsys.readouterr().err       # (the command line refuses it first, as for every command)
    assert status == 2 and err == "error: --seed 'a\\udcffb': not UTF-8 text\n"
    assert report.read_text() == "the report of an earlier run"
    assert not (tmp_path / "run").exists()
    # and so does the report's own check, for a seed given from Python
    from flowerbridge.lab.designer import write_designer_report
    with pytest.raises(FlowerBridgeError, match=r"the seed 'a\\udcffb' is not UTF-8 text"):
        write_designer_report(report, tmp_path / "run", n=4, seed="a\udcffb")
    assert report.read_text() == "the report of an earlier run"
    assert not (tmp_path / "run").exists()


def test_designer_figure_links_with_a_space_are_written_in_angle_brackets():
    from flowerbridge.lab.designer import _image
    from flowerbridge.lab.report import Plot

    plots = {"games": Plot(None, "Hands per game")}
    assert _image("rép ort", "games", plots)[0] == "![Hands per game](<rép ort/games.png>)"
    assert _image("report", "games", plots)[0] == "![Hands per game](report/games.png)"


def test_designer_plains_gap_is_the_mean_over_lengths_of_ribbons_and_animals_less_plains():
    from flowerbridge.lab.designer import _gap_statistic
    rates = np.array([[10, 20, 30, 0, 40, 60]], dtype=float)   # cells (length, P/R/A)
    assert _gap_statistic(2)(rates).tolist() == [32.5]         # (15 + 50) / 2


def test_designer_plains_gap_interval_holds_its_estimate(tmp_path, monkeypatch):
    pytest.importorskip("flowerbridge.solver")
    from test_lab_dd import fake_dd_table
    from flowerbridge.lab import run_lab
    from flowerbridge.lab.designer import _game_gap, _gap_intervals
    monkeypatch.setattr("flowerbridge.solver.dd_table", fake_dd_table)
    play = run_lab(tmp_path / "p", ["play"], n=20, seed=3, bots="random", workers=1)
    dd = run_lab(tmp_path / "d", ["dd"], n=150, seed=3, workers=1)
    summary = dd.summaries["dd"]
    gaps = _gap_intervals(play, summary, dd.result.tables["dd"])
    estimate = _game_gap(summary["by_fit"], "game_makeable")
    assert estimate is not None and gaps["dd"] is not None
    lo, hi = gaps["dd"]
    assert lo - 1e-9 <= estimate <= hi + 1e-9 and hi - lo < 100
    assert _gap_intervals(play, summary, dd.result.tables["dd"]) == gaps      # seeded


def test_designer_plains_gap_names_the_fit_lengths_it_was_averaged_over(tmp_path):
    # a length some suit has too few contracts of is left out of the gap, and the
    # sentence says which lengths are in it (it said 8-11 whatever they were)
    from flowerbridge.lab import run_lab
    from flowerbridge.lab.designer import _lengths, _suggestions
    run = run_lab(tmp_path / "p", ["deals", "play"], n=20, seed=3, bots="random", workers=1)
    deals, play = run.summaries["deals"], run.summaries["play"]
    cell = {"contracts": 40, "game_tricks": 10.0, "mean_tricks": 8.0}
    for x, rate in (("P", 10.0), ("R", 30.0), ("A", 30.0)):
        play["by_denom"][x]["by_fit"] = {length: {**cell, "game_tricks": rate}
                                         for length in (8, 9, 10, 11) if (x, length) != ("P", 8)}
    [plains] = [s for s in _suggestions(deals, play, {}, None, {}) if "Plains are worth" in s]
    assert "20 percentage points" in plains and "(fits of 9–11 cards)" in plains and "8–11" not in plains
    assert (_lengths([8, 9, 10, 11]), _lengths([9, 11]), _lengths([10])) == ("8–11", "9, 11", "10")


def _summaries(plains: float, others: float, tricks=(8.0, 8.0, 8.0)):
    """A deals and a play summary whose 8-card fits reach game tricks at these rates."""
    play = {"by_denom": {x: {"by_fit": {8: {"contracts": 100, "game_tricks": rate, "mean_tricks": t}},
                             "mean_tricks": t, "game_level": level}
                         for x, rate, t, level in zip("PRA", (plains, others, others), tricks, (5, 4, 4))},
            "points_per_hand": {"honors": 1, "Bright bonuses": 1, "contract points (below)": 10,
                                "overtricks": 2, "undertrick penalties": 3},
            "honor_margin": 1, "score_margin": 2, "contracts": 300}
    deals = {"undealt": {"exact": {"some_bright": .79, "some_pair": .41, "some_bright_pair": .077}}}
    return deals, play


@pytest.mark.parametrize("plains, others, interval, headline, says", [
    (10, 30, (12, 28), "**Plains are worth less than their price.**",
     "20 percentage points (95% interval 12 to 28) more often"),
    (10, 30, None, "**Plains are worth less than their price.**", "20 percentage points more often"),
    (30, 10, (-25, -15), "**Plains hold their own.**", "20 percentage points (95% interval 15 to 25) less often"),
    (10, 18, (-4, 20), "**No clear gap between Plains and the other suits.**", "interval includes zero"),
])
def test_designer_plains_conclusion_follows_the_sign_and_interval_of_its_gap(plains, others, interval,
                                                                            headline, says):
    # it led with "Plains are worth less than their price" whatever the gap's sign or
    # interval, and advised rescoring Plains on a gap whose interval held zero
    from flowerbridge.lab.designer import _suggestions
    first = _suggestions(*_summaries(plains, others), {}, None, {"play": interval, "dd": None})[0]
    assert first.startswith(headline) and says in first
    assert ("score Plains 30 a level" in first) == headline.startswith("**Plains are worth less")


@pytest.mark.parametrize("change, unresolved", [((-0.1, -0.5, 0.3), True), ((-0.6, -0.9, -0.3), False)])
def test_designer_plains_suggestion_of_plains_30_says_when_its_games_are_not_yet_told_apart(change, unresolved):
    # section 1 said the plains-30 variant's games could not be told from the default's,
    # while the closing suggestion advised that variant as if nothing were unsettled
    from flowerbridge.lab.designer import _plains_scored, _suggestions
    vs = {"default": {"hands_per_game": 3.0},
          "plains-30": {"hands_per_game": 3.0 + change[0],
                        "vs_reference": {"hands_per_game": list(change), "game_block": 10}}}
    first = _suggestions(*_summaries(10, 30), vs, None, {"play": (12, 28), "dd": None})[0]
    assert first.startswith("**Plains are worth less than their price.**") and "score Plains 30 a level" in first
    assert ("not yet clear in these hands" in first) is unresolved, first
    assert ("cannot tell the two scorings apart" in _plains_scored(vs, "plains-30")) is unresolved
    assert "not yet clear" not in _suggestions(*_summaries(10, 30), {}, None, {"play": (12, 28), "dd": None})[0]


def test_designer_plains_conclusion_gives_mean_tricks_over_the_fits_it_compares():
    # "With a trump fit of the same length, ... (mean 8.4 in Plains ...)" gave the means over
    # every contract, not over the fits of the lengths compared
    from flowerbridge.lab.designer import _suggestions
    deals, play = _summaries(10, 30, (7.0, 7.5, 7.5))
    for x in "PRA":
        play["by_denom"][x]["mean_tricks"] = 9.9
        play["by_denom"][x]["by_fit"][9] = {"contracts": 300, "game_tricks": 20.0, "mean_tricks": 9.0}
    first = _suggestions(deals, play, {}, None, {})[0]
    assert "(fits of 8–9 cards)" in first
    # (100 × 7.0 + 300 × 9.0) / 400 = 8.5 in Plains, 8.625 in the others
    assert "mean 8.5 in Plains, 8.6 in Ribbons, 8.6 in Animals" in first and "9.9" not in first, first


def test_designer_plains_conclusion_follows_the_more_precise_of_its_two_figures():
    # bot play decided whatever its interval: a wide one holding zero gave "no clear gap"
    # beside a double-dummy figure whose interval excluded it
    from flowerbridge.lab.designer import DD_FIRM, _suggestions
    deals, play = _summaries(10, 22)
    dd = {"deals": DD_FIRM, "variants": {}, "by_fit": {x: {8: {"sides": 100, "game_makeable": rate}}
                                       for x, rate in zip("PRA", (50.0, 58.0, 58.0))}}
    wide_play = {"play": (-1.0, 23.0), "dd": (1.0, 15.0)}
    first = _suggestions(deals, play, {}, dd, wide_play)[0]
    assert first.startswith("**Plains are worth less than their price.**"), first
    narrow_play = {"play": (2.0, 22.0), "dd": (-3.0, 19.0)}
    first = _suggestions(deals, play, {}, dd, narrow_play)[0]
    assert first.startswith("**Plains are worth less than their price.**"), first
    both_wide = {"play": (-4.0, 28.0), "dd": (-3.0, 19.0)}
    assert _suggestions(deals, play, {}, dd, both_wide)[0].startswith("**No clear gap")


def test_designer_plains_conclusion_names_the_extra_trick_only_where_tricks_are_alike():
    from flowerbridge.lab.designer import _suggestions
    alike = _suggestions(*_summaries(10, 30), {}, None, {})[0]
    assert "while taking about as many tricks (mean 8.0 in Plains" in alike
    assert "The eleventh trick that 5P needs is the whole difference." in alike
    unlike = _suggestions(*_summaries(10, 30, (7.0, 8.2, 8.1)), {}, None, {})[0]
    assert "taking on average 7.0 tricks in Plains, 8.2 in Ribbons and 8.1 in Animals" in unlike
    assert "about as many" not in unlike and "eleventh trick" not in unlike


@pytest.mark.parametrize("changed, hands, headline", [
    (17.0, 1000, "**State an undertrick penalty in the rulebook.**"),
    (2.0, 1000, "**The undertrick penalty decides few hands"),
    # the estimate alone gave firm advice from a handful of hands: 10 % of 30 (3.5-25.6 %)
    (10.0, 30, "**What the undertrick penalty decides, these deals cannot tell:**"),
    (0.0, 10, "**What the undertrick penalty decides, these deals cannot tell:**")])
def test_designer_penalty_conclusion_without_double_dummy_follows_its_interval(changed, hands, headline):
    from flowerbridge.lab.designer import _suggestions
    strict = {"winner_changed": changed, "winner_changed_hands": round(changed * hands / 100), "hands": hands}
    [penalty] = [s for s in _suggestions(*_summaries(10, 30), {"strict": strict},
                                         None, {}) if "undertrick penalty" in s]
    assert penalty.startswith(headline) and f"{changed:.1f}% (95% interval " in penalty


def test_lab_designer_report_and_out_given_with_a_tilde_are_written_in_the_home_folder(tmp_path, monkeypatch,
                                                                                       capsys, fast_figures):
    # `--designer=~/r.md` reaches the program with its `~`: the folder was checked in the
    # home folder, but the report went to a folder named `~` in the working folder
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    status = main(["lab", "--designer=~/r.md", "--n", "10", "--bots", "random", "--workers", "1",
                   "--out=~/run", "--quiet"])
    assert status == 0, capsys.readouterr().err
    assert f"designer's report: {home / 'r.md'}" in capsys.readouterr().out
    assert (home / "r.md").is_file() and (home / "r" / "points.png").is_file()
    assert (home / "run" / "lab.json").is_file()
    assert not list(work.iterdir())       # no folder named `~` here


@pytest.fixture
def fast_figures(monkeypatch):
    """Figures drawn but not rendered to PNG (matplotlib's rendering is most of a small run)."""
    def png_bytes(figure) -> bytes:
        import matplotlib.pyplot as plt
        plt.close(figure)
        return b"\x89PNG figure"
    monkeypatch.setattr("flowerbridge.lab.report.png_bytes", png_bytes)
    monkeypatch.setattr("flowerbridge.lab.designer.png_bytes", png_bytes)


def _designer(report: Path, out: Path, *extra: str, n: int = 10) -> list[str]:
    return ["lab", "--designer", str(report), "--n", str(n), "--bots", "random", "--workers", "1",
            "--out", str(out), "--quiet", *extra]


def test_lab_designer_report_refuses_to_replace_a_file_it_did_not_write_before_any_work(tmp_path, capsys):
    # it replaced whatever was there (a notes file, a module) without a word
    notes = tmp_path / "notes.py"
    notes.write_text("print('mine')\n")
    status = main(_designer(notes, tmp_path / "run"))
    err = capsys.readouterr().err
    assert status == 2, err
    assert f"{notes} exists and is not a designer's report written by the lab" in err
    assert notes.read_text() == "print('mine')\n"
    assert not (tmp_path / "run").exists() and not (tmp_path / "notes").exists()


def test_lab_designer_report_refuses_a_figures_folder_holding_other_files_before_any_work(tmp_path, capsys):
    # its figures went into any folder of the report's name (a package's, beside pkg.md)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("x = 1\n")
    status = main(_designer(tmp_path / "pkg.md", tmp_path / "run"))
    err = capsys.readouterr().err
    assert status == 2, err
    assert f"{tmp_path / 'pkg'}: the report's figures folder holds files that are not its figures " \
           "(mod.py)" in err
    assert [p.name for p in (tmp_path / "pkg").iterdir()] == ["mod.py"]
    assert not (tmp_path / "run").exists() and not (tmp_path / "pkg.md").exists()


@pytest.mark.parametrize("report, out", [("run.md", "run"), ("r.md", "r/run"), ("run/dd.md", "run")])
def test_lab_designer_report_refuses_a_figures_folder_that_is_one_of_the_runs_folders(tmp_path, capsys,
                                                                                      report, out):
    (tmp_path / "run").mkdir()
    status = main(_designer(tmp_path / report, tmp_path / out))
    err = capsys.readouterr().err
    assert status == 2 and "the report's figures folder would be, or hold, one of the run's folders" in err
    assert not list((tmp_path / "run").iterdir())


def test_lab_designer_report_may_be_written_into_its_own_output_folder(tmp_path, capsys, fast_figures):
    # `--designer yy/report.md --out yy` was refused: the figures folder, made before the
    # run, made yy a folder of "files but no lab run"
    out = tmp_path / "yy"
    out.mkdir()
    report = out / "report.md"
    assert main(_designer(report, out)) == 0, capsys.readouterr().err
    assert (out / "lab.json").is_file() and report.is_file()
    # (10 hands: no trump length has the contracts for the figure by length, nor is it linked)
    assert sorted(p.name for p in (out / "report").iterdir()) == ["points.png", "undealt.png"]
    assert "game-tricks" not in report.read_text() and "would give the table and its figure" in report.read_text()
    assert main(_designer(report, out)) == 0, capsys.readouterr().err     # and again


class PassBot:
    """Bots that never bid: every hand passed out."""

    def act(self, observation):
        return PASS if observation.phase == "auction" else observation.legal[0]


def test_lab_designer_report_of_hands_all_passed_out_says_no_contract_was_reached(tmp_path, capsys,
                                                                                   fast_figures):
    # it said the bots made "0% of the contracts they reached", and drew conclusions on
    # honors against contracts from hands that scored nothing
    report, out = tmp_path / "r.md", tmp_path / "run"
    command = _designer(report, out)
    command[command.index("random")] = "tests.test_lab_designer:PassBot"
    assert main(command) == 0, capsys.readouterr().err
    text = report.read_text()
    assert "The bots reached no contract (every hand passed out, and scored nothing)" in text
    assert "**The bots reached no contract** (every hand passed out)" in text
    assert "% of the contracts they reached" not in text and "Honors inflate" not in text
    assert "No hand was played (every hand passed out)" in text
    summary = json.loads((out / "summary.json").read_text())["summaries"]["play"]
    assert summary["contracts"] == 0 and summary["make_rate"] is None
    assert all(d["make_rate"] is None for d in summary["by_denom"].values())
    assert "no contract was reached" in (out / "report.html").read_text()


def test_lab_designer_report_replaces_a_report_it_wrote_and_says_so(tmp_path, capsys, fast_figures):
    report, out = tmp_path / "r.md", tmp_path / "run"
    assert main(_designer(report, out)) == 0, capsys.readouterr().err
    said = capsys.readouterr().out
    assert f"designer's report: {report}, its figures in {tmp_path / 'r'}/" in said
    assert "replaces" not in said
    # a figure of its own that this report has not (a double-dummy one, say) goes
    (tmp_path / "r" / "games.png").write_bytes(b"an earlier figure")
    assert main(_designer(report, out)) == 0, capsys.readouterr().err
    assert f"designer's report: {report} (it replaces the one written before), its figures in " \
           in capsys.readouterr().out
    assert report.read_text().startswith("# Flower Bridge in numbers: a report for the designer\n")
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["points.png", "undealt.png"]


def test_lab_designer_figure_cut_short_by_a_full_disk_leaves_the_earlier_figure_whole(tmp_path, capsys,
                                                                                       monkeypatch):
    # a figure was written in place: a disk that filled (here a file-size limit) mid-figure
    # left half a PNG where the earlier report's figure had been
    import resource
    import signal

    monkeypatch.setattr("flowerbridge.lab.designer.png_bytes", lambda figure: b"\x89PNG" + b"x" * 2_000_000)
    report, out = tmp_path / "r.md", tmp_path / "run"
    assert main(_designer(report, out)) == 0, capsys.readouterr().err
    capsys.readouterr()
    earlier = {p.name: p.read_bytes() for p in (tmp_path / "r").iterdir()}
    assert earlier and all(len(data) == 2_000_004 for data in earlier.values())
    monkeypatch.setattr("flowerbridge.lab.designer.png_bytes", lambda figure: b"\x89PNG" + b"y" * 2_000_000)
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1_000_000, limits[1]))   # the report.html first (0.2 MB)
    try:
        status = main(_designer(report, out))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, handler)
    assert status != 0 and f"error: {tmp_path / 'r' / 'undealt.png'}: File too large" \
        in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in (tmp_path / "r").iterdir()} == earlier


def test_lab_designer_stopped_while_it_draws_its_figures_leaves_the_report_and_figures_before(
        tmp_path, capsys, monkeypatch):
    # docs/lab.md: a run stopped while it draws its report leaves that of the run before, which
    # agrees with itself; the figures were put in place one by one, the report after them,
    # so a Ctrl-C between left a 10-deal report beside a figure of 12 deals
    report, out = tmp_path / "r.md", tmp_path / "run"
    assert main(_designer(report, out)) == 0, capsys.readouterr().err
    before = {p: p.read_bytes() for p in [report, *(tmp_path / "r").iterdir()]}
    drawn: list[object] = []

    def stopped(figure):
        drawn.append(figure)
        if len(drawn) == 2:
            raise KeyboardInterrupt
        return b"\x89PNG new"
    monkeypatch.setattr("flowerbridge.lab.designer.png_bytes", stopped)
    assert main(_designer(report, out, n=12)) == 130
    assert {p: p.read_bytes() for p in [report, *(tmp_path / "r").iterdir()]} == before
    assert "Built from **10 deals**" in report.read_text(encoding="utf-8")
    assert not [p for p in tmp_path.iterdir() if ".staged" in p.name]


def test_lab_designer_files_a_run_killed_outright_left_staged_are_removed_by_the_next(tmp_path, capsys):
    # (the figures folder holds its figures alone: left there, they refused every later run)
    report, out = tmp_path / "r.md", tmp_path / "run"
    assert main(_designer(report, out)) == 0, capsys.readouterr().err
    gone = 2**22 + 1    # above Linux's largest process number: no process has it
    left = [tmp_path / "r" / f".undealt.png.{gone}.staged", tmp_path / f".r.md.{gone}.staged"]
    for path in left:
        path.write_bytes(b"half")
    assert main(_designer(report, out, n=12)) == 0, capsys.readouterr().err
    assert not any(path.exists() for path in left)
    assert "Built from **12 deals**" in report.read_text(encoding="utf-8")


def test_lab_designer_holds_its_output_folder_until_its_report_is_written(tmp_path, capsys, monkeypatch):
    # docs/lab.md: a second run in a folder is refused and changes nothing. The folder was
    # taken only while each of the designer's runs computed: one started as the first went on
    # to its double-dummy deals (here: to its figures) rewrote the first's results
    from flowerbridge.lab import designer

    report, out = tmp_path / "r.md", tmp_path / "run"
    second: list[tuple[int, str, int]] = []
    intervals = designer._gap_intervals

    def meanwhile(*args, **kwargs):
        capsys.readouterr()
        status = main(_designer(report, out, n=12))
        n = json.loads((out / "summary.json").read_text(encoding="utf-8"))["n"]
        second.append((status, capsys.readouterr().err, n))
        return intervals(*args, **kwargs)
    monkeypatch.setattr(designer, "_gap_intervals", meanwhile)
    assert main(_designer(report, out)) == 0
    [(status, err, n)] = second
    assert status == 2 and f"error: {out} is in use by another lab run" in err and n == 10
    assert "Built from **10 deals**" in report.read_text(encoding="utf-8")
    assert not (out / ".lab.lock").exists()     # let go of with the report written


def test_designer_sentences_on_variants_give_their_95_percent_intervals():
    # "a game takes 4.35 hands instead of 4.42" and "the side ahead changes in 17.4%"
    # came without the intervals the honors sentences had
    from flowerbridge.lab.designer import _plains_scored, _question_penalty
    default = {"hands_per_game": 4.42, "points_per_hand": {"undertrick penalties": 36.5}}
    vs = {"default": default,
          "plains-30": {"hands_per_game": 4.35,
                        "vs_reference": {"hands_per_game": [-0.07, -0.12, -0.02], "game_block": 100}}}
    said = _plains_scored(vs, "plains-30")
    assert said.startswith("With Plains scored like Ribbons (variant `plains-30`")
    assert "a game takes 4.35 hands instead of 4.42 (95% interval of the change -0.12 to -0.02 hands, " \
           "a paired bootstrap over blocks of 100 consecutive hands); the bots' bidding did not adapt" in said
    vs["plains-30"]["vs_reference"]["hands_per_game"] = [-0.07, -0.15, 0.01]
    assert "the interval includes no change" in _plains_scored(vs, "plains-30")
    vs["plains-30"]["vs_reference"] = {"hands_per_game": None, "game_block": None}
    assert "(too few hands for an interval)" in _plains_scored(vs, "plains-30")
    assert _plains_scored(vs, "plains-25") is None     # a variant not run: no sentence
    vs["strict"] = {"winner_changed": 17.4, "winner_changed_hands": 3480, "hands": 20000}
    text = "\n".join(_question_penalty(vs, None))
    assert "the side ahead on the hand changes in 17.4% (95% interval 16.9–17.9%) of hands" in text


def test_lab_designer_status_counts_the_double_dummy_parts_chunks_and_names_its_report(tmp_path, monkeypatch,
                                                                                       capsys, fast_figures):
    # interrupted in the dd part and run again, it said "0 chunks computed, 9 reused"
    # though it computed two dd chunks, and did not name the dd folder's report
    pytest.importorskip("flowerbridge.solver")
    from test_lab_dd import fake_dd_table
    monkeypatch.setattr("flowerbridge.solver.dd_table", fake_dd_table)
    report, out = tmp_path / "r.md", tmp_path / "run"
    assert main(_designer(report, out, "--dd-n", "40", n=40)) == 0, capsys.readouterr().err
    capsys.readouterr()
    for chunk in sorted((out / "dd" / "chunks" / "dd").glob("*.csv"))[2:]:   # as if stopped there
        chunk.unlink()
    assert main(_designer(report, out, "--dd-n", "40", n=40)) == 0, capsys.readouterr().err
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == ["40 deals, seed 0: 0 chunks computed, 3 reused", f"report: {out / 'report.html'}",
                         "double dummy, the first 40 deals: 2 chunks computed, 2 reused",
                         f"report: {out / 'dd' / 'report.html'}"]
    assert lines[4].startswith(f"designer's report: {report} (it replaces the one written before)")


@pytest.mark.parametrize("changed, hands, says", [
    (3, 100, "these deals cannot tell (the intervals hold 5%)"),      # 3.0% (1.0-8.5%)
    (30, 1000, "Honors inflate scores far more than they decide hands."),   # 3.0% (2.1-4.3%)
    (80, 1000, "They decide enough hands to be worth keeping in view"),     # 8.0% (6.5-9.8%)
])
def test_designer_honors_conclusion_follows_the_interval_of_the_hands_they_decide(changed, hands, says):
    # (3.0% of 100 hands, interval 1.0-8.5%, was read as "far more than they decide":
    # the estimate alone against one hand in twenty)
    from flowerbridge.lab.designer import _suggestions
    variant = {"winner_changed": 100 * changed / hands, "winner_changed_hands": changed, "hands": hands}
    [honors] = [s for s in _suggestions(*_summaries(10, 30), {"no-honors": variant}, None, {})
                if s.startswith("**Honors")]
    verdicts = ["cannot tell", "far more than they decide", "decide enough hands"]
    assert says in honors and sum(v in honors for v in verdicts) == 1


@pytest.mark.parametrize("honors, below, whole_extra, heading", [
    (61 + 13, 39, 20 + 33, "**Honors outweigh the contract points, not the contract's whole score.**"),
    (120, 39, 20 + 33, "**Honors outweigh the contract in volume.**"),
    (30, 39, 20 + 33, "**Honors are smaller than the contract in volume.**"),
])
def test_designer_honors_weight_is_judged_against_the_contracts_whole_score(honors, below, whole_extra, heading):
    # "Honors outweigh the contract in volume" compared 74.5 points of honors and bonuses with
    # the 39.2 below the line, while the report's par counts the contract's whole score
    # (overtricks and penalties too): 92.8
    from flowerbridge.lab.designer import _suggestions
    deals, play = _summaries(10, 30)
    play["points_per_hand"] = {"honors": honors - 10, "Bright bonuses": 10, "contract points (below)": below,
                               "overtricks": whole_extra - 30, "undertrick penalties": 30}
    [said] = [s for s in _suggestions(deals, play, {}, None, {}) if s.startswith("**Honors")]
    assert said.startswith(heading), said
    assert (f"bring {honors} points a hand (both sides) against {below} below the line and "
            f"{below + whole_extra} for the contract's whole score") in said


def test_designer_double_dummy_table_by_length_shows_every_length_its_summary_holds():
    # (its rows were lengths 7 to 11 whatever the summary held: a 6-card length held by
    # 7 sides was drawn in the figure and missing from the table under the same caption)
    from flowerbridge.lab.designer import _dd_fit_rows
    cell = {"sides": 7, "game_makeable": 14.3}
    rows = _dd_fit_rows({"P": {"6": cell, "8": cell}, "R": {6: cell}, "A": {"12": cell}})
    assert rows == [["6 cards", 14.3, 14.3, "-", "7 / 7 / -"],
                    ["8 cards", 14.3, "-", "-", "7 / - / -"],
                    ["12 cards", "-", "-", 14.3, "- / - / 7"]]


def test_designer_bot_play_table_by_trump_length_shows_every_length_its_summary_holds():
    # (its rows were 8 to 11 cards whatever the summary held: Animals at 12 cards, 31
    # contracts, drawn in the figure beside it, were missing, and 8 a row of dashes)
    from flowerbridge.lab.designer import _play_fit_rows
    cell = {"contracts": 31, "game_tricks": 45.2, "mean_tricks": 9.8}
    rows = _play_fit_rows({"P": {"by_fit": {9: cell}}, "R": {"by_fit": {"9": cell, "10": cell}},
                           "A": {"by_fit": {"12": cell}}})
    assert rows == [["9 cards", 31, 45.2, 9.8, 31, 45.2, 9.8, "-", "-", "-"],
                    ["10 cards", "-", "-", "-", 31, 45.2, 9.8, "-", "-", "-"],
                    ["12 cards", "-", "-", "-", "-", "-", "-", 31, 45.2, 9.8]]


def test_lab_designer_report_without_double_dummy_names_the_earlier_double_dummy_run(tmp_path, capsys,
                                                                                       fast_figures):
    # (--dd-n 0 after --dd-n 4 left run/dd and its report unnamed; a plain run names
    # the results an earlier run left)
    report, out = tmp_path / "r.md", tmp_path / "run"
    assert main([*_designer(report, out), "--dd-n", "4"]) == 0, capsys.readouterr().err
    assert "earlier run" not in capsys.readouterr().out
    assert main(_designer(report, out)) == 0, capsys.readouterr().err
    assert f"{out / 'dd'} is from an earlier run with --dd-n, not in this report\n" in capsys.readouterr().out
    assert "Double dummy" not in report.read_text()


def test_lab_designer_report_of_a_text_seed_of_digits_gives_the_python_call_that_rebuilds_it(tmp_path,
                                                                                           fast_figures):
    # seed "7" given from Python printed `--seed 7`, which the command line reads as the number 7:
    # another seed (other cards), refused in the same folder ("holds a run with seed '7', not 7")
    from flowerbridge.lab.designer import write_designer_report
    report, out = tmp_path / "r.md", tmp_path / "run"
    write_designer_report(report, out, n=12, seed="7", dd_n=0, bots="random", workers=1)
    text = report.read_text()
    call = (f"from flowerbridge.lab.designer import write_designer_report; write_designer_report("
            f"{str(report)!r}, {str(out)!r}, n=12, seed='7', dd_n=0, bots='random')")
    assert ("Built from **12 deals** (seed '7') by one call in Python (the command line would not read "
            "this seed back as itself; in a script, under `if __name__ == \"__main__\":`, as `docs/lab.md` "
            "says):\n\n    " + call + "\n") in text
    assert "--seed" not in text
    # without the double-dummy part there is no question 5: the identical-card rule's is the fifth
    assert "## 5. How often does the identical-card rule decide a trick? (R12)" in text
    assert "## 5. How much honor count" not in text and "## 6." not in text
    exec(call, {})      # the call given rebuilds it in its folder (a resume): the same report
    assert report.read_text() == text
    # a seed the command line would read as an option is said in Python too
    write_designer_report(tmp_path / "x.md", tmp_path / "dash", n=12, seed="-x", dd_n=0, bots="random", workers=1)
    assert "seed='-x'" in (tmp_path / "x.md").read_text()
    # a number, or text that is no number, keeps the command
    write_designer_report(tmp_path / "n.md", tmp_path / "num", n=12, seed=7, dd_n=0, bots="random", workers=1)
    assert "by one command:\n\n    flowerbridge lab --designer" in (tmp_path / "n.md").read_text()


def test_designer_plains_gap_weighs_ribbons_and_animals_each_over_fits_of_8_to_11_only():
    # a gap that took Ribbons twice (Animals left out), or took 7-card fits in, passed
    # every test while Ribbons and Animals always had the same rates
    from flowerbridge.lab.designer import _game_gap, _gap_lengths

    def cell(rate):
        return {"contracts": 40, "game_tricks": rate, "mean_tricks": 8.0}
    by_fit = {x: {7: cell(0.0), 8: cell(rate)} for x, rate in (("P", 10.0), ("R", 10.0), ("A", 40.0))}
    assert _gap_lengths(by_fit) == [8]
    assert _game_gap(by_fit, "game_tricks") == 15.0          # (10 + 40) / 2 − 10


def test_designer_section_3_and_the_discard_suggestion_give_each_rate_its_own_figure():
    from flowerbridge.lab.designer import _question_honors, _suggestions
    from flowerbridge.lab.report import Plot
    deals, play = _summaries(10, 30)
    # each share with its Wilson interval (the report gave them bare)
    play.update(hands=20000, five_bright_rate=45.7, five_bright_hands=9140, ten_bright_rate=2.69,
                ten_bright_hands=538)
    vs = {"default": {"points_per_hand": play["points_per_hand"]}}
    text = "\n".join(_question_honors(play, vs, "f", {"points": Plot(None, "points")}))
    assert ("Five Bright bonus in 45.7% (95% interval 45.0–46.4%) of hands (either side), Ten Bright in "
            "2.69% (2.47–2.92%).") in text
    deals["undealt"]["exact"] = {"some_bright": .79, "some_pair": .414, "some_bright_pair": .0777}
    [discard] = [s for s in _suggestions(deals, play, {}, None, {}) if "mystery discard" in s]
    assert "the Ten Bright bonus is out of reach in 79% of deals" in discard
    assert "and the Five Bright bonus in 7.8% (both copies of a Bright undealt)" in discard
    assert "both copies of some card in 41%" in discard


@pytest.mark.parametrize("strict, default, headline", [
    (99.4, 0.0, "**State an undertrick penalty in the rulebook.**"),
    (3.0, 3.0, "**The undertrick penalty changes par little.**")])
def test_designer_penalty_conclusion_from_firm_double_dummy_follows_par_scoring_nothing(strict, default,
                                                                                          headline):
    from flowerbridge.lab.designer import _penalty_suggestion
    firm = {"variants": {"strict": {"par_zero": strict}, "default": {"par_zero": default}}}
    [said] = _penalty_suggestion({"contracts": 1}, {}, firm)
    assert said.startswith(headline) and f"{strict:.0f}%" in said


def test_designer_honors_verdict_is_firm_where_either_variant_decides_enough_hands():
    from flowerbridge.lab.designer import _honors_verdict
    many = {"winner_changed_hands": 80, "hands": 1000}     # 8.0 %, interval above 5 %
    unsure = {"winner_changed_hands": 3, "hands": 100}     # 3 %, interval holding 5 %
    assert "decide enough hands to be worth keeping in view" in _honors_verdict([many, unsure])
    assert "these deals cannot tell" in _honors_verdict([unsure])


def test_designer_play_gap_interval_counts_a_game_made_exactly_as_made():
    # every Plains contract takes exactly 11 tricks (5P made), every other exactly 9 (4R, 4A
    # failed): the gap is −100 points, its interval that one point
    from types import SimpleNamespace
    from flowerbridge.lab.base import Table
    from flowerbridge.lab.designer import _gap_intervals
    denom = np.array(list("PRA" * 20), dtype=object)
    t = Table({}, {"denom": denom, "decl_fit": np.full(60, 8), "passed_out": np.zeros(60, int),
                   "tricks": np.where(denom == "P", 11, 9)})
    play = {"by_denom": {x: {"game_level": 5 if x == "P" else 4, "by_fit": {8: {}}} for x in "PRA"}}
    study = SimpleNamespace(summaries={"play": play}, result=SimpleNamespace(tables={"play": t}))
    assert _gap_intervals(study, None, None)["play"] == pytest.approx((-100.0, -100.0))


@pytest.mark.parametrize("deals, illustration", [(99, True), (100, False)])
def test_designer_report_calls_double_dummy_figures_an_illustration_under_100_deals(deals, illustration):
    from flowerbridge.lab.designer import DD_FIRM, _dd_sentence
    assert DD_FIRM == 100
    said = _dd_sentence({"deals": deals}, "flowerbridge lab --designer r.md")
    assert said.startswith(f"The double-dummy solver analysed the first **{deals}** of these deals")
    assert ("under 100 deals its figures are an illustration" in said) is illustration


def _by_honor_count(shares: dict[int, tuple[int, int]]) -> dict[int, dict]:
    return {b: {"sides": n, "game_makeable_sides": {"any": k, "NT": k, "suit": k}} for b, (k, n) in shares.items()}


def test_designer_section_5_says_from_which_honor_count_a_side_is_likelier_than_not_to_make_game():
    # Chapter 10: "guidance, not law"; the report tells where the count makes game likelier
    # than not, from the counts whose interval lies wholly on one side of one half
    from flowerbridge.lab.designer import _half_games, _question_honor_count
    clear = _by_honor_count({30: (5, 100), 32: (20, 100), 34: (50, 100), 36: (80, 100), 38: (95, 100)})
    said = _half_games(clear)
    assert said.startswith("Double dummy, a side makes some game less than half the time at every honor count "
                           "these deals settle up to 33, and more than half the time from 36 (the counts whose "
                           "95% interval lies wholly below, or above, one half); between them these deals "
                           "cannot tell.")
    assert said.endswith(" Read as Chapter 10's guidance for bidding: by this count, game is likelier than not "
                         "from 36.")
    # next to each other: nothing between them to tell
    assert "cannot tell" not in _half_games(_by_honor_count({30: (5, 100), 32: (95, 100)}))
    # a few sides at the low end, straddling one half, do not hide what the rest settle
    # (the report said "from 22 to 47 these deals cannot tell" over buckets below one half)
    assert "up to 33" in _half_games({**clear, 28: _by_honor_count({28: (3, 6)})[28]})
    # below one half throughout: no count makes game likelier than not
    assert _half_games(_by_honor_count({30: (5, 100), 32: (20, 100)})).endswith(
        "up to 33 (the counts whose 95% interval lies wholly below, or above, one half); at none is it "
        "clearly likelier than not.")
    # a bucket above one half among those below it, or none settled: no such line is drawn
    assert "do not show where" in _half_games(_by_honor_count({30: (5, 100), 32: (95, 100), 34: (5, 100)}))
    assert "do not show where" in _half_games(_by_honor_count({30: (2, 5), 32: (3, 5)}))
    dd = {"deals": 250, "game_level": {"P": 5, "R": 4, "A": 4, "NT": 3}, "game_by_honor_count": clear}
    from flowerbridge.lab.report import Plot
    text = "\n".join(_question_honor_count(dd, "f", {"honor-games": Plot(None, "games by count")}))
    assert text.startswith("## 5. How much honor count makes a game? (Chapter 10)")
    assert "| 34–35 | 100 | 50.0 (40.4–59.6) | 50.0 (40.4–59.6) | 50.0 (40.4–59.6) |" in text
    assert "![games by count](f/honor-games.png)" in text
    assert _question_honor_count(None, "f", {}) == []        # no double dummy, no section


def test_designer_section_5_tells_how_far_game_moves_over_the_counts_most_sides_hold():
    from flowerbridge.lab.designer import _central_spread
    # 10 % of the sides at each end: the middle buckets 30 to 36 hold 80 %
    flat = _by_honor_count({28: (2, 10), 30: (9, 20), 32: (6, 20), 34: (7, 20), 36: (8, 20), 38: (9, 10)})
    assert _central_spread(100, flat) == (" Over the counts most sides hold (30 to 37, 80% of them), the chance "
                                          "of some game runs from 30% to 45%.")
    # the share is of every side: 25 more, in buckets too small to be kept, hold none of it
    # (of the sides kept it read 95% where 87% of 120 sides held the counts named)
    assert "(30 to 37, 64% of them)" in _central_spread(125, flat)
    assert _central_spread(20, _by_honor_count({30: (1, 10), 32: (2, 10)})) == ""     # too few buckets
    # beside it, the same by the bots' points, counted by rank
    points = _by_honor_count({10: (1, 10), 12: (4, 20), 14: (8, 20), 16: (12, 20), 18: (16, 20), 20: (9, 10)})
    assert _central_spread(100, flat, points).endswith(
        " Counted by rank instead, as the bots count (4, 3, 2 and 1 for each suit's four highest cards, every "
        "copy: docs/bidding.md), over the points most sides hold (12 to 19, 80%) it runs from 20% to 80%.")


def test_designer_suggests_a_count_by_rank_where_it_tells_game_far_better_than_chapter_10s():
    from flowerbridge.lab.designer import _count_suggestion
    flat = _by_honor_count({28: (2, 10), 30: (6, 20), 32: (9, 20), 34: (7, 20), 36: (8, 20), 38: (9, 10)})
    steep = _by_honor_count({10: (1, 10), 12: (4, 20), 14: (8, 20), 16: (12, 20), 18: (16, 20), 20: (9, 10)})
    dd = {"deals": 1000, "game_by_honor_count": flat, "game_by_points": steep}
    [said] = _count_suggestion(dd)
    assert said.startswith("**Chapter 10's count is a weak guide to game; a count by rank is a strong one.** "
                           "Over the honor counts most sides hold (30 to 37) the chance of making some game "
                           "double dummy runs only from 30% to 45%; over the points most sides hold counted "
                           "by rank (12 to 19: 4, 3, 2 and 1 for each suit's four highest cards) it runs from "
                           "20% to 80% (section 5).")
    # not where the counts tell game about as well, nor from too few deals, nor without dd
    assert _count_suggestion({**dd, "game_by_points": flat}) == []
    assert _count_suggestion(None) == []
    from flowerbridge.lab.designer import DD_FIRM, _suggestions
    deals, play = _summaries(10, 30)
    assert not any("count by rank" in s for s in _suggestions(deals, play, {}, {**dd, "deals": DD_FIRM - 1}, {}))
