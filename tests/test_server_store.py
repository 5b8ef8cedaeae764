"""The server's database (docs/server.md, "Storage"): what a user names is the
file or server used, a migration that fails changes nothing, and what is read
back is what was stored."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import timezone

import pytest
from sqlalchemy import text

from flowerbridge.server.config import ServerConfig
from flowerbridge.server.manager import TableManager
from flowerbridge.server.schemas import CreateTable
from flowerbridge.server.store import Store, StoreError, shown_url
from flowerbridge.server.testing import database_for_tests

FOUR_BOTS = {"seats": {s: {"player": "bot", "level": "random"} for s in "NESW"}}


def _tables(path) -> set[str]:
    with sqlite3.connect(path) as connection:
        return {name for (name,) in connection.execute("SELECT name FROM sqlite_master "
                                                        "WHERE type = 'table'")}


def test_a_first_migration_that_fails_leaves_the_sqlite_file_as_it_was(tmp_path):
    # another program's file with a table of one of our names: the migration
    # fails at that table, and the tables made before it are not left behind
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE events (x INTEGER)")
    with pytest.raises(StoreError, match="cannot migrate the database: table events already exists"):
        Store(str(path)).migrate()
    assert _tables(path) == {"events"}
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TABLE events")
    Store(str(path)).migrate()      # the file is usable: nothing half-made is in the way
    assert {"tables", "seats", "events", "analyses", "alembic_version"} <= _tables(path)


def test_a_database_at_a_revision_this_flowerbridge_does_not_know_is_one_clear_error(tmp_path):
    path = tmp_path / "newer.db"
    store = Store(str(path))
    store.migrate()
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(StoreError, match="Can't locate revision identified by '9999'.*newer flowerbridge"):
        Store(str(path)).migrate()


def test_a_sqlite_path_with_a_question_mark_is_that_file(tmp_path):
    # the path is a file's name, not a URL whose options start at "?"
    store = Store(str(tmp_path / "a?b.db"))
    store.migrate()
    assert (tmp_path / "a?b.db").is_file() and not (tmp_path / "a").exists()


def test_a_password_among_a_urls_options_is_masked_when_shown():
    shown = shown_url("postgresql://fb@db/flowerbridge?PASSWORD=secret&sslpassword=key&sslmode=require")
    assert "secret" not in shown and "key" not in shown and shown.endswith("sslmode=require")


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_tables_creation_time_reads_back_the_same_in_utc(kind, tmp_path):
    # docs/protocol.md: times are UTC; a PostgreSQL session in another zone
    # hands back the same instant in its own zone, which must not show
    database = database_for_tests(kind, tmp_path)
    if database is None:
        pytest.skip("FLOWERBRIDGE_TEST_POSTGRES is not set")
    if kind == "postgres":
        database += ("&" if "?" in database else "?") + "options=-ctimezone%3DAmerica/New_York"

    async def scenario() -> None:
        store = Store(database)
        store.migrate()
        manager = TableManager(store, ServerConfig(bot_delay=0, replace_after=None, analysis=False))
        live, _ = await manager.create(CreateTable.model_validate(FOUR_BOTS))
        created = live.info()["created"]
        await manager.stop()
        again = TableManager(Store(database), ServerConfig(bot_delay=0, replace_after=None,
                                                           analysis=False))
        reloaded = await again.get(live.table.id)
        assert reloaded.info()["created"] == created
        assert reloaded.table.created.tzinfo is timezone.utc
        await again.stop()

    asyncio.run(scenario())
