"""Hidden cards stay hidden (issue #5, item 5; RULINGS R6, R10), for every deal:
each message the server renders — live events, replayed missed events and
snapshots, for each seat and for spectators, and the reviews of the hands over
in them — shows a role only what it may see, and a seat's view is exactly the
engine's observation."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flowerbridge import Deal, RuleOptions, Seat
from flowerbridge.cards import Card
from flowerbridge.records import to_dict as hand_record
from flowerbridge.server.limits import MAX_CATCH_UP_EVENTS
from flowerbridge.server.table import HUMAN, SeatPlayer, Table
from flowerbridge.server.testing import assert_nothing_hidden, visible_cards

ROLES = (*Seat, None)
HANDS = 2


def new_table(seed: int, hands: int) -> Table:
    """A table of four people whose first deal is ``Deal.from_seed(seed)``."""
    players = {seat: SeatPlayer(HUMAN, token_hash=f"{seat.name}-hash") for seat in Seat}
    table, seats, events = Table.new_rows(None, RuleOptions(), hands, None, players, "random")
    events[0].detail = Deal.from_seed(seed).to_dict()
    return Table(table, seats, events)


def record_of(table: Table, hand: int) -> dict:
    state = table.finished_state(hand) if table.is_finished(hand) else table.state
    return hand_record(state)


def check(table: Table, messages_by_role, seen: Counter) -> None:
    """Check each message, as sent now; ``seen`` counts them by type."""
    records = {hand: record_of(table, hand) for hand in range(1, table.hand_number + 1)}
    finished = len(table.session.hands)
    for role, messages in messages_by_role:
        for message in messages:
            assert_nothing_hidden(message, None if role is None else role.name, records, finished)
            for part in ("hand_over", "last_review"):
                seen[part] += bool(message.get(part))
            seen[message["type"]] += 1


def reconnect(table: Table, rng: random.Random, hand_start: int, seen: Counter) -> None:
    """Someone comes back: a snapshot, or the events missed (and the last review
    again) -- a snapshot instead when they reach back before the current hand's
    deal or are more than MAX_CATCH_UP_EVENTS."""
    role = rng.choice(ROLES)
    since = rng.randrange(max(0, table.seq - MAX_CATCH_UP_EVENTS - 3), table.seq + 1)
    missed = table.missed_messages(since, role)
    assert (missed is None) == (since < hand_start or table.seq - since > MAX_CATCH_UP_EVENTS)
    check(table, [(role, [table.snapshot(role, {})]), (role, missed or [])], seen)
    seen["catch-up" if missed is not None else "snapshot instead"] += 1


def announce(table: Table, hand: int, seen: Counter) -> None:
    """The hand's double-dummy values are known (none here): its review again, to all."""
    table.set_analysis(hand, None, announced=True)
    check(table, [(role, [table.review_message(hand)]) for role in ROLES], seen)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), pass_rate=st.sampled_from([0.4, 0.7, 0.9]))
def test_every_message_shows_each_role_only_what_it_may_see(seed, pass_rate):
    table = new_table(seed, hands=HANDS)
    rng = random.Random(seed)
    seen: Counter = Counter()
    hand_start = 0      # the seq before the current hand's deal
    to_announce: list[int] = []     # hands over whose values are still to come
    while not table.is_over:
        seat = table.actor
        legal = table.state.legal_actions()
        if table.state.phase.value == "auction" and len(legal) > 1 and rng.random() < pass_rate:
            action = legal[0]
        else:
            action = rng.choice(legal[:8] if table.state.phase.value == "auction" else legal)
        rows = table.act(seat, "play" if isinstance(action, Card) else "call", str(action))
        check(table, [(role, table.live_messages(rows, role)) for role in ROLES], seen)
        if rows[-1].kind == "deal":
            hand_start = rows[-1].seq - 1
            to_announce.append(rows[0].hand)
        if to_announce and rng.random() < 0.3:  # its values come, a few actions later or sooner
            announce(table, to_announce.pop(), seen)
        if rng.random() < 0.1:
            reconnect(table, rng, hand_start, seen)
    # the session is over: people come back, before the last hand's values and after
    for _ in range(3):
        reconnect(table, rng, hand_start, seen)
    announce(table, HANDS, seen)
    for role in ROLES:     # up to date: only the review that came since
        missed = table.missed_messages(table.seq, role)
        assert [m["type"] for m in missed or []] == ["review"]
        check(table, [(role, missed)], seen)
    # every kind of message was checked: the later hands' deals, each hand's end,
    # the snapshots' last review, and the reviews
    assert seen["deal"] >= len(ROLES) * (HANDS - 1) and seen["hand_over"] >= len(ROLES) * HANDS
    assert seen["last_review"] >= 3 and seen["review"] >= len(ROLES) * 2


