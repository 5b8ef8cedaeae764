"""Double-dummy values for the review of a finished hand, computed off the event loop.

For each card played, the solver is asked, at the position just before it,
how many tricks the side to play takes with each legal card and best play by
all four hands. That gives the card's value and the value of the best card
the player had; both are reported as tricks for the declaring side over the
whole hand (``docs/protocol.md``, "The review").

The solver is CPU-bound C code that releases the GIL, so it runs in a worker
thread and the event loop keeps serving the tables meanwhile. It takes well
under a second for most hands, a few seconds for some, mostly on the first
tricks; the thread is a
daemon, so stopping the server never waits for an analysis to finish.
"""

from __future__ import annotations

import asyncio
import threading
from typing import cast

from ..dealing import HAND_SIZE
from ..state import HandState
from .views import DDValues

ANALYSIS_MEMORY_MB = 64
"""The transposition table of one analysis (the solver's default is 256 MB): it caps
what an analysis may add to the server's memory, one hand being analysed at a time
(pimc bots' solvers are apart: 32 MB each). Most hands touch far less of either; a
hand's values came the same and no slower with 64 MB (a soak review saw the server's
memory jump by 66 MB during analyses)."""


def available() -> bool:
    """Whether the double-dummy solver (its compiled core included) can be loaded."""
    try:
        from ..solver import DoubleDummy, card_values  # noqa: F401
    except ImportError:
        return False
    return True


async def run(state: HandState) -> DDValues | None:
    """The values of every card played in ``state``, computed in a worker thread;
    ``None`` without a solver (a passed-out hand has no cards: an empty list)."""
    if not available():
        return None
    loop = asyncio.get_running_loop()
    done: asyncio.Future[DDValues] = loop.create_future()

    def settle(result: DDValues | None, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(cast(DDValues, result))  # given whenever error is None

    def work() -> None:
        try:
            result, error = played_values(state), None
        except Exception as exc:  # handed to the awaiting coroutine
            result, error = None, exc
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:  # the server stopped meanwhile: nobody is waiting
            pass

    threading.Thread(target=work, name="flowerbridge-dd", daemon=True).start()
    return await done


def played_values(state: HandState, first: int = 0) -> list[tuple[int, int]]:
    """Per card played from the ``first``-th on (0-based): the declaring
    side's tricks in the hand after it, and after the player's best card,
    with double-dummy play from there on."""
    from ..solver import DoubleDummy, card_values

    contract = state.contract
    if contract is None:
        return []
    replay = HandState(state.deal, state.dealer, state.options)
    for event in state.calls:
        replay.call(event.call)
    for played in state.plays[:first]:
        replay.play(played.card)
    solver = DoubleDummy(memory_mb=ANALYSIS_MEMORY_MB)  # its own table: one analysis per thread
    out: list[tuple[int, int]] = []
    for played in state.plays[first:]:
        values = card_values(replay, solver)
        # The solver counts tricks for the side to play, from the trick in progress on.
        assert replay.turn is not None
        ours = replay.turn.side is contract.side
        won = replay.tricks_won[contract.side]
        left = HAND_SIZE - len(replay.tricks)
        value, best = values[played.card], max(values.values())
        out.append((won + (value if ours else left - value), won + (best if ours else left - best)))
        replay.play(played.card)
    return out

