"""The server's database (docs/server.md, "Storage"): what a user names is the
file or server used, a migration that fails changes nothing, and what is read
back is what was stored."""

from __future__ import annotations

import asyncio
from contextlib import contextmanager
import logging
import shutil
import secrets
import sqlite3
import sys
import time
from datetime import timezone

import pytest
from sqlalchemy import event, text

from flowerbridge.server import store as store_module
from flowerbridge.server.config import ServerConfig
from flowerbridge.server.manager import TableManager
from flowerbridge.server.schemas import CreateTable
from flowerbridge.server.store import Store, StoreError, shown_url
from flowerbridge.server.testing import ServerThread, database_for_tests

FOUR_BOTS = {"seats": {s: {"player": "bot", "level": "random"} for s in "NESW"}}


def _head_revision() -> str:
    """The newest of the package's migrations."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(store_module.MIGRATIONS)).get_current_head()


HEAD = _head_revision()
AFTER_HEAD = f"{int(HEAD) + 1:04d}"     # the revision a test adds after the package's


def _tables(path) -> set[str]:
    with sqlite3.connect(path) as connection:
        return {name for (name,) in connection.execute("SELECT name FROM sqlite_master "
                                                        "WHERE type = 'table'")}


def test_a_first_migration_that_fails_leaves_the_sqlite_file_as_it_was(tmp_path, monkeypatch):
    # a file with a table of one of our names, let past the check for another program's
    # tables: the migration fails at that table, and the tables made before it are not
    # left behind
    monkeypatch.setattr("flowerbridge.server.store._check_not_another_programs", lambda *_: None)
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE events (x INTEGER)")
    with pytest.raises(StoreError, match=f"cannot migrate the database {path}: table events already exists"):
        Store(str(path)).migrate()
    assert _tables(path) == {"events"}
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TABLE events")
    Store(str(path)).migrate()      # the file is usable: nothing half-made is in the way
    assert {"tables", "seats", "events", "analyses", "alembic_version"} <= _tables(path)


# A later revision that changes the tables table on SQLite: Alembic's batch mode
# (env.py) rebuilds it -- a new table, the rows copied, the old one dropped.
BATCH_REVISION = """
import sqlalchemy as sa
from alembic import op

revision = "{revision}"
down_revision = "{head}"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("tables") as batch:
        batch.alter_column("name", type_=sa.String(80))
{more}

def downgrade():
    pass
