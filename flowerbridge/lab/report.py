"""The self-contained HTML report: captions, tables and plots in one file.

Each analysis turns its results into :class:`Section` objects; this module
only lays them out. Plots are matplotlib figures drawn off-screen (no pyplot,
no display) and embedded as PNG data, so the report can be mailed or opened
from any folder.
"""

from __future__ import annotations

import base64
import html
import io
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence, SupportsFloat

import numpy as np

from ..stats import t_quantile

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

# Plot colours by denomination P, R, A, NT.
DENOM_COLOURS = ("#8c8c8c", "#c0392b", "#d4a017", "#2c3e50")


@dataclass
class TableSpec:
    """A small table: a caption, column headers and rows of cells."""

    caption: str
    headers: Sequence[str]
    rows: Sequence[Sequence[Any]]


@dataclass
class Plot:
    """A figure and what it shows."""

    figure: "Figure"
    caption: str


@dataclass
class Section:
    """A part of the report: a heading, a short text, tables and plots."""

    title: str
    text: str = ""
    tables: list[TableSpec] = field(default_factory=list)
    plots: list[Plot] = field(default_factory=list)


def new_figure(width: float = 6.4, height: float = 3.6) -> "Figure":
    """A figure for the report, independent of any pyplot state.

    matplotlib is imported here, not at the top, so that workers computing
    rows never load it.
    """
    from matplotlib.figure import Figure
    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def whole_number_ticks(ax) -> None:
    """Ticks on whole numbers only along the x axis (levels, lengths: 1.5 is none), a
    single tick where the axis spans a single whole number (one length drawn), and the
    axis wide enough that the whole numbers at either end of what is drawn are ticked:
    points set a little apart (:func:`dodged`) at the lowest length drawn, 10.15 say,
    stood with no 10 under them when the axis began past it. Call it once all is drawn."""
    from matplotlib.ticker import MaxNLocator
    low, high = ax.dataLim.intervalx
    if np.isfinite(low) and np.isfinite(high):
        ax.set_xlim(min(ax.get_xlim()[0], round(low) - 0.5), max(ax.get_xlim()[1], round(high) + 0.5))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))


def nothing_drawn(ax, why: str) -> None:
    """Say on empty axes why nothing is drawn (a small run), with no ticks: an empty plot
    with a tick at 0 and a legend of empty samples said nothing of why."""
    ax.set_xticks([])
    ax.set_yticks([])
    ax.text(0.5, 0.5, why, transform=ax.transAxes, ha="center", va="center", color="#555555")


def broken_line(values: dict) -> tuple[list[int], list[float]]:
    """The x and y of a line over whole-number keys (JSON may have made them text),
    broken where a key between the first and last is missing rather than drawn across it."""
    points = {int(k): float(v) for k, v in values.items()}
    xs = list(range(min(points), max(points) + 1)) if points else []
    return xs, [points.get(x, float("nan")) for x in xs]


FALLBACK_FONTS = ("Noto Sans CJK JP", "Noto Sans CJK KR", "Noto Sans CJK SC", "Noto Sans JP", "Noto Sans KR",
                  "NanumGothic", "IPAGothic", "IPAexGothic", "Droid Sans Fallback", "WenQuanYi Zen Hei")
"""Fonts a figure's text falls back to, where installed, for what DejaVu Sans lacks
(a variant named in Korean or Japanese, as the web client's names are)."""


def installed_fonts() -> set[str]:
    """The names of the fonts matplotlib found on this machine."""
    from matplotlib import font_manager
    return {font.name for font in font_manager.fontManager.ttflist}


def png_bytes(figure: "Figure") -> bytes:
    """The figure as a PNG. Its text falls back, glyph by glyph, to the first of
    :data:`FALLBACK_FONTS` installed; a glyph that no installed font has is drawn
    as a box, without matplotlib's warning for each (with its source line)."""
    import warnings

    from matplotlib.text import Text

    present = [name for name in FALLBACK_FONTS if name in installed_fonts()]
    if present:
        for text in figure.findobj(Text):
            text.set_fontfamily(["DejaVu Sans", *present])
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from (current )?font", category=UserWarning)
        figure.savefig(buf, format="png", dpi=90)
    return buf.getvalue()


