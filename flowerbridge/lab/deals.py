"""The ``deals`` analysis: honor count, suit lengths and the mystery discard.

One row per deal. No play, so it is the cheapest analysis and the one whose
frequencies can be checked against exact odds (:func:`exact_undealt_odds`).
"""

from __future__ import annotations

import numpy as np

from ..render import count_text
from ..dealing import Deal
from ..cards import Kind
from ..seats import SEATS
from .base import ENGINE_SOURCES, LAB_SOURCES, Analysis, Params, Row, Table, source_digests
from .features import SEAT_COLUMNS, SIDE_COLUMNS, SIDES, SUITS, UNDEALT_COLUMNS, deal_features, \
    exact_hand_distributions, exact_undealt_odds
from .report import Plot, Section, TableSpec, interval_errors, mean_cell, mean_interval, new_figure, pct, \
    rate_cell, wilson

# The Brights each side holds as dealt: how many of the five different ones (a copy is
# enough: the Five Bright of Chapter 14 needs one of each captured), and how many of the ten
# copies (Ten Bright needs all ten) — beside what the play analysis finds earned
BRIGHT_COLUMNS = {f"{what}_{side.name}": int for side in SIDES for what in ("brights", "bright_copies")}

COLUMNS = {"deal": int, **SEAT_COLUMNS, **SIDE_COLUMNS, **UNDEALT_COLUMNS, **BRIGHT_COLUMNS}


def deal_rows(seed, start: int, stop: int, params: Params) -> list[Row]:
    """One row of features per deal ``start..stop-1``."""
    return [{"deal": i, **deal_features(deal), **bright_holdings(deal)}
            for i, deal in ((i, Deal.from_seed(seed, i)) for i in range(start, stop))]


def bright_holdings(deal: Deal) -> dict[str, int]:
    """Each side's Brights as dealt: the different ones it holds a copy of (0 to 5), and
    its copies (0 to 10)."""
    out = {}
    for side in SIDES:
        held = [c for seat in side.seats for c in deal.hands[seat] if c.kind is Kind.BRIGHT]
        out[f"brights_{side.name}"] = len(set(held))
        out[f"bright_copies_{side.name}"] = len(held)
    return out


def summarize(table: Table, params: Params, settings: Params) -> dict:
    """Distributions and the undealt frequencies beside their exact values."""
    n = len(table)
    hands = np.concatenate([table[f"hc_{s.name}"] for s in SEATS])
    lengths = {suit.short: np.concatenate([table[f"len_{s.name}_{suit.letter}"] for s in SEATS])
               for suit in SUITS}
    exact = exact_undealt_odds()
    hand_exact = exact_hand_distributions()
    shares = {"some_bright": table["undealt_brights"] > 0, "some_pair": table["undealt_pairs"] > 0,
              "some_bright_pair": table["undealt_bright_pairs"] > 0,
              "some_honor_pair": table["undealt_honor_pairs"] > 0}
    means = {"mean_honors": table["undealt_honors"], "mean_pairs": table["undealt_pairs"]}
    sampled = {key: float(np.mean(v)) for key, v in {**shares, **means}.items()}
    # each sampled figure's 95 % interval, in its own unit (a share as a fraction):
    # Wilson's for the shares (counted in ``sampled_deals``), Student's t for the means
    interval = {key: [b / 100 for b in wilson(np.count_nonzero(v), n)] for key, v in shares.items()}
    interval.update({key: list(mean_interval(v)[1:]) for key, v in means.items()})
    return {
        "deals": n,
        "hand_honor_count": {"mean": float(hands.mean()), "sd": float(hands.std()),
                             "histogram": np.bincount(hands, minlength=1).tolist(),
                             # each count's chance by counting (0 to 80), for the plot beside it
                             "exact": hand_exact["honor_count"]},
        "suit_length": {name: np.bincount(v, minlength=14).tolist() for name, v in lengths.items()},
        "suit_length_exact": hand_exact["suit_length"],
        "longest_suit": np.bincount(np.max(np.stack(
            [np.concatenate([table[f"len_{s.name}_{suit.letter}"] for s in SEATS]) for suit in SUITS]),
            axis=0), minlength=14).tolist(),
        "undealt": {"sampled": sampled, "exact": exact, "sampled_interval": interval,
                    "sampled_deals": {key: int(np.count_nonzero(v)) for key, v in shares.items()}},
        "undealt_brights_histogram": np.bincount(table["undealt_brights"], minlength=11).tolist(),
        "brights_held": brights_held(table),
    }