def test_the_check_counts_copies_and_reads_reviews():
    # Every card exists twice: a view that shows one of the dummy's cards twice,
    # where that card's other copy is in a hidden hand, shows a hidden card
    # though its code is in sight.
    table = new_table(3, hands=2)
    table.act(table.actor, "call", str(table.state.legal_actions()[1]))     # the cheapest bid
    while table.state.phase.value == "auction":
        table.act(table.actor, "call", "Pass")
    table.act(table.actor, "play", str(table.state.legal_actions()[0]))     # the opening lead
    snapshot = table.snapshot(None, {})
    records = {1: record_of(table, 1)}
    assert_nothing_hidden(snapshot, None, records, 0)
    allowed = visible_cards(records[1], None, snapshot["view"])
    once = [code for code in snapshot["view"]["dummy"] if allowed[code] == 1]
    assert once
    leaked = copy.deepcopy(snapshot)
    leaked["view"]["dummy"].append(once[0])
    with pytest.raises(AssertionError, match=f"shown {once[0]} 2x"):
        assert_nothing_hidden(leaked, None, records, 0)
    # A review is of a hand over, shows that hand's cards as they were, and nothing more.
    while not table.is_finished(1):
        table.act(table.actor, "play", str(table.state.legal_actions()[0]))
    snapshot = table.snapshot(None, {})
    records = {1: record_of(table, 1), 2: record_of(table, 2)}
    assert_nothing_hidden(snapshot, None, records, 1)
    for wrong in (lambda review: review.update(undealt=records[2]["undealt"]),
                  lambda review: review.update(hand=2),
                  lambda review: review.update(next=records[2]["hands"])):
        leaked = copy.deepcopy(snapshot)
        wrong(leaked["last_review"])
        with pytest.raises(AssertionError):
            assert_nothing_hidden(leaked, None, records, 1)


def test_a_bots_thinking_is_inside_its_delay_so_its_timing_tells_nothing_of_its_hand(tmp_path, monkeypatch):
    # A bot's card came --bot-delay after the last action *plus* the time it thought, and
    # pimc answers at once with a single legal card and takes longer the more it has to
    # choose from: its timing told the table about its hand. Now it thinks within the delay.
    import asyncio
    import time

    from flowerbridge.server import manager as manager_module
    from flowerbridge.server.config import ServerConfig
    from flowerbridge.server.manager import Connection, TableManager
    from flowerbridge.server.schemas import CreateTable
    from flowerbridge.server.store import Store

    delay, thinking = 1.0, 0.3      # (a wait is seen unless the bot's round trip stalls 0.6 s)
    real_choose = manager_module.choose

    def thoughtful(bot, observation):
        time.sleep(thinking)
        return real_choose(bot, observation)
    monkeypatch.setattr(manager_module, "choose", thoughtful)
    slept: list[float] = []
    real_sleep = asyncio.sleep

    async def recorded(seconds, *args, **kwargs):
        slept.append(seconds)
        return await real_sleep(seconds, *args, **kwargs)
    monkeypatch.setattr(asyncio, "sleep", recorded)

    async def scenario() -> None:
        store = Store(str(tmp_path / "fb.sqlite"))
        store.migrate()
        manager = TableManager(store, ServerConfig(bot_delay=delay, replace_after=None, analysis=False))
        request = {"seats": {s: {"player": "bot", "level": "random"} for s in "NEW"} | {"S": {"player": "human"}}}
        live, tokens = await manager.create(CreateTable.model_validate(request))
        await manager.join(Connection(), live.table.id, tokens[Seat.S], None)
        deadline = time.monotonic() + 20
        while live.table.seq < 2:       # N (the dealer) and then E have called
            assert time.monotonic() < deadline
            await real_sleep(0.05)
        await manager.stop()
        store.close()

    asyncio.run(scenario())
    waits = [s for s in slept if s > 0.06]      # (the test's own polls are 0.05)
    assert waits and all(s <= delay - thinking + 0.05 for s in waits), waits


def test_review_gives_each_card_its_own_values_each_trick_its_winner_and_the_contracts_dummy():
    # docs/protocol.md, "The review": per card, dd (declarer's side's tricks after it) and
    # best (after the player's best card); the winner of each trick leads the next
    from flowerbridge import HandState
    from flowerbridge.server.views import review
    rng = random.Random(3)
    state = HandState(Deal.from_seed("review", 3), Seat.N)
    for call in ("1NT", "Pass", "Pass", "Pass"):
        state.call(call)
    while not state.is_over:
        state.play(rng.choice(state.legal_cards()))
    values = [(i % 7, i % 7 + (i % 3)) for i in range(52)]
    r = review(state, 1, [None] * 4, values, "ready")
    plays = [p for t in r["tricks"] for p in t["plays"]]
    assert [(p["dd"], p["best"]) for p in plays] == values
    assert [t["winner"] for t in r["tricks"][:-1]] == [t["leader"] for t in r["tricks"][1:]]
    assert r["tricks"][0]["leader"] == "E" and r["contract"] == {"bid": "1NT", "declarer": "N", "dummy": "S"}
    assert sum(t["winner"] in "NS" for t in r["tricks"]) == r["score"]["tricks"]["NS"]


