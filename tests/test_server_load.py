"""What a server with many tables costs, and who waits for whom: the
findings of a load review (docs/server.md, "Memory" and "Work off the
event loop")."""

from __future__ import annotations

import asyncio
import gc
import random
import weakref

from flowerbridge.options import RuleOptions
from flowerbridge.seats import SEATS
from flowerbridge.server.config import ServerConfig
from flowerbridge.server.manager import TableManager
from flowerbridge.server.models import EventRow
from flowerbridge.server.schemas import CreateTable
from flowerbridge.server.store import Store
from flowerbridge.server.table import BOT, Event, SeatPlayer, Table

FOUR_BOTS = {"seats": {s: {"player": "bot", "level": "random"} for s in "NESW"},
             "length": {"hands": 2}}


def _played_table(hands: int = 2, seed: int = 1) -> Table:
    rng = random.Random(seed)
    players = {s: SeatPlayer(BOT, "random") for s in SEATS}
    table = Table(*Table.new_rows(None, RuleOptions(), hands, None, players, "random"))
    while not table.is_over:
        action = rng.choice(table.state.legal_actions())  # type: ignore[union-attr]
        kind = "play" if hasattr(action, "suit") else "call"
        table.act(table.actor, kind, str(action))  # type: ignore[arg-type]
    return table


def test_a_table_keeps_its_events_as_records_not_database_rows():
    """A SQLAlchemy row held per event made every table ~1 MB and ~2,000
    objects to walk in each full collection: the log in memory is of
    immutable records, rows made only where it meets the database."""
    table = _played_table()
    events = [e for log in table.hands for e in log.events]
    assert len(events) > 100 and all(type(e) is Event for e in events)
    # loaded from stored rows, the table keeps none of them
    rows = [e.row(table.id) for e in events]
    assert all(isinstance(r, EventRow) for r in rows)
    refs = [weakref.ref(r) for r in rows]
    again = Table(table.row, [], rows)
    del rows
    gc.collect()
    assert not any(ref() is not None for ref in refs)
    assert [tuple(e) for log in again.hands for e in log.events] == [tuple(e) for e in events]
    assert again.session.scoresheet() == table.session.scoresheet()


def test_start_up_moves_the_loaded_tables_out_of_the_collectors_reach(tmp_path):
    async def scenario() -> int:
        store = Store(str(tmp_path / "fb.sqlite"))
        store.migrate()
        config = ServerConfig(bot_delay=0, replace_after=None, analysis=False)
        first = TableManager(store, config)
        live, _ = await first.create(CreateTable.model_validate(FOUR_BOTS))
        await first.stop()
        again = TableManager(Store(str(tmp_path / "fb.sqlite")), config)
        await again.start()
        assert live.table.id in again.tables
        await again.stop()
        return gc.get_freeze_count()

    gc.unfreeze()
    try:
        assert asyncio.run(scenario()) > 0
    finally:
        gc.unfreeze()
