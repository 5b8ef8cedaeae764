"""Duplicate matches between two bots, scored in IMPs.

Every board is dealt once and played at two tables: at table 1 bot A sits
North–South and bot B East–West; at table 2 they swap. The luck of the
cards cancels: what remains is the difference between the two pairs. Each
hand is scored by the rules (:meth:`HandState.score`: contract points,
overtricks, undertricks, honors and bright bonuses), the board's difference
in net points is converted to IMPs on the standard scale, and the match
reports A's mean IMPs per board with a 95% confidence interval.

Results depend only on the bots, the seed and the number of boards; swapping
the bots turns every board's sign. A match cut short (Ctrl-C) raises
:class:`MatchInterrupted`, which holds the result of the boards finished; one
cut short by a bot's failure raises :class:`MatchFailed` (a :class:`BotError`),
which holds them too.

>>> result = run_match("random", "random", boards=2, seed=1)
>>> result.boards, len(result.results)
(2, 2)
"""

from __future__ import annotations

import math
import operator
import statistics
from bisect import bisect_right
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Sequence

from .._signals import Terminated, stop_kept
from ..cards import Card
from ..dealing import Deal, json_seed
from ..errors import BotError, FlowerBridgeError
from ..options import RuleOptions
from ..seats import Seat, Side
from ..stats import t_quantile
from ..state import HandState
from .base import Bot, Decision, bot_name, bot_seed, bot_takes, load_bot, play_hand

IMP_SCALE = (20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100,
             1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000)
