"""The designer's report: five questions about the rules, answered from data, and a
sixth where the double-dummy part runs (what a side's count says of game, asked fifth).

:func:`write_designer_report` runs the ``deals``, ``play`` and ``variants``
analyses over ``n`` deals (and ``dd`` over ``dd_n`` of them, when the solver
is installed), then writes a Markdown report with its figures in a folder
beside it. Every number in it comes from the run; the sentences that draw
conclusions are chosen by the numbers, so rebuilding the report with another
seed or more deals keeps it honest.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
from pathlib import Path
from typing import Any

import numpy as np

from ..render import count_text
from .._files import unreachable
from .base import LabError, Table
from .deals import undealt_plot, undealt_table
from .play import FIT_MIN_CONTRACTS, bright_shares, contract_table, game_label, game_tricks_plot, points_table, \
    twin_shares
from .report import Plot, TableSpec, bootstrap_interval, pct, png_bytes, rate_cell, table_markdown, wilson
from .runner import MEMORY_BASE, Staged, analyses, check_memory, memory_needed
from .study import Study, run_lab
from .variants import points_plot

DD_FIRM = 100
"""Double-dummy deals needed before the conclusions lean on them."""


def write_designer_report(path: str | os.PathLike, out: str | os.PathLike, *, n: int = 20000,
                          seed: Any = 2026, dd_n: int = 0, bots: str | None = None,
                          workers: int | None = None, ray_address: str | None = None,
                          progress: bool | str = False) -> Study:
    """Run the studies into ``out`` and write the report to ``path`` (Markdown).

    Figures go to a folder named after ``path`` without its suffix. ``dd_n``
    deals (the first ones of the same seed) get the double-dummy analysis,
    which costs a full search per deal; 0 leaves it out. Returns the study of
    ``deals``, ``play`` and ``variants``, with the double-dummy one (in ``out/dd``)
    as its ``dd``.
    """
    if dd_n < 0 or dd_n > n:     # (named as on the command line, where the user meets it)
        raise LabError(f"--dd-n must be from 0 to the number of deals, --n ({n:,}), not {dd_n:,}")
    path = Path(path)
    # the figures go in a folder named after the report, less its suffix: checked
    # before the run, not after it
    if path.is_dir():
        raise LabError(f"{path}: is a folder; the designer's report is a file, e.g. report.md "
                       "(its figures go in the folder of the same name, less the suffix)")
    if not path.suffix:
        raise LabError(f"{path}: the designer's report needs a file name with a suffix, "
                       "e.g. report.md (its figures go in the folder of the same name)")
    for what, text in (("report path", str(path)), ("seed", str(seed))):
        try:    # written into the report: checked now, not after the run
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise LabError(f"the {what} {text!r} is not UTF-8 text") from None
    figures = path.with_suffix("")
    _check_report_path(path)
    _remove_stale(path, figures)
    _check_figures_folder(figures, Path(out))
    # made once the run is over (the output folder may hold it: before the run it would be
    # "files but no lab run" there), but tried now, not after a run of hours
    _make_figures_folder(figures, probe=True)
    if dd_n and "dd" not in analyses():
        raise LabError("the double-dummy solver is not installed: use --dd-n 0")
    # both runs' rows are held at once (each run checks its own)
    known = analyses()
    needed = memory_needed({name: known[name].defaults for name in ("deals", "play", "variants")}, n)
    if dd_n:
        needed += memory_needed({"dd": known["dd"].defaults}, dd_n) - MEMORY_BASE
    check_memory(needed, f"{n:,} deals of deals, play and variants"
                 + (f" and {dd_n:,} of dd" if dd_n else ""))
    common = dict(seed=seed, workers=workers, ray_address=ray_address, progress=progress)
    # the output folder stays taken from its run to the report: a second designer's run in it
    # is refused then too (taken only while each run computed, one started as the first
    # solved its double-dummy deals rewrote the first's results, then was refused at dd/)
    with contextlib.ExitStack() as held:
        study = run_lab(out, ["deals", "play", "variants"], n=n, bots=bots, hold=held, **common)
        dd_summary, dd_table = None, None
        if dd_n:
            # (no bots: the double-dummy analysis plays no card, and refuses them)
            study.dd = run_lab(Path(out) / "dd", ["dd"], n=dd_n, **common)
            dd_summary, dd_table = study.dd.summaries["dd"], study.dd.result.tables["dd"]
        _check_report_path(path)                # again: the run may have taken hours
        _check_figures_folder(figures, Path(out))
        _make_figures_folder(figures, saved_in=Path(out))
        command = (f"flowerbridge lab --designer {shlex.quote(str(path))} --n {n} "
                   f"--seed {shlex.quote(str(seed))} --dd-n {dd_n}"
                   + (f" --bots {shlex.quote(bots)}" if bots else "")
                   + f" --out {shlex.quote(str(out))}")     # run again, it resumes there
        if isinstance(seed, str) and (re.fullmatch(r"-?[0-9]+", seed) or seed.startswith("-")
                                      or not seed.strip()):
            # a text seed the command line does not read back as itself: "7" is the number 7,
            # another seed (its run dealt other cards, and was refused in this folder), "-x" an
            # option, "" refused: said in Python
            command = ("from flowerbridge.lab.designer import write_designer_report; "
                       f"write_designer_report({str(path)!r}, {str(out)!r}, n={n}, seed={seed!r}, "
                       f"dd_n={dd_n}" + (f", bots={bots!r}" if bots else "") + ")")
        gaps = _gap_intervals(study, dd_summary, dd_table)
        # the figures and the report, staged and put in place together: a run stopped (or a
        # disk that fills) before then leaves those of the report before, which agree
        staged = Staged(path.parent)
        try:
            plots = _figures(study, dd_summary, figures, staged)
            staged.write(path.name, _markdown(study, dd_summary, figures.name, plots, command=command, gaps=gaps))
            # (one of its own figures this report has not, no dd this time: removed)
            staged.commit(remove=[f"{figures.name}/{name}.png" for name in FIGURES if name not in plots])
        finally:
            staged.discard()
    return study


def _figures(study: Study, dd_summary: dict | None, folder: Path, staged: Staged) -> dict[str, Plot]:
    """The report's figures, each staged in ``staged`` as ``folder``'s ``NAME.png``."""
    from .dd import game_by_fit_plot, game_by_honor_count_plot

    plots = {"undealt": undealt_plot(study.summaries["deals"]),
             "points": points_plot(study.summaries["variants"]["variants"])}
    if _play_fit_rows(study.summaries["play"]["by_denom"]):     # (a small run: the text says why not)
        plots["game-tricks"] = game_tricks_plot(study.summaries["play"])
    if dd_summary and _has_fits(dd_summary):
        plots["games"] = game_by_fit_plot(dd_summary)
    if dd_summary and dd_summary["game_by_honor_count"]:
        plots["honor-games"] = game_by_honor_count_plot(dd_summary)
    for name, plot in plots.items():
        staged.write(f"{folder.name}/{name}.png", png_bytes(plot.figure))
    return plots


TITLE = "# Flower Bridge in numbers: a report for the designer"
"""The report's first line: how a report the lab wrote is told from any other file."""

