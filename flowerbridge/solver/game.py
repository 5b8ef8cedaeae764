"""Thin functions that take the rules engine's objects (Flower Bridge)."""

from __future__ import annotations

import threading
from typing import Iterable, Sequence

from ..calls import Denomination
from ..cards import Card, card_at
from ..dealing import Deal
from ..errors import FlowerBridgeError, json_type
from ..seats import SEATS, Seat
from ..state import HandState
from .core import DEFAULT_MEMORY_MB, FLOWER, DoubleDummy, SolverInputError, dd_tables

_defaults = threading.local()


class SolverError(FlowerBridgeError):
    """A position or deal the solver cannot work on."""


def default_solver() -> DoubleDummy:
    """The calling thread's own Flower Bridge solver (one per thread, made on
    its first use and kept, table and all, for the thread's later calls), so
    that the module's functions may be called from several threads at once."""
    solver = getattr(_defaults, "solver", None)
    if solver is None:
        solver = _defaults.solver = DoubleDummy(FLOWER, DEFAULT_MEMORY_MB)
    return solver


def _solver(solver: object) -> DoubleDummy:
    """The solver to search with: the thread's own when none is given, else a Flower Bridge
    one (a Bridge solver would read the cards as Bridge's; anything else is named)."""
    if solver is None:
        return default_solver()
    if not isinstance(solver, DoubleDummy) or solver.geometry != FLOWER:
        raise SolverError(f"solver must be a Flower Bridge DoubleDummy (DoubleDummy(FLOWER)), "
                          f"not {_what(solver)}"
                          + (f" of {solver.geometry}" if isinstance(solver, DoubleDummy) else ""))
    return solver


def position(state: HandState) -> tuple[list[list[int]], int | None, int, list[int]]:
    """``(hands, trump, leader, trick)`` of a hand in play, as card indices."""
    if not isinstance(state, HandState):
        raise SolverError(f"a hand in play (a HandState) is solved, not {_what(state)}")
    if state.contract is None or state.to_play is None:
        raise SolverError("no card to play: the hand is not in its play phase")
    hands = [[c.index for c in state.remaining(seat)] for seat in SEATS]
    trick = list(state.current_trick)
    leader = int(trick[0][0]) if trick else int(state.to_play)
    trump = state.contract.denomination.trump
    return hands, (None if trump is None else int(trump)), leader, [c.index for _, c in trick]


def card_values(state: HandState, solver: DoubleDummy | None = None) -> dict[Card, int]:
    """For every legal card of the seat to play: the tricks still to come
    (the trick in progress included) that its side takes with best play."""
    hands, trump, leader, trick = position(state)
    search = _solver(solver)
    try:
        _, values = search.card_values(hands, trump, leader, trick)
    except SolverInputError as exc:
        raise SolverError(str(exc)) from None
    return {card_at(i): v for i, v in values.items()}


def tricks(state: HandState, solver: DoubleDummy | None = None) -> int:
    """Tricks still to come for the side to play, with best play."""
    return max(card_values(state, solver).values())


def optimal_line(state: HandState, solver: DoubleDummy | None = None) -> list[tuple[Seat, Card]]:
    """One line of best play from the position to the end of the hand."""
    hands, trump, leader, trick = position(state)
    search = _solver(solver)
    try:
        line = search.optimal_line(hands, trump, leader, trick)
    except SolverInputError as exc:     # (SolverError, as card_values says it)
        raise SolverError(str(exc)) from None
    return [(Seat(seat), card_at(card)) for seat, card, _ in line]


def claim_line(state: HandState, solver: DoubleDummy | None = None) -> list[tuple[Seat, Card]] | None:
    """A claim of every trick left (the one in progress included) by the side
    to play, judged with every hand in view: a line of best play to the end of
    the hand, in which that side takes them all, when no defence takes one of
    them; ``None`` when some defence does."""
    hands, trump, leader, trick = position(state)
    search = _solver(solver)
    try:
        held = search.takes_all(hands, trump, leader, trick)
    except SolverInputError as exc:
        raise SolverError(str(exc)) from None
    return optimal_line(state, search) if held else None


def _hands_of(deal: Deal | HandState) -> list[list[int]]:
    if isinstance(deal, HandState):
        deal = deal.deal
    if not isinstance(deal, Deal):
        raise SolverError(f"a deal (a Deal, or a HandState for its deal) is solved, not {_what(deal)}")
    return [[c.index for c in hand] for hand in deal.hands]


def _what(value: object) -> str:
    """What ``value`` is, for an error: its class, or for a JSON-like value its JSON type."""
    if value is None or isinstance(value, (bool, int, float, str, list, dict)):
        return json_type(value)
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _as_dict(table: Sequence[Sequence[int]]) -> dict[Denomination, dict[Seat, int]]:
    return {Denomination(d): {Seat(s): table[d][s] for s in range(4)} for d in range(4)}


def dd_table(deal: Deal | HandState, solver: DoubleDummy | None = None) -> dict[Denomination, dict[Seat, int]]:
    """Double-dummy table of a deal (or of a hand's deal): for each
    denomination and declarer, the tricks declarer's side takes when
    declarer's left-hand opponent leads.  Undealt cards play no part."""
    hands = _hands_of(deal)
    search = _solver(solver)
    try:
        table = search.dd_table(hands)
    except SolverInputError as exc:
        raise SolverError(str(exc)) from None
    return _as_dict(table)


def dd_table_many(deals: Iterable[Deal | HandState], *, workers: int = 2,
                  memory_mb: float = DEFAULT_MEMORY_MB) -> list[dict[Denomination, dict[Seat, int]]]:
    """:func:`dd_table` of many deals, on ``workers`` threads at once (all of
    them on one deal's table, searching one transposition table together,
    when there are fewer deals)."""
    if isinstance(deals, (Deal, HandState)):
        raise SolverError("dd_table_many solves many deals (a list of them): dd_table solves one")
    try:
        deals = list(deals)
    except TypeError:
        raise SolverError(f"dd_table_many solves a list of deals, not {_what(deals)}") from None
    try:
        tables = dd_tables([_hands_of(d) for d in deals], FLOWER, workers=workers, memory_mb=memory_mb)
    except SolverInputError as exc:     # (SolverError, as the others here say theirs: workers=0)
        raise SolverError(str(exc)) from None
    return [_as_dict(t) for t in tables]