def fmt(value: Any) -> str:
    """A cell: floats to 3 significant digits with their trailing zeros (so
    that 79.0 stands beside 78.9, not 79, and 0.900 beside 1.00), from 1,000
    on whole;
    whole numbers with their thousands grouped; anything else as it is
    (percentages with intervals come as text)."""
    if isinstance(value, (float, np.floating)):
        x = float(value)
        if not x or not np.isfinite(x):
            return "0" if x == 0 else str(x)
        if abs(float(f"{x:.3g}")) >= 1000:
            return f"{x:,.0f}" if abs(x) < 1e15 else f"{x:.3g}"
        return f"{x:#.3g}".rstrip(".")
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


# A cell that reads as a figure: a number, a share with its interval, or "-".
_FIGURE = re.compile(r"^[-+]?[\d,]*\.?\d+(%| \([^)]*\))?$|^-$")


def _is_figure(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, (int, float, np.number)) or bool(_FIGURE.match(fmt(value)))


def _cell(value: Any, tag: str = "td", figure: bool = True) -> str:
    text = html.escape(fmt(value))
    return f"<{tag}>{text}</{tag}>" if figure else f"<{tag} class='text'>{text}</{tag}>"


def _text_columns(spec: TableSpec) -> set[int]:
    """The columns of text, "-" (nothing to show) aside: left-aligned throughout."""
    return {j for j in range(len(spec.headers))
            if any(fmt(row[j]) != "-" for row in spec.rows)
            and not any(_is_figure(row[j]) for row in spec.rows if fmt(row[j]) != "-")}


