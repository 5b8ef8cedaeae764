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

import json

from dataclasses import fields
from typing import Any

import numpy as np

from ..render import count_text
from ..bots.base import play_hand
from ..calls import Denomination
from ..errors import OptionError
from ..options import RuleOptions
from ..scoring import score_contract
from ..seats import Side
from ..state import HandState
from .base import Analysis, LabError, Params, Row, Table, source_digests
from .features import deal_features
from .play import HAND_COLUMNS, check_bots, declarer_net, DEFAULT_BOTS, game_block_size, game_blocks, hand_row, \
    hand_summary, hands_per_game, make_bots, naming_the_deal, net_cell, play_deal, points_table
from .play import code as play_code
from .report import DENOM_COLOURS, Plot, Section, TableSpec, bootstrap_draws, change_cell, interval_errors, \
    mean_cell, new_figure, paired_change, pct, rate_cell, ratio_of_sums

DEFAULT_VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("default", {}),
    ("strict", {"undertrick_penalty": 0}),
    ("first-named", {"declarer": "first-named"}),
    ("no-honors", {"honor_ribbon": [0, 0], "honor_animal": [0, 0], "honor_bright": [0, 0]}),
    ("no-bright-bonus", {"five_bright_bonus": 0, "ten_bright_bonus": 0}),
    ("plains-30", {"contract_points": [[30, 30], [30, 30], [30, 30], [40, 30]],
                   "overtrick_points": [30, 30, 30, 30]}),
    ("plains-25", {"contract_points": [[25, 25], [30, 30], [30, 30], [40, 30]],
                   "overtrick_points": [25, 30, 30, 30]}),
)
"""Named rule sets compared by default: the rulebook as ruled, R15 strict,
R9 first-named, without honors, without Bright bonuses, Plains worth 30, and
Plains worth 25 (game at 4P either way: the two remedies the designer's report
weighs for Plains)."""

COLUMNS = {"deal": int, "dealer": str, "variant": str, "replayed": int, **HAND_COLUMNS}

_OPTION_NAMES = {f.name for f in fields(RuleOptions)}


def variant_options(variants: Any) -> list[tuple[str, RuleOptions]]:
    """Parse ``[[name, {option: value}], ...]`` into named :class:`RuleOptions`.

    Unknown option names and bad values are errors, named with the variant.
    """
    if not isinstance(variants, (list, tuple)) or not variants:
        raise LabError("variants must be a non-empty list of [name, options] pairs")
    out: list[tuple[str, RuleOptions]] = []
    seen: set[str] = set()
    for item in variants:
        if not (isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], dict)):
            raise LabError(f"variant {item!r}: expected [name, {{option: value}}]")
        name, changes = item
        if not name or not name.isprintable():   # it goes in every CSV row and the report
            raise LabError(f"variant {name!r}: a name is printable text, without line breaks, "
                           "control characters or bytes that are not UTF-8")
        if name != name.strip():    # (a blank name, or one whose spaces a table or plot would hide)
            raise LabError(f"variant {name!r}: a name is text without spaces at its ends")
        if name in seen:
            raise LabError(f"variant {name!r} is named twice")
        seen.add(name)
        unknown = sorted(set(changes) - _OPTION_NAMES)
        if unknown:
            raise LabError(f"variant {name!r}: unknown option {unknown[0]!r}; options are "
                           + ", ".join(sorted(_OPTION_NAMES)))
        try:
            # an option given as null takes its default, and a whole number written 50.0 is 50,
            # as in a record's options
            options = RuleOptions.from_dict(changes).sensible()
        except OptionError as exc:
            raise LabError(f"variant {name!r}: {exc}") from None
        if name == "default" and options != RuleOptions():
            raise LabError("variant 'default' is kept for the default rules (the rulings' defaults), the reference of "
                           "every comparison: give changed rules another name")
        # the same rules twice compare the same hands with themselves: no change anywhere
        same = next((other for other, before in out if before == options), None)
        if same is not None:
            said = ", ".join(f"{key} {json.dumps(changes[key])}" for key in sorted(changes))
            why = "" if same != "default" else f" ({said}, as the default rules have it)" if said \
                else " (the rulings' defaults)"
            raise LabError(f"variant {name!r} has the rules of {same!r}{why}: it would show no change "
                           "anywhere; give it the options that differ")
        out.append((name, options))
    return out


