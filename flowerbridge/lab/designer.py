"""The designer's report: four questions about the rules, answered from data.

:func:`write_designer_report` runs the ``deals``, ``play`` and ``variants``
analyses over ``n`` deals (and ``dd`` over ``dd_n`` of them, when the solver
is installed), then writes a Markdown report with its figures in a folder
beside it. Every number in it comes from the run; the sentences that draw
conclusions are chosen by the numbers, so rebuilding the report with another
seed or more deals keeps it honest.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from .base import LabError
from .deals import undealt_plot, undealt_table
from .play import contract_table, points_table
from .report import Plot, TableSpec, pct, png_bytes, table_markdown
from .runner import analyses
from .study import Study, run_lab
from .variants import points_plot

COMMAND = "flowerbridge lab --designer docs/designer-report.md --n 20000 --seed 2026 --dd-n {dd_n}"


def write_designer_report(path: str | os.PathLike, out: str | os.PathLike, *, n: int = 20000,
                          seed: Any = 2026, dd_n: int = 0, bots: str | None = None,
                          workers: int | None = None, ray_address: str | None = None,
                          progress: bool = False) -> Study:
    """Run the studies into ``out`` and write the report to ``path`` (Markdown).

    Figures go to a folder named after ``path`` without its suffix. ``dd_n``
    deals (the first ones of the same seed) get the double-dummy analysis,
    which costs a full search per deal; 0 leaves it out.
    """
    if dd_n < 0 or dd_n > n:
        raise LabError(f"dd deals must be between 0 and the number of deals ({n}), not {dd_n}")
    common = dict(seed=seed, bots=bots, workers=workers, ray_address=ray_address, progress=progress)
    study = run_lab(out, ["deals", "play", "variants"], n=n, **common)
    dd_summary = None
    if dd_n:
        if "dd" not in analyses():
            raise LabError("the double-dummy solver is not installed: use --dd-n 0")
        dd_summary = run_lab(Path(out) / "dd", ["dd"], n=dd_n, **common).summaries["dd"]
    path = Path(path)
    figures = path.with_suffix("")
    figures.mkdir(parents=True, exist_ok=True)
    text = _markdown(study, dd_summary, figures.name, _figures(study, dd_summary, figures),
                     command=COMMAND.format(dd_n=dd_n) if n == 20000 and seed == 2026 else
                     f"flowerbridge lab --designer {path} --n {n} --seed {seed} --dd-n {dd_n}")
    path.write_text(text, encoding="utf-8")
    return study


def _figures(study: Study, dd_summary: dict | None, folder: Path) -> dict[str, Plot]:
    from .dd import game_by_fit_plot

    plots = {"undealt": undealt_plot(study.summaries["deals"]),
             "points": points_plot(study.summaries["variants"]["variants"])}
    if dd_summary:
        plots["games"] = game_by_fit_plot(dd_summary)
    for name, plot in plots.items():
        (folder / f"{name}.png").write_bytes(png_bytes(plot.figure))
    return plots


def _markdown(study: Study, dd: dict | None, folder: str, plots: dict[str, Plot], command: str) -> str:
    deals = study.summaries["deals"]
    play = study.summaries["play"]
    vs = study.summaries["variants"]["variants"]
    n = deals["deals"]
    out = [
        "# Flower Bridge in numbers: a report for the designer",
        "",
        f"Built from **{n:,} deals** (seed {study.result.seed!r}) by one command:",
        "",
        f"    {command}",
        "",
        f"Every deal was bid and played by four `{play['bots']}` bots and scored by the rules "
        "engine; the same hands were then re-scored under other rule options. "
        + (f"The double-dummy solver analysed the first **{dd['deals']:,}** of these deals "
           "(a full search per deal; the same command with a larger `--dd-n` analyses more)."
           if dd else "The double-dummy part was not run (`--dd-n 0`)."),
        "The full HTML report, the raw CSV rows and `summary.json` are in the run's output folder.",
        "",
    ]
    out += _question_games(play, vs, dd, folder, plots)
    out += _question_discard(deals, folder, plots)
    out += _question_honors(play, vs, folder, plots)
    out += _question_penalty(vs, dd)
    out += ["## What the data suggest", ""] + [f"- {s}" for s in _suggestions(deals, play, vs, dd)]
    return "\n".join(out) + "\n"


def _image(folder: str, name: str, plots: dict[str, Plot]) -> list[str]:
    return [f"![{plots[name].caption}]({folder}/{name}.png)", "", f"*{plots[name].caption}*", ""]


def _question_games(play: dict, vs: dict, dd: dict | None, folder: str, plots: dict) -> list[str]:
    out = ["## 1. Is a 30-point Ribbon or Animal contract worth a 20-point Plain one?", "",
           "Game is 100 below the line: **5P** (11 tricks) in Plains, **4R** or **4A** (10 tricks) "
           "in Ribbons or Animals, **3NT** (9 tricks). The question is how often each is within "
           "reach.", ""]
    if dd:
        rows = []
        for length in (7, 8, 9, 10, 11):
            cells = [dd["by_fit"][d].get(length, {}).get("game_makeable", "-") for d in ("P", "R", "A")]
            rows.append([f"{length} cards", *cells])
        out += [table_markdown(TableSpec(
            f"Double dummy, {dd['deals']:,} deals: game makeable (%) in a suit by the stronger "
            "side's length in it", ["length", "5P", "4R", "4A"], rows)), ""]
        out += [table_markdown(TableSpec(
            "Double dummy: the stronger side, any length", ["", "P", "R", "A", "NT"],
            [["game makeable %", *(dd["game_makeable"][d] for d in ("P", "R", "A", "NT"))],
             ["mean tricks", *(dd["mean_tricks"][d] for d in ("P", "R", "A", "NT"))],
             ["best contract in it %", *(dd["variants"]["default"]["best_denomination"][d]
                                          for d in ("P", "R", "A", "NT"))]])), ""]
        out += _image(folder, "games", plots)
    out += [table_markdown(contract_table(play, f"Bot play, {play['hands']:,} hands: contracts by "
                                                "denomination")), ""]
    p30 = vs.get("plains-30")
    if p30:
        out += [f"With Plains scored like Ribbons (variant `plains-30`, same hands), a game takes "
                f"{_num(p30['hands_per_game'])} hands instead of {_num(vs['default']['hands_per_game'])}.",
                ""]
    return out


def _question_discard(deals: dict, folder: str, plots: dict) -> list[str]:
    return ["## 2. What does the mystery discard hide?", "",
            table_markdown(undealt_table(deals)), "", *_image(folder, "undealt", plots)]


def _question_honors(play: dict, vs: dict, folder: str, plots: dict) -> list[str]:
    pts = play["points_per_hand"]
    out = ["## 3. How much do honors and Bright bonuses weigh against contract points?", "",
           table_markdown(points_table({k: vs[k] for k in vs if k in ("default", "no-honors",
                                                                       "no-bright-bonus")},
                                       "Mean points per hand, both sides together")), "",
           f"Five Bright bonus in {play['five_bright_rate']:.1f}% of hands (either side), "
           f"Ten Bright in {play['ten_bright_rate']:.2f}%. "
           "Honors and Bright bonuses together are "
           f"{_ratio(pts['honors'] + pts['Bright bonuses'], pts['contract points (below)'])} "
           "the contract points scored below the line; the difference they make between the two "
           f"sides averages {play['honor_margin']:.1f} points a hand, against "
           f"{play['score_margin']:.1f} for the whole score."]
    for name, label in (("no-honors", "without honor bonuses"),
                        ("no-bright-bonus", "without Bright bonuses")):
        if name in vs:
            out.append(f"Scored {label}, the side ahead on the hand changes in "
                       f"{vs[name]['winner_changed']:.1f}% of hands.")
    return out + ["", *_image(folder, "points", plots)]


def _question_penalty(vs: dict, dd: dict | None) -> list[str]:
    out = ["## 4. What does the default undertrick penalty change against the strict reading?", ""]
    if "strict" in vs:
        d, s = vs["default"], vs["strict"]
        out += [f"Played the same way, {d['points_per_hand']['undertrick penalties']:.1f} points per hand "
                f"come from undertricks under the default (50 a trick) and none under the strict "
                f"reading; the side ahead on the hand changes in {s['winner_changed']:.1f}% of hands. "
                "The bots bid the same way under both, so this understates the change: under the "
                "strict reading a failed contract costs nothing, and bidding would change with it.", ""]
    if dd and "strict" in dd["variants"]:
        d, s = dd["variants"]["default"], dd["variants"]["strict"]
        out += [table_markdown(TableSpec(
            f"Par (both sides bid with full knowledge), double dummy, {dd['deals']:,} deals",
            ["", "default (50 a trick)", "strict (0)"],
            [["passed out %", d["par_passed_out"], s["par_passed_out"]],
             ["ends in a sacrifice (a failing contract) %", d["par_sacrifice"], s["par_sacrifice"]],
             ["ends at the 7 level %", d["par_level_7"], s["par_level_7"]],
             ["mean size of the par score", d["mean_abs_par"], s["mean_abs_par"]]])), ""]
    return out


def _suggestions(deals: dict, play: dict, vs: dict, dd: dict | None) -> list[str]:
    out = []
    if dd:
        gaps = [np.mean([dd["by_fit"][d][length]["game_makeable"] for d in ("R", "A")])
                - dd["by_fit"]["P"][length]["game_makeable"]
                for length in (8, 9, 10) if all(length in dd["by_fit"][d] for d in ("P", "R", "A"))]
        if gaps:
            gap = float(np.mean(gaps))
            out.append(
                f"**Plains are worth less than their price.** With the same 8–10 card fit, game "
                f"is makeable {gap:.0f} percentage points {'more' if gap > 0 else 'less'} often in "
                "Ribbons or Animals than in Plains, because 5P needs an eleventh trick. "
                + ("A 20-point Plain contract is not worth what a 30-point one is: consider "
                   "Plains at 30 (game at 4P) or accept that Plains are a part-score suit."
                   if gap > 5 else "The gap is small: the 20-point Plains scale costs little."))
    else:
        d = play["by_denom"]
        out.append(f"Bot play only (no double dummy): Plains games were bid {d['P']['games_bid']:,} "
                   f"times and made {d['P']['games_made']:,}; Ribbons {d['R']['games_made']:,} of "
                   f"{d['R']['games_bid']:,}, Animals {d['A']['games_made']:,} of {d['A']['games_bid']:,}. "
                   "Run with `--dd-n` for the double-dummy answer.")
    u = deals["undealt"]["exact"]
    out.append(f"**The mystery discard matters.** At least one Bright copy is undealt in "
               f"{100 * u['some_bright']:.0f}% of deals and both copies of some card in "
               f"{100 * u['some_pair']:.0f}%. So the Ten Bright bonus is out of reach in "
               f"{100 * u['some_bright']:.0f}% of deals before a card is played, and the Five "
               f"Bright bonus in {100 * u['some_bright_pair']:.1f}% (both copies of a Bright "
               "undealt). A missing card is never safely placed with an opponent: this is the "
               "game's own inference problem, and worth a paragraph in the rulebook.")
    pts = play["points_per_hand"]
    extra = pts["honors"] + pts["Bright bonuses"]
    below = pts["contract points (below)"]
    heavy = extra > below
    out.append(f"**Honors {'outweigh' if heavy else 'are smaller than'} the contract in volume.** "
               f"They and the Bright bonuses bring {extra:.0f} points a hand (both sides) against "
               f"{below:.0f} below the line. But both sides capture honors: the difference they "
               f"make between the sides averages {play['honor_margin']:.0f} points, against "
               f"{play['score_margin']:.0f} for the whole hand"
               + "".join(f"; scored {label}, the side ahead on the hand changes in "
                         f"{vs[name]['winner_changed']:.1f}% of hands"
                         for name, label in (("no-honors", "without honor bonuses"),
                                             ("no-bright-bonus", "without Bright bonuses"))
                         if name in vs)
               + (". Honors inflate scores far more than they decide hands."
                  if max((vs[k]["winner_changed"] for k in ("no-honors", "no-bright-bonus") if k in vs),
                         default=0) < 5 else ". They decide enough hands to be worth keeping in view "
                                             "when setting their values."))
    if dd and "strict" in dd["variants"]:
        s, d = dd["variants"]["strict"], dd["variants"]["default"]
        out.append(f"**Keep the undertrick penalty.** Under the strict reading an outbid costs "
                   f"nothing: at par, {s['par_sacrifice']:.0f}% of deals end in a contract that "
                   f"fails (against {d['par_sacrifice']:.0f}% with 50 a trick) and "
                   f"{s['par_level_7']:.0f}% at the seven level. Without a penalty the auction "
                   "stops meaning anything; the rulebook should state one.")
    elif "strict" in vs:
        out.append(f"**Keep the undertrick penalty.** Without it a failed contract costs nothing, so "
                   f"nothing stops a side from outbidding any contract; with the same play the side "
                   f"ahead changes in {vs['strict']['winner_changed']:.0f}% of hands already.")
    return out


def _num(value: float | None) -> str:
    return "no completed game" if value is None else f"{value:.2f}"


def _ratio(part: float, whole: float) -> str:
    if not whole:
        return "all of, and more than,"
    return f"{part / whole:.1f} times" if part >= whole else f"{pct(part, whole):.0f}% of"
