"""``flowerbridge prune`` (docs/server.md, "Removing old tables"): a server's old tables go
whole — seats, log and values with them — the others stay as they were, and nothing is
touched while a server holds the database."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import func, select, update

from flowerbridge.server.config import ServerConfig
from flowerbridge.server.manager import TableManager
from flowerbridge.server.models import AnalysisRow, CreationRow, EventRow, SeatRow, TableRow
from flowerbridge.server.repeats import Repeatable
from flowerbridge.server.schemas import CreateTable
from flowerbridge.server.store import Store
from flowerbridge.server.testing import ServerThread, database_for_tests

FOUR_BOTS = {"seats": {s: {"player": "bot", "level": "random"} for s in "NESW"}}
KINDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def _database(kind, tmp_path) -> str:
    database = database_for_tests(kind, tmp_path)
    if database is None:
        pytest.skip("FLOWERBRIDGE_TEST_POSTGRES is not set")
    return database


def _tables(database: str, ages: dict[str, tuple[str, int]]) -> dict[str, str]:
    """Tables made by a server, then aged: each name's table given that status and its log
    moved that many days into the past (and a double-dummy value stored for its hand 1).
    Each asked with a key of its own, so kept for a repeat (a ``creations`` row). Their ids
    by name."""
    async def make() -> list[str]:
        manager = TableManager(Store(database), ServerConfig(bot_delay=0, replace_after=None, analysis=False))
        manager.store.migrate()
        made = [(await manager.create(CreateTable.model_validate(FOUR_BOTS),
                                      Repeatable.of(None, f"prune-test-key-{name}", FOUR_BOTS)))[0].table.id
                for name in ages]
        await manager.stop()
        return made

    ids = dict(zip(ages, asyncio.run(make())))
    store = Store(database)
    with store.engine.begin() as connection:
        for name, (status, days) in ages.items():
            table_id = ids[name]
            connection.execute(update(TableRow).where(TableRow.id == table_id).values(status=status))
            connection.execute(update(EventRow).where(EventRow.table_id == table_id).values(
                created_at=datetime.now(timezone.utc) - timedelta(days=days)))
            connection.execute(AnalysisRow.__table__.insert().values(
                table_id=table_id, hand=1, values=[[0, 0]], created_at=datetime.now(timezone.utc)))
    store.close()
    return ids


def _rows(database: str, table_id: str) -> list[int]:
    """How many rows of each kind the database holds for a table: tables, seats, events, values,
    creations kept for a repeat."""
    store = Store(database)
    with store.engine.connect() as connection:
        counts = [connection.scalar(select(func.count()).select_from(row).where(column == table_id))
                  for row, column in ((TableRow, TableRow.id), (SeatRow, SeatRow.table_id),
                                      (EventRow, EventRow.table_id), (AnalysisRow, AnalysisRow.table_id),
                                      (CreationRow, CreationRow.table_id))]
    store.close()
    return counts


@pytest.mark.parametrize("kind", KINDS)
def test_prune_removes_whole_the_tables_over_and_last_played_before_the_cutoff(kind, tmp_path, cli):
    database = _database(kind, tmp_path)
    ids = _tables(database, {"old over": ("over", 100), "new over": ("over", 10),
                             "old playing": ("playing", 100)})
    kept = {name: _rows(database, table_id) for name, table_id in ids.items()}
    assert all(counts[:2] == [1, 4] and counts[2] >= 1 and counts[3:] == [1, 1] for counts in kept.values())

    # a dry run says what would go, and removes nothing
    status, out, err = cli("prune", "--older-than", "90", "--database", database, "--dry-run")
    assert (status, err) == (0, "")
    assert ": would remove " in out and " (finished or closed) last played before " in out
    assert {name: _rows(database, table_id) for name, table_id in ids.items()} == kept

    status, out, err = cli("prune", "--older-than", "90", "--database", database)
    assert (status, err) == (0, "") and ": removed " in out
    assert _rows(database, ids["old over"]) == [0, 0, 0, 0, 0]
    assert _rows(database, ids["new over"]) == kept["new over"]
    assert _rows(database, ids["old playing"]) == kept["old playing"]
    # a session left unfinished goes only when asked
    status, out, err = cli("prune", "--older-than", "90", "--database", database, "--unfinished")
    assert status == 0 and "(finished, closed or unfinished)" in out
    assert _rows(database, ids["old playing"]) == [0, 0, 0, 0, 0]
    assert _rows(database, ids["new over"]) == kept["new over"]
    # and a server on the database still serves what was kept, and nothing of what went
    with ServerThread(ServerConfig(database=database, bot_delay=0, replace_after=None, analysis=False)) as server:
        assert server.api("GET", f"/api/tables/{ids['new over']}").status_code == 200
        assert server.api("GET", f"/api/tables/{ids['old over']}").status_code == 404


def test_prune_counts_in_what_it_says_the_tables_hands_and_events_removed(tmp_path, cli):
    database = _database("sqlite", tmp_path)
    ids = _tables(database, {"a": ("over", 100), "b": ("over", 200)})
    events = sum(_rows(database, table_id)[2] for table_id in ids.values())
    status, out, err = cli("prune", "--older-than", "90", "--database", database)
    assert status == 0, err
    first, size = out.splitlines()
    assert first.startswith(f"{database}: removed 2 tables (finished or closed) last played before ")
    assert first.endswith(f" UTC: 2 hands, {events} events")     # (each table is at its first hand)
    assert size.startswith("database file: ") and size.endswith(" MB")


def test_prune_is_refused_while_a_server_holds_the_database(tmp_path, cli, assert_cli_error):
    database = _database("sqlite", tmp_path)
    ids = _tables(database, {"old": ("over", 100)})
    with ServerThread(ServerConfig(database=database, bot_delay=0, replace_after=None, analysis=False)):
        assert_cli_error(cli("prune", "--older-than", "1", "--database", database),
                         r"^error: another flowerbridge server is using this database \(")
        assert _rows(database, ids["old"])[:2] == [1, 4]


@pytest.mark.parametrize("days", ["-1", "1.5", "x", "100000"])
def test_prune_takes_a_whole_number_of_days(tmp_path, cli, assert_cli_error, days):
    assert_cli_error(cli("prune", "--older-than", days, "--database", str(tmp_path / "t.db")),
                     r"^error: flowerbridge prune: argument --older-than: .*give a whole number from 0 to 99,999")
    assert not (tmp_path / "t.db").exists()


def test_rows_a_deletion_outside_the_server_left_behind_no_longer_stop_it_and_prune_removes_them(
        tmp_path, cli, caplog):
    # sqlite3 deletes with foreign keys off: a table's seats, log and values outlived it, and
    # the next start was refused, saying "the migration would leave N row(s) referring to
    # rows that are not there", though no migration was pending
    database = _database("sqlite", tmp_path)
    ids = _tables(database, {"gone": ("over", 100), "kept": ("over", 1)})
    with sqlite3.connect(database) as connection:
        connection.execute("DELETE FROM tables WHERE id = ?", (ids["gone"],))
    connection.close()
    stray = sum(_rows(database, ids["gone"]))
    caplog.set_level(logging.WARNING, logger="flowerbridge.server")
    with ServerThread(ServerConfig(database=database, bot_delay=0, replace_after=None, analysis=False)) as server:
        assert server.api("GET", f"/api/tables/{ids['kept']}").status_code == 200
    said = [r.getMessage() for r in caplog.records if "of tables that are not there" in r.getMessage()]
    assert said and f"holds {stray} row(s)" in said[0] and "'flowerbridge prune' removes them" in said[0]
    status, out, err = cli("prune", "--older-than", "90", "--database", database)
    assert status == 0, err
    assert f"removed {stray} rows of tables removed before, which outlived them" in out
    assert sum(_rows(database, ids["gone"])) == 0 and _rows(database, ids["kept"])[:2] == [1, 4]


def test_prune_of_the_default_database_none_made_yet_makes_no_folder(tmp_path, monkeypatch, cli, assert_cli_error):
    # the user's data folder was made by the refusal, even by a dry run
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for dry in ((), ("--dry-run",)):
        assert_cli_error(cli("prune", "--older-than", "90", *dry),
                         r"^error: there is no database .*/data/flowerbridge/flowerbridge\.db: no server has kept "
                         r"its tables in the default one; give the one the server uses")
    assert list(tmp_path.iterdir()) == []


def test_prune_of_a_database_no_server_made_is_refused_and_makes_none(tmp_path, cli, assert_cli_error):
    # a mistyped file was made anew, migrated, and "0 tables" removed from it
    missing = tmp_path / "tabels.db"
    assert_cli_error(cli("prune", "--older-than", "1", "--database", str(missing)),
                     rf"^error: there is no database {missing}: give the one the server uses")
    assert list(tmp_path.iterdir()) == []
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    connection.close()
    before = other.read_bytes()
    assert_cli_error(cli("prune", "--older-than", "1", "--database", str(other)),
                     rf"^error: database {other} holds no flowerbridge server's tables$")
    assert other.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_prune_dry_run_of_a_database_of_an_earlier_schema_changes_nothing(tmp_path, cli, assert_cli_error):
    # the dry run migrated it first: an older server then refused to start on it
    database = _database("sqlite", tmp_path)
    ids = _tables(database, {"old": ("over", 100)})
    with sqlite3.connect(database) as connection:      # as the first version left it: no analyses,
        connection.execute("DROP TABLE analyses")       # no stand-in columns, no creations
        connection.execute("DROP TABLE creations")
        for column in ("left_at", "replaced_seq", "replaced"):
            connection.execute(f"ALTER TABLE seats DROP COLUMN {column}")
        connection.execute("UPDATE alembic_version SET version_num = '0001'")
    connection.close()
    before = (tmp_path / "tables.db").read_bytes()
    assert_cli_error(cli("prune", "--older-than", "90", "--database", database, "--dry-run"),
                     r"^error: database .* has the schema of an earlier flowerbridge: a dry run does not "
                     r"bring it up to date \(serve, or prune without --dry-run, does\)$")
    assert (tmp_path / "tables.db").read_bytes() == before
    status, out, err = cli("prune", "--older-than", "90", "--database", database)     # migrates, then prunes
    assert status == 0 and ": removed 1 table " in out, err
    assert _rows(database, ids["old"]) == [0, 0, 0, 0, 0]


@pytest.mark.parametrize("dry_run", [["--dry-run"], []])
def test_prune_of_a_database_of_a_newer_schema_says_so_and_changes_nothing(tmp_path, cli, assert_cli_error,
                                                                         dry_run):
    # the dry run called it "the schema of an earlier flowerbridge" and sent the user to a
    # prune without --dry-run, which refused it
    database = _database("sqlite", tmp_path)
    _tables(database, {"old": ("over", 100)})
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999'")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")   # (all in the file, none left to move there)
    connection.close()
    before = (tmp_path / "tables.db").read_bytes()
    assert_cli_error(cli("prune", "--older-than", "90", "--database", database, *dry_run),
                     r"^error: cannot (read|migrate) the database .*: Can't locate revision identified by "
                     r"'9999' \(made by a newer flowerbridge, or not a flowerbridge database\?\)$")
    assert (tmp_path / "tables.db").read_bytes() == before


def test_prune_says_what_it_removed_before_it_gives_the_space_back(tmp_path, cli, monkeypatch):
    # a VACUUM that failed (a full disk) left only "cannot compact": the tables were gone, unsaid,
    # and a second run removed none, so never gave their space back
    from flowerbridge.server.store import Store, StoreError
    database = _database("sqlite", tmp_path)
    _tables(database, {"old": ("over", 100)})

    def full(self):
        raise StoreError(f"cannot compact database {self.shown}: database or disk is full")

    with monkeypatch.context() as patch:
        patch.setattr(Store, "compact", full)
        status, out, err = cli("prune", "--older-than", "90", "--database", database)
    assert status == 2 and ": removed 1 table " in out
    assert err == f"error: cannot compact database {database}: database or disk is full\n"
    status, out, err = cli("prune", "--older-than", "90", "--database", database)   # nothing left to remove:
    assert status == 0 and ": removed 0 tables " in out and "database file: " in out   # compacted all the same


def test_prune_removes_a_table_with_no_event_by_its_creation_time(tmp_path, cli):
    database = _database("sqlite", tmp_path)
    ids = _tables(database, {"old": ("over", 100), "new": ("over", 100)})
    with sqlite3.connect(database) as connection:      # their logs deleted by hand
        connection.execute("DELETE FROM events")
        connection.execute("UPDATE tables SET created_at = '2020-01-01 00:00:00.000000' WHERE id = ?",
                           (ids["old"],))
    connection.close()
    kept = _rows(database, ids["new"])                  # made today: kept, log or none
    assert kept == [1, 4, 0, 1, 1]
    status, out, err = cli("prune", "--older-than", "90", "--database", database)
    assert status == 0 and ": removed 1 table " in out, err
    assert _rows(database, ids["old"]) == [0, 0, 0, 0, 0]
    assert _rows(database, ids["new"]) == kept


def test_prune_ages_a_table_by_its_last_event_and_counts_its_hands_by_their_deals(tmp_path, cli):
    # docs/server.md: "A table's age is that of its last event"; "more than DAYS days old"
    database = _database("sqlite", tmp_path)
    ids = _tables(database, {"played yesterday": ("over", 200), "just inside": ("over", 89),
                             "old": ("over", 100)})
    now = datetime.now(timezone.utc)
    store = Store(database)
    with store.engine.begin() as connection:
        connection.execute(update(EventRow).where(EventRow.table_id == ids["just inside"]).values(
            created_at=now - timedelta(days=89.5)))
        for name, days in (("played yesterday", 1), ("old", 100)):
            table_id = ids[name]
            last = connection.scalar(select(func.max(EventRow.seq)).where(EventRow.table_id == table_id))
            later = [("call", "N", "Pass"), ("call", "E", "Pass"), ("close", None, None)]
            for seq, (kind, seat, action) in enumerate(later, start=last + 1):
                connection.execute(EventRow.__table__.insert().values(
                    table_id=table_id, seq=seq, kind=kind, hand=1, seat=seat, action=action, detail=None,
                    created_at=now - timedelta(days=days)))
    store.close()
    events = _rows(database, ids["old"])[2]
    status, out, err = cli("prune", "--older-than", "90", "--database", database)
    assert status == 0, err
    assert out.splitlines()[0].endswith(f" UTC: 1 hand, {events} events")
    assert _rows(database, ids["old"]) == [0, 0, 0, 0, 0]
    assert _rows(database, ids["played yesterday"])[0] == 1 and _rows(database, ids["just inside"])[0] == 1