def default_first(variants: Any) -> Any:
    """``variants`` with the default rules first, as ``default`` (added when
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
        with naming_the_deal(i):
            base = play_deal(seed, i, params["bots"])
        features = deal_features(base.deal)
        for name, options in variants:
            with naming_the_deal(i):
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
        hands, changed = changes(margin, reference)
        summary["hands_changed"] = pct(hands, len(t))
        summary["hands_changed_hands"] = hands
        summary["winner_changed"] = pct(changed, len(t))
        summary["winner_changed_hands"] = changed
        summary["options"] = options.to_dict()
        out["variants"][name] = summary
    out["reference"] = variants[0][0]
    out["variants"] = _with_changes(table, variants, out["variants"])
    return out


def changes(margin: np.ndarray, reference: np.ndarray) -> tuple[int, int]:
    """How many hands' margins (North–South's score less East–West's) differ from the
    reference's, and how many of them change the side ahead: a tie made or broken counts."""
    return int(np.count_nonzero(margin != reference)), int(np.count_nonzero(np.sign(margin) != np.sign(reference)))


def _with_changes(table: Table, variants: list[tuple[str, RuleOptions]],
                  summaries: dict[str, dict]) -> dict[str, dict]:
    """Each rule set's summary but the reference's with ``vs_reference``: how its figures
    change against the reference's on the same deals, each as ``[change, low, high]``
    with a paired 95 % bootstrap interval (None where there is none). The deals are
    resampled together under every rule set, so that what two rule sets share cancels
    out of their difference: made % and each denomination's mean declarer's net resample
    deals; hands per game resamples blocks of consecutive hands
    (:func:`~flowerbridge.lab.play.game_block_size`), as a game runs across hands."""
    rules = [(table.where(table["variant"] == name), options) for name, options in variants]
    # cells: each rule set's made %, then its declarer's net in each denomination
    num, den = [], []
    for t, _ in rules:
        bid = (t["passed_out"] == 0).astype(np.float64)
        num.append(100.0 * t["made"] * bid)
        den.append(bid)
        for d in Denomination:
            member = (t["denom"] == d.name).astype(np.float64)
            num.append(np.where(member > 0, declarer_net(t), 0))
            den.append(member)
    num_, den_ = np.stack(num, axis=1), np.stack(den, axis=1)
    estimates, draws = ratio_of_sums(num_, den_), bootstrap_draws(num_, den_)
    width = 1 + len(Denomination)
    # one block size for every rule set (the blocks are resampled together): the one
    # whose games take the most hands sets it, or leaves none where they are too long for
    # the run (a rule set that finished no game has no hands per game to compare)
    per_rule_set = len(table) // len(variants)
    sizes = [game_block_size(per_rule_set, games) for games in
             (len(hands_per_game(t, options.game_points)) for t, options in rules) if games]
    size = None if not sizes or None in sizes else max(s for s in sizes if s is not None)
    if size:
        blocks = [game_blocks(t, options.game_points, size) for t, options in rules]
        hands, games = np.stack([b[0] for b in blocks], axis=1), np.stack([b[1] for b in blocks], axis=1)
        game_estimates, game_draws = ratio_of_sums(hands, games), bootstrap_draws(hands, games)
    for i, (name, _) in enumerate(variants[1:], 1):
        summaries[name]["vs_reference"] = {
            "made": paired_change(estimates, draws, 0, i * width, den_),
            "declarer_net": {d.name: paired_change(estimates, draws, 1 + j, i * width + 1 + j, den_)
                             for j, d in enumerate(Denomination)},
            "hands_per_game": paired_change(game_estimates, game_draws, 0, i, games) if size else None,
            "game_block": size,
        }
    return summaries