FIGURES = ("game-tricks", "undealt", "points", "games", "honor-games")
"""The figures the report may have, each ``<name>.png`` in its figures folder."""


def _remove_stale(path: Path, figures: Path) -> None:
    """Remove the files a designer's run killed outright (SIGKILL) left staged beside
    the report and in its figures folder (a figures folder holds its figures alone)."""
    for folder in (path.parent, figures):
        if folder.is_dir():
            Staged.remove_stale(folder)


def _check_report_path(path: Path) -> None:
    """A file at ``path`` is replaced only when it is a designer's report the lab wrote
    (its first line is :data:`TITLE`): anything else there is the user's, and refused."""
    if not path.exists() and not path.is_symlink():
        return
    first = b""
    if path.is_file():
        try:
            with open(path, "rb") as fh:
                first = fh.readline(len(TITLE) + 2)
        except OSError as exc:
            raise LabError(f"{path}: cannot read the file there ({exc.strerror or exc}), so it is "
                           "not replaced: give the report another path") from None
    if first.rstrip(b"\r\n") != TITLE.encode("utf-8"):
        raise LabError(f"{path} exists and is not a designer's report written by the lab (its first "
                       f"line is not {TITLE!r}): it is not replaced; give the report another path, "
                       "or move that file away")


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or anywhere under it (both as they resolve)."""
    path, folder = path.resolve(), folder.resolve()
    return path == folder or folder in path.parents


def _check_figures_folder(figures: Path, out: Path) -> None:
    """The report's figures folder holds its figures alone (it is written into, so
    anything else there is refused), and is none of the lab's own folders."""
    for place in (figures, out):    # (a loop of symbolic links: resolved below, a traceback)
        problem = unreachable(place)
        if problem is not None:
            raise LabError(f"{place}: {problem.strerror}")
    if figures.exists() and not figures.is_dir():
        raise LabError(f"{figures}: a file is in the way of the report's figures folder")
    if _inside(out, figures) or any(_inside(figures, out / name) for name in ("chunks", "dd")):
        raise LabError(f"{figures}: the report's figures folder would be, or hold, one of the run's "
                       f"folders ({out}): give the report or the output folder another name")
    if figures.is_dir():
        own = {f"{name}.png" for name in FIGURES}
        other = sorted(p.name for p in figures.iterdir() if p.name not in own or not p.is_file())
        if other:
            shown = ", ".join(other[:3]) + (f" and {len(other) - 3} more" if len(other) > 3 else "")
            raise LabError(f"{figures}: the report's figures folder holds files that are not its "
                           f"figures ({shown}); they are not written over: give the report another "
                           "name, or move them away")


def _make_figures_folder(figures: Path, probe: bool = False, saved_in: Path | None = None) -> None:
    """Make the report's figures folder; with ``probe``, only find out that it can be
    made (a folder made to see is removed again)."""
    made = not figures.exists()
    try:
        figures.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        after = f"; the run is saved in {saved_in}: the same command writes the report" if saved_in else ""
        raise LabError(f"{figures}: cannot make the report's figures folder: "
                       f"{exc.strerror or exc}{after}") from None
    if probe and made:
        with contextlib.suppress(OSError):
            figures.rmdir()


def _markdown(study: Study, dd: dict | None, folder: str, plots: dict[str, Plot], command: str,
              gaps: dict[str, tuple[float, float] | None]) -> str:
    deals = study.summaries["deals"]
    play = study.summaries["play"]
    vs = study.summaries["variants"]["variants"]
    n = deals["deals"]
    out = [
        TITLE,
        "",
        f"Built from **{count_text(n, 'deal')}** (seed {study.result.seed!r}) by one "
        + ("call in Python (the command line would not read this seed back as itself; in a "
           "script, under `if __name__ == \"__main__\":`, as `docs/lab.md` says):"
           if command.startswith("from ") else "command:"),
        "",
        f"    {command}",
        "",
        f"Every deal was bid and played by four `{play['bots']}` bots and scored by the rules "
        "engine; the same hands were then re-scored under other rule options. "
        + (f"The bots made {play['make_rate']:.0f}% of the contracts they reached "
           f"({count_text(play['passed_out'], 'hand')} passed out)" if play["contracts"] else
           "The bots reached no contract (every hand passed out, and scored nothing)")
        + ": the play figures describe their bidding and play, not an expert's. "
        + _dd_sentence(dd, command),
        "The full HTML report, the raw CSV rows and `summary.json` are in the run's output folder"
        + (" (the double-dummy part's in its `dd/` folder)." if dd else "."),
        "",
    ]
    out += _question_games(play, vs, dd, folder, plots)
    out += _question_discard(deals, folder, plots)
    out += _question_honors(play, vs, folder, plots)
    out += _question_penalty(vs, dd)
    honor_count = _question_honor_count(dd, folder, plots)
    out += honor_count
    out += _question_twins(play, 6 if honor_count else 5)
    out += ["## What the data suggest", ""] + [f"- {s}" for s in _suggestions(deals, play, vs, dd, gaps)]
    return "\n".join(out) + "\n"