"""Lower bounds of 1, 2, … 24 IMPs on the standard scale (a difference of
0–10 points is 0 IMPs, 20–40 is 1, …, 4000 or more is 24)."""


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0.5: the median, 1: the largest) of ``values``, interpolated
    linearly between the order statistics (``statistics.quantiles``' inclusive
    method, numpy's default); 0.0 for no values.

    >>> quantile([4, 1, 3, 2], 0.5), quantile([1, 2, 3, 4], 0.9), quantile([5], 0.9)
    (2.5, 3.7, 5.0)
    """
    if not values:
        return 0.0
    if not 0 <= q <= 1:
        raise ValueError(f"a quantile is from 0 to 1, not {q}")
    ordered = sorted(values)
    at = q * (len(ordered) - 1)
    low = math.floor(at)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (at - low))


def imps(difference: int) -> int:
    """The IMPs a points difference is worth, with its sign.

    >>> imps(0), imps(15), imps(20), imps(-430), imps(5000)
    (0, 0, 1, -10, 24)
    """
    n = bisect_right(IMP_SCALE, abs(difference))
    return n if difference >= 0 else -n


@dataclass
class PairStats:
    """What one bot did over the match, both tables together."""

    spec: str
    decisions: int = 0
    seconds: float = 0.0
    declared: int = 0
    made: int = 0
    honors: int = 0
    bright_bonus: int = 0
    hands: int = 0
    """Hands played (not passed out): what honors and bright bonuses are per."""
    contracts: dict[str, int] = field(default_factory=dict)
    card_seconds: list[float] = field(default_factory=list, repr=False)
    budget_hits: int = 0

    @property
    def ms_per_decision(self) -> float:
        return 1000.0 * self.seconds / self.decisions if self.decisions else 0.0

    def card_ms(self, q: float) -> float:
        """A quantile (0.5 = median, 1 = the longest) of the time per card decision,
        in milliseconds (:func:`quantile`: the median of an even count is the mean
        of the middle two); 0.0 before any card decision."""
        return 1000.0 * quantile(self.card_seconds, q)

    def _mark(self) -> tuple[dict[str, Any], int]:
        """What :meth:`_restore` puts back: the counts as they are now."""
        counts = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "card_seconds"}
        counts["contracts"] = dict(self.contracts)
        return counts, len(self.card_seconds)

    def _restore(self, mark: tuple[dict[str, Any], int]) -> None:
        counts, card_decisions = mark
        for name, value in counts.items():
            setattr(self, name, value)
        del self.card_seconds[card_decisions:]

    @property
    def making_rate(self) -> float | None:
        return self.made / self.declared if self.declared else None

    def to_dict(self) -> dict[str, Any]:
        return {"bot": self.spec, "decisions": self.decisions,
                "ms_per_decision": round(self.ms_per_decision, 3),
                "card_ms_median": round(self.card_ms(0.5), 3),
                "card_ms_p90": round(self.card_ms(0.9), 3),
                "time_budget_hits": self.budget_hits,
                "declared": self.declared, "made": self.made,
                "making_rate": None if self.making_rate is None else round(self.making_rate, 4),
                # per hand played: with none (every hand passed out) there is no figure, as
                # for the making rate with no contract, not a 0.0 that reads as none won
                "honors_per_hand": round(self.honors / self.hands, 3) if self.hands else None,
                "bright_bonus_per_hand": round(self.bright_bonus / self.hands, 3) if self.hands else None,
                "contracts": dict(sorted(self.contracts.items(), key=lambda kv: (-kv[1], kv[0])))}


@dataclass(frozen=True)
class TableResult:
    """One hand of a board at one table; ``net`` is North–South's total minus East–West's."""

    contract: str | None
    declarer: str | None
    tricks: int | None
    net: int

    def to_dict(self) -> dict[str, Any]:
        return {"contract": self.contract, "declarer": self.declarer, "tricks": self.tricks,
                "ns_net": self.net}


@dataclass(frozen=True)
class BoardResult:
    """A board: the two tables and A's IMPs (A sits N–S at table 1, E–W at table 2)."""

    board: int
    dealer: Seat
    tables: tuple[TableResult, TableResult]
    imps: int

    def to_dict(self) -> dict[str, Any]:
        return {"board": self.board, "dealer": self.dealer.name,
                "table1": self.tables[0].to_dict(), "table2": self.tables[1].to_dict(),
                "points": self.tables[0].net - self.tables[1].net, "imps": self.imps}


@dataclass
class MatchResult:
    """A whole match: per-board results and each pair's statistics."""

    seed: int | str
    pairs: tuple[PairStats, PairStats]
    results: list[BoardResult] = field(default_factory=list)
    options: RuleOptions = field(default_factory=RuleOptions)     # the rule options played under

    @property
    def boards(self) -> int:
        return len(self.results)

    @property
    def imps_per_board(self) -> float:
        return statistics.fmean(r.imps for r in self.results) if self.results else 0.0

    @property
    def ci95(self) -> tuple[float, float] | None:
        """Student's t 95% interval of the mean IMPs per board (``None`` below 2 boards).
        It was the normal approximation, ± 1.96 standard errors, too narrow on few boards:
        of 300 ten-board matches between bots of equal strength it left out 0 in 10 %,
        not 5 % (t at 9 degrees of freedom is 2.26)."""
        if len(self.results) < 2:
            return None
        half = t_quantile(len(self.results) - 1) * statistics.stdev(r.imps for r in self.results) \
            / math.sqrt(len(self.results))
        return (self.imps_per_board - half, self.imps_per_board + half)

    @property
    def spread(self) -> bool:
        """Whether the boards' IMPs differ at all: where every board scored the same, the
        interval has no width, which says nothing of how sure the mean is."""
        return len({r.imps for r in self.results}) > 1

    def to_dict(self, *, boards: bool = True) -> dict[str, Any]:
        """The ``--json`` object."""
        ci = self.ci95
        out: dict[str, Any] = {
            "boards": self.boards,
            "imps_per_board": round(self.imps_per_board, 4),
            "ci95": None if ci is None else [round(ci[0], 4), round(ci[1], 4)],
            "ms_per_decision": {"ns": round(self.pairs[0].ms_per_decision, 3),
                                "ew": round(self.pairs[1].ms_per_decision, 3)},
            "ns": self.pairs[0].spec, "ew": self.pairs[1].spec, "seed": json_seed(self.seed),
            "total_imps": sum(r.imps for r in self.results),
            # as a hand record's options (R15's penalty and R9's declarer always, the rest where changed)
            "options": self.options.to_dict(),
            "pairs": {"ns": self.pairs[0].to_dict(), "ew": self.pairs[1].to_dict()},
        }
        if boards:
            out["results"] = [r.to_dict() for r in self.results]
        return out


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C during a match (or SIGTERM taken as a stop, ``terminated``):
    :attr:`result` holds the boards finished before it, their tables and the pairs'
    statistics (nothing of the board cut short)."""

    def __init__(self, result: MatchResult, terminated: bool = False) -> None:
        super().__init__(f"{'terminated' if terminated else 'interrupted'} after {result.boards} board(s)")
        self.result = result
        self.terminated = terminated


class MatchFailed(BotError):
    """A bot failed during a match (it raised, or broke the rules): the error
    names the board, the table and the bots; :attr:`result` holds the boards
    finished before it, as :class:`MatchInterrupted`'s does."""

    def __init__(self, message: str, result: MatchResult) -> None:
        super().__init__(message)
        self.result = result


def run_match(ns: str | Any, ew: str | Any, boards: int, seed: int | str, *,
              options: RuleOptions | None = None, bot_options: dict[str, Any] | None = None,
              on_board: Callable[[BoardResult], None] | None = None) -> MatchResult:
    """Play ``boards`` duplicate boards between bots ``ns`` (A) and ``ew`` (B).

    Bots are named, or given, as :func:`~flowerbridge.bots.base.load_bot` takes them
    (a class, factory or bot object given itself is named by its path in the result);
    each seat of each table gets its own bot, seeded from ``seed`` and the
    seat, so the match is reproducible, and ``run_match(ew, ns, ...)`` gives
    the same boards with the signs turned. ``bot_options`` are
    passed to each bot's constructor that takes them; one that neither bot takes
    is a :class:`~flowerbridge.errors.BotError`.
    """
    # (a str or float failed deep inside with TypeError; NumPy's integers do)
    try:
        count = operator.index(boards) if not isinstance(boards, bool) else None
    except TypeError:
        count = None
    if count is None or count < 1:
        raise FlowerBridgeError(f"a match needs a whole number of boards, at least 1, not {boards!r}")
    boards = count
    specs = (ns, ew)
    pairs = (PairStats(bot_name(ns)), PairStats(bot_name(ew)))
    # seating[table][seat] is the index in ``pairs`` of the bot in that seat.
    seating: tuple[dict[Seat, int], dict[Seat, int]] = (
        {s: int(s.side) for s in Seat}, {s: 1 - s.side for s in Seat})
    extra = bot_options or {}
    # each bot gets the options it takes; one that neither takes is a slip (a misspelt
    # option ran the match without it)
    for option in extra:
        if option == "seed":    # (given twice to the constructor: a TypeError)
            raise BotError("bot option 'seed' is the match's to give: each bot is seeded from "
                           "run_match's seed and its seat")
        if not any(bot_takes(spec, option) for spec in specs):
            raise BotError(f"bot option {option!r} is taken by neither bot ({bot_name(ns)}, {bot_name(ew)})")
    taken = [{k: v for k, v in extra.items() if bot_takes(spec, k)} for spec in specs]
    # A seat's bot has the same seed at both tables (whichever bot sits there), so
    # swapping the two bots swaps the tables: the same boards, the signs turned
    # (and a bot against itself scores 0), seeded bots too.
    bots = [{seat: load_bot(specs[seating[t][seat]], seed=bot_seed(seed, seat.name), **taken[seating[t][seat]])
             for seat in Seat} for t in range(2)]
    result = MatchResult(seed, pairs, options=options or RuleOptions())

    def budget_hits() -> list[list[int]]:
        return [[getattr(bot, "budget_hits", 0) for bot in bots[t].values()] for t in range(2)]

    # Decisions a bot cut short at its time cap depended on the machine's speed: say how many.
    def count_budget_hits(hits: list[list[int]]) -> None:
        for t in range(2):
            for seat, n in zip(bots[t], hits[t]):
                pairs[seating[t][seat]].budget_hits += n

    # What a stop undoes: the counts as the board being played began (None between boards).
    mark: tuple[int, list[tuple[dict[str, Any], int]], list[list[int]]] | None = None
    try:
        with stop_kept():    # (a stop that lands inside a lock: the stop all the same)
            for board in range(1, boards + 1):
                deal = Deal.from_seed(seed, board)
                dealer = Seat((board - 1) % 4)
                mark = (board, [p._mark() for p in pairs], budget_hits())
                tables = tuple(_play_board_table(board, t, deal, dealer, options, bots[t], seating[t], pairs)
                               for t in range(2))
                board_result = BoardResult(board, dealer, tables,  # type: ignore[arg-type]
                                           imps(tables[0].net - tables[1].net))
                result.results.append(board_result)
                mark = None
                if on_board is not None:
                    on_board(board_result)
    except (KeyboardInterrupt, BotError) as stop:
        # The boards finished are the result, whenever the stop or the failure came
        # (between boards too): the one cut short is undone.
        hits = budget_hits()
        if mark is not None and len(result.results) == mark[0] - 1:
            _, marks, hits = mark
            for stats, counts in zip(pairs, marks):
                stats._restore(counts)
        count_budget_hits(hits)
        if isinstance(stop, BotError):
            raise MatchFailed(str(stop), result) from stop
        raise MatchInterrupted(result, terminated=isinstance(stop, Terminated)) from None
    count_budget_hits(budget_hits())
    return result


def _play_board_table(board: int, t: int, deal: Deal, dealer: Seat, options: RuleOptions | None,
                      bots: dict[Seat, Bot], seating: dict[Seat, int],
                      pairs: tuple[PairStats, PairStats]) -> TableResult:
    """:func:`_play_table`, a bot's failure said with its board, table and bots."""
    try:
        return _play_table(deal, dealer, options, bots, seating, pairs)
    except FlowerBridgeError as exc:
        sides = ", ".join(f"{pairs[seating[side.seats[0]]].spec} {name}"
                          for side, name in zip(Side, ("North-South", "East-West")))
        raise BotError(f"board {board}, table {t + 1} ({sides}): {exc}") from exc


def _play_table(deal: Deal, dealer: Seat, options: RuleOptions | None, bots: dict[Seat, Bot],
                seating: dict[Seat, int], pairs: tuple[PairStats, PairStats]) -> TableResult:
    def timed(seat: Seat, decision: Decision, seconds: float) -> None:
        stats = pairs[seating[seat]]
        stats.decisions += 1
        stats.seconds += seconds
        if isinstance(decision.action, Card):
            stats.card_seconds.append(seconds)

    state = play_hand(HandState(deal, dealer, options), bots, timed)
    score = state.score()
    contract = score.contract
    if contract is None:    # passed out: no hand played, none counted in the honors per hand
        return TableResult(None, None, None, 0)
    for side in Side:
        stats = pairs[seating[side.seats[0]]]
        stats.hands += 1
        stats.honors += score.honors(side)
        stats.bright_bonus += score.bright_bonus(side)
    stats = pairs[seating[contract.declarer]]
    stats.declared += 1
    stats.made += bool(score.made)
    stats.contracts[contract.code] = stats.contracts.get(contract.code, 0) + 1
    net = score.total(Side.NS) - score.total(Side.EW)
    return TableResult(contract.code, contract.declarer.name, score.tricks[contract.side], net)