def sections(table: Table, summary: dict, params: Params, settings: Params) -> list[Section]:
    vs = summary["variants"]
    names = list(vs)
    # (said as the tables and the scoresheet say them: "no undertrick penalty (R15, ...)"
    # where a list of keys read "undertrick_penalty=0")
    rule_sets = TableSpec(
        "The rule sets: what each changes from the default rules (the rulebook with the "
        "rulings' defaults, e.g. R15's 50 points a trick down, which the rulebook does not state)",
        ["rule set", "options"],
        [[n, "; ".join(RuleOptions.stored(vs[n]["options"]).changes()) or "the default rules"]
         for n in names])
    reference = summary["reference"]
    compare = TableSpec(
        f"The same {count_text(vs[names[0]]['hands'], 'hand')} under each rule set, each figure with "
        f"its own 95% interval (changes counted against '{reference}')",
        ["", *names],
        [["hands replayed (R9)", *(vs[n]["replayed"] for n in names)],
         ["made % (95% interval)", *(rate_cell(vs[n]["made"], vs[n]["contracts"]) for n in names)],
         ["hands per game (95% interval)", *(_per_game_cell(vs[n]) for n in names)],
         # (the reference against itself changes nothing: no figure)
         ["hands whose margin changes % (95% interval)",
          *("-" if n == reference else rate_cell(vs[n]["hands_changed_hands"], vs[n]["hands"])
            for n in names)],
         ["hands whose winner changes % (95% interval)",
          *("-" if n == reference else rate_cell(vs[n]["winner_changed_hands"], vs[n]["hands"])
            for n in names)],
         *([f"declarer's net per contract (honors included), {d}: mean (95% interval)",
            *(net_cell(vs[n]["by_denom"][d]) for n in names)]
           for d in vs[names[0]]["by_denom"])])
    tables = [rule_sets, compare]
    others = names[1:]
    if others:
        block = vs[others[0]]["vs_reference"]["game_block"]
        tables.append(TableSpec(
            f"Change against '{reference}' on the same deals, with its paired 95% interval (a "
            "bootstrap resampling the deals under both rule sets together; hands per game in "
            + (f"blocks of {block} consecutive hands, as a game runs across hands)" if block
               else "blocks of consecutive hands: too few hands here for 20 blocks of three games each)"),
            ["", *others],
            [["made %, points", *(change_cell(vs[n]["vs_reference"]["made"]) for n in others)],
             ["hands per game", *(change_cell(vs[n]["vs_reference"]["hands_per_game"]) for n in others)],
             *([f"declarer's net per contract (honors included), {d}",
                *(change_cell(vs[n]["vs_reference"]["declarer_net"][d]) for n in others)]
               for d in vs[names[0]]["by_denom"])]))
    tables.append(points_table(vs, "Mean points per hand by source, both sides together"))
    return [Section("Variants: the same hands under other rules",
                    "Scoring options re-score the same play; the R9 declarer option replays the "
                    "auction and, where the declarer changes, the play. A rule set's own intervals "
                    "say how well its figure is known; whether it differs from the reference's "
                    "is read from the paired interval of the change, which is narrower: both "
                    "are measured on the same deals.",
                    tables, [points_plot(vs)])]


def _per_game_cell(summary: dict) -> str | float:
    value, bounds = summary["hands_per_game"], summary.get("hands_per_game_interval")
    if value is None:
        return "-"
    return mean_cell(value, *bounds) if bounds else value


def points_plot(variants: dict[str, dict]) -> Plot:
    """Stacked mean points per hand by source, one bar per rule set, each bar's whole
    with its 95 % interval (the same hands under each rule set)."""
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
    totals = [variants[n].get("points_per_hand_total") for n in names]
    if all(totals):
        means = [t[0] for t in totals if t]
        ax.errorbar(names, means, yerr=interval_errors(means, [t[1:] for t in totals if t]),
                    fmt="none", ecolor="black", capsize=4, label="whole score: 95% interval")
    ax.set_ylabel("points per hand, both sides")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.tick_params(axis="x", labelrotation=20)
    hands = variants[names[0]]["hands"]
    return Plot(fig, f"Where the points come from under each rule set (mean per hand, both sides; the "
                     f"same {count_text(hands, 'hand')} under each, passed-out hands counted as 0).")


def code(params: Params) -> dict[str, str]:
    """The source its rows depend on: the play analysis', and the re-scoring here."""
    return {**play_code(params), **source_digests(("lab/variants.py",))}


ANALYSIS = Analysis("variants", "Rule variants", COLUMNS, variant_rows, summarize, sections,
                    defaults={"bots": DEFAULT_BOTS,
                              "variants": [[n, o] for n, o in DEFAULT_VARIANTS]},
                    chunk_size=100, check=check, row_key="variant",
                    rows_per_deal=lambda params: len(params["variants"]), code=code)