def brights_held(table: Table) -> dict:
    """How often a side is dealt one of each of the five Brights, or all ten copies
    (each a share of deals, with its 95 % Wilson interval: ``deals`` counts them), and how
    many different Brights a side holds (both sides of every deal)."""
    n = len(table)
    distinct = np.stack([table[f"brights_{side.name}"] for side in SIDES])
    copies = np.stack([table[f"bright_copies_{side.name}"] for side in SIDES])
    held = {"five": (distinct == 5).any(axis=0), "ten": (copies == 10).any(axis=0)}
    return {"deals": {k: int(np.count_nonzero(v)) for k, v in held.items()},
            "share": {k: pct(np.count_nonzero(v), n) for k, v in held.items()},
            "interval": {k: wilson(np.count_nonzero(v), n) for k, v in held.items()},
            "distinct_histogram": np.bincount(distinct.ravel(), minlength=6).tolist()}


UNDEALT_LABELS = {
    "some_bright": "at least one Bright copy undealt",
    "some_pair": "both copies of some card undealt",
    "some_honor_pair": "both copies of some honor card undealt",
    "some_bright_pair": "both copies of a Bright undealt",
    "mean_honors": "honor count undealt (mean)",
    "mean_pairs": "cards with both copies undealt (mean)",
}


def undealt_table(summary: dict) -> TableSpec:
    """The mystery discard, sampled with its 95 % interval beside exact (shared with the
    designer's report)."""
    u = summary["undealt"]
    n = summary["deals"]
    rows = []
    for key, label in UNDEALT_LABELS.items():
        if key.startswith("mean"):
            lo, hi = u["sampled_interval"][key]
            rows.append([label, mean_cell(u["sampled"][key], lo, hi), u["exact"][key]])
        else:
            rows.append([label + " %", rate_cell(u["sampled_deals"][key], n), 100 * u["exact"][key]])
    return TableSpec(f"What the 8 undealt cards hide, over {count_text(n, 'deal')}: sampled, with its 95% "
                     "interval (Wilson's for a share, Student's t for a mean), beside the exact value",
                     ["", "sampled (95% interval)", "exact"], rows)


def undealt_plot(summary: dict) -> Plot:
    """Sampled, with 95 % Wilson intervals, against exact chances of what the mystery discard hides."""
    keys = [k for k in UNDEALT_LABELS if not k.startswith("mean")]
    u = summary["undealt"]
    fig = new_figure(6.4, 3.0)
    ax = fig.add_subplot()
    y = np.arange(len(keys))
    sampled = np.array([100 * u["sampled"][k] for k in keys])
    bounds = [[100 * b for b in u["sampled_interval"][k]] for k in keys]
    ax.barh(y + 0.2, sampled, 0.4, label=f"sampled ({count_text(summary['deals'], 'deal')})", color="#5b8def",
            xerr=interval_errors(sampled, bounds), capsize=3)
    ax.barh(y - 0.2, [100 * u["exact"][k] for k in keys], 0.4, label="exact", color="#bbbbbb")
    ax.set_yticks(y, [UNDEALT_LABELS[k] for k in keys], fontsize=8)
    ax.set_xlabel("% of deals")
    ax.legend(fontsize=8)
    return Plot(fig, "What the 8 undealt cards hide: sampled frequency, with its 95% (Wilson) "
                     "interval, beside the exact chance.")


