"""Double-dummy values for the review of a finished hand, computed off the event loop.

For each card played, the solver is asked, at the position just before it,
how many tricks the side to move takes with each legal card and best play by
all four hands. That gives the card's value and the value of the best card
the player had; both are reported as tricks for the declaring side over the
whole hand (``docs/protocol.md``, "The review").

The solver is CPU-bound C code that releases the GIL, so it runs in a worker
thread and the event loop keeps serving the tables meanwhile.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Executor

from ..dealing import HAND_SIZE
from ..state import HandState
from .views import DDValues

_local = threading.local()


def available() -> bool:
    """Whether the compiled double-dummy solver can be loaded."""
    try:
        from ..solver import _core  # noqa: F401
    except ImportError:
        return False
    return True


async def run(state: HandState, executor: Executor) -> DDValues | None:
    """The values of every card played in ``state``, computed in ``executor``;
    ``None`` without a solver (a passed-out hand has no cards: an empty list)."""
    if not available():
        return None
    return await asyncio.get_running_loop().run_in_executor(executor, card_values, state)


def card_values(state: HandState) -> list[tuple[int, int]]:
    """Per card played, in order: (declaring side's tricks after it, the same
    after the player's best card), with double-dummy play from there on."""
    contract = state.contract
    if contract is None:
        return []
    solver = _solver()
    trump = -1 if contract.trump is None else int(contract.trump)
    replay = HandState(state.deal, state.dealer, state.options)
    for event in state.calls:
        replay.call(event.call)
    out = []
    for event in state.plays:
        _, values = solver.values(_holdings(replay), trump, int(replay.leader),
                                  tuple(card.index for _, card in replay.current_trick))
        # The solver counts tricks for the side to move, from the trick in progress on.
        ours = replay.turn.side is contract.side
        won = replay.tricks_won[contract.side]
        left = HAND_SIZE - len(replay.tricks)
        played, best = values[event.card.index], max(values.values())
        out.append(tuple(won + (v if ours else left - v) for v in (played, best)))
        replay.play(event.card)
    return out


def _holdings(state: HandState) -> bytes:
    # The solver's position: copies of each card index in each hand, hand-major.
    counts = bytearray(120)
    for seat in range(4):
        for card in state.remaining(seat):  # type: ignore[arg-type]
            counts[seat * 30 + card.index] += 1
    return bytes(counts)


def _solver():
    # A Solver holds a transposition table and must not be shared between threads.
    solver = getattr(_local, "solver", None)
    if solver is None:
        from ..solver._core import Solver
        solver = _local.solver = Solver()
    return solver