def _dd_sentence(dd: dict | None, command: str) -> str:
    """The introduction's sentence on the double-dummy part: how many deals it analysed,
    and whether they are enough for the conclusions to rest on (:data:`DD_FIRM`)."""
    if not dd:
        return "The double-dummy part was not run (`--dd-n 0`)."
    return (f"The double-dummy solver analysed the first **{dd['deals']:,}** of these deals "
            + ("(a full search per deal; the same call with a larger `dd_n` analyses more)"
               if command.startswith("from ") else
               "(a full search per deal; the same command with a larger `--dd-n` analyses more)")
            + (f"; under {DD_FIRM} deals its figures are an illustration, and the conclusions "
               "rest on the bot play." if dd["deals"] < DD_FIRM else "."))


def _image(folder: str, name: str, plots: dict[str, Plot]) -> list[str]:
    link = f"{folder}/{name}.png"
    if any(ch.isspace() or ch in "()" for ch in link):    # Markdown's link in angle brackets
        link = f"<{link}>"
    return [f"![{plots[name].caption}]({link})", "", f"*{plots[name].caption}*", ""]


def _dd_fit_rows(by_fit: dict) -> list[list]:
    """The rows of the double-dummy table by length: every length some suit holds in
    ``by_fit`` (where 5 sides or more held it), not 7 to 11 alone; a suit without it ``-``."""
    fits = {d: {int(k): v for k, v in by_fit[d].items()} for d in ("P", "R", "A")}
    return [[f"{length} cards", *(fits[d].get(length, {}).get("game_makeable", "-") for d in ("P", "R", "A")),
             " / ".join(str(fits[d].get(length, {}).get("sides", "-")) for d in ("P", "R", "A"))]
            for length in sorted({k for f in fits.values() for k in f})]


def _play_fit_rows(by_denom: dict) -> list[list]:
    """The rows of the bot-play table by trump length: every length some suit had enough
    contracts of (as the figure beside draws them), not 8 to 11 alone; a suit without it ``-``."""
    fits = {x: {int(k): v for k, v in by_denom[x]["by_fit"].items()} for x in ("P", "R", "A")}
    return [[f"{length} cards", *(cell for x in ("P", "R", "A") for cell in _fit_cells(fits[x].get(length)))]
            for length in sorted({k for f in fits.values() for k in f})]


def _question_games(play: dict, vs: dict, dd: dict | None, folder: str, plots: dict) -> list[str]:
    out = ["## 1. Is a 30-point Ribbon or Animal contract worth a 20-point Plain one?", "",
           "Game is 100 below the line: **5P** (11 tricks) in Plains, **4R** or **4A** (10 tricks) "
           "in Ribbons or Animals, **3NT** (9 tricks). The question is how often each is within "
           "reach.", ""]
    if dd:
        if _has_fits(dd):
            rows = _dd_fit_rows(dd["by_fit"])
            out += [table_markdown(TableSpec(
                f"Double dummy, {count_text(dd['deals'], 'deal')}: game makeable (%) in a suit by a side's "
                "length in it, both sides of every deal (a length held by fewer than 5 sides is "
                "left out)",
                ["length", "5P", "4R", "4A", "sides (P / R / A)"], rows)), "",
                *_image(folder, "games", plots)]
        out += [table_markdown(TableSpec(
            f"Double dummy, {count_text(dd['deals'], 'deal')}: the stronger side, any length",
            ["", "P", "R", "A", "NT"],
            [["game makeable % (95% interval)",
              *(rate_cell(dd["game_makeable_deals"][d], dd["deals"]) for d in ("P", "R", "A", "NT"))],
             ["mean tricks", *(dd["mean_tricks"][d] for d in ("P", "R", "A", "NT"))],
             ["best contract in it %", *(dd["variants"]["default"]["best_denomination"][d]
                                          for d in ("P", "R", "A", "NT"))]])), "",
                f"In {dd['variants']['default']['best_none']:.1f}% of these deals the stronger side "
                "makes no contract at all (the rows of best contracts add up to the rest).", ""]
    out += [table_markdown(contract_table(play, f"Bot play, {count_text(play['hands'], 'hand')}: contracts by "
                                                "denomination")), ""]
    d = play["by_denom"]
    rows = _play_fit_rows(d)
    out += ["As the bots played, the tricks declarer took say whether the denomination would have "
            "made game (11 tricks in Plains, 10 in Ribbons or Animals), whatever level was bid:", "",
            table_markdown(TableSpec(
                "Bot play: declarer took game tricks (%), by the declaring side's trump length",
                ["trump length", "P contracts", "P: 11+ tricks", "P mean tricks", "R contracts",
                 "R: 10+ tricks", "R mean tricks", "A contracts", "A: 10+ tricks", "A mean tricks"],
                rows)) if rows else
            # (a small run: a header with no rows said nothing of why)
            f"No trump length had {FIT_MIN_CONTRACTS} contracts or more in any suit in these "
            f"{count_text(play['hands'], 'hand')}: more deals would give the table and its figure.",
            "", *(_image(folder, "game-tricks", plots) if "game-tricks" in plots else [])]
    for name in PLAINS_VARIANTS:
        said = _plains_scored(vs, name)
        if said:
            out += [said, ""]
    return out


PLAINS_VARIANTS = {"plains-30": "scored like Ribbons", "plains-25": "scored 25 a level"}
"""The variants that score Plains higher, and how each does: section 1 tells what
each does to the hands a game takes."""