def sections(table: Table, summary: dict, params: Params, settings: Params) -> list[Section]:
    hc = summary["hand_honor_count"]
    fig = new_figure()
    ax = fig.add_subplot()
    hist = np.array(hc["histogram"], dtype=float)
    hands = int(hist.sum())
    ax.bar(np.arange(len(hist)), hist / hist.sum() * 100, color="#5b8def", label=f"{count_text(hands, 'hand')} dealt")
    exact = np.array(hc["exact"]) * 100
    shown = np.arange(max(len(hist), int(np.nonzero(exact >= 0.01)[0].max()) + 1))
    ax.plot(shown, exact[shown], color="black", linewidth=1, marker=".", markersize=3,
            label="exact (by counting)")
    ax.set_xlabel("honor count of one hand (Bright 4, Animal 2, Ribbon 1)")
    ax.set_ylabel("% of hands")
    ax.legend(fontsize=8)
    fig2 = new_figure()
    ax2 = fig2.add_subplot()
    # the suits deal alike, so their lines lie on one another: each drawn so that it shows there
    styles = (("#8c8c8c", "s", 9, "-"), ("#c0392b", "o", 6, "--"), ("#d4a017", "^", 4, ":"))
    for (name, counts), (colour, marker, size, line) in zip(summary["suit_length"].items(), styles):
        c = np.array(counts, dtype=float)
        ax2.plot(np.arange(len(c)), c / c.sum() * 100, marker=marker, markersize=size, linestyle=line,
                 label=name, color=colour)
    exact_lengths = np.array(summary["suit_length_exact"]) * 100
    ax2.plot(np.arange(len(exact_lengths)), exact_lengths, color="black", linewidth=0, marker="_",
             markersize=14, label="exact (by counting)")
    ax2.set_xlabel("cards held in the suit")
    ax2.set_ylabel("% of hand-suits")
    ax2.legend()
    lengths = TableSpec("Longest suit of a hand", ["cards", "% of hands"],
                        [[k, pct(v, sum(summary["longest_suit"]))]
                         for k, v in enumerate(summary["longest_suit"]) if v])
    tables = [undealt_table(summary), lengths]
    held = summary["brights_held"]
    if held["distinct_histogram"]:
        spread = held["distinct_histogram"]
        tables.append(TableSpec(
            "The Brights a side is dealt (Five Bright and Ten Bright are earned by capturing them: "
            "the play analysis counts those)",
            ["", "% (95% interval)"],
            [["deals where a side holds one of each of the five Brights",
              rate_cell(held["deals"]["five"], summary["deals"])],
             ["deals where a side holds all ten Bright copies", rate_cell(held["deals"]["ten"], summary["deals"])],
             # (two sides a deal)
             *([f"sides holding {count_text(k, 'different Bright')}", pct(v, sum(spread))]
               for k, v in enumerate(spread))]))
    return [Section(
        "Deals: honor count, suit lengths and the mystery discard",
        f"{count_text(summary['deals'], 'deal')}. A hand's honor count averages {hc['mean']:.2f} "
        f"(standard deviation {hc['sd']:.2f}); the deck holds 80 points, 8 cards stay undealt.",
        tables,
        [undealt_plot(summary),
         Plot(fig, f"Honor count of a single hand: the spread behind Chapter 10's bidding "
                   f"({count_text(hands, 'hand')}, the four of each deal), with the exact chances."),
         Plot(fig2, f"Suit lengths ({count_text(hands, 'hand')}, each suit counted in each): each of the "
                    "three suits holds 20 cards, so a hand averages 4.33 cards a suit and long suits "
                    "are common. The deal treats the suits alike, so their three lines lie on one "
                    "another, and on the exact chances.")])]


def code(params: Params) -> dict[str, str]:
    """The source its rows depend on: the engine's dealing, and the features of a deal."""
    return source_digests((*ENGINE_SOURCES, *LAB_SOURCES, "lab/deals.py"))


ANALYSIS = Analysis("deals", "Deals and the mystery discard", COLUMNS, deal_rows, summarize, sections,
                    chunk_size=500, code=code)
