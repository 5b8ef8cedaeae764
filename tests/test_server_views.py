"""Hidden cards stay hidden (issue #5, item 5; RULINGS R6, R10), for every deal:
each message the server renders — live events, replayed missed events and
snapshots, for each seat and for spectators — shows a role only what it may
see, and a seat's view is exactly the engine's observation."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from flowerbridge import Deal, RuleOptions, Seat
from flowerbridge.cards import Card
from flowerbridge.records import to_dict as hand_record
from flowerbridge.server.limits import MAX_CATCH_UP_EVENTS
from flowerbridge.server.table import HUMAN, SeatPlayer, Table
from flowerbridge.server.testing import assert_nothing_hidden

ROLES = (*Seat, None)


def new_table(seed: int, hands: int) -> Table:
    """A table of four people whose first deal is ``Deal.from_seed(seed)``."""
    players = {seat: SeatPlayer(HUMAN, token_hash=f"{seat.name}-hash") for seat in Seat}
    table, seats, events = Table.new_rows(None, RuleOptions(), hands, None, players, "random")
    events[0].detail = Deal.from_seed(seed).to_dict()
    return Table(table, seats, events)


def record_of(table: Table, hand: int) -> dict:
    state = table.finished_state(hand) if table.is_finished(hand) else table.state
    return hand_record(state)


def check(table: Table, messages_by_role) -> int:
    checked = 0
    for role, messages in messages_by_role:
        for message in messages:
            assert_nothing_hidden(message, None if role is None else role.name,
                                  record_of(table, message["hand"]))
            checked += 1
    return checked


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), pass_rate=st.sampled_from([0.4, 0.7, 0.9]))
def test_every_message_shows_each_role_only_what_it_may_see(seed, pass_rate):
    table = new_table(seed, hands=1)
    rng = random.Random(seed)
    hand_start = 0
    while not table.is_over:
        seat = table.actor
        legal = table.state.legal_actions()
        if table.state.phase.value == "auction" and len(legal) > 1 and rng.random() < pass_rate:
            action = legal[0]
        else:
            action = rng.choice(legal[:8] if table.state.phase.value == "auction" else legal)
        rows = table.act(seat, "play" if isinstance(action, Card) else "call", str(action))
        check(table, [(role, table.live_messages(rows, role)) for role in ROLES])
        if rows[-1].kind == "deal":
            hand_start = rows[-1].seq - 1
        if rng.random() < 0.1:  # someone reconnects: a snapshot, or the events missed
            # (more than MAX_CATCH_UP_EVENTS missed are a snapshot too)
            earliest = max(hand_start, table.seq - MAX_CATCH_UP_EVENTS)
            role, since = rng.choice(ROLES), rng.randrange(earliest, table.seq + 1)
            check(table, [(role, [table.snapshot(role, {})]), (role, table.missed_messages(since, role))])
