"""Stopping a search: Ctrl-C on the main thread, DoubleDummy.cancel() from another.

The compiled search looked at no signal and could not be stopped: a call ran to its end
(a DD table in a small transposition table, over a minute) before Ctrl-C was taken, and a
table shared by two threads, or a batch, ran on after the caller had gone. Each test
compares the trick nodes a stopped search visited with those of the same search run to
its end (deterministic on one thread): a search that was not stopped visits them all.
"""

from __future__ import annotations

import signal
import threading
import time

import pytest

from flowerbridge import Deal
from flowerbridge.solver import FLOWER, DoubleDummy, SearchCancelled, core, dd_tables, iter_dd_tables

MEMORY_MB = 16       # small enough that this deal's table takes a second or two on one thread


def hands(board: int) -> list[list[int]]:
    return [[card.index for card in hand] for hand in Deal.from_seed(2, board).hands]


@pytest.fixture(scope="module")
def whole():
    """The DD table of board 3 and the trick nodes its search visits, run to its end."""
    solver = DoubleDummy(FLOWER, MEMORY_MB)
    table = solver.dd_table(hands(3))
    return table, solver.stats["trick_nodes"]


@pytest.fixture
def ctrl_c_at():
    """``ctrl_c_at(seconds)``: SIGINT to the main thread then, as a terminal's Ctrl-C, with
    Python's own handler (KeyboardInterrupt) in place."""
    timers = []
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)

    def arm(seconds: float) -> None:
        timer = threading.Timer(seconds, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
        timers.append(timer)
        timer.start()

    yield arm
    for timer in timers:
        timer.cancel()
        timer.join()
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_stops_a_search_on_the_main_thread(whole, ctrl_c_at):
    solver = DoubleDummy(FLOWER, MEMORY_MB)
    ctrl_c_at(0.2)
    with pytest.raises(KeyboardInterrupt):
        solver.dd_table(hands(3))
    assert 0 < solver.stats["trick_nodes"] < whole[1] / 2
    # and it serves the next call, with what it proved before kept and sound
    assert solver.dd_table(hands(3)) == whole[0]


def test_cancel_stops_a_search_on_another_thread_and_the_solver_serves_the_next_call(whole):
    solver = DoubleDummy(FLOWER, MEMORY_MB)
    outcome: dict[str, object] = {}

    def search() -> None:
        try:
            outcome["table"] = solver.dd_table(hands(3))
        except SearchCancelled as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=search)
    thread.start()
    time.sleep(0.2)
    while thread.is_alive():        # (again until it stops: it may not have begun at the first)
        solver.cancel()
        thread.join(0.02)
    assert "table" not in outcome and isinstance(outcome["error"], SearchCancelled)
    assert 0 < solver.stats["trick_nodes"] < whole[1] / 2
    assert solver.dd_table(hands(3)) == whole[0]


def test_cancel_when_not_searching_changes_nothing(whole):
    solver = DoubleDummy(FLOWER, MEMORY_MB)
    solver.cancel()
    assert solver.dd_table(hands(3)) == whole[0]
    assert solver.stats["trick_nodes"] == whole[1]


def test_ctrl_c_stops_both_threads_of_a_shared_table(whole, ctrl_c_at, monkeypatch):
    # the caller waits while two threads search one table: both stop, not only the caller
    monkeypatch.setattr(core, "_idle", {})      # a team made for this test
    ctrl_c_at(0.2)
    with pytest.raises(KeyboardInterrupt):
        dd_tables([hands(3)], workers=2, memory_mb=MEMORY_MB)
    [team] = core._idle[(FLOWER, MEMORY_MB, 2)]     # given back once the threads are done
    searched = sum(solver.stats["trick_nodes"] for solver in team)
    # (two threads on one table visit about as many trick nodes as one thread)
    assert 0 < searched < whole[1] / 2
    assert dd_tables([hands(3)], workers=2, memory_mb=MEMORY_MB) == [whole[0]]


def test_closing_a_batch_early_stops_the_tables_being_searched(whole, monkeypatch):
    made: list[DoubleDummy] = []
    worker_solver = core._worker_solver

    def recorded(geometry, memory_mb):
        solver = worker_solver(geometry, memory_mb)
        made.append(solver)
        return solver

    monkeypatch.setattr(core, "_worker_solver", recorded)
    tables = iter_dd_tables([hands(6), hands(3), hands(3), hands(3)], workers=2, memory_mb=2 * MEMORY_MB)
    first = next(tables)        # board 6's table is quick; the other thread is then in board 3's
    time.sleep(0.2)
    tables.close()
    assert first == DoubleDummy(FLOWER, MEMORY_MB).dd_table(hands(6))
    # each thread's solver is made afresh: its counts are its deals'; none ran board 3 to its end
    counts = sorted({id(solver): solver.stats["trick_nodes"] for solver in made}.values())
    assert len(counts) == 2 and counts[-1] < whole[1] / 2
