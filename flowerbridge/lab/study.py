"""A lab run from start to report: compute, summarize, write the HTML.

The output folder ends up holding:

* ``<analysis>.csv`` — the raw rows of each analysis, in deal order;
* ``summary.json`` — the figures the report is drawn from;
* ``report.html`` — one self-contained page with captions, tables and plots;
* ``chunks/`` and ``lab.json`` — the saved work a later run resumes from.
"""

from __future__ import annotations

import contextlib

import csv
import html
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..render import count_text
from ..dealing import json_seed
from .base import LabError
from .report import Section, TableSpec, render_html
from .runner import DEFAULT_ANALYSES, MANIFEST, LabResult, Staged, analyses, run_staged

BOTS_TAKEN_BY = ("play", "variants")
VARIANTS_TAKEN_BY = ("variants", "dd")


@dataclass
class Study:
    """A finished lab run and the summaries drawn from it."""

    result: LabResult
    summaries: dict[str, dict]
    report: Path | None
    earlier: dict[str, int | None] = field(default_factory=dict)
    """The merged CSV files in the folder of analyses this run did not run, each with
    the deals it holds (None where that cannot be read): an earlier run's, not in the
    summary or the report."""
    dd: "Study | None" = None
    """With the designer's report, its double-dummy run (in ``dd/`` of the output folder),
    where it has one."""

    @property
    def out(self) -> Path:
        return self.result.out


def run_lab(out: str | os.PathLike, names: str | Sequence[str] | None = None, *, n: int, seed: Any = 0,
            bots: str | None = None, variants: list | None = None, workers: int | None = None,
            ray_address: str | None = None, chunk_size: int | None = None,
            progress: bool | str = False, report: bool = True,
            hold: contextlib.ExitStack | None = None) -> Study:
    """Run analyses ``names`` (default: deals, play, variants) over ``n`` deals from ``seed``.

    ``bots`` (a level or ``module:attribute``) plays for the ``play`` and
    ``variants`` analyses; ``variants`` is a list of ``[name, {option: value}]``
    rule sets (default :data:`~flowerbridge.lab.variants.DEFAULT_VARIANTS`),
    compared by the ``variants`` analysis and by the double-dummy best
    contracts. With ``hold``, the folder stays taken once the run is over (a second run
    in it refused) until ``hold`` closes: a designer's report holds its run's folder
    until the report is written. See :func:`flowerbridge.lab.runner.run` for the rest.
    """
    from ..options import whole_numbers
    from .variants import default_first, variant_options

    known = analyses()
    if variants is not None:
        variants = default_first(variants)     # the default rules are the reference
        variant_options(variants)              # a bad one named now, not after dd's searches
        # a whole number written 1.0 recorded as 1, as the rule set reads it (the folder's
        # records and a clash with a later run showed 1.0)
        variants = [[name, {k: whole_numbers(v) for k, v in changes.items()}] for name, changes in variants]
    # one analysis may be named alone ("variants", not ["variants"]): a string was read
    # as its letters ("a named more than once")
    names = [names] if isinstance(names, str) and names else list(names or DEFAULT_ANALYSES)
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise LabError(f"{', '.join(twice)} named more than once: name each analysis once")
    # a setting no named analysis reads would be silently ignored: refused (an
    # unknown name is left to run(), which names it)
    if set(names) <= set(known):
        if bots is not None and not set(names) & set(BOTS_TAKEN_BY):
            raise LabError(f"bots play only for the {' and '.join(BOTS_TAKEN_BY)} analyses, "
                           f"and none of them is named ({', '.join(names)})")
        if variants is not None and not set(names) & set(VARIANTS_TAKEN_BY):
            raise LabError(f"rule variants are compared only by the {' and '.join(VARIANTS_TAKEN_BY)} "
                           f"analyses, and none of them is named ({', '.join(names)})")
    params: dict[str, dict[str, Any]] = {name: {} for name in names}
    for name in names:
        if bots is not None and name in BOTS_TAKEN_BY:
            params[name]["bots"] = bots
        if variants is not None and name == "variants":
            params[name]["variants"] = variants
    result, staged = run_staged(out, names, n=n, seed=seed, params=params, workers=workers,
                                ray_address=ray_address, chunk_size=chunk_size, progress=progress)
    try:
        study = _finish(result, staged, known, variants, report)
        # the merged CSV files, the summary and the report, put in place together: a
        # run stopped before leaves those of the run before, which agree with each other
        staged.commit(remove=() if report else ("report.html",))
        if hold is not None and staged.lock is not None:
            hold.callback(staged.lock.release)
            staged.lock = None
    finally:
        staged.discard()
    return study


