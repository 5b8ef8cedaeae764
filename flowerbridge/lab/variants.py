"""The ``variants`` analysis: the same deals, the same play, other rule options.

Every deal is bid and played once by the bots under the default rules, as in
the ``play`` analysis (same seeds, so the same hands). Each variant then
scores that hand under its own :class:`~flowerbridge.options.RuleOptions`:

* scoring options (R15's undertrick penalty, contract, overtrick and honor
  values, the Bright bonuses, the game threshold) only *re-score* the hand:
  the play is unchanged, even for a bot whose play weighs the score (``pimc``),
  so that a difference is the rules' alone;
* R9's ``declarer`` option can change who declares. The auction is replayed
  under the variant; when it names the same contract and declarer the play
  is kept, otherwise the bots play the hand afresh from the opening lead
  (column ``replayed``).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np

from ..bots.base import play_hand
from ..errors import OptionError
from ..options import RuleOptions
from ..scoring import score_contract
from ..seats import Side
from ..state import HandState
from .base import Analysis, LabError, Params, Row, Table
from .features import deal_features
from .play import HAND_COLUMNS, check_bots, default_bots, hand_row, hand_summary, make_bots, \
    play_deal, points_table
from .report import DENOM_COLOURS, Plot, Section, TableSpec, new_figure, pct, rate_cell

DEFAULT_VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("default", {}),
    ("strict", {"undertrick_penalty": 0}),
    ("first-named", {"declarer": "first-named"}),
    ("no-honors", {"honor_ribbon": [0, 0], "honor_animal": [0, 0], "honor_bright": [0, 0]}),
    ("no-bright-bonus", {"five_bright_bonus": 0, "ten_bright_bonus": 0}),
    ("plains-30", {"contract_points": [[30, 30], [30, 30], [30, 30], [40, 30]],
                   "overtrick_points": [30, 30, 30, 30]}),
)
"""Named rule sets compared by default: the rulebook as ruled, R15 strict,
R9 first-named, without honors, without Bright bonuses, Plains worth 30."""

COLUMNS = {"deal": int, "dealer": str, "variant": str, "replayed": int, **HAND_COLUMNS}

_OPTION_NAMES = {f.name for f in fields(RuleOptions)}


def variant_options(variants: Any) -> list[tuple[str, RuleOptions]]:
    """Parse ``[[name, {option: value}], ...]`` into named :class:`RuleOptions`.

    Unknown option names and bad values are errors, named with the variant.
    """
    if not isinstance(variants, (list, tuple)) or not variants:
        raise LabError("variants must be a non-empty list of [name, options] pairs")
    out, seen = [], set()
    for item in variants:
        if not (isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], dict)):
            raise LabError(f"variant {item!r}: expected [name, {{option: value}}]")
        name, changes = item
        if not name or not name.isprintable():   # it goes in every CSV row and the report
            raise LabError(f"variant {name!r}: a name is printable text, without line breaks, "
                           "control characters or bytes that are not UTF-8")
        if name in seen:
            raise LabError(f"variant {name!r} is named twice")
        seen.add(name)
        unknown = sorted(set(changes) - _OPTION_NAMES)
        if unknown:
            raise LabError(f"variant {name!r}: unknown option {unknown[0]!r}; options are "
                           + ", ".join(sorted(_OPTION_NAMES)))
        try:
            options = RuleOptions(**changes).sensible()
        except OptionError as exc:
            raise LabError(f"variant {name!r}: {exc}") from None
        if name == "default" and options != RuleOptions():
            raise LabError("variant 'default' is kept for the rules as written, the reference of "
                           "every comparison: give changed rules another name")
        out.append((name, options))
    return out


def default_first(variants: Any) -> Any:
    """``variants`` with the rules as written first, as ``default`` (added when
    missing, moved to the front when elsewhere); anything malformed is left for
    :func:`variant_options` to name."""
    if not isinstance(variants, (list, tuple)) or not variants or not all(
            isinstance(v, (list, tuple)) and len(v) == 2 for v in variants):
        return variants
    rest = [list(v) for v in variants if v[0] != "default"]
    given = [list(v) for v in variants if v[0] == "default"]
    return (given or [["default", {}]])[:1] + rest + given[1:]


def check(params: Params) -> None:
    variant_options(params["variants"])
    check_bots(params)


def variant_rows(seed, start: int, stop: int, params: Params) -> list[Row]:
    variants = variant_options(params["variants"])
    rows = []
    for i in range(start, stop):
        base = play_deal(seed, i, params["bots"])
        features = deal_features(base.deal)
        for name, options in variants:
            state, replayed = _under(base, options, seed, i, params["bots"])
            if replayed:
                score = state.score()
            else:
                score = score_contract(base.contract, base.tricks_won,
                                       (base.captured(Side.NS), base.captured(Side.EW)), options)
            rows.append({"deal": i, "dealer": base.dealer.name, "variant": name,
                         "replayed": int(replayed), **hand_row(state, score, features)})
    return rows


def _under(base: HandState, options: RuleOptions, seed, deal: int, bots: str) -> tuple[HandState, bool]:
    """The hand under ``options``: ``base`` itself unless R9 changes the declarer,
    in which case the auction is replayed and the bots play the hand again."""
    if options.declarer == base.options.declarer:
        return base, False
    state = HandState(base.deal, base.dealer, options)
    for event in base.calls:
        state.call(event.call)
    if state.contract == base.contract:
        return base, False
    return play_hand(state, make_bots(bots, seed, deal)), True


# ---------------------------------------------------------------- summary


def summarize(table: Table, params: Params, settings: Params) -> dict:
    variants = variant_options(params["variants"])
    out: dict[str, Any] = {"bots": params["bots"], "variants": {}}
    reference = None
    for name, options in variants:
        t = table.where(table["variant"] == name)
        summary = hand_summary(t, options)
        margin = (t["below_NS"] + t["above_NS"]) - (t["below_EW"] + t["above_EW"])
        if reference is None:
            reference = margin
        summary["replayed"] = int(t["replayed"].sum())
        summary["hands_changed"] = pct(np.count_nonzero(margin != reference), len(t))
        changed = int(np.count_nonzero(np.sign(margin) != np.sign(reference)))
        summary["winner_changed"] = pct(changed, len(t))
        summary["winner_changed_hands"] = changed
        summary["options"] = options.to_dict()
        out["variants"][name] = summary
    out["reference"] = variants[0][0]
    return out


def sections(table: Table, summary: dict, params: Params, settings: Params) -> list[Section]:
    vs = summary["variants"]
    names = list(vs)
    written = RuleOptions().to_dict()
    rule_sets = TableSpec(
        "The rule sets: what each changes from the rules as written",
        ["rule set", "options"],
        [[n, ", ".join(f"{k}={v}" for k, v in vs[n]["options"].items() if written.get(k) != v)
          or "the rules as written"] for n in names])
    compare = TableSpec(
        f"The same {vs[names[0]]['hands']:,} hands under each rule set "
        f"(changes counted against '{summary['reference']}')",
        ["", *names],
        [["hands replayed (R9)", *(vs[n]["replayed"] for n in names)],
         ["made % (95% interval)", *(rate_cell(vs[n]["made"], vs[n]["contracts"]) for n in names)],
         ["hands per game", *(vs[n]["hands_per_game"] or "-" for n in names)],
         ["hands whose margin changes %", *(vs[n]["hands_changed"] for n in names)],
         ["hands whose winner changes % (95% interval)",
          *(rate_cell(vs[n]["winner_changed_hands"], vs[n]["hands"]) for n in names)],
         *([f"declarer's net, {d}", *(vs[n]["by_denom"][d]["mean_declarer_net"]
                                       if vs[n]["by_denom"][d]["contracts"] else "-" for n in names)]
           for d in vs[names[0]]["by_denom"])])
    return [Section("Variants: the same hands under other rules",
                    "Scoring options re-score the same play; the R9 declarer option replays the "
                    "auction and, where the declarer changes, the play.",
                    [rule_sets, compare,
                     points_table(vs, "Mean points per hand by source, both sides together")],
                    [points_plot(vs)])]


def points_plot(variants: dict[str, dict]) -> Plot:
    """Stacked mean points per hand by source, one bar per rule set."""
    names = list(variants)
    fig = new_figure(8, 3.8)
    ax = fig.add_subplot()
    parts = list(variants[names[0]]["points_per_hand"])
    bottom = np.zeros(len(names))
    colours = ("#5b8def", "#9ecae1", *DENOM_COLOURS[1:3], "#7b3294")
    for part, colour in zip(parts, colours):
        values = np.array([variants[n]["points_per_hand"][part] for n in names])
        ax.bar(names, values, bottom=bottom, label=part, color=colour)
        bottom += values
    ax.set_ylabel("points per hand, both sides")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.tick_params(axis="x", labelrotation=20)
    return Plot(fig, "Where the points come from under each rule set (mean per hand, both sides).")


ANALYSIS = Analysis("variants", "Rule variants", COLUMNS, variant_rows, summarize, sections,
                    defaults={"bots": default_bots(),
                              "variants": [[n, o] for n, o in DEFAULT_VARIANTS]},
                    chunk_size=100, check=check, row_key="variant",
                    rows_per_deal=lambda params: len(params["variants"]))
