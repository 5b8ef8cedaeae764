"""The ``play`` analysis: bots bid and play every deal; the engine scores it.

Deal ``i`` is dealt by seat ``i mod 4``, as in a session where the deal
rotates (RULINGS R5), and each seat's bot is seeded from ``(seed, i, seat)``,
so a deal's result never depends on which worker played it. Consecutive
deals form one long session: games (100 below the line) are counted over the
rows in deal order.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..render import count_text
from ..bots import load_bot
from ..bots.base import BOT_LEVELS, bot_name, bot_seed, play_hand
from ..bots.pimc import PimcBot
from ..calls import Denomination
from ..dealing import Deal
from ..errors import BotError, FlowerBridgeError
from ..options import RuleOptions
from ..scoring import HandScore, contract_points
from ..seats import SEATS, Seat
from ..state import HandState
from .base import BOT_SOURCES, ENGINE_SOURCES, LAB_SOURCES, SOLVER_SOURCES, Analysis, LabError, Params, Row, Table, \
    module_digest, source_digests
from .features import SIDES, deal_features, dealer_of
from .report import (DENOM_COLOURS, FEW, Plot, Section, TableSpec, bootstrap_ratios, dodged, interval_errors,
                     legend_beside, mean_cell, mean_interval, new_figure, nothing_drawn, pct, rate_cell,
                     share_points, whole_number_ticks, wilson)

FIT_MIN_CONTRACTS = 20
"""A trump length with fewer contracts is left out of the by-length figures."""

HAND_COLUMNS: dict[str, type] = {
    "contract": str, "denom": str, "level": int, "declarer": str, "side": str,
    "tricks": int, "result": int, "made": int, "passed_out": int,
    "contract_points": int, "overtricks": int, "penalty": int,
    **{f"{part}_{side.name}": int for part in ("below", "above", "honors", "bright", "five", "ten")
       for side in SIDES},
    "decl_hc": int, "decl_fit": int, "twin_tricks": int, "twin_wins": int,
}
COLUMNS = {"deal": int, "dealer": str, **HAND_COLUMNS}


DEFAULT_BOTS = "basic"
"""The bots ``play`` and ``variants`` use unless ``--bots`` names others."""


def check_bots(params: Params) -> None:
    """Load the bots once before any work starts, so a bad name fails at once."""
    make_bots(params["bots"], 0, 0)


def make_bots(spec: str, seed: Any, deal: int) -> dict[Seat, Any]:
    """One bot per seat, seeded from the run seed, the deal and the seat.

    Bots that take no ``seed`` keyword are built without one (:func:`load_bot`
    passes a factory only the keywords it takes; they must then be deterministic by
    themselves for runs to reproduce).
    """
    if not isinstance(spec, str) or not spec:
        # (the run's folder records the name, and its workers import the bot by it)
        given = "" if isinstance(spec, str) else \
            f", not the class {bot_name(spec)} itself (give its path)" if isinstance(spec, type) else \
            f", not {type(spec).__name__}"
        raise LabError(f"bots must be a level ({', '.join(sorted(BOT_LEVELS))}) or module:attribute{given}")
    bots = {}
    for seat in SEATS:
        try:
            bot = load_bot(spec, seed=bot_seed(seed, deal, seat.name))
        except FlowerBridgeError as exc:
            raise LabError(str(exc)) from None
        if isinstance(bot, PimcBot):
            # its 30 s safety cap would make a decision depend on the machine's
            # load (a busy cluster node): a lab run must reproduce anywhere
            bot.time_budget = None
        bots[seat] = bot
    return bots


def hand_row(state: HandState, score: HandScore, features: dict[str, int]) -> Row:
    """The columns of :data:`HAND_COLUMNS` for a finished or passed-out hand."""
    contract = score.contract
    row: Row = {
        "contract": contract.code if contract else "",
        "denom": contract.denomination.name if contract else "",
        "level": contract.level if contract else 0,
        "declarer": contract.declarer.name if contract else "",
        "side": contract.side.name if contract else "",
        "tricks": score.tricks[contract.side] if contract else 0,
        "result": score.result if contract else 0,
        "made": int(bool(score.made)),
        "passed_out": int(contract is None),
        "contract_points": sum(i.points for i in score.items if i.rule == "R13"),
        "overtricks": sum(i.points for i in score.items if i.rule == "R14"),
        "penalty": sum(i.points for i in score.items if i.rule == "R15"),
        "decl_hc": features[f"hc_{contract.side.name}"] if contract else 0,
        "decl_fit": (features[f"fit_{contract.side.name}_{contract.trump.letter}"]
                     if contract and contract.trump is not None else 0),
    }
    row["twin_tricks"], row["twin_wins"] = twin_counts(state)
    for side in SIDES:
        bonuses = [i for i in score.items if i.side is side and i.rule == "R17"]
        row[f"below_{side.name}"] = score.below(side)
        row[f"above_{side.name}"] = score.above(side)
        row[f"honors_{side.name}"] = score.honors(side)
        row[f"bright_{side.name}"] = score.bright_bonus(side)
        # The engine names which Bright bonus it awarded; the lab only counts them.
        row[f"ten_{side.name}"] = int(any(i.label.startswith("Ten") for i in bonuses))
        row[f"five_{side.name}"] = int(bool(bonuses)) - row[f"ten_{side.name}"]
    return row


def twin_counts(state: HandState) -> tuple[int, int]:
    """The hand's tricks in which both copies of a card were played, and those
    won by a card whose twin an opponent of the winner played later in the same
    trick: the identical-card rule (Ch. 5, Ch. 9, R12: of two identical cards the
    first played wins) decided which side took the trick (a twin from the
    winner's partner leaves the trick with that side whichever copy wins)."""
    both = won = 0
    for trick in state.tricks:
        cards = [card for _, card in trick.plays]
        if len(set(cards)) < len(cards):
            both += 1
            winner = next(card for seat, card in trick.plays if seat is trick.winner)
            won += any(card == winner and seat.side is not trick.winner.side for seat, card in trick.plays)
    return both, won


def play_deal(seed: Any, deal_index: int, bots: str, options: RuleOptions | None = None) -> HandState:
    """Deal ``deal_index`` bid and played to the end by seeded bots."""
    state = HandState(Deal.from_seed(seed, deal_index), dealer_of(deal_index), options)
    return play_hand(state, make_bots(bots, seed, deal_index))


@contextmanager
def naming_the_deal(deal_index: int) -> Iterator[None]:
    """A bot's failure inside says which deal it failed in (to be looked into alone)."""
    try:
        yield
    except BotError as exc:
        raise BotError(f"deal {deal_index}: {exc}") from exc


def play_rows(seed, start: int, stop: int, params: Params) -> list[Row]:
    rows = []
    for i in range(start, stop):
        with naming_the_deal(i):
            state = play_deal(seed, i, params["bots"])
        features = deal_features(state.deal)
        rows.append({"deal": i, "dealer": state.dealer.name,
                     **hand_row(state, state.score(), features)})
    return rows


# ---------------------------------------------------------------- summary


def hands_per_game(table: Table, game_points: int) -> list[int]:
    """Hands in each game completed over the rows in deal order (R18)."""
    games, ns, ew, hands = [], 0, 0, 0
    for a, b in zip(table["below_NS"].tolist(), table["below_EW"].tolist()):
        ns, ew, hands = ns + a, ew + b, hands + 1
        if ns >= game_points or ew >= game_points:
            games.append(hands)
            ns = ew = hands = 0
    return games


GAME_BLOCK = 100
"""Hands per block when hands per game is bootstrapped: the games of a session run
across consecutive hands (4 or 5 a game), so hands are resampled in blocks of
consecutive ones, each game counted in the block where it ends."""
MIN_BLOCKS = 20
"""Fewer blocks than this give hands per game no interval. A run under
``MIN_BLOCKS * GAME_BLOCK`` hands is cut into ``MIN_BLOCKS`` smaller blocks, of 10
hands at least."""
GAMES_PER_BLOCK = 3
"""A block holds the hands of this many games at least, on average: where games are
long (a rule set with a high game score) the blocks grow with them, since a block
much shorter than a game would mostly hold none and resampling blocks would then
treat the hands of one game as independent."""


def game_block_size(hands: int, games: int = 0) -> int | None:
    """The block size the bootstrap of hands per game uses for a session of ``hands``
    hands in which ``games`` games were finished: :data:`GAME_BLOCK`, less for a short
    session, more where :data:`GAMES_PER_BLOCK` games take more hands; None where
    that leaves fewer than :data:`MIN_BLOCKS` blocks, or blocks of under 10 hands."""
    size = min(GAME_BLOCK, hands // MIN_BLOCKS)
    if games:
        size = max(size, -(-GAMES_PER_BLOCK * hands // games))
    return size if size >= 10 and hands // size >= MIN_BLOCKS else None


def game_blocks(table: Table, game_points: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For each block of ``size`` consecutive hands (the last one may be shorter): the
    hands of the games that end in it, and the number of those games."""
    per_game = np.array(hands_per_game(table, game_points), dtype=np.int64)
    ends = np.cumsum(per_game) - 1
    blocks = -(-len(table) // size)
    where = ends // size
    return (np.bincount(where, weights=per_game, minlength=blocks).astype(np.float64),
            np.bincount(where, minlength=blocks).astype(np.float64))


def hand_summary(table: Table, options: RuleOptions) -> dict:
    """Contracts, making rates, games, honors and where the points come from."""
    n = len(table)
    bid = table.where(table["passed_out"] == 0)
    by_denom = {}
    for d in Denomination:
        t = bid.where(bid["denom"] == d.name)
        game_at = game_level(d, options)
        games = t.where(t["level"] >= game_at)
        net = declarer_net(t)
        net_interval = mean_interval(net)[1:]
        game_tricks = t["tricks"] >= game_at + 6
        by_denom[d.name] = {
            "contracts": len(t), "made": int(t["made"].sum()),
            "make_rate": pct(t["made"].sum(), len(t)) if len(t) else None,
            "mean_level": float(t["level"].mean()) if len(t) else None,
            "game_level": game_at,
            "games_bid": len(games), "games_made": int(games["made"].sum()),
            "mean_declarer_net": float(net.mean()) if len(t) else None,
            # its 95 % interval, Student's t (one contract a deal); None where there is none
            "mean_declarer_net_interval": list(net_interval) if np.isfinite(net_interval[0]) else None,
            "mean_tricks": float(t["tricks"].mean()) if len(t) else None,
            # Tricks enough for game, whatever level was bid: how often the
            # denomination would have made game as the bots played it.
            "game_tricks": pct(np.count_nonzero(game_tricks), len(t)) if len(t) else None,
            "by_fit": {int(f): {"contracts": int((t["decl_fit"] == f).sum()),
                                "mean_tricks": float(t["tricks"][t["decl_fit"] == f].mean()),
                                "game_tricks": pct(np.count_nonzero(game_tricks & (t["decl_fit"] == f)),
                                                   (t["decl_fit"] == f).sum()),
                                "game_tricks_contracts": int(np.count_nonzero(game_tricks
                                                                              & (t["decl_fit"] == f)))}
                       for f in np.unique(t["decl_fit"]) if (t["decl_fit"] == f).sum() >= FIT_MIN_CONTRACTS}
            if d is not Denomination.NT else {},    # (No Trump has no trump length: decl_fit 0)
        }
    per_game = hands_per_game(table, options.game_points)
    size = game_block_size(n, len(per_game)) if per_game else None     # (no game: no blocks)
    per_game_interval = None
    if size and per_game:
        block_hands, block_games = game_blocks(table, options.game_points, size)
        lo, hi = bootstrap_ratios(block_hands[:, None], block_games[:, None], lambda r: r[:, 0])
        per_game_interval = [lo, hi] if np.isfinite(lo) else None
    both = {part: float(sum(table[f"{part}_{s.name}"].sum() for s in SIDES)) / max(n, 1)
            for part in ("below", "above", "honors", "bright")}
    components = {"contract points (below)": both["below"],
                  "overtricks": float(table["overtricks"].sum()) / max(n, 1),
                  "undertrick penalties": float(table["penalty"].sum()) / max(n, 1),
                  "honors": both["honors"], "Bright bonuses": both["bright"]}
    extras = [table[f"honors_{s.name}"] + table[f"bright_{s.name}"] for s in SIDES]
    totals = [table[f"below_{s.name}"] + table[f"above_{s.name}"] for s in SIDES]
    five = int(((table["five_NS"] + table["five_EW"]) > 0).sum())
    ten = int(((table["ten_NS"] + table["ten_EW"]) > 0).sum())
    return {
        "hands": n, "passed_out": int(table["passed_out"].sum()),
        # How far honors and bonuses, and the whole score, separate the two sides.
        "honor_margin": float(np.abs(extras[0] - extras[1]).mean()) if n else 0.0,
        "score_margin": float(np.abs(totals[0] - totals[1]).mean()) if n else 0.0,
        "contracts": len(bid), "made": int(bid["made"].sum()),
        "make_rate": pct(bid["made"].sum(), len(bid)) if len(bid) else None,     # (no contract: none)
        "by_denom": by_denom,
        "by_level": {int(k): int(v) for k, v in zip(*np.unique(bid["level"], return_counts=True))},
        "points_per_hand": components,
        # their sum, both sides' whole score a hand, with its 95 % interval (hands are
        # independent deals): [mean, low, high]
        "points_per_hand_total": list(mean_interval(totals[0] + totals[1])) if n else None,
        # hands in which either side earned it (both sides may earn Five Bright, R17)
        "five_bright_rate": pct(five, n), "five_bright_hands": five,
        "ten_bright_rate": pct(ten, n), "ten_bright_hands": ten,
        **twin_summary(bid),
        "games": len(per_game),
        "hands_per_game": float(np.mean(per_game)) if per_game else None,
        # its 95 % interval, a bootstrap over blocks of consecutive hands (game_block_size)
        "hands_per_game_interval": per_game_interval,
        "game_block": size,
    }


def twin_summary(bid: Table) -> dict:
    """How often both copies of a card fell in one trick, and how often the
    identical-card rule decided which side took it (R12, :func:`twin_counts`), over
    the tricks of the hands played; each share's 95 % interval a bootstrap over the hands
    (the tricks of one hand are not independent of one another)."""
    tricks = np.full(len(bid), 13, dtype=np.int64)
    out: dict = {"tricks_played": int(tricks.sum())}
    for name, column in (("twin_trick", "twin_tricks"), ("twin_win", "twin_wins")):
        counts = bid[column]
        out[f"{name}s"] = int(counts.sum())
        out[f"{name}_rate"] = pct(counts.sum(), tricks.sum()) if len(bid) else None
        lo, hi = (bootstrap_ratios(counts[:, None], tricks[:, None], lambda r: 100.0 * r[:, 0])
                  if len(bid) > 1 else (np.nan, np.nan))
        out[f"{name}_interval"] = [lo, hi] if np.isfinite(lo) else None
    won = int(np.count_nonzero(bid["twin_wins"]))
    out["twin_win_hands"] = won
    out["twin_win_hand_rate"] = pct(won, len(bid)) if len(bid) else None
    return out


def twin_shares(summary: dict) -> str:
    """How often the identical-card rule decided a trick, in a sentence (empty
    where no hand was played)."""
    if not summary["contracts"]:
        return ""

    def share(name: str) -> str:
        bounds = summary[f"{name}_interval"]
        return f"{summary[f'{name}_rate']:.1f}%" + (f" (95% interval {bounds[0]:.1f}–{bounds[1]:.1f}%)"
                                                    if bounds else "")
    lo, hi = wilson(summary["twin_win_hands"], summary["contracts"])
    return (f"Both copies of a card fell in the same trick in {share('twin_trick')} of the "
            f"{summary['tricks_played']:,} tricks played; the identical-card rule (R12: the first "
            f"played wins) decided which side took the trick, the twin coming from an opponent, in "
            f"{share('twin_win')}: in {summary['twin_win_hand_rate']:.1f}% ({lo:.1f}–{hi:.1f}%) of "
            "the hands played, at least once.")


def bright_shares(summary: dict) -> str:
    """How often either side earned a Five and a Ten Bright bonus, with their 95 %
    Wilson intervals: "Five Bright bonus in 45.7% (95% interval 45.0–46.4%) of hands
    (either side), Ten Bright in 2.69% (2.47–2.92%)."."""
    n = summary["hands"]
    five_lo, five_hi = wilson(summary["five_bright_hands"], n)
    ten_lo, ten_hi = wilson(summary["ten_bright_hands"], n)
    return (f"Five Bright bonus in {summary['five_bright_rate']:.1f}% (95% interval "
            f"{five_lo:.1f}–{five_hi:.1f}%) of hands (either side), Ten Bright in "
            f"{summary['ten_bright_rate']:.2f}% ({ten_lo:.2f}–{ten_hi:.2f}%).")


def game_level(denomination: Denomination, options: RuleOptions) -> int:
    """The lowest level whose contract points alone make game, under ``options``;
    8 where no contract does (game then comes only from part-scores, R18)."""
    for level in range(1, 8):
        if contract_points(level, denomination, options) >= options.game_points:
            return level
    return 8


def game_label(level: int, denomination: str) -> str:
    """How a report names the game contract: ``4A``, or that no single contract is one."""
    return f"{level}{denomination}" if level <= 7 else "no single contract"


def declarer_net(t: Table) -> np.ndarray:
    """Points the declaring side scored in the hand minus what its opponents scored: above
    and below the line, honors and Bright bonuses included (rows of contracts only)."""
    ns = t["below_NS"] + t["above_NS"]
    ew = t["below_EW"] + t["above_EW"]
    return np.where(t["side"] == "NS", ns - ew, ew - ns)


def summarize(table: Table, params: Params, settings: Params) -> dict:
    return {"bots": params["bots"], **hand_summary(table, RuleOptions())}


def contract_table(summary: dict, caption: str) -> TableSpec:
    rows = []
    for name, d in summary["by_denom"].items():
        # a rate of nothing is no rate: "-" rather than 0
        rows.append([name, d["contracts"], pct(d["contracts"], summary["hands"]),
                     rate_cell(d["made"], d["contracts"]), game_label(d["game_level"], name), d["games_bid"],
                     rate_cell(d["games_made"], d["games_bid"]), net_cell(d)])
    # the hands passed out, so that the column of % of hands adds up to 100
    rows.append(["passed out", summary["passed_out"], pct(summary["passed_out"], summary["hands"]),
                 "-", "-", "-", "-", "-"])
    return TableSpec(caption, ["denomination", "contracts", "% of hands", "made % (95% interval)",
                               "game at", "games bid", "games made % (95% interval)",
                               "declarer's net per contract (honors included), mean (95% interval)"], rows)


def net_cell(cell: dict) -> str | float:
    """A denomination's mean declarer's net score with its 95 % interval, or "-"."""
    if not cell["contracts"]:
        return "-"
    bounds = cell.get("mean_declarer_net_interval")
    return mean_cell(cell["mean_declarer_net"], *bounds) if bounds else cell["mean_declarer_net"]


def points_table(summaries: dict[str, dict], caption: str) -> TableSpec:
    """Mean points per hand by source, one column per rule set."""
    names = list(summaries)
    parts = list(next(iter(summaries.values()))["points_per_hand"])
    return TableSpec(caption, ["points per hand", *names],
                     [[p, *(summaries[n]["points_per_hand"][p] for n in names)] for p in parts])


def sections(table: Table, summary: dict, params: Params, settings: Params) -> list[Section]:
    fig = new_figure()
    ax = fig.add_subplot()
    names = [d for d in summary["by_denom"] if summary["by_denom"][d]["contracts"]]
    rates = [summary["by_denom"][d]["make_rate"] for d in names]
    bounds = [wilson(summary["by_denom"][d]["made"], summary["by_denom"][d]["contracts"]) for d in names]
    # each bar named with the contracts it rests on (a bar of one contract looked as sure as one of 90)
    ax.bar([f"{d}\n{count_text(summary['by_denom'][d]['contracts'], 'contract')}" for d in names], rates,
           color=[DENOM_COLOURS[list(summary["by_denom"]).index(d)] for d in names],
           yerr=interval_errors(rates, bounds), capsize=4)
    ax.set_xlabel("denomination (those contracted in)")
    ax.set_ylabel("contracts made, %")
    ax.set_ylim(0, 105)     # (room for an interval's cap at 100)
    ax.set_yticks(range(0, 101, 20))
    levels = summary["by_level"]
    fig2 = new_figure()
    ax2 = fig2.add_subplot()
    ax2.bar(list(levels), list(levels.values()), color="#5b8def")
    ax2.set_xlabel("contract level")
    ax2.set_ylabel("hands")
    whole_number_ticks(ax2)
    hpg = summary["hands_per_game"]
    text = (f"{count_text(summary['hands'], 'hand')} bid and played by the '{summary['bots']}' bots; "
            f"{summary['passed_out']:,} passed out; "
            + (f"{summary['make_rate']:.1f}% of contracts made. " if summary["contracts"]
               else "no contract was reached. ")
            + bright_shares(summary) + " "
            + (f"Honors and Bright bonuses set the two sides {summary['honor_margin']:.1f} points apart "
               f"a hand on average, the whole score {summary['score_margin']:.1f}. " if summary["contracts"]
               else "")
            + (f"A game took {hpg:.2f} hands on average ({count_text(summary['games'], 'game')}). "
               if hpg else "No game was completed. ")
            + twin_shares(summary)).rstrip()
    return [Section("Play: bot sessions", text,
                    [contract_table(summary, "Contracts reached by denomination"),
                     points_table({"default rules": summary}, "Where the points come from")],
                    [Plot(fig, "How often contracts make, by denomination, with 95% (Wilson) intervals; "
                               "under each bar, the contracts it rests on."),
                     game_tricks_plot(summary),
                     Plot(fig2, "Contract levels reached"
                          + (f" (the {count_text(summary['passed_out'], 'hand')} passed out are not drawn)."
                             if summary["passed_out"] else "."))])]


def game_tricks_plot(summary: dict) -> Plot:
    """How often declarer took game tricks in each trump suit, by trump length, with
    95 % Wilson intervals."""
    fig = new_figure(8, 3.6)
    ax = fig.add_subplot()
    for d, colour, shift in zip(("P", "R", "A"), DENOM_COLOURS, dodged(3, 0.15)):
        cell = summary["by_denom"][d]
        fits = cell["by_fit"]
        drawn = sum(fits[f]["contracts"] for f in fits)
        what = (f"{cell['game_level'] + 6}+ tricks" if cell["game_level"] <= 7
                else "no single contract makes game")
        share_points(ax, {f: (fits[f]["game_tricks_contracts"], fits[f]["contracts"]) for f in fits},
                     colour, f"{d}: {what} ({count_text(drawn, 'contract')})", shift)
    ax.set_xlabel("declaring side's length in the trump suit (of 20)")
    ax.set_ylabel("declarer took game tricks, % of contracts")
    if any(summary["by_denom"][d]["by_fit"] for d in ("P", "R", "A")):
        whole_number_ticks(ax)
        legend_beside(ax)
    else:
        nothing_drawn(ax, f"no trump length had {FIT_MIN_CONTRACTS} contracts or more:\n"
                          "more deals would draw it")
    return Plot(fig, "Bot play: how often declarer took the tricks for game in the trump suit it "
                     "played in (11 in Plains, 10 in Ribbons or Animals), whatever level was bid, "
                     "with 95% (Wilson) intervals; the legend gives the contracts drawn; the suits' "
                     "points at one length are set a little apart. "
                     f"Only lengths with {FIT_MIN_CONTRACTS} contracts or more are drawn, hollow "
                     f"where they are fewer than {FEW}.")


def bot_code(spec: str) -> dict[str, str]:
    """The source a bot's bidding and play depend on: the bots' modules, the solver where
    the bot searches double dummy (``pimc``; and a bot of another module, which may), and
    that module itself."""
    module = BOT_LEVELS.get(spec, spec).partition(":")[0]
    code = source_digests(BOT_SOURCES)
    if module != "flowerbridge.bots.pimc" and module.startswith("flowerbridge.bots."):
        return code
    code.update(source_digests(SOLVER_SOURCES))
    if not module.startswith("flowerbridge."):
        code.update(module_digest(module))
    return code


def code(params: Params) -> dict[str, str]:
    """The source its rows depend on: the engine, the features of a deal and the bots."""
    return {**source_digests((*ENGINE_SOURCES, *LAB_SOURCES, "lab/play.py")), **bot_code(params["bots"])}


ANALYSIS = Analysis("play", "Bot play", COLUMNS, play_rows, summarize, sections,
                    defaults={"bots": DEFAULT_BOTS}, chunk_size=100, check=check_bots, code=code)