def _no_nan(value: Any) -> Any:
    """``value`` with every float that is not finite (NaN, infinity) made ``None``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_no_nan(v) for v in value]
    return value


def _finish(result: LabResult, staged: Staged, known: dict, variants: list | None, report: bool) -> Study:
    """The summaries of a computed run, its summary.json and report staged beside its CSV files."""
    from .variants import DEFAULT_VARIANTS

    n, seed = result.n, result.seed
    settings = {"variants": variants or [[k, v] for k, v in DEFAULT_VARIANTS]}
    summaries = {name: known[name].summarize(table, result.params[name], settings)
                 for name, table in result.tables.items()}
    earlier = earlier_results(result.out, result.tables)
    # (strict JSON: a figure with no value, a mean's interval from one deal, is null where
    # Python wrote NaN, which JSON.parse and other strict readers refuse)
    # the rule sets compared: none where no analysis compares them (a deals-only run listed
    # the six defaults as if it had)
    written = settings if set(result.tables) & set(VARIANTS_TAKEN_BY) else {"variants": None}
    staged.write("summary.json",
                 json.dumps(_no_nan({"n": n, "seed": json_seed(seed), "params": result.params, "settings": written,
                                     "summaries": summaries, "earlier_results": earlier}),
                            indent=1, allow_nan=False) + "\n")
    page = None
    if report:
        # the rule variants are read when summing up (dd's par), not when computing rows
        # (names as written: a variant named in Hangul read "\ud55c\uad6d" there alone)
        run_rows = [[name, json.dumps({**p, "variants": settings["variants"]} if name == "dd" else p,
                                      ensure_ascii=False)
                     if p or name == "dd" else "-"] for name, p in result.params.items()]
        run_table = TableSpec("Settings of this run", ["analysis", "parameters"], run_rows)
        sections = [Section("Run", "", [run_table])]
        sections += [s for name, table in result.tables.items()
                     for s in known[name].sections(table, summaries[name], result.params[name], settings)]
        intro = (f"{count_text(n, 'deal')} from seed <code>{html.escape(repr(seed))}</code>: "
                 f"analyses {', '.join(result.tables)}. Raw rows are in the CSV files beside this page; "
                 "the figures behind it are in <code>summary.json</code>. A figure marked "
                 "<em>95% interval</em> gives it in parentheses: Wilson's score interval for a "
                 "share, Student's t for a mean, a bootstrap over blocks of consecutive hands for "
                 "hands per game, and for a change against the reference rules a paired bootstrap "
                 "over the same deals.")
        if earlier:
            intro += (" Also in this folder, from an earlier run and not in this report: "
                      + ", ".join(f"<code>{html.escape(name)}</code>"
                                  + (f" ({count_text(deals, 'deal')})" if deals is not None else "")
                                  for name, deals in earlier.items()) + ".")
        page = result.out / "report.html"
        staged.write(page.name, render_html("Flower Bridge lab report", intro, sections))
    return Study(result, summaries, page, earlier)


def earlier_results(out: Path, now: Sequence[str] | dict) -> dict[str, int | None]:
    """The merged CSV files in ``out`` of analyses other than those of ``now`` (an
    earlier run's: this run left them as they were), each with the number of deals
    it holds, read from its last row (None where that cannot be read)."""
    try:
        recorded = json.loads((out / MANIFEST).read_text(encoding="utf-8"))["analyses"]
    except (OSError, ValueError, KeyError, TypeError):
        recorded = {}
    found: dict[str, int | None] = {}
    for name in sorted({*analyses(), *(recorded if isinstance(recorded, dict) else ())} - set(now)):
        path = out / f"{name}.csv"
        if path.is_file():
            found[path.name] = _deals_held(path)
    return found


def _deals_held(path: Path) -> int | None:
    """How many deals a merged CSV holds: its last row's deal, plus one."""
    try:
        with open(path, "rb") as fh:
            header = next(csv.reader([fh.readline().decode("utf-8")]))
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - 65536))
            tail = fh.read().decode("utf-8", errors="replace").rstrip("\n").rsplit("\n", 1)[-1]
        row = next(csv.reader([tail]))
        return int(row[header.index("deal")]) + 1 if row != header else 0
    except (OSError, StopIteration, ValueError, IndexError):
        return None