def table_html(spec: TableSpec) -> str:
    """A table in a frame of its own that scrolls sideways when the table is
    wider than the page; figures are right-aligned, text left (and the
    header of a column of text with it)."""
    text_columns = _text_columns(spec)
    head = "".join(_cell(h, "th", j not in text_columns) for j, h in enumerate(spec.headers))
    body = "".join("<tr>" + "".join(_cell(c, "td", j not in text_columns and _is_figure(c))
                                    for j, c in enumerate(row)) + "</tr>"
                   for row in spec.rows)
    return (f"<div class='table'><table><caption>{html.escape(spec.caption)}</caption>"
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


def table_markdown(spec: TableSpec) -> str:
    """The table in Markdown, aligned as :func:`table_html` aligns it."""
    text = _text_columns(spec)
    lines = [f"| {' | '.join(str(h) for h in spec.headers)} |",
             "|" + "".join("---|" if j == 0 or j in text else "---:|" for j in range(len(spec.headers)))]
    lines += [f"| {' | '.join(fmt(c) for c in row)} |" for row in spec.rows]
    return f"*{spec.caption}*\n\n" + "\n".join(lines)


_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { border-bottom: 1px solid #ccc; margin-top: 2.5rem; }
table { border-collapse: collapse; margin: 1rem 0; font-size: .9rem; }
caption { text-align: left; font-style: italic; padding-bottom: .3rem; }
div.table { overflow-x: auto; }
th, td { border: 1px solid #ddd; padding: .2rem .6rem; text-align: right; }
th:first-child, td:first-child, .text { text-align: left; }
figure { margin: 1rem 0; } figcaption { font-size: .9rem; color: #555; }
img { max-width: 100%; } code { background: #f4f4f4; padding: 0 .2rem; }
"""


def render_html(title: str, intro: str, sections: Sequence[Section]) -> str:
    """The whole report as one HTML document."""
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
             f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>", f"<p>{intro}</p>"]
    for section in sections:
        parts.append(f"<h2>{html.escape(section.title)}</h2>")
        if section.text:
            parts.append(f"<p>{html.escape(section.text)}</p>")
        parts.extend(table_html(t) for t in section.tables)
        for plot in section.plots:
            data = base64.b64encode(png_bytes(plot.figure)).decode("ascii")
            parts.append(f"<figure><img alt='{html.escape(plot.caption)}' "
                         f"src='data:image/png;base64,{data}'>"
                         f"<figcaption>{html.escape(plot.caption)}</figcaption></figure>")
    parts.append("</body></html>")
    return "\n".join(parts)


def pct(part: SupportsFloat, whole: SupportsFloat) -> float:
    """``part`` as a percentage of ``whole`` (0 when there is no whole); NumPy
    counts are welcome."""
    whole = float(whole)
    return 100.0 * float(part) / whole if whole else 0.0


def wilson(part: SupportsFloat, whole: SupportsFloat, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of the share ``part`` of ``whole``, in percent
    ((0, 100) when there is no whole)."""
    k, n = float(part), float(whole)
    if not n:
        return 0.0, 100.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return 100.0 * max(0.0, centre - half), 100.0 * min(1.0, centre + half)


def mean_interval(values: np.ndarray) -> tuple[float, float, float]:
    """The mean of ``values`` (independent cases) and its 95 % Student's t interval
    (NaN bounds where there are fewer than two)."""
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if not n:
        return float("nan"), float("nan"), float("nan")
    mean = float(values.mean())
    if n < 2:
        return mean, float("nan"), float("nan")
    half = t_quantile(n - 1) * float(values.std(ddof=1)) / np.sqrt(n)
    return mean, mean - half, mean + half


def mean_cell(mean: float, lo: float, hi: float) -> str:
    """A table cell for a mean and its 95 % interval, ``10.7 (10.6–10.8)``; an interval
    that starts below zero with "to", ``25.1 (-1.97 to 52.2)`` (a dash after a minus sign
    reads as another minus), as :func:`change_cell` writes its intervals.

    >>> mean_cell(10.7, 10.6, 10.8), mean_cell(25.1, -1.97, 52.2), mean_cell(25.1, 0.0, 52.2)
    ('10.7 (10.6–10.8)', '25.1 (-1.97 to 52.2)', '25.1 (0–52.2)')
    """
    if not np.isfinite(lo):
        return fmt(mean)
    return f"{fmt(mean)} ({fmt(lo)}{' to ' if lo < 0 else '–'}{fmt(hi)})"


FEW = 30
"""A point of a plot resting on fewer cases than this is drawn hollow: its interval
is wide, and the line through it says little."""


def interval_errors(values: Sequence[float] | np.ndarray, bounds: Sequence[Sequence[float]] | np.ndarray,
                    ) -> np.ndarray:
    """Error bars for ``values`` from their intervals' ``(low, high)`` ``bounds``: the
    distances down to the low and up to the high end, as the (2, n) array matplotlib's
    ``yerr`` and ``xerr`` take; 0 where there is no interval (NaN) and never below 0
    (where rounding put a value a hair outside its interval)."""
    values = np.asarray(values, dtype=np.float64)
    ends = np.asarray(bounds, dtype=np.float64).reshape(-1, 2)
    return np.nan_to_num(np.clip(np.stack([values - ends[:, 0], ends[:, 1] - values]), 0.0, None))


def share_points(ax, cells: dict, colour: str, label: str, shift: float = 0.0) -> None:
    """Draw shares ``k`` of ``n`` (``cells`` maps a whole number, or its text, to
    ``(k, n)``) as percentages with their 95 % Wilson intervals as error bars, the line
    broken where a whole number between the first and last is missing, and hollow
    markers where ``n`` is under :data:`FEW`; ``shift`` moves the series along x (see
    :func:`dodged`)."""
    points = {int(x): (int(k), int(n)) for x, (k, n) in cells.items() if int(n)}
    xs, ys = broken_line({x: pct(k, n) for x, (k, n) in points.items()})
    bounds = [wilson(*points[x]) if x in points else (float("nan"), float("nan")) for x in xs]
    at = [x + shift for x in xs]
    ax.errorbar(at, ys, yerr=interval_errors(ys, bounds), marker="o", color=colour, capsize=3, label=label)
    few = [x for x in xs if x in points and points[x][1] < FEW]
    if few:
        ax.plot([x + shift for x in few], [ys[xs.index(x)] for x in few], linestyle="none", marker="o",
                markerfacecolor="white", markeredgecolor=colour, zorder=3)   # over the filled ones


def dodged(count: int, step: float) -> list[float]:
    """The x shifts of ``count`` series drawn over the same x's, ``step`` apart and
    centred on them: two series at one point with the same value and interval were
    drawn one over the other, the first hidden (a suit whose sides all made no game)."""
    return [(i - (count - 1) / 2) * step for i in range(count)]


def legend_beside(ax) -> None:
    """The legend to the right of the axes, where it hides no point or error bar."""
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)


def rate_cell(part: SupportsFloat, whole: SupportsFloat) -> str:
    """A table cell for the share ``part`` of ``whole``: the percentage and its 95 %
    Wilson interval, ``61.2 (59.8–62.6)``; ``-`` when there is no whole."""
    if not float(whole):
        return "-"
    lo, hi = wilson(part, whole)
    share = pct(part, whole)
    d = 1 if hi >= 1 else 2       # one decimal; two where the whole interval is under 1 %
    return f"{share:.{d}f} ({lo:.{d}f}–{hi:.{d}f})"


def bootstrap_interval(member: np.ndarray, success: np.ndarray,
                       statistic: Callable[[np.ndarray], np.ndarray], *,
                       resamples: int = 1000, seed: int = 0) -> tuple[float, float]:
    """A 95 % bootstrap interval of ``statistic`` of per-cell success rates.

    ``member`` and ``success`` are (rows, cells) booleans: which cells a row
    (a deal or a hand) counts in, and where it is a success; or counts, for a
    row that counts in a cell more than once (a deal's two sides): how many
    times, and how many of those are successes. ``statistic``
    maps (resamples, cells) rates in percent to one number per resample.
    Rows are resampled with Poisson weights (the same seed gives the same
    interval); a cell left empty by a resample gives a NaN rate, and such
    resamples are dropped (:func:`bootstrap_ratios` of hits over members).
    """
    return bootstrap_ratios(100.0 * np.where(member > 0, success, 0), member, statistic,
                            resamples=resamples, seed=seed)


def bootstrap_draws(numerators: np.ndarray, denominators: np.ndarray, *, resamples: int = 1000,
                    seed: int = 0) -> np.ndarray:
    """Bootstrap resamples of per-cell ratios of sums: (resamples, cells).

    ``numerators`` and ``denominators`` are (rows, cells): each row (a deal, or a block
    of consecutive hands where hands depend on each other) adds its numerator and
    denominator to each cell, and a cell's ratio is the sum of one over the sum of the
    other (a mean per contract, a share, hands per game). Rows are resampled together,
    with Poisson weights (the same seed gives the same resamples), so that cells measured
    on the same rows (one rule set beside another, on the same deals) are compared
    *paired* (:func:`draws_interval` of a difference of two columns). A resample that
    leaves a cell empty gives NaN there.

    Rows alike are resampled as one: k rows of the same numerators and denominators,
    each drawn Poisson(1) times, are drawn Poisson(k) times together, the same law (a
    hand's twin tricks, 0 to 13 of 13, took 2 s a column over 30,000 hands row by row)."""
    rng = np.random.default_rng(seed)
    num = np.asarray(numerators, dtype=np.float64)
    den = np.asarray(denominators, dtype=np.float64)
    alike = np.ones(len(num), dtype=np.int64)
    # (a few cells only: rows of many, rarely alike, would be sorted for nothing, and
    # the sort's copies of 300,000 rows of 35 cells took 600 MB)
    if len(num) and num.shape[1] <= ALIKE_CELLS:
        rows, alike = np.unique(np.concatenate([num, den], axis=1), axis=0, return_counts=True)
        num, den = rows[:, :num.shape[1]], rows[:, num.shape[1]:]
    parts = []
    # a block's weights are drawn whole (block x rows, as integers and again as floats): at
    # most BOOTSTRAP_BLOCK values, so that 300,000 deals do not take 480 MB at once
    block = max(1, min(100, BOOTSTRAP_BLOCK // max(1, len(num))))
    for start in range(0, resamples, block):
        weights = rng.poisson(alike, (min(block, resamples - start), len(num))).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            parts.append((weights @ num) / (weights @ den))
    return np.concatenate(parts)


ALIKE_CELLS = 4
"""Rows of at most this many cells are looked through for rows alike (:func:`bootstrap_draws`)."""

BOOTSTRAP_BLOCK = 2_000_000
"""Poisson weights :func:`bootstrap_draws` draws at once, at most (16 MB as integers and
again as floats)."""


def draws_interval(values: np.ndarray) -> tuple[float, float]:
    """The 95 % percentile interval of bootstrap ``values``, NaNs (empty resamples)
    dropped; (NaN, NaN) where none is left."""
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    if not len(values):
        return float("nan"), float("nan")
    lo, hi = np.percentile(values, [2.5, 97.5])
    return float(lo), float(hi)


def bootstrap_ratios(numerators: np.ndarray, denominators: np.ndarray,
                     statistic: Callable[[np.ndarray], np.ndarray], *,
                     resamples: int = 1000, seed: int = 0) -> tuple[float, float]:
    """A 95 % bootstrap interval of ``statistic`` of per-cell ratios of sums
    (:func:`bootstrap_draws`): ``statistic`` maps (resamples, cells) ratios to one
    number per resample."""
    return draws_interval(statistic(bootstrap_draws(numerators, denominators,
                                                    resamples=resamples, seed=seed)))


def ratio_of_sums(numerators: np.ndarray, denominators: np.ndarray) -> np.ndarray:
    """Each cell's ratio of sums (NaN for a cell with nothing in it)."""
    den = np.asarray(denominators, dtype=np.float64).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(numerators, dtype=np.float64).sum(axis=0) / den


def paired_change(estimates: np.ndarray, draws: np.ndarray, a: int, b: int,
                  denominators: np.ndarray | None = None) -> list[float] | None:
    """The change from cell ``a`` to cell ``b``, as ``[change, low, high]`` with its
    paired 95 % interval from the same bootstrap ``draws`` of both (:func:`bootstrap_draws`
    and :func:`ratio_of_sums` of the same rows); None where either cell is empty. Given
    the rows' ``denominators``, a cell that rests on fewer than two rows has no interval
    (NaN bounds): resampling one row gives it again, an interval of no width."""
    if not (np.isfinite(estimates[a]) and np.isfinite(estimates[b])):
        return None
    change = float(estimates[b] - estimates[a])
    if denominators is not None and min(np.count_nonzero(np.asarray(denominators)[:, c]) for c in (a, b)) < 2:
        return [change, float("nan"), float("nan")]
    lo, hi = draws_interval(draws[:, b] - draws[:, a])
    return [change, lo, hi]


def change_cell(change: Sequence[float] | None, unit: str = "") -> str:
    """A table cell for a paired change and its 95 % interval: ``+0.21 (+0.12 to +0.27)``;
    ``no change`` where every row is the same under both (the interval is then 0 to 0), or
    where the figure is the same and too few rows give an interval; ``-`` where there is none."""
    if change is None:
        return "-"
    value, lo, hi = change
    # (no interval, from a single row: its value 0 is no change either)
    if value == 0 and (lo == hi == 0 or not (np.isfinite(lo) or np.isfinite(hi))):
        return "no change"
    if not np.isfinite(lo):
        return f"{_signed(value)}{unit}"
    return f"{_signed(value)}{unit} ({_signed(lo)} to {_signed(hi)})"


def _signed(value: float) -> str:
    text = fmt(float(value))
    return text if text.startswith("-") or text == "0" else "+" + text