def _plains_scored(vs: dict, name: str) -> str | None:
    """What scoring Plains as variant ``name`` does (:data:`PLAINS_VARIANTS`) to the
    hands a game takes, with the paired 95 % interval of the change; None without
    that variant."""
    variant = vs.get(name)
    if not variant:
        return None
    new, old = variant["hands_per_game"], vs["default"]["hands_per_game"]
    lead = f"With Plains {PLAINS_VARIANTS[name]} (variant `{name}`, same hands, same bidding), "
    if new is None or old is None:
        return lead + "no game was completed under both scorings in these hands."
    change = variant.get("vs_reference", {}).get("hands_per_game")
    block = variant.get("vs_reference", {}).get("game_block")
    known = change is not None and bool(np.isfinite(change[1]))
    interval = (f" (95% interval of the change {change[1]:+.2f} to {change[2]:+.2f} hands, a "
                f"paired bootstrap over blocks of {block} consecutive hands)" if known else
                " (too few hands for an interval)")
    # (said of every case: bidding that counted the new values would move the figure, by
    # an amount these hands cannot tell; "a lower bound" claimed a direction not measured)
    unadapted = ("the bots' bidding did not adapt to the new values, and bidding that did could move "
                 "this either way.")
    if f"{new:.2f}" == f"{old:.2f}":
        return lead + f"a game takes {new:.2f} hands, as under the default scoring{interval}; " + unadapted
    if _plains_clear(vs, name):
        return lead + f"a game takes {new:.2f} hands instead of {old:.2f}{interval}; " + unadapted
    return (lead + f"a game takes {new:.2f} hands instead of {old:.2f}{interval}: "
            + ("the interval includes no change, so these hands cannot tell the two scorings apart"
               if known else "these hands cannot tell whether that is more than chance")
            + "; " + unadapted)


def _plains_clear(vs: dict, name: str = "plains-30") -> bool | None:
    """Whether these hands tell what variant ``name`` does to the hands a game takes
    (the 95 % interval of the change excludes none); None without that variant."""
    variant = vs.get(name)
    if not variant:
        return None
    change = variant.get("vs_reference", {}).get("hands_per_game")
    return (change is not None and bool(np.isfinite(change[1]))
            and (change[1] > 0 or change[2] < 0)
            and variant["hands_per_game"] is not None and vs["default"]["hands_per_game"] is not None)


FIT_LENGTHS = (8, 9, 10, 11)


def _fit_cells(cell: dict | None) -> list:
    return [cell["contracts"], cell["game_tricks"], cell["mean_tricks"]] if cell else ["-", "-", "-"]


GAP_SUITS = ("P", "R", "A")


def _gap_lengths(by_fit: dict[str, dict]) -> list[int]:
    """The trump lengths of 8–11 cards that every suit has enough hands (or deals) of."""
    return [length for length in FIT_LENGTHS if all(length in by_fit[x] for x in GAP_SUITS)]


def _lengths(lengths: list[int]) -> str:
    """Trump lengths as a sentence names them: a run as "8–11", else "9, 11"."""
    if len(lengths) > 1 and lengths == list(range(lengths[0], lengths[-1] + 1)):
        return f"{lengths[0]}–{lengths[-1]}"
    return ", ".join(map(str, lengths))


def _game_gap(by_fit: dict[str, dict], key: str) -> float | None:
    """Mean over the fits of 8–11 cards every suit has enough of (:func:`_gap_lengths`) of
    (Ribbons and Animals − Plains) in ``key`` (percentage points)."""
    gaps = [np.mean([by_fit[x][length][key] for x in ("R", "A")]) - by_fit["P"][length][key]
            for length in _gap_lengths(by_fit)]
    return float(np.mean(gaps)) if gaps else None


def _question_discard(deals: dict, folder: str, plots: dict) -> list[str]:
    return ["## 2. What does the mystery discard hide?", "",
            table_markdown(undealt_table(deals)), "", *_image(folder, "undealt", plots)]


def _question_honors(play: dict, vs: dict, folder: str, plots: dict) -> list[str]:
    pts = play["points_per_hand"]
    out = ["## 3. How much do honors and Bright bonuses weigh against contract points?", "",
           table_markdown(points_table({k: vs[k] for k in vs if k in ("default", "no-honors",
                                                                       "no-bright-bonus")},
                                       "Mean points per hand, both sides together")), "",
           bright_shares(play) + " "
           + ("Honors and Bright bonuses together are "
              f"{_ratio(pts['honors'] + pts['Bright bonuses'], pts['contract points (below)'])} "
              "the contract points scored below the line, and "
              f"{_ratio(pts['honors'] + pts['Bright bonuses'], _contract_score(pts))} the contract's "
              "whole score (with overtricks and undertrick penalties); the difference they make between the two "
              f"sides averages {play['honor_margin']:.1f} points a hand, against "
              f"{play['score_margin']:.1f} for the whole score." if play["contracts"] else
              "No hand was played (every hand passed out), so none scored honors, bonuses or "
              "contract points.")]
    for name, label in (("no-honors", "without honor bonuses"),
                        ("no-bright-bonus", "without Bright bonuses")):
        if name in vs:
            out.append(f"Scored {label}, the side ahead on the hand changes in "
                       f"{_changed(vs[name])} of hands.")
    if any(name in vs for name in ("no-honors", "no-bright-bonus")):
        out.append("(A hand whose two sides score the same has no side ahead: a tie made or "
                   "broken counts as a change.)")
    return out + ["", *_image(folder, "points", plots)]


def _question_penalty(vs: dict, dd: dict | None) -> list[str]:
    out = ["## 4. What does an undertrick penalty change? (The rulebook states none; R15 adds 50 a trick.)", ""]
    if "strict" in vs:
        d, s = vs["default"], vs["strict"]
        out += [f"Played the same way, {d['points_per_hand']['undertrick penalties']:.1f} points per hand "
                f"come from undertricks under the default (50 a trick) and none under the strict "
                f"reading; the side ahead on the hand changes in {_changed(s)} of hands. "
                "The bots bid the same way under both, so this understates the change: under the "
                "strict reading a failed contract costs nothing, and bidding would change with it.", ""]
    if dd and "strict" in dd["variants"]:
        d, s = dd["variants"]["default"], dd["variants"]["strict"]
        out += [table_markdown(TableSpec(
            f"Par (both sides bid with full knowledge), double dummy, {count_text(dd['deals'], 'deal')}: "
            "the contract's score alone (contract points, overtricks, penalties)",
            ["", "default (50 a trick)", "strict (0)"],
            [["passed out %", d["par_passed_out"], s["par_passed_out"]],
             ["scores nothing (passed out, or a failing contract at no cost) %",
              d["par_zero"], s["par_zero"]],
             ["ends in a sacrifice (a failing contract) %", d["par_sacrifice"], s["par_sacrifice"]],
             ["ends at the 7 level %", d["par_level_7"], s["par_level_7"]],
             ["mean size of the par score", d["mean_abs_par"], s["mean_abs_par"]]])), "",
            f"Counting the contract's score alone, par under the strict reading scores nothing in "
            f"{s['par_zero']:.0f}% of these deals (against {d['par_zero']:.0f}% with the "
            "penalty): whatever a side bids, the other outbids it for free. Honors and Bright "
            "bonuses are left out of par: a played hand scores them to whoever captures the "
            "cards, made contract or not (R16), and a passed-out hand scores none (R8). So "
            "under the strict reading the hand is not simply passed out: the side that expects "
            "to capture more honors gains from any contract being played, and the contract "
            "itself decides little.", ""]
    return out


