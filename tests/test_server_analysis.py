"""The review's double-dummy values (issue #5, item 3): what each card was worth,
computed by the solver after the hand, sent to the table, and kept across restarts."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flowerbridge import Deal, HandState, Seat
from flowerbridge.server import analysis
from flowerbridge.server.config import ServerConfig
from flowerbridge.server.testing import ServerThread, play_session

pytestmark = pytest.mark.skipif(not analysis.available(), reason="the solver is not built")
if analysis.available():
    # (imported with this module: imported inside the test below, its @given tests tripped
    # hypothesis's check for a test nested in another, where this file ran alone)
    from test_solver_flower import _ns_tricks, brute_force_values


def finished_hand(seed: int) -> HandState:
    """A hand played to the end by random legal cards, in a contract by North."""
    rng = random.Random(seed)
    state = HandState(Deal.from_seed("review", seed), Seat.N)
    for call in (rng.choice(["1P", "1R", "1A", "1NT", "2A", "3NT"]), "Pass", "Pass", "Pass"):
        state.call(call)
    while not state.is_over:
        state.play(rng.choice(state.legal_cards()))
    return state


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10 ** 6))
def test_dd_values_of_the_last_tricks_agree_with_the_result(seed):
    state = finished_hand(seed)
    first = 40  # the last three tricks: quick to solve, and every card still counts
    values = analysis.played_values(state, first)
    assert len(values) == 52 - first
    declarer_side = state.contract.side
    # After the last card nothing is left to choose: its value is the result.
    assert values[-1][0] == state.tricks_won[declarer_side]
    for event, (dd, best) in zip(state.plays[first:], values, strict=True):
        assert 0 <= dd <= 13 and 0 <= best <= 13
        if event.seat.side is declarer_side:  # the dummy's cards are declarer's choice
            assert dd <= best
        else:
            assert dd >= best


def test_dd_values_are_solved_in_a_table_of_64_mb_and_agree_with_the_default_256(monkeypatch):
    # the server's memory jumped by the solver's default table (256 MB) during analyses
    # (a soak review): its table is 64 MB, and its values are the same
    import flowerbridge.solver as solver

    state = finished_hand(3)
    made = []

    def recorded(memory_mb=solver.DEFAULT_MEMORY_MB):
        made.append(memory_mb)
        return real(memory_mb=memory_mb)

    real = solver.DoubleDummy
    monkeypatch.setattr(solver, "DoubleDummy", recorded)
    bounded = analysis.played_values(state, 20)
    assert made == [analysis.ANALYSIS_MEMORY_MB] == [64]
    monkeypatch.setattr(analysis, "ANALYSIS_MEMORY_MB", solver.DEFAULT_MEMORY_MB)
    assert analysis.played_values(state, 20) == bounded and made[-1] == 256


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10 ** 6))
def test_dd_values_of_the_last_tricks_are_the_brute_force_minimax_values(seed):
    # each card's value and the best card's, against a plain minimax over every
    # legal card (tests/test_solver_flower.py) at the position before the card
    state = finished_hand(seed)
    first = 40
    values = analysis.played_values(state, first)
    side = state.contract.side
    replay = HandState(state.deal, state.dealer, state.options)
    for event in state.calls:
        replay.call(event.call)
    for event in state.plays[:first]:
        replay.play(event.card)
    for event, (dd, best) in zip(state.plays[first:], values, strict=True):
        trick = [card.index for _, card in replay.current_trick]
        leader = replay.current_trick[0][0] if trick else replay.to_play
        trump = replay.contract.denomination.trump
        exact = brute_force_values([[c.index for c in replay.remaining(seat)] for seat in Seat],
                                   None if trump is None else int(trump), int(leader), trick)
        _ns_tricks.cache_clear()
        ours = replay.to_play.side is side        # values are for the side to play
        left = 13 - len(replay.tricks)
        to_declarer = {card: v if ours else left - v for card, v in exact.items()}
        won = replay.tricks_won[side]
        assert dd == won + to_declarer[event.card.index]
        assert best == won + (max if ours else min)(to_declarer.values())
        replay.play(event.card)


def _config(tmp_path) -> ServerConfig:
    return ServerConfig(database=str(tmp_path / "t.db"), bot_delay=0, replace_after=None)


def _south_bidding(server, hands: int = 1):
    """A table of South and three random bots, South connected and opening the bidding."""
    created = server.create_table({"N": "random", "E": "random", "S": "human", "W": "random"},
                                  hands=hands)
    table_id = created["table"]["id"]
    south = server.client(table_id, created["invitations"]["S"]["token"])
    south.open_bidding()
    return created, table_id, south


def test_values_reach_the_table_and_survive_a_restart(tmp_path, monkeypatch):
    calls = []

    def quick_values(state, first=0):  # the real solver takes minutes on a whole hand
        calls.append(state)
        return [(len(state.plays), len(state.plays)) for _ in state.plays]

    monkeypatch.setattr(analysis, "played_values", quick_values)
    config = _config(tmp_path)
    with ServerThread(config) as server:
        created, table_id, south = _south_bidding(server)
        play_session([south], random.Random(1))
        review = south.first(lambda m: m["type"] == "review")["review"]
        assert review["dd_status"] == "ready"
        cards = [p for trick in review["tricks"] for p in trick["plays"]]
        assert len(cards) == 52 and all(p["dd"] == p["best"] == 52 for p in cards)
        south.close()
    solved = len(calls)
    with ServerThread(config) as server:
        again = server.api("GET", f"/api/tables/{table_id}/hands/1").json()
        assert again["dd_status"] == "ready" and again["tricks"] == review["tricks"]
    assert len(calls) == solved  # read back from the database, not solved again


def test_a_failing_analysis_leaves_the_review_unavailable_and_the_table_playing(tmp_path, monkeypatch,
                                                                                 caplog):
    def broken_values(state, first=0):
        raise RuntimeError("solver failure for the test")

    monkeypatch.setattr(analysis, "played_values", broken_values)
    with ServerThread(_config(tmp_path)) as server:
        created, table_id, south = _south_bidding(server, hands=2)
        play_session([south], random.Random(1))
        # The last hand's review may follow the session's end: wait for it.
        south.first(lambda m: m["type"] == "review" and m["review"]["hand"] == 2)
        reviews = [m["review"] for m in south.messages if m["type"] == "review"]
        assert reviews and all(r["dd_status"] == "unavailable" for r in reviews)
        assert {r["hand"] for r in reviews} == {1, 2}  # the session went on to its end
        assert all(p["dd"] is None for r in reviews for t in r["tricks"] for p in t["plays"])
        south.close()
    assert "double-dummy analysis failed" in caplog.text


def test_a_client_away_when_the_values_came_gets_the_review_on_reconnecting(tmp_path, monkeypatch):
    """docs/protocol.md, "Reconnecting": catching up with ``since`` ends with the
    last finished hand's review when its values came while the client was away
    (its hand_over had said ``pending``)."""
    import threading

    release = threading.Event()

    def slow_values(state, first=0):
        release.wait(30)
        return [(1, 1) for _ in state.plays]

    monkeypatch.setattr(analysis, "played_values", slow_values)
    with ServerThread(_config(tmp_path)) as server:
        created, table_id, south = _south_bidding(server, hands=2)
        play_session([south], random.Random(3), until=lambda: any(
            m["type"] == "deal" and m["hand"] == 2 for m in south.messages))
        over = south.first(lambda m: "hand_over" in m)["hand_over"]["review"]
        assert over["dd_status"] == "pending"
        south.close()
        since = max(m["seq"] for m in south.messages if "seq" in m)
        release.set()
        live = server.app.state.manager.tables[table_id]
        deadline = time.monotonic() + 20
        while live.table.hands[0].dd_status != "ready" and time.monotonic() < deadline:
            time.sleep(0.02)
        back = server.client(table_id, created["invitations"]["S"]["token"], since=since)
        review = back.until(lambda m: m["type"] == "review")
        assert review["hand"] == 1 and review["review"]["dd_status"] == "ready"
        assert not any(m["type"] == "snapshot" for m in back.messages)
        back.close()


def test_an_analysis_that_ends_after_its_wait_was_cancelled_is_dropped_without_an_error(monkeypatch):
    # TableManager.stop cancels the analysis task; the worker thread's result comes later
    # and is for nobody: no "Exception in callback" with an InvalidStateError in the log
    import asyncio
    import threading
    solved = threading.Event()

    def slow_values(state):
        time.sleep(0.2)
        solved.set()
        return []

    monkeypatch.setattr(analysis, "played_values", slow_values)
    errors = []

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda loop, context: errors.append(context))
        task = asyncio.create_task(analysis.run(None))
        await asyncio.sleep(0.05)
        task.cancel()
        # the worker ends after the cancellation, however slow the machine, and its
        # result reaches this loop, still running
        assert await loop.run_in_executor(None, solved.wait, 30)
        await asyncio.sleep(0.2)
        assert task.cancelled()

    asyncio.run(scenario())
    assert errors == []