def test_server_bots_are_seeded_by_the_seed_they_are_given():
    # a table's bots and hints are seeded by the table, the seat (and for hints seq):
    # the same seed makes the same choices, other seeds other ones
    from flowerbridge import HandState
    from flowerbridge.bots.base import decide
    from flowerbridge.server.botplay import new_bot
    state = HandState(Deal.from_seed("b6", 1), Seat.N)
    for call in ("1NT", "Pass", "Pass", "Pass"):
        state.call(call)
    observation = state.observation(Seat.E)         # East's opening lead: 13 cards to choose from

    def leads(seed: str) -> list[str]:
        bot = new_bot("random", seed)
        return [str(decide(bot, observation).action) for _ in range(5)]
    assert leads("table1:E") == leads("table1:E")
    assert len({tuple(leads(f"table{i}:E")) for i in range(20)}) > 5


def test_server_default_bot_is_basic_as_the_protocol_says():
    from flowerbridge.server.botplay import default_bot, is_slow
    assert default_bot() == "basic"
    assert is_slow("pimc") and not is_slow("basic") and not is_slow("random")


def _person_and_three_bots():
    """A server table of three hands: South a person, the others random bots."""
    from flowerbridge.options import RuleOptions
    from flowerbridge.server.table import BOT, HUMAN, SeatPlayer, Table
    players = {seat: SeatPlayer(BOT, "random") for seat in Seat}
    players[Seat.S] = SeatPlayer(HUMAN, token_hash="x")
    return Table(*Table.new_rows("t1", RuleOptions(), 3, None, players, "random"))


def _act(table, rng: random.Random, stand_in: bool = False):
    """The actor's random legal action, stored as made (by South's stand-in where asked)."""
    action = rng.choice(table.state.legal_actions())
    kind = "call" if table.state.phase.name == "AUCTION" else "play"
    text = getattr(action, "text", None) or action.code
    return table.act(table.actor, kind, text, stand_in=stand_in and table.actor is Seat.S)


def test_table_info_counts_the_hands_played_not_the_hand_in_play():
    # docs/protocol.md's example: "hand": 3, "hands_played": 2
    table, rng = _person_and_three_bots(), random.Random(1)
    while table.hand_number == 1:
        _act(table, rng)
    _act(table, rng)
    assert (table.info()["hand"], table.info()["hands_played"]) == (2, 1)


def test_stood_in_tells_only_the_stand_ins_own_actions_where_no_seq_was_stored():
    # a seat stood in for before the log kept the seq the stand-in came at: every action
    # marked as the stand-in's, and none of the person's own
    table, rng = _person_and_three_bots(), random.Random(2)
    while table.actor is not Seat.S:
        _act(table, rng)
    _act(table, rng)                                    # the person's own
    while table.actor is not Seat.S:
        _act(table, rng)
    [made] = _act(table, rng, stand_in=True)            # the stand-in's
    table.players[Seat.S].replaced, table.players[Seat.S].replaced_seq = True, None
    assert table.stood_in(Seat.S) == [{"hand": made.hand, "kind": made.kind, "action": made.action}]


def test_a_table_rebuilt_without_an_unstored_action_keeps_where_its_stand_in_came():
    # (a commit that fails rebuilds the table: its stand-in's seq lost told the person,
    # when back, what an earlier stand-in did as well)
    table, rng = _person_and_three_bots(), random.Random(3)
    for _ in range(3):
        _act(table, rng)
    table.players[Seat.S].replaced, table.players[Seat.S].replaced_seq = True, table.seq
    rows = _act(table, rng)
    assert table.without(rows).players[Seat.S].replaced_seq == table.seq - len(rows)


def test_a_table_waits_where_a_stand_in_is_to_act_and_nobody_attends():
    # docs/protocol.md, waiting: a bot (a seat's own, or a stand-in) is to act, the table unattended
    from flowerbridge.server.manager import LiveTable
    from flowerbridge.server.pubsub import MemoryBroker
    table, rng = _person_and_three_bots(), random.Random(4)
    while table.actor is not Seat.S:
        _act(table, rng)
    live = LiveTable(table, MemoryBroker())
    assert not live.waiting                  # the person is to act
    live.stand_ins.add(Seat.S)
    assert live.waiting


def test_stood_in_names_the_dummy_for_the_cards_a_declarers_stand_in_played_from_it():
    # (a server review: they read as the person's own cards; with twins, declarer and dummy
    # may hold a copy each of the same card, so the code alone cannot tell)
    table, rng = _person_and_three_bots(), random.Random(6)
    table.players[Seat.S].replaced, table.players[Seat.S].replaced_seq = True, table.seq
    while not (any("from" in a for a in table.stood_in(Seat.S))
               and any(a["kind"] == "play" and "from" not in a for a in table.stood_in(Seat.S))):
        _act(table, rng, stand_in=True)
        assert not table.is_over, "no hand of the session had South declare and play the dummy"
    told = table.stood_in(Seat.S)
    hand = next(a["hand"] for a in told if "from" in a)
    state = table._state_of(hand)
    dummy = state.contract.dummy
    assert state.contract.declarer is Seat.S
    # every card played from the dummy so far, and those alone, named as the dummy's
    assert [(a["action"], a["from"]) for a in told if a["hand"] == hand and "from" in a] == \
        [(p.card.code, dummy.name) for p in state.plays if p.seat is dummy]