def _question_honor_count(dd: dict | None, folder: str, plots: dict[str, Plot]) -> list[str]:
    """Section 5: how much of Chapter 10's honor count a side needs for game, double
    dummy (every side of every deal); nothing without the double-dummy part."""
    if not dd:
        return []
    from .dd import HC_BUCKET
    by_hc = {int(b): v for b, v in dd["game_by_honor_count"].items()}
    out = ["## 5. How much honor count makes a game? (Chapter 10)", ""]
    if not by_hc:
        return out + ["No honor count was held by enough sides in these deals: more deals (`--dd-n`) "
                      "would give the figure.", ""]
    game = dd["game_level"]
    rows = [[f"{b}–{b + HC_BUCKET - 1}", v["sides"],
             rate_cell(v["game_makeable_sides"]["any"], v["sides"]),
             rate_cell(v["game_makeable_sides"]["NT"], v["sides"]),
             rate_cell(v["game_makeable_sides"]["suit"], v["sides"])] for b, v in sorted(by_hc.items())]
    out += [table_markdown(TableSpec(
        f"Game makeable double dummy by a side's honor count (every side of {count_text(dd['deals'], 'deal')})",
        ["honor count", "sides", "some game % (95% interval)", f"{game_label(game['NT'], 'NT')} % (95% interval)",
         "a game in some suit % (95% interval)"], rows)), ""]
    by_points = {int(b): v for b, v in dd.get("game_by_points", {}).items()}
    out += [_half_games(by_hc) + _central_spread(2 * dd["deals"], by_hc, by_points), "",
            *_image(folder, "honor-games", plots)]
    return out


def _question_twins(play: dict, number: int) -> list[str]:
    """How often the identical-card rule decides a trick: question 6, or 5 where
    the double-dummy part (question 5) is not run."""
    out = [f"## {number}. How often does the identical-card rule decide a trick? (R12)", ""]
    if not play["contracts"]:
        return out + ["No hand was played (every hand passed out), so no trick was.", ""]
    return out + [twin_shares(play) + " These are the tricks as the bots played them (they "
                  "cash first a winner whose twin an opponent may hold: `docs/bots.md`).", ""]


def _central_spread(sides: int, by_hc: dict[int, dict], by_points: dict[int, dict] | None = None) -> str:
    """How far the chance of some game moves over the honor counts four sides in five
    of ``sides`` hold; with ``by_points`` (the same by the bots' points, counted by
    rank), over those points too: "" with fewer than three buckets of honor counts there."""
    spread = _central_range(by_hc, sides)
    if spread is None:
        return ""
    low, high, held, least, most = spread
    out = (f" Over the counts most sides hold ({low} to {high}, {held:.0f}% of them), the chance of some "
           f"game runs from {least:.0f}% to {most:.0f}%.")
    points = _central_range(by_points, sides) if by_points else None
    if points is not None:
        low, high, held, least, most = points
        out += (" Counted by rank instead, as the bots count (4, 3, 2 and 1 for each suit's four highest "
                f"cards, every copy: docs/bidding.md), over the points most sides hold ({low} to {high}, "
                f"{held:.0f}%) it runs from {least:.0f}% to {most:.0f}%.")
    return out


def _central_range(by: dict[int, dict], sides: int) -> tuple[int, int, float, float, float] | None:
    """Over the buckets four sides in five hold (from the one that reaches a tenth of
    the sides to the one that reaches nine tenths): their first count and last, the
    share of all ``sides`` they hold, and the least and most chance of some game in
    them; None with fewer than three such buckets. (``by`` leaves out the buckets of a
    few sides, at the ends: the share is of every side, those included — of the sides
    ``by`` holds it read 95 % where 87 % of 120 sides held the counts named.)"""
    from .dd import HC_BUCKET
    ordered = sorted(by)
    total = sum(by[b]["sides"] for b in ordered)
    cumulative = np.cumsum([by[b]["sides"] for b in ordered])
    first = int(np.searchsorted(cumulative, total / 10, side="right"))
    last = int(np.searchsorted(cumulative, 9 * total / 10))
    central = ordered[first:last + 1]
    if len(central) < 3:
        return None
    shares = [pct(by[b]["game_makeable_sides"]["any"], by[b]["sides"]) for b in central]
    return (central[0], central[-1] + HC_BUCKET - 1, pct(sum(by[b]["sides"] for b in central), sides),
            min(shares), max(shares))


def _half_games(by_hc: dict[int, dict]) -> str:
    """Where a side's chance of some game passes one half: the buckets whose 95 %
    interval lies wholly below one half, and those wholly above it, where every one of
    the first comes before every one of the second (a few sides at either end, whose
    intervals straddle one half, say nothing either way)."""
    from .dd import HC_BUCKET
    bounds = {b: wilson(v["game_makeable_sides"]["any"], v["sides"]) for b, v in by_hc.items()}
    below = sorted(b for b, (_, hi) in bounds.items() if hi < 50)
    above = sorted(b for b, (lo, _) in bounds.items() if lo > 50)
    if (below and above and below[-1] > above[0]) or not (below or above):
        return ("These deals do not show where a side's chance of some game passes one half: more "
                "deals (`--dd-n`) would.")
    told = "(the counts whose 95% interval lies wholly below, or above, one half)"
    if not above:
        return (f"Double dummy, a side makes some game less than half the time at every honor count "
                f"these deals settle, up to {below[-1] + HC_BUCKET - 1} {told}; at none is it clearly "
                "likelier than not.")
    if not below:
        return (f"Double dummy, a side makes some game more than half the time at every honor count "
                f"these deals settle, from {above[0]} {told}.")
    return (f"Double dummy, a side makes some game less than half the time at every honor count these "
            f"deals settle up to {below[-1] + HC_BUCKET - 1}, and more than half the time from {above[0]} "
            f"{told}" + ("; between them these deals cannot tell." if above[0] > below[-1] + HC_BUCKET
                         else ".") + f" Read as Chapter 10's guidance for bidding: by this count, game is "
            f"likelier than not from {above[0]}.")


