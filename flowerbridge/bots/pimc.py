"""The ``pimc`` bot: Perfect-Information Monte Carlo card play.

For each card decision the bot deals ``samples`` worlds of the cards it
cannot see (:mod:`~flowerbridge.bots.sampling`: consistent with its hand,
the dummy, the cards played, the voids shown, the 8 undealt cards and what
the auction showed), solves every world double dummy, and plays the legal
card with the best score summed over the worlds: the score its side makes
for the contract with the tricks that card takes (:func:`contract_score`;
no overtrick is worth a risk to the contract). Ties go to the card the
``basic`` rules of thumb prefer, then to the cheapest card.

Settings:

* ``samples`` (default 24) — worlds per decision. It alone decides the
  card, so a seeded bot is deterministic.
* ``solve_below`` (default 13) — the solver is used once every hand holds
  fewer cards than this; earlier tricks are played by the ``basic`` rules.
  At 13 only the first trick is; a trick-2 decision took 0.16 s at the
  median (mean 0.27 s, slowest 2.1 s) on two busy cores; over 100 boards
  against 12 it scored -0.01 IMPs a board [-0.33, +0.31].
* ``time_budget`` (default 30 s) — a safety cap, not a setting of play: when the
  worlds of one decision take longer, the remaining ones are skipped and
  :attr:`PimcBot.budget_hits` counts it (the benchmark reports it; a hit
  makes that decision depend on the machine's speed). ``None``: no cap, as
  the lab plays it, whose runs must reproduce on any machine.
* ``workers`` (default: the machine's cores) — threads that deal and solve
  worlds; the solver releases the GIL, so one thread's solving runs beside
  another's dealing or solving.

Bidding follows the system of :mod:`~flowerbridge.bots.bidding`, as ``basic`` does.
"""

from __future__ import annotations

import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import CancelledError as FuturesCancelled
from concurrent.futures import TimeoutError as FuturesTimeout
from typing import Callable, cast

from ..cards import Card, Suit
from ..errors import BotError
from ..observation import Observation
from ..scoring import contract_points
from ..seats import Seat
from .base import Decision, position_key
from .basic import BasicBot, choose_card
from .knowledge import Knowledge
from .sampling import Sampler

SOLVER_MEMORY_MB = 32
"""Transposition table per solving thread: positions after trick 2 need little."""

_local = threading.local()
_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()
# The decisions being solved now, each by the function that stops it (see stop_all)
_deciding: set[Callable[[], None]] = set()


def thread_solver():
    """This thread's double-dummy solver (one per thread: a solver is not shared)."""
    solver = getattr(_local, "solver", None)
    if solver is None:
        from ..solver import DoubleDummy

        solver = _local.solver = DoubleDummy(memory_mb=SOLVER_MEMORY_MB)
    return solver


def stop_all() -> None:
    """Stop every decision being solved now, on any thread: each raises
    :class:`~flowerbridge.solver.SearchCancelled` (a server stopping: its bots'
    decisions would have run on, up to their 30-second budget, holding up the exit)."""
    for cancel in list(_deciding):
        cancel()


def _pool(workers: int) -> ThreadPoolExecutor:
    with _pools_lock:
        if workers not in _pools:
            _pools[workers] = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="pimc")
        return _pools[workers]


def contract_score(observation: Observation) -> Callable[[int], int]:
    """What the side to move scores (for the contract and its over- or
    undertricks, by the table's options) when it takes ``t`` more tricks: the
    bot plays for the best average score over its worlds, not the most tricks,
    so that it takes no risk to the contract for an overtrick. (Honors and
    bright bonuses, which depend on which cards a side captures, are left out:
    the solver counts tricks.)"""
    contract, options = observation.contract, observation.options
    assert contract is not None and observation.actor is not None
    side = observation.actor.side
    won = observation.tricks_won[side]
    sign = 1 if side is contract.side else -1
    need = contract.tricks_required
    made = contract_points(contract.level, contract.denomination, options)
    over = options.overtrick_points[contract.denomination]

    def score(t: int) -> int:
        declarer = won + t if sign > 0 else 13 - (won + t)  # every trick is one side's
        return sign * (made + over * (declarer - need) if declarer >= need
                       else -options.undertrick_penalty * (need - declarer))
    return score


def world_values(world_hands: dict[Seat, tuple[Card, ...]], trump: Suit | None,
                 leader: Seat, trick: tuple[Card, ...]) -> dict[int, int]:
    """Tricks from here (the current one included) for the side to move, per
    legal card index, with every hand known: one double-dummy solve."""
    hands = [[c.index for c in world_hands[seat]] for seat in Seat]
    _, values = thread_solver().card_values(hands, None if trump is None else int(trump), int(leader),
                                      [c.index for c in trick])
    return values


