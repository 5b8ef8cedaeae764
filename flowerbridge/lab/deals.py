"""The ``deals`` analysis: honor count, suit lengths and the mystery discard.

One row per deal. No play, so it is the cheapest analysis and the one whose
frequencies can be checked against exact odds (:func:`exact_undealt_odds`).
"""

from __future__ import annotations

import numpy as np

from ..dealing import Deal
from ..seats import SEATS
from .base import Analysis, Params, Row, Table
from .features import SEAT_COLUMNS, SIDE_COLUMNS, SUITS, UNDEALT_COLUMNS, deal_features, \
    exact_undealt_odds
from .report import Plot, Section, TableSpec, new_figure, pct

COLUMNS = {"deal": int, **SEAT_COLUMNS, **SIDE_COLUMNS, **UNDEALT_COLUMNS}


def deal_rows(seed, start: int, stop: int, params: Params) -> list[Row]:
    """One row of features per deal ``start..stop-1``."""
    return [{"deal": i, **deal_features(Deal.from_seed(seed, i))} for i in range(start, stop)]


def summarize(table: Table, params: Params, settings: Params) -> dict:
    """Distributions and the undealt frequencies beside their exact values."""
    n = len(table)
    hands = np.concatenate([table[f"hc_{s.name}"] for s in SEATS])
    lengths = {suit.short: np.concatenate([table[f"len_{s.name}_{suit.letter}"] for s in SEATS])
               for suit in SUITS}
    exact = exact_undealt_odds()
    sampled = {
        "some_bright": float(np.mean(table["undealt_brights"] > 0)),
        "some_pair": float(np.mean(table["undealt_pairs"] > 0)),
        "some_bright_pair": float(np.mean(table["undealt_bright_pairs"] > 0)),
        "some_honor_pair": float(np.mean(table["undealt_honor_pairs"] > 0)),
        "mean_honors": float(np.mean(table["undealt_honors"])),
        "mean_pairs": float(np.mean(table["undealt_pairs"])),
    }
    return {
        "deals": n,
        "hand_honor_count": {"mean": float(hands.mean()), "sd": float(hands.std()),
                             "histogram": np.bincount(hands, minlength=1).tolist()},
        "suit_length": {name: np.bincount(v, minlength=14).tolist() for name, v in lengths.items()},
        "longest_suit": np.bincount(np.max(np.stack(
            [np.concatenate([table[f"len_{s.name}_{suit.letter}"] for s in SEATS]) for suit in SUITS]),
            axis=0), minlength=14).tolist(),
        "undealt": {"sampled": sampled, "exact": exact},
        "undealt_brights_histogram": np.bincount(table["undealt_brights"], minlength=11).tolist(),
    }


UNDEALT_LABELS = {
    "some_bright": "at least one Bright copy undealt",
    "some_pair": "both copies of some card undealt",
    "some_honor_pair": "both copies of some honor card undealt",
    "some_bright_pair": "both copies of a Bright undealt",
    "mean_honors": "honor count undealt (mean)",
    "mean_pairs": "cards with both copies undealt (mean)",
}


def undealt_table(summary: dict) -> TableSpec:
    """The mystery discard, sampled beside exact (shared with the designer's report)."""
    u = summary["undealt"]
    rows = []
    for key, label in UNDEALT_LABELS.items():
        scale = 1 if key.startswith("mean") else 100
        unit = "" if key.startswith("mean") else " %"
        rows.append([label + unit, scale * u["sampled"][key], scale * u["exact"][key]])
    return TableSpec(f"What the 8 undealt cards hide, over {summary['deals']:,} deals",
                     ["", "sampled", "exact"], rows)


def undealt_plot(summary: dict) -> Plot:
    """Sampled against exact chances of what the mystery discard hides."""
    keys = [k for k in UNDEALT_LABELS if not k.startswith("mean")]
    u = summary["undealt"]
    fig = new_figure(6.4, 3.0)
    ax = fig.add_subplot()
    y = np.arange(len(keys))
    ax.barh(y + 0.2, [100 * u["sampled"][k] for k in keys], 0.4, label="sampled", color="#5b8def")
    ax.barh(y - 0.2, [100 * u["exact"][k] for k in keys], 0.4, label="exact", color="#bbbbbb")
    ax.set_yticks(y, [UNDEALT_LABELS[k] for k in keys], fontsize=8)
    ax.set_xlabel("% of deals")
    ax.legend(fontsize=8)
    return Plot(fig, "What the 8 undealt cards hide: sampled frequency beside the exact chance.")


def sections(table: Table, summary: dict, params: Params, settings: Params) -> list[Section]:
    hc = summary["hand_honor_count"]
    fig = new_figure()
    ax = fig.add_subplot()
    hist = np.array(hc["histogram"], dtype=float)
    ax.bar(np.arange(len(hist)), hist / hist.sum() * 100, color="#5b8def")
    ax.set_xlabel("honor count of one hand (Bright 4, Animal 2, Ribbon 1)")
    ax.set_ylabel("% of hands")
    fig2 = new_figure()
    ax2 = fig2.add_subplot()
    for (name, counts), colour in zip(summary["suit_length"].items(), ("#8c8c8c", "#c0392b", "#d4a017")):
        c = np.array(counts, dtype=float)
        ax2.plot(np.arange(len(c)), c / c.sum() * 100, marker="o", label=name, color=colour)
    ax2.set_xlabel("cards held in the suit")
    ax2.set_ylabel("% of hand-suits")
    ax2.legend()
    lengths = TableSpec("Longest suit of a hand", ["cards", "% of hands"],
                        [[k, pct(v, sum(summary["longest_suit"]))]
                         for k, v in enumerate(summary["longest_suit"]) if v])
    return [Section(
        "Deals: honor count, suit lengths and the mystery discard",
        f"{summary['deals']:,} deals. A hand's honor count averages {hc['mean']:.2f} "
        f"(standard deviation {hc['sd']:.2f}); the deck holds 80 points, 8 cards stay undealt.",
        [undealt_table(summary), lengths],
        [undealt_plot(summary),
         Plot(fig, "Honor count of a single hand: the spread behind Chapter 10's bidding."),
         Plot(fig2, "Suit lengths: each of the three suits holds 20 cards, so a hand averages "
                    "4.33 cards a suit and long suits are common.")])]


ANALYSIS = Analysis("deals", "Deals and the mystery discard", COLUMNS, deal_rows, summarize, sections,
                    chunk_size=500)