def _has_fits(dd: dict) -> bool:
    """Whether some trump length had enough double-dummy deals to be shown."""
    return any(dd["by_fit"][d] for d in ("P", "R", "A"))


def _suggestions(deals: dict, play: dict, vs: dict, dd: dict | None,
                 gaps: dict[str, tuple[float, float] | None]) -> list[str]:
    out = []
    play_fits = {x: play["by_denom"][x]["by_fit"] for x in GAP_SUITS}
    play_gap = _game_gap(play_fits, "game_tricks")
    # A handful of double-dummy deals illustrates; it does not decide.
    firm = dd if dd and dd["deals"] >= DD_FIRM else None
    dd_gap = _game_gap(firm["by_fit"], "game_makeable") if firm else None
    if play_gap is not None or dd_gap is not None:
        # (told apart only when every Plains variant run is)
        told = [c for c in (_plains_clear(vs, name) for name in PLAINS_VARIANTS) if c is not None]
        out.append(_plains_conclusion(play, play_fits, firm, play_gap, dd_gap, gaps,
                                      all(told) if told else None))
    u = deals["undealt"]["exact"]
    out.append(f"**The mystery discard matters.** At least one Bright copy is undealt in "
               f"{100 * u['some_bright']:.0f}% of deals and both copies of some card in "
               f"{100 * u['some_pair']:.0f}%. So the Ten Bright bonus is out of reach in "
               f"{100 * u['some_bright']:.0f}% of deals before a card is played, and the Five "
               f"Bright bonus in {100 * u['some_bright_pair']:.1f}% (both copies of a Bright "
               "undealt). A missing card is never safely placed with an opponent: this is the "
               "game's own inference problem, and worth a paragraph in the rulebook.")
    out += _honors_suggestion(play, vs) if play["contracts"] else [
        "**The bots reached no contract** (every hand passed out), so their play says nothing "
        "of honors, bonuses or the undertrick penalty; other bots (`--bots`) or more deals would."]
    out += _penalty_suggestion(play, vs, firm)
    out += _count_suggestion(firm)
    return out


def _count_suggestion(dd: dict | None) -> list[str]:
    """Chapter 10's count against a count by rank as guides to game (section 5): said
    where there are enough double-dummy deals and the count by rank spreads the chance
    of game at least twice as widely over the values most sides hold."""
    if not dd:
        return []
    sides = 2 * dd["deals"]                 # (every side of every deal)
    honors = _central_range({int(b): v for b, v in dd.get("game_by_honor_count", {}).items()}, sides)
    points = _central_range({int(b): v for b, v in dd.get("game_by_points", {}).items()}, sides)
    if honors is None or points is None or points[4] - points[3] < 2 * (honors[4] - honors[3]):
        return []
    return [f"**Chapter 10's count is a weak guide to game; a count by rank is a strong one.** Over the "
            f"honor counts most sides hold ({honors[0]} to {honors[1]}) the chance of making some game "
            f"double dummy runs only from {honors[3]:.0f}% to {honors[4]:.0f}%; over the points most "
            f"sides hold counted by rank ({points[0]} to {points[1]}: 4, 3, 2 and 1 for each suit's four "
            f"highest cards) it runs from {points[3]:.0f}% to {points[4]:.0f}% (section 5). The honor "
            "values are what captured cards score, not what they win: Chapter 10 could count the top "
            "cards of each suit for bidding, as the bots do, and keep the honor values for scoring."]


def _honors_suggestion(play: dict, vs: dict) -> list[str]:
    """What honors and Bright bonuses weigh against the contract, in the bots' play."""
    out = []
    pts = play["points_per_hand"]
    extra = pts["honors"] + pts["Bright bonuses"]
    below = pts["contract points (below)"]
    whole = _contract_score(pts)
    # "the contract" is its whole score, as in the par figures (contract points, overtricks,
    # penalties): honors that outweigh the points below the line alone may not outweigh it
    weight = ("outweigh the contract in volume" if extra > whole else
              "outweigh the contract points, not the contract's whole score" if extra > below else
              "are smaller than the contract in volume")
    out.append(f"**Honors {weight}.** "
               f"They and the Bright bonuses bring {extra:.0f} points a hand (both sides) against "
               f"{below:.0f} below the line and {whole:.0f} for the contract's whole score (with "
               "overtricks and undertrick penalties). But both sides capture honors: the difference "
               f"honors and Bright bonuses make between the sides averages {play['honor_margin']:.0f} points, against "
               f"{play['score_margin']:.0f} for the whole hand"
               + "".join(f"; scored {label}, the side ahead on the hand changes in "
                         f"{_changed(vs[name])} of hands"
                         for name, label in (("no-honors", "without honor bonuses"),
                                             ("no-bright-bonus", "without Bright bonuses"))
                         if name in vs)
               + _honors_verdict([vs[k] for k in ("no-honors", "no-bright-bonus") if k in vs]))
    return out