def _whole(value: object, name: str, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise BotError(f"pimc: {name} must be a whole number, {least} or more, not {value!r}")


class PimcBot(BasicBot):
    """Bids like ``basic``; plays each card by sampling and double-dummy solving."""

    name = "pimc"

    def __init__(self, seed: int | str | None = None, samples: int = 24, solve_below: int = 13,
                 time_budget: float | None = 30.0, workers: int | None = None) -> None:
        super().__init__(seed)
        # checked here, not at the first card: samples=0 or a time budget of 0 played
        # basic's cards without a word, samples="x" failed inside the sampling
        _whole(samples, "samples", 1)
        _whole(solve_below, "solve_below", 0)
        if workers is not None:
            _whole(workers, "workers", 1)
        if time_budget is not None and (isinstance(time_budget, bool) or not isinstance(time_budget, (int, float))
                                        or not time_budget > 0):
            raise BotError(f"pimc: time_budget must be a number of seconds above 0, or None, "
                           f"not {time_budget!r}")
        self.decisions = 0
        self.samples = samples
        self.solve_below = solve_below
        self.time_budget = time_budget
        self.workers = workers or os.cpu_count() or 1
        self.budget_hits = 0

    def decide_card(self, observation: Observation) -> Decision:
        k = Knowledge(observation)
        basic_card, reason = choose_card(k)
        legal = cast("list[Card]", list(observation.legal))    # (the play: cards only)
        if len(legal) == 1 or len(k.hand) >= self.solve_below:
            return Decision(basic_card, reason)
        self.decisions += 1
        totals, solved = self._solve(k, Sampler(k), contract_score(observation), position_key(observation))
        if not solved:
            return Decision(basic_card, reason)
        best = max(totals.values())
        top = [c for c in legal if totals.get(c.index) == best]
        card = basic_card if basic_card in top else min(top, key=lambda c: (c.points, c.rank))
        return Decision(card, f"best in {solved} sampled worlds: {best / solved:+.0f} points on average")

    def _solve(self, k: Knowledge, sampler: Sampler, score: Callable[[int], int],
               position: str) -> tuple[dict[int, int], int]:
        """Each card's score (``score`` of its double-dummy tricks) summed over
        ``samples`` worlds, and how many worlds were solved within the time budget.

        Each world is dealt and solved in a worker thread from its own random
        stream, named by the bot's seed, the ``position`` decided (what the bot
        sees of it) and the world's number, so the result does not depend on
        which thread gets which world, nor on what the bot decided before: the
        same position is decided the same way again (after a person's take-back
        at a table, or a server's restart). One thread deals (holding the GIL)
        while another solves (releasing it).
        """
        obs = k.obs
        trick = tuple(c for _, c in obs.current_trick)
        leader = obs.current_trick[0][0] if obs.current_trick else obs.turn
        assert leader is not None  # a card is asked for only while the play goes on
        visible = k.visible

        # The solvers searching this decision's worlds now: a stop (Ctrl-C, SIGTERM, the
        # time budget, a server stopping: stop_all) cancels their searches, which went on
        # to their ends (a pool thread's solver serves other decisions' worlds too: the
        # pool is shared, and Searches cancels it only while it searches for this one).
        from ..solver.core import Searches, SearchCancelled, stop_searches
        searches = Searches()

        def solve(number: int) -> dict[int, int]:
            with searches.by(thread_solver()):
                world = sampler.sample(random.Random(f"pimc:{self.seed}:{position}:{number}"))
                return world_values({**visible, **world.hands}, k.trump, leader, trick)

        def cancel() -> None:
            for f in futures:
                f.cancel()
            searches.cancel()

        deadline = None if self.time_budget is None else time.perf_counter() + self.time_budget
        futures: list = []
        totals: dict[int, int] = {}
        solved = 0
        _deciding.add(cancel)
        try:
            for i in range(self.samples):
                futures.append(_pool(self.workers).submit(solve, i))
            for future in futures:
                try:
                    values = future.result(timeout=None if deadline is None
                                           else max(0.0, deadline - time.perf_counter()))
                except FuturesTimeout:
                    self.budget_hits += 1
                    cancel()        # (the worlds under way are not waited for)
                    break
                except FuturesCancelled:
                    # a world that stop_all cancelled before a pool thread took it up: the
                    # decision is stopped as where its search was under way
                    raise SearchCancelled("the decision was stopped (pimc.stop_all)") from None
                solved += 1
                for index, value in values.items():
                    totals[index] = totals.get(index, 0) + score(value)
        except BaseException:
            # stopped: the worlds under way stop too, and are waited for (the threads
            # of the pool are the exit's to wait for, and a second Ctrl-C then printed
            # a traceback); a world cancelled by stop_all raises SearchCancelled here
            stop_searches(cancel, searches.running(futures))
            raise
        finally:
            _deciding.discard(cancel)
        return totals, solved