"""


def _with_revision(tmp_path, monkeypatch, more: str = "") -> None:
    """The migrations, and BATCH_REVISION after them (``more``: lines it runs too)."""
    folder = tmp_path / "migrations"
    shutil.copytree(store_module.MIGRATIONS, folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "versions" / f"{AFTER_HEAD}_batch.py").write_text(
        BATCH_REVISION.format(revision=AFTER_HEAD, head=HEAD, more=more))
    monkeypatch.setattr(store_module, "MIGRATIONS", folder)


def _counts(path) -> list[int]:
    with sqlite3.connect(path) as connection:
        counts = [connection.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
                  for name in ("tables", "seats", "events")]
    connection.close()
    return counts


def _populated(path) -> list[int]:
    """A migrated SQLite file holding two tables, their seats and events: their counts."""
    async def scenario() -> None:
        manager = TableManager(Store(str(path)), ServerConfig(bot_delay=0, replace_after=None,
                                                              analysis=False))
        manager.store.migrate()
        for _ in range(2):
            await manager.create(CreateTable.model_validate(FOUR_BOTS))
        await manager.stop()

    asyncio.run(scenario())
    counts = _counts(path)
    assert counts[0] == 2 and counts[1] == 8 and counts[2] >= 2
    return counts


def test_a_batch_migration_of_the_tables_table_keeps_every_seat_and_event(tmp_path, monkeypatch):
    # the migration's connections had foreign keys on: dropping the old tables
    # table deleted every seat and event (ON DELETE CASCADE)
    path = tmp_path / "fb.db"
    before = _populated(path)
    _with_revision(tmp_path, monkeypatch)
    store = Store(str(path))
    store.migrate()
    assert _counts(path) == before
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == AFTER_HEAD
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1   # on again, serving
    store.close()


def test_a_migration_of_tables_an_earlier_version_made_is_logged_and_a_first_creation_is_not(
        tmp_path, monkeypatch, caplog):
    # docs/server.md, Migrations: an upgrade at start printed nothing; the operator learns of
    # it (and may keep a copy of the file from before), a new database says nothing
    caplog.set_level("INFO", logger="flowerbridge.server")
    path = tmp_path / "fb.db"
    _populated(path)
    assert not [r for r in caplog.records if "migrat" in r.getMessage()]
    _with_revision(tmp_path, monkeypatch)
    store = Store(str(path))
    store.migrate()
    store.close()
    said = [r.getMessage() for r in caplog.records if "migrat" in r.getMessage()]
    assert said == [f"migrated the database {path} from revision {HEAD} to {AFTER_HEAD}"]


def test_a_migration_that_would_leave_a_row_referring_to_nothing_is_refused_and_rolled_back(
        tmp_path, monkeypatch):
    path = tmp_path / "fb.db"
    before = _populated(path)
    _with_revision(tmp_path, monkeypatch, more="    op.execute(\"DELETE FROM tables WHERE id IN "
                                                 "(SELECT id FROM tables LIMIT 1)\")")
    with pytest.raises(StoreError, match=r"cannot migrate the database: the migration would leave "
                                         r"\d+ row\(s\) referring to rows that are not there"):
        Store(str(path)).migrate()
    assert _counts(path) == before
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchone() == (HEAD,)
    connection.close()


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


def test_a_refused_start_leaves_another_programs_sqlite_file_byte_for_byte_as_it_was(
        tmp_path, cli, assert_cli_error):
    # docs/server.md: a first start that fails leaves the file as it was, its
    # journal mode too (WAL is kept in the file: it is set only once migrated)
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE events (x INTEGER)")
    connection.close()
    before = path.read_bytes()
    assert_cli_error(cli("serve", "--port", "0", "--database", str(path)),
                     f"cannot migrate the database {path}: it holds tables no flowerbridge server made "
                     r"\(events\), another program's")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]   # no lock, WAL or journal left


@pytest.mark.parametrize("made", [["CREATE TABLE notes (a)", "INSERT INTO notes VALUES (1)"],
                                  ["CREATE VIEW answer AS SELECT 42 AS a"],
                                  [f"CREATE TABLE t{i} (a)" for i in range(7)]])
def test_another_programs_sqlite_file_is_refused_though_no_name_clashes(tmp_path, cli, assert_cli_error, made):
    # a storage review: a file of another program's tables none of whose names is ours was
    # taken, the server's tables added beside them and the file switched to WAL
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        for statement in made:
            connection.execute(statement)
    connection.close()
    before = path.read_bytes()
    names = "answer" if "VIEW" in made[0] else "notes" if len(made) == 2 else "t0, t1, t2, t3, t4 and 2 more"
    assert_cli_error(cli("serve", "--port", "0", "--database", str(path)),
                     f"^error: cannot migrate the database {path}: it holds tables no flowerbridge server made "
                     rf"\({names}\), another program's: give a new file or an empty database \(on PostgreSQL, "
                     r"a schema of its own\); nothing was changed$")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_a_migrated_sqlite_file_runs_in_wal_mode_with_its_pragmas(tmp_path):
    path = tmp_path / "t.db"
    store = Store(str(path))
    store.lock()
    store.migrate()
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 2   # FULL
    store.close()
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)     # kept in the file
    connection.close()


async def _serves_nothing(self, said: list[str] | None = None, **_) -> None:
    """``uvicorn.Server.serve``, which the ``serve`` command runs last, for a test that
    stops before it (``said`` notes that it was reached)."""
    if said is not None:
        said.append("served")


def test_a_sqlite_database_the_server_cannot_write_is_refused_at_start(tmp_path):
    # read-only (a file the server's user cannot write, on read-only media) but
    # already migrated and in WAL mode: start went on, and every write failed
    path = tmp_path / "fb.db"
    Store(str(path)).migrate()
    store = Store(str(path))
    # what a read-only file is to the server's connections (a test run as root writes any file)
    event.listen(store.engine, "connect",
                 lambda connection, _: connection.execute("PRAGMA query_only=ON"))
    with pytest.raises(StoreError, match=r"^cannot write to database .*fb\.db: attempt to write a "
                                         r"readonly database \(a server stores every table"):
        store.migrate()


@pytest.mark.parametrize("read_only", ["fb.db", "fb.db-wal", "fb.db-shm"])
def test_a_read_only_sqlite_file_is_refused_before_sqlite_opens_it(tmp_path, monkeypatch, cli,
                                                                   assert_cli_error, read_only):
    # opened, a read-only file in WAL mode got read-only -wal and -shm files beside it, which
    # went on refusing every write (naming the database file) once that was made writable
    import os

    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "serve", _serves_nothing)     # (what `serve` runs last)
    path = tmp_path / "fb.db"
    made = Store(str(path))
    made.migrate()
    made.close()
    for name in ("fb.db-wal", "fb.db-shm"):
        if name == read_only:
            (tmp_path / name).write_bytes(b"")
    (tmp_path / read_only).chmod(0o444)
    if os.geteuid() == 0:   # root may write any file: asked, the file's mode answers as for others
        access = os.access
        monkeypatch.setattr(os, "access", lambda file, mode, **kw: access(file, mode, **kw) and not (
            mode & os.W_OK and not os.stat(file).st_mode & 0o222))
    before = sorted((entry.name, entry.stat().st_mtime_ns) for entry in tmp_path.iterdir())
    for command in (["serve", "--port", "0"], ["prune", "--older-than", "0"], ["prune", "--older-than", "0", "--dry-run"]):
        assert_cli_error(cli(*command, "--database", str(path)),
                         rf"^error: cannot write to database \S*fb\.db: \S*{read_only} is read-only "
                         r"\(a server stores every table")
    assert sorted((entry.name, entry.stat().st_mtime_ns) for entry in tmp_path.iterdir()) == before


def test_a_read_only_sqlite_wal_file_beside_a_linked_databases_target_is_refused_by_name(tmp_path, monkeypatch):
    # SQLite keeps -wal and -shm beside the file a link leads to: the check looked beside the link
    import os

    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "real.db"
    made = Store(str(target))
    made.migrate()
    made.close()
    (tmp_path / "real" / "real.db-wal").write_bytes(b"")
    (tmp_path / "real" / "real.db-wal").chmod(0o444)
    (tmp_path / "fb.db").symlink_to(target)
    if os.geteuid() == 0:   # root may write any file: asked, the file's mode answers as for others
        access = os.access
        monkeypatch.setattr(os, "access", lambda file, mode, **kw: access(file, mode, **kw) and not (
            mode & os.W_OK and not os.stat(file).st_mode & 0o222))
    with pytest.raises(StoreError, match=r"^cannot write to database \S*fb\.db: \S*real\.db-wal is read-only"):
        Store(str(tmp_path / "fb.db"))


@pytest.mark.postgres
def test_a_postgresql_database_whose_transactions_are_read_only_is_refused_at_start(
        tmp_path, monkeypatch, cli, assert_cli_error):
    # a role with default_transaction_read_only=on (or a hot standby): start went
    # on, and every table and action was refused busy
    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "serve", _serves_nothing)     # (what `serve` runs last)
    database = database_for_tests("postgres", tmp_path)
    if database is None:
        pytest.skip("FLOWERBRIDGE_TEST_POSTGRES is not set")
    Store(database).migrate()
    joiner = "&" if "?" in database else "?"
    read_only = f"{database}{joiner}options=-cdefault_transaction_read_only%3Don"
    assert_cli_error(cli("serve", "--port", "0", "--database", read_only),
                     r"^error: cannot write to database postgresql://.*: cannot execute UPDATE in "
                     r"a read-only transaction \(a server stores")


SUPPORTED = r"a server runs on SQLite \(a file path, or sqlite:///FILE\) or PostgreSQL"


@pytest.mark.filterwarnings("error::sqlalchemy.exc.SAWarning")  # (mode=ro was two SAWarnings)
@pytest.mark.parametrize("database, message", [
    # a URI filename slipped past the in-memory check: every request was 503 "no such table"
    ("sqlite:///file:fb?mode=memory&cache=shared&uri=true", "is an in-memory database, which loses"),
    ("sqlite:///file::memory:?uri=true", "is an in-memory database"),
    # its lock was on ./file:fb.db.lock, not beside the file it named
    ("sqlite:///file:fb.db?uri=true", r"a SQLite URI filename \(uri=true\) is not taken"),
    ("sqlite:///rel.db?mode=ro", r"a SQLite database takes no options \(mode\): give the file alone"),
    # no one-server lock was taken on them
    ("mysql://fb@127.0.0.1/fb", SUPPORTED + r".*, not mysql$"),
    ("postgresql+asyncpg://fb@127.0.0.1/fb", SUPPORTED + r".*, not postgresql\+asyncpg$"),
    # was "invalid literal for int() with base 10: ':1'"
    ("postgresql://fb:secret@[::1/fb", r"^error: postgresql://fb:\*\*\*@\[::1/fb is not a valid database "
                                       r"URL: what stands for its port is not a number \(an IPv6"),
    # a password's '@' not written %40: the driver's error named the host as 'pw@127.0.0.1',
    # the password's end printed
    ("postgresql://fb:S3CRET@pw@127.0.0.1:1/x", r"^error: postgresql://fb:\*\*\*@127\.0\.0\.1:1/x is not a valid "
                                                 r"database URL: it has an '@' after the one before its host "
                                                 r"\(an '@' in a name or password is written %40\)$"),
])
def test_a_database_url_the_server_cannot_run_on_is_one_clear_error(
        database, message, tmp_path, monkeypatch, cli, assert_cli_error):
    import uvicorn

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(uvicorn.Server, "serve", _serves_nothing)     # (what `serve` runs last)
    assert_cli_error(cli("serve", "--port", "0", "--database", database), message)
    assert list(tmp_path.iterdir()) == []


def test_a_postgresql_url_without_its_driver_installed_says_how_to_install_it(monkeypatch):
    # (it said "No module named 'psycopg'")
    for name in ("psycopg", "psycopg2"):
        monkeypatch.setitem(sys.modules, name, None)    # as if not installed
    with pytest.raises(StoreError) as refused:
        Store("postgresql://fb:secret@127.0.0.1:1/fb")
    assert str(refused.value) == ("cannot open database postgresql://fb:***@127.0.0.1:1/fb: its "
                                  "driver, psycopg, is not installed: pip install "
                                  "'flowerbridge[postgres]' in the server's environment")
    # psycopg2, named in the URL: the extra (psycopg 3) would change nothing
    with pytest.raises(StoreError) as refused:
        Store("postgresql+psycopg2://fb:secret@127.0.0.1:1/fb")
    assert str(refused.value).endswith("its driver, psycopg2, is not installed: pip install psycopg2-binary "
                                       "in the server's environment, or write the URL postgresql://... "
                                       "(psycopg 3, which pip install 'flowerbridge[postgres]' installs)")


@pytest.mark.postgres
def test_the_postgresql_connections_have_a_connect_timeout_and_keepalives(tmp_path):
    # only the lock's connection had them: a pool connection to a server gone
    # quiet hung until the operating system gave up
    database = database_for_tests("postgres", tmp_path)
    if database is None:
        pytest.skip("FLOWERBRIDGE_TEST_POSTGRES is not set")
    joiner = "&" if "?" in database else "?"
    store = Store(f"{database}{joiner}keepalives_idle=45")
    connection = store.engine.raw_connection()
    try:
        parameters = connection.driver_connection.info.get_parameters()
    finally:
        connection.close()
        store.close()
    assert {key: parameters.get(key) for key in ("connect_timeout", "keepalives", "keepalives_idle",
                                                 "keepalives_interval", "keepalives_count")} \
        == {"connect_timeout": "10", "keepalives": "1", "keepalives_idle": "45",   # the URL's
            "keepalives_interval": "10", "keepalives_count": "3"}


@pytest.mark.postgres
@pytest.mark.timeout(60)    # (without the limits it waits on the lock for good)
def test_a_postgresql_database_that_answers_nothing_is_a_store_error_not_a_frozen_server(own_database,
                                                                                          monkeypatch):
    # a row or a table locked by a program beside the server froze every table, nothing
    # said to the players nor logged (a review held `LOCK TABLE events` 90 s): the server's
    # statements now give up waiting on a lock, and run at most so long
    from sqlalchemy.engine import make_url

    if not own_database.startswith("postgresql"):
        pytest.skip("PostgreSQL only")
    # the fixture's schema given as libpq's PGOPTIONS, with a statement limit of its own: both
    # kept (given as the connections' options, the limits replaced PGOPTIONS, and the
    # server found no table of its schema)
    url = make_url(own_database)
    schema = url.query["options"].partition("search_path=")[2]
    monkeypatch.setenv("PGOPTIONS", f"-c search_path={schema} -c statement_timeout=120000")
    database = url.difference_update_query(["options"]).render_as_string(hide_password=False)
    monkeypatch.setattr(store_module, "LOCK_TIMEOUT_MS", 500)
    store = Store(database)
    store.migrate()
    store.limit_waits()
    holder = Store(database)        # a program beside the server, holding the tables' table
    try:
        with holder.engine.connect() as connection:
            connection.exec_driver_sql("LOCK TABLE tables IN ACCESS EXCLUSIVE MODE")
            started = time.monotonic()
            with pytest.raises(StoreError, match="lock timeout"):
                store.table_ids("playing")
            assert time.monotonic() - started < 10
            connection.rollback()
        assert store.table_ids("playing") == []
        with store.engine.connect() as connection:
            shown = {name: connection.exec_driver_sql(f"SHOW {name}").scalar()
                     for name in ("search_path", "lock_timeout", "statement_timeout")}
        assert shown == {"search_path": schema, "lock_timeout": "500ms", "statement_timeout": "2min"}
    finally:
        holder.close()
        store.close()
    # a limit turned off on purpose (0) stays off
    monkeypatch.setenv("PGOPTIONS", f"-c search_path={schema} -c lock_timeout=0")
    store = Store(database)
    store.limit_waits()
    try:
        with store.engine.connect() as connection:
            assert connection.exec_driver_sql("SHOW lock_timeout").scalar() == "0"
            assert connection.exec_driver_sql("SHOW statement_timeout").scalar() == "1min"
    finally:
        store.close()


def _files(folder) -> dict[str, bytes]:
    # (the -shm file is SQLite's shared memory, not the database)
    return {p.name: p.read_bytes() for p in folder.iterdir() if not p.name.endswith("-shm")}


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_second_server_on_a_database_in_use_is_refused_before_it_changes_anything(
        kind, tmp_path, monkeypatch, cli, assert_cli_error):
    import uvicorn

    database = database_for_tests(kind, tmp_path)
    if database is None:
        pytest.skip("FLOWERBRIDGE_TEST_POSTGRES is not set")
    config = ServerConfig(database=database, bot_delay=0, replace_after=None, analysis=False)
    with ServerThread(config) as first:
        table_id = first.create_table({s: "human" for s in "NESW"})["table"]["id"]
        before = _files(tmp_path)
        touched: list[str] = []
        with monkeypatch.context() as patch:
            patch.setattr(Store, "migrate", lambda self: touched.append("migrated"))
            patch.setattr(uvicorn.Server, "serve", lambda self, **_: _serves_nothing(self, touched))
            assert_cli_error(cli("serve", "--port", "0", "--database", database),
                             r"^error: another flowerbridge server is using this database \(")
            with pytest.raises(StoreError, match="another flowerbridge server is using this database"):
                Store(database).lock()
        assert touched == []
        assert _files(tmp_path) == before
        assert first.api("GET", f"/api/tables/{table_id}").status_code == 200
    # the first one stopped and let the database go: a new server starts on it
    with ServerThread(config) as second:
        assert second.api("GET", f"/api/tables/{table_id}").json()["id"] == table_id
    if kind == "sqlite":
        assert not (tmp_path / "tables.db.lock").exists()   # let go, and taken away


def test_a_sqlite_database_named_through_a_symlink_is_the_same_database(tmp_path):
    store = Store(str(tmp_path / "real.db"))
    store.lock()
    (tmp_path / "link.db").symlink_to(tmp_path / "real.db")
    with pytest.raises(StoreError, match="another flowerbridge server"):
        Store(str(tmp_path / "link.db")).lock()
    store.close()
    again = Store(str(tmp_path / "link.db"))
    again.lock()
    again.close()


@pytest.mark.postgres
def test_a_lost_postgresql_lock_connection_is_logged_and_the_lock_taken_again(
        tmp_path, monkeypatch, caplog):
    database = database_for_tests("postgres", tmp_path)
    if database is None:
        pytest.skip("FLOWERBRIDGE_TEST_POSTGRES is not set")
    monkeypatch.setattr(store_module, "LOCK_CHECK_SECONDS", 0.05)
    store = Store(database)
    store.lock()
    try:
        other = Store(database)
        with other.engine.begin() as connection:    # what a restarted PostgreSQL does to it
            ended = connection.execute(text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = 'flowerbridge lock' AND datname = current_database()"))
            assert ended.scalars().all() == [True]
        deadline = time.monotonic() + 10
        with caplog.at_level(logging.INFO, logger="flowerbridge.server"):
            while "lock is taken again" not in caplog.text:
                assert time.monotonic() < deadline, caplog.text
                time.sleep(0.05)
        assert "the connection that holds this server's lock was lost" in caplog.text
        with pytest.raises(StoreError, match="another flowerbridge server"):
            other.lock()
        other.close()
    finally:
        store.close()


@pytest.mark.postgres
def test_a_second_server_reaching_the_same_tables_through_another_search_path_is_refused(tmp_path):
    # the lock's key was the first schema on the search path, not the tables' schema:
    # with an empty schema first on its path, a second server took a lock of its own
    database = database_for_tests("postgres", tmp_path)
    if database is None:
        pytest.skip("FLOWERBRIDGE_TEST_POSTGRES is not set")
    first = Store(database)
    first.migrate()
    with first.engine.begin() as connection:
        connection.execute(text("CREATE SCHEMA IF NOT EXISTS flowerbridge_empty"))
    first.lock()
    try:
        joiner = "&" if "?" in database else "?"
        other = Store(f"{database}{joiner}options=-csearch_path%3Dflowerbridge_empty,public")
        with pytest.raises(StoreError, match="another flowerbridge server is using this database"):
            other.lock()
        other.close()
    finally:
        first.close()
        with Store(database).engine.begin() as connection:
            connection.execute(text("DROP SCHEMA IF EXISTS flowerbridge_empty"))


@pytest.mark.postgres
def test_stopping_a_server_whose_lock_check_is_stuck_does_not_wait_for_it(tmp_path, monkeypatch):
    # release waited on the check's guard: a stalled lock connection kept the server
    # from stopping at all
    database = database_for_tests("postgres", tmp_path)
    if database is None:
        pytest.skip("FLOWERBRIDGE_TEST_POSTGRES is not set")
    import threading

    store = Store(database)
    store.lock()
    lock = store._lock
    assert lock is not None
    holding, unstick = threading.Event(), threading.Event()

    def stuck_check():      # as a check stuck mid-query holds the guard
        with lock.guard:
            holding.set()
            unstick.wait()  # set free only once close() has returned (or given up on)

    closed = []

    def close():
        store.close()
        closed.append(lock.guard.locked())      # the guard still held as close returns

    checker = threading.Thread(target=stuck_check, daemon=True)
    checker.start()
    try:
        assert holding.wait(30)
        closer = threading.Thread(target=close, daemon=True)
        closer.start()
        # (only when to give up: a close that waits for the guard never returns
        # before the check is set free below)
        closer.join(60)
        assert closed == [True] and store._lock is None
    finally:
        unstick.set()
        checker.join(30)
        lock.connection.close()
        lock.engine.dispose()


def test_the_migrations_make_the_tables_the_models_describe(tmp_path):
    # a column added to a model and not to a migration (or the other way round)
    # would be missed by every test of a database the migrations made
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from flowerbridge.server.models import Base

    store = Store(str(tmp_path / "fb.db"))
    store.migrate()
    with store.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    store.close()
    assert differences == []


def test_the_migrations_make_the_primary_keys_and_time_zones_the_models_describe(own_database):
    # what compare_metadata leaves out: a primary key of (table, hand) made (table) alone
    # kept the values of one hand a table; a time stamp without its time zone on
    # PostgreSQL read back shifted by the session's zone
    import sqlalchemy as sa

    from flowerbridge.server.models import Base

    store = Store(own_database)
    store.migrate()
    inspector = sa.inspect(store.engine)
    for table in Base.metadata.sorted_tables:
        assert inspector.get_pk_constraint(table.name)["constrained_columns"] == \
            [column.name for column in table.primary_key.columns], table.name
        if "://" in own_database:      # PostgreSQL (SQLite keeps no time zone in a column's type)
            stored = {column["name"]: column["type"] for column in inspector.get_columns(table.name)}
            for column in table.columns:
                if isinstance(column.type, sa.DateTime):
                    assert stored[column.name].timezone == column.type.timezone, (table.name, column.name)
    store.close()


@pytest.mark.parametrize("before_it, columns, value", [
    # revision 0003 adds seats.replaced (docs/server.md, Playing): none taken as
    # played by a stand-in
    ("0002", ("replaced",), 0),
    # revision 0004 adds seats.left_at and seats.replaced_seq: none taken as away,
    # none with a point in its table's log from which a stand-in's actions are told
    ("0003", ("left_at", "replaced_seq"), None),
])
def test_seats_stored_before_a_stand_in_column_are_migrated_with_every_seat_kept(tmp_path, before_it,
                                                                                 columns, value):
    from alembic import command
    from alembic.config import Config

    from flowerbridge.server.store import migration_connection

    path = tmp_path / "fb.db"
    before = _populated(path)
    config = Config(str(store_module.ALEMBIC_INI))
    config.set_main_option("script_location", str(store_module.MIGRATIONS))
    store = Store(str(path))
    with migration_connection(store.url, store.engine) as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, before_it)
    with sqlite3.connect(path) as connection:
        present = [row[1] for row in connection.execute("PRAGMA table_info(seats)")]
    connection.close()
    assert not set(columns) & set(present)
    store.migrate()
    store.close()
    assert _counts(path) == before
    with sqlite3.connect(path) as connection:
        for column in columns:
            assert connection.execute(f"SELECT DISTINCT {column} FROM seats").fetchall() == [(value,)]
    connection.close()


@contextmanager
def _database(kind: str, tmp_path):
    """A URL of an empty database of ``kind``: a SQLite file, or a PostgreSQL schema of
    its own (dropped after)."""
    if kind == "sqlite":
        yield str(tmp_path / "fb.db")
        return
    with _schemas(tmp_path, "db") as (url, _, _):
        store = Store(url)
        with store.engine.begin() as connection:
            connection.execute(text("DROP TABLE notes"))    # (another program's: not wanted here)
        store.close()
        yield url


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_database_revision_0004s_first_version_made_gets_the_column_it_left_out(kind, tmp_path):
    # 0004 first added seats.replaced_seq alone, then (same revision) seats.left_at too: a
    # database at the first 0004 was taken as past it, and no table could be read or made
    # ("no such column: seats.left_at") — revision 0006 adds it where it is missing
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.config import Config
    from alembic.migration import MigrationContext

    from flowerbridge.server.models import Base
    from flowerbridge.server.store import migration_connection

    config_ = ServerConfig(bot_delay=0, replace_after=None, analysis=False)
    with _database(kind, tmp_path) as url:
        async def made() -> list[str]:
            manager = TableManager(Store(url), config_)
            manager.store.migrate()
            ids = [(await manager.create(CreateTable.model_validate(FOUR_BOTS)))[0].table.id for _ in range(2)]
            await manager.stop()
            return ids

        ids = asyncio.run(made())
        store = Store(url)
        config = Config(str(store_module.ALEMBIC_INI))
        config.set_main_option("script_location", str(store_module.MIGRATIONS))
        with migration_connection(store.url, store.engine) as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0003")
        with store.engine.begin() as connection:     # what 0004's first version did
            connection.execute(text("ALTER TABLE seats ADD COLUMN replaced_seq INTEGER"))
            connection.execute(text("UPDATE alembic_version SET version_num = '0004'"))
        store.close()

        store = Store(url)
        store.migrate()
        with store.engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
        store.close()

        async def read() -> None:
            manager = TableManager(Store(url), config_)
            for table_id in ids:
                assert (await manager.get(table_id)).table.id == table_id
            await manager.create(CreateTable.model_validate(FOUR_BOTS))
            await manager.stop()

        asyncio.run(read())


@contextmanager
def _schemas(tmp_path, *names: str):
    """Schemas of their own (dropped after) on the tests' PostgreSQL database, named from
    ``names``, with a table of another program's, ``notes``, in the last: yields the URL
    whose search path is those schemas, a function listing a schema's tables, and the
    schemas' names."""
    database = database_for_tests("postgres", tmp_path)
    if database is None:
        pytest.skip("FLOWERBRIDGE_TEST_POSTGRES is not set")
    schemas = [f"fb_{name}_{secrets.token_hex(4)}" for name in names]
    admin = Store(database)
    with admin.engine.begin() as connection:
        for schema in schemas:
            connection.execute(text(f"CREATE SCHEMA {schema}"))
        connection.execute(text(f"CREATE TABLE {schemas[-1]}.notes (a integer)"))

    def tables(schema: str) -> list[str]:
        with admin.engine.connect() as connection:
            return sorted(connection.execute(text("SELECT table_name FROM information_schema.tables "
                                                  "WHERE table_schema = :s"), {"s": schema}).scalars())
    try:
        joiner = "&" if "?" in database else "?"
        yield f"{database}{joiner}options=-csearch_path%3D{','.join(schemas)}", tables, schemas
    finally:
        with admin.engine.begin() as connection:
            for schema in schemas:
                connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.close()


@pytest.mark.postgres
def test_another_programs_postgresql_schema_is_refused_and_left_as_it_was(tmp_path):
    # as for a SQLite file: a schema holding a table of another program's got the server's
    # tables beside it (a storage review)
    with _schemas(tmp_path, "other") as (url, tables, [other]):
        store = Store(url)
        with pytest.raises(StoreError, match=r"it holds tables no flowerbridge server made \(notes\), "
                                             r"another program's: .*nothing was changed$"):
            store.migrate()
        store.close()
        assert tables(other) == ["notes"]


@pytest.mark.postgres
def test_a_postgresql_schema_of_its_own_first_on_the_search_path_is_taken_beside_others_tables(tmp_path):
    # `?options=-csearch_path=fb,public` gives the server a schema of its own while other
    # programs' tables stay in view: the check for another program's tables looked in every
    # schema on the path, and refused it (a diff review)
    with _schemas(tmp_path, "own", "other") as (url, tables, [own, other]):
        store = Store(url)
        store.migrate()
        store.close()
        assert {"tables", "seats", "events", "alembic_version"} <= set(tables(own))
        assert tables(other) == ["notes"]