def _penalty_suggestion(play: dict, vs: dict, firm: dict | None) -> list[str]:
    """What the undertrick penalty decides: by par where there are enough double-dummy
    deals, else in the bots' play (where they reached contracts)."""
    out = []
    if firm and "strict" in firm["variants"]:
        s, d = firm["variants"]["strict"], firm["variants"]["default"]
        if s["par_zero"] > d["par_zero"]:
            out.append(f"**State an undertrick penalty in the rulebook.** The rulebook has none "
                       f"(the project's default, 50 a trick, is its ruling R15). Under the strict "
                       f"reading an outbid costs nothing, so whatever a side bids the other "
                       f"outbids it for free: counting the contract's score alone, par scores "
                       f"nothing in {s['par_zero']:.0f}% of deals (against {d['par_zero']:.0f}% "
                       "with 50 a trick), and what is left to score is honors and Bright bonuses, "
                       "which go to whoever captures the cards. "
                       + (f"With the same play, the side ahead changes in "
                          f"{_changed(vs['strict'])} of hands. " if "strict" in vs else "")
                       + "Without a penalty the contract decides little.")
        else:
            out.append(f"**The undertrick penalty changes par little.** Counting the contract's "
                       f"score alone, par scores nothing in {s['par_zero']:.0f}% of deals under the strict "
                       f"reading, against {d['par_zero']:.0f}% with 50 a trick.")
    elif "strict" in vs and play["contracts"]:
        # led by the 95 % interval, one hand in twenty the line (as _honors_verdict is): the
        # estimate alone gave firm advice from 30 hands, 10.0 % (3.5-25.6 %)
        lo, hi = wilson(vs["strict"]["winner_changed_hands"], vs["strict"]["hands"])
        if lo >= 5:
            out.append(f"**State an undertrick penalty in the rulebook.** The rulebook has none (the "
                       f"project's default, 50 a trick, is its ruling R15). Without it a failed "
                       f"contract costs nothing, so nothing stops a side from outbidding any "
                       f"contract; with the same play the side ahead changes in "
                       f"{_changed(vs['strict'])} of hands already.")
        elif hi < 5:
            out.append(f"**The undertrick penalty decides few hands as they were played:** the side "
                       f"ahead changes in {_changed(vs['strict'])} of hands without it. But without it a failed "
                       "contract costs nothing, which would change the bidding; the double-dummy "
                       "analysis (`--dd-n`) shows what par makes of that.")
        else:
            out.append(f"**What the undertrick penalty decides, these deals cannot tell:** with the same "
                       f"play the side ahead changes in {_changed(vs['strict'])} of hands without it, an "
                       "interval that holds one hand in twenty; more deals (`--n`) would tell. Without "
                       "it a failed contract costs nothing, which would change the bidding; the "
                       "double-dummy analysis (`--dd-n`) shows what par makes of that.")
    return out


_ORDINALS = {7: "seventh", 8: "eighth", 9: "ninth", 10: "tenth", 11: "eleventh", 12: "twelfth",
             13: "thirteenth"}


def _plains_conclusion(play: dict, play_fits: dict[str, dict], firm: dict | None, play_gap: float | None,
                       dd_gap: float | None, gaps: dict[str, tuple[float, float] | None],
                       p30_clear: bool | None = None) -> str:
    """What the gap in game tricks between Ribbons or Animals and Plains says, led by
    what its sign and its 95 % interval allow (of two figures, the more precise, :func:`_deciding`).
    ``play_fits`` is each of :data:`GAP_SUITS`' ``by_fit`` summary in ``play``; ``p30_clear``
    whether variant ``plains-30``'s change to the hands a game takes is clear in these hands
    (:func:`_plains_clear`), so that a suggestion of that variant says when it is not."""
    def said(value: float, bounds: tuple[float, float] | None, unit: str) -> str:
        # "12 points (95% interval 8 to 16) more often", or "less often" for a negative gap
        if value < 0 and bounds is not None:
            bounds = (-bounds[1], -bounds[0])
        return (f"{abs(value):.0f} {unit}{_interval(bounds)} {'more' if value >= 0 else 'less'} "
                "often in Ribbons or Animals than in Plains")

    found, alike = [], True
    if dd_gap is not None:
        assert firm is not None
        found.append(f"game is makeable double dummy {said(dd_gap, gaps.get('dd'), 'percentage points')} "
                     f"(fits of {_lengths(_gap_lengths(firm['by_fit']))} cards)")
    if play_gap is not None:
        lengths = _gap_lengths(play_fits)
        tricks = _fit_mean_tricks(play_fits, lengths)
        means = f"{tricks['P']:.1f} in Plains, {tricks['R']:.1f} in Ribbons, {tricks['A']:.1f} in Animals"
        alike = max(tricks.values()) - min(tricks.values()) <= 0.5
        found.append(f"the bots took game tricks {said(play_gap, gaps.get('play'), 'percentage points')} (fits of "
                     f"{_lengths(lengths)} cards), "
                     + (f"while taking about as many tricks (mean {means})" if alike
                        else f"taking on average {tricks['P']:.1f} tricks in Plains, "
                             f"{tricks['R']:.1f} in Ribbons and {tricks['A']:.1f} in Animals"))
    which = _deciding(play_gap, dd_gap, gaps)
    gap = play_gap if which == "play" else dd_gap
    assert gap is not None
    bounds = _bounds(gaps.get(which))
    evidence = "With a trump fit of the same length, " + " and ".join(found) + "."
    if gap > 0 and (bounds is None or bounds[0] > 0):
        levels = {x: play["by_denom"][x]["game_level"] for x in ("P", "R", "A")}
        # the extra trick explains the gap only where the suits take about as many tricks
        extra = (f" The {_ORDINALS[levels['P'] + 6]} trick that {levels['P']}P needs is the whole "
                 "difference." if levels["P"] > max(levels["R"], levels["A"]) and levels["P"] <= 7
                 and (play_gap is None or alike) else "")
        return ("**Plains are worth less than their price.** " + evidence + extra + " "
                + ("A 20-point Plain contract is not worth a 30-point one: Plains are a part-score "
                   "suit. To make them worth bidding, score Plains 30 a level (game at 4P, as in the "
                   "`plains-30` variant) or 25 a level (game at 4P too, 4 × 25 = 100, as in "
                   "`plains-25`)."
                   # (section 1 said the variant's games could not be told apart: both stand,
                   # being measured in different things, which is said)
                   + (" What these scorings do to the hands a game takes is not yet clear in these hands "
                      "(section 1): the gap above is in tricks, not in games; more deals (`--n`) "
                      "would show it." if p30_clear is False else "")
                   if gap > 5 else "The gap is small: the 20-point scale costs Plains little."))
    if gap < 0 and (bounds is None or bounds[1] < 0):
        return ("**Plains hold their own.** " + evidence + " With fits of these lengths Plains "
                "reach game tricks more often than the other suits, so these deals give no reason "
                "to score them higher.")
    return ("**No clear gap between Plains and the other suits.** " + evidence + " The 95% interval "
            "includes zero, so these deals cannot tell whether the 20-point scale costs Plains "
            "anything; more deals (`--n`) narrow it.")


def _fit_mean_tricks(by_fit: dict[str, dict], lengths: list[int]) -> dict[str, float]:
    """Each suit's mean tricks over the contracts of the trump ``lengths`` the gap is
    taken over (:func:`_gap_lengths` of ``by_fit``), as the sentence that gives them
    compares like fits."""
    return {x: float(np.average([by_fit[x][n]["mean_tricks"] for n in lengths],
                                weights=[by_fit[x][n]["contracts"] for n in lengths]))
            for x in GAP_SUITS}


def _bounds(bounds: tuple[float, float] | None) -> tuple[float, float] | None:
    """A 95 % interval, or ``None`` where there is none (too few to bootstrap)."""
    return None if bounds is None or np.isnan(bounds[0]) else bounds


def _deciding(play_gap: float | None, dd_gap: float | None,
              gaps: dict[str, tuple[float, float] | None]) -> str:
    """Which gap the conclusion follows, ``"play"`` or ``"dd"``: the one there is, or
    of two the one known more precisely (the narrower 95 % interval; bot play, the
    larger sample at the documented sizes, where neither has one)."""
    if dd_gap is None:
        return "play"
    if play_gap is None:
        return "dd"
    play, dd = _bounds(gaps.get("play")), _bounds(gaps.get("dd"))
    if dd is not None and (play is None or dd[1] - dd[0] < play[1] - play[0]):
        return "dd"
    return "play"


def _interval(bounds: tuple[float, float] | None) -> str:
    """`` (95 % interval a to b)`` for a figure, or nothing where there is none."""
    known = _bounds(bounds)
    if known is None:
        return ""
    return f" (95% interval {known[0]:.0f} to {known[1]:.0f})"


def _honors_verdict(variants: list[dict]) -> str:
    """The honors paragraph's last sentence, from the 95 % intervals of the hands whose
    winner changes without honors (or Bright bonuses), one hand in twenty the line: drawn
    from the estimates alone, 3.0 % (1.0-8.5 %) read as "far more than they decide"."""
    if not variants:
        return "."
    bounds = [wilson(v["winner_changed_hands"], v["hands"]) for v in variants]
    if all(hi < 5 for _, hi in bounds):
        return ". Honors inflate scores far more than they decide hands."
    if any(lo >= 5 for lo, _ in bounds):
        return ". They decide enough hands to be worth keeping in view when setting their values."
    return (". Whether they decide more than one hand in twenty these deals cannot tell "
            "(the intervals hold 5%): more deals (`--n`) would.")


def _changed(variant: dict) -> str:
    """How often the side ahead changed under a variant, with its 95 % interval."""
    lo, hi = wilson(variant["winner_changed_hands"], variant["hands"])
    return f"{variant['winner_changed']:.1f}% (95% interval {lo:.1f}–{hi:.1f}%)"


def _gap_intervals(study: Study, dd: dict | None, dd_table: Table | None) -> dict[str, tuple[float, float] | None]:
    """95 % bootstrap intervals of the Plains gaps the suggestions cite: how many
    points more often game is reached in Ribbons or Animals than in Plains, over
    the same trump lengths as the figure (resampling hands, or deals)."""
    from .dd import both_sides_view

    play = study.summaries["play"]
    t = study.result.tables["play"]
    t = t.where(t["passed_out"] == 0)
    lengths = _gap_lengths({x: play["by_denom"][x]["by_fit"] for x in GAP_SUITS})
    out: dict[str, tuple[float, float] | None] = {"play": None, "dd": None}
    if lengths:
        member = np.stack([(t["denom"] == x) & (t["decl_fit"] == length)
                           for length in lengths for x in GAP_SUITS], axis=1)
        success = np.stack([t["tricks"] >= play["by_denom"][x]["game_level"] + 6
                            for length in lengths for x in GAP_SUITS], axis=1)
        out["play"] = bootstrap_interval(member, success, _gap_statistic(len(lengths)))
    if dd and dd_table is not None and dd["deals"] >= DD_FIRM:
        lengths = _gap_lengths(dd["by_fit"])
        if lengths:
            # both sides of each deal, as the figure: a deal is resampled with its two sides
            tricks, fits = both_sides_view(dd_table)
            n = len(dd_table)
            member = np.stack([fits[:, i] == length for length in lengths
                               for i, _x in enumerate(GAP_SUITS)], axis=1)
            success = np.stack([tricks[:, i] >= dd["game_level"][x] + 6 for length in lengths
                                for i, x in enumerate(GAP_SUITS)], axis=1) & member
            out["dd"] = bootstrap_interval(member[:n].astype(int) + member[n:],
                                           success[:n].astype(int) + success[n:],
                                           _gap_statistic(len(lengths)))
    return out


def _gap_statistic(lengths: int):
    """Rates of cells (length, P/R/A) to the mean over lengths of (R and A) − P."""
    def statistic(rates: np.ndarray) -> np.ndarray:
        cells = rates.reshape(len(rates), lengths, 3)
        return (cells[:, :, 1:].mean(axis=2) - cells[:, :, 0]).mean(axis=1)
    return statistic


def _contract_score(points: dict) -> float:
    """The contract's whole score a hand, both sides: contract points below the line,
    overtricks and undertrick penalties (what par counts), honors and bonuses aside."""
    return points["contract points (below)"] + points["overtricks"] + points["undertrick penalties"]


def _ratio(part: float, whole: float) -> str:
    if not whole:
        return "all of, and more than,"
    return f"{part / whole:.1f} times" if part >= whole else f"{pct(part, whole):.0f}% of"
