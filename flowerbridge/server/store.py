"""The server's database: SQLite by default, PostgreSQL by URL.

:class:`Store` is synchronous (SQLAlchemy 2 sessions); the table manager calls
it from a worker thread so the event loop never waits on a disk. Every write
is one transaction, committed before the server tells anyone about it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Iterator

from sqlalchemy import create_engine, delete, event, false, func, inspect, select, update
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from .._files import NoHomeError, expand_home, unreachable
from .limits import Sparing
from .models import AnalysisRow, CreationRow, EventRow, SeatRow, TableRow
from .schemas import ProtocolError
from .table import PLAYING

TABLES_ROWS = (AnalysisRow, CreationRow, EventRow, SeatRow)
"""The rows that belong to a table (by ``table_id``): removed with it."""

ALEMBIC_INI = Path(__file__).with_name("alembic.ini")
MIGRATIONS = Path(__file__).with_name("migrations")

log = logging.getLogger("flowerbridge.server")

# How often a server checks that its PostgreSQL connection holding the lock is alive.
LOCK_CHECK_SECONDS = 30.0


# why a database that may not be written is refused
_MAY_NOT_WRITE = (" (a server stores every table and action in it as they are made, and prune "
                  "removes tables from it: give a database that can be written)")


class StoreError(ProtocolError):
    """The database cannot be opened, migrated or written: ``busy`` to a client (told
    :data:`STORE_FAILED`, the detail logged)."""

    def __init__(self, message: str) -> None:
        super().__init__("busy", message)


STORE_FAILED = "the database failed (the server logged why): try again in a moment"
"""What a client is told of a database failure: the driver's words (the database's host and
port, its user) are for the server's log, not for whoever asked."""


# each failure's words logged once a minute: during an outage every lobby poll, health
# probe and reconnecting page meets the same one
_FAILURES_TOLD = Sparing(again_after=60.0)


def said_to_clients(exc: Exception) -> str:
    """``exc`` as a client is told it: a database failure as :data:`STORE_FAILED`, its detail
    logged (each once a minute); any other refusal in its own words."""
    if isinstance(exc, StoreError):
        log_failure(exc)
        return STORE_FAILED
    return str(exc)


def log_failure(exc: StoreError, where: str | None = None) -> None:
    """Log a database failure with the driver's words (``where``: what failed), each
    failure once a minute: a table's every action, and every bot retrying one, meet the
    same one while the database is down or its disk full. (It is no bug: no traceback.)"""
    if _FAILURES_TOLD.first(str(exc)):
        log.error("%s%s (told to clients as \"%s\"; said once a minute)",
                  f"{where}: " if where else "", exc, STORE_FAILED)


def default_database(make_folder: bool = True) -> str:
    """The SQLite file in the user's data directory (its folder created if missing, unless
    ``make_folder`` is false: prune reads a database, it makes none), by its path: what serve
    prints, as for a file named with --database (its URL printed ``sqlite:////home/...``)."""
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("flowerbridge"))
    if make_folder:
        folder.mkdir(parents=True, exist_ok=True)
    return str(folder / "flowerbridge.db")


def engine_url(database: str) -> str:
    """A SQLAlchemy URL from what a user types: a URL or a path to a SQLite file.

    ``postgresql://`` without a driver (or ``postgres://``, as some hosts write it)
    means psycopg 3, the driver the project installs. A path is quoted into the URL
    (a ``?`` in it is part of the file's name, not the start of options) and ``~`` is
    the user's home.

    >>> engine_url("games.db"), engine_url("postgresql://u@localhost/fb")
    ('sqlite:///games.db', 'postgresql+psycopg://u@localhost/fb')
    >>> engine_url("postgres://u@localhost/fb")
    'postgresql+psycopg://u@localhost/fb'
    >>> engine_url("/tmp/a?b.db")
    'sqlite:////tmp/a%3Fb.db'
    """
    if "://" not in database:
        path = str(expand_home(database))
        return URL.create("sqlite", database=path).render_as_string(hide_password=False)
    scheme, _, rest = database.partition("://")
    if scheme in ("postgresql", "postgres"):
        return f"postgresql+psycopg://{rest}"
    return database


def shown_url(database: str) -> str:
    """A database URL fit to print: any password is masked, in the address or
    among the options.

    >>> shown_url("postgresql://fb:secret@db/flowerbridge")
    'postgresql://fb:***@db/flowerbridge'
    >>> shown_url("postgresql://fb@db/flowerbridge?sslmode=require&password=secret")
    'postgresql://fb@db/flowerbridge?sslmode=require&password=***'
    """
    scheme, sep, rest = database.partition("://")
    if not sep:
        return database
    address, query, options = rest.partition("?")
    options = _QUERY_SECRET.sub(r"\1***", options)
    credentials, at, where = address.rpartition("@")
    if at and ":" in credentials:
        address = f"{credentials.partition(':')[0]}:***@{where}"
    return f"{scheme}://{address}{query}{options}"


# the options of a URL that hold a secret (libpq's password and sslpassword)
_QUERY_SECRET = re.compile(r"((?:^|&)(?:ssl)?password=)[^&]*", re.IGNORECASE)


def token_hash(token: str) -> str:
    """The SHA-256 of a seat token, the only form in which it is stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Append:
    """New events for one table's log, and its new status when it changes."""

    table_id: str
    events: list[EventRow]
    status: str | None = None


@dataclass(frozen=True)
class StoredTable:
    """Everything stored about one table, detached from the database."""

    table: TableRow
    seats: tuple[SeatRow, ...]
    events: tuple[EventRow, ...]
    analyses: tuple[AnalysisRow, ...] = ()


class Store:
    """Tables, seats and event logs in one database.

    A server keeps its open tables in memory, so one server only may use a
    database: it calls :meth:`lock` before :meth:`migrate`, and :meth:`close`
    lets the database go. A Store that does not lock (tests, tools) takes the
    lock of no one and is refused by no one.
    """

    def __init__(self, database: str | None = None) -> None:
        database = database or default_database()
        try:
            database.encode("utf-8")
        except UnicodeEncodeError:
            raise StoreError(f"database {database.encode('utf-8', 'replace').decode()!r} is not "
                             "valid text (UTF-8)") from None
        shown = shown_url(database)
        try:
            self.url = url = engine_url(database)
        except NoHomeError as exc:
            raise StoreError(f"cannot open database {shown}: {exc.why}") from None
        parsed = _parse_url(url, shown)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        if self.is_sqlite:
            _check_sqlite_url(parsed, shown)
            # a URL's `~` is the home folder too (as a path's is): SQLite itself would
            # open a folder named `~` here, where the checks below looked in the home folder
            assert parsed.database
            self.url = url = parsed.set(database=str(expand_home(parsed.database))).render_as_string(
                hide_password=False)
        # PostgreSQL: a server that does not answer is an error after a while, not
        # a hang, and a connection whose server or network went away is noticed
        connect_args = {} if self.is_sqlite else _postgres_connect_args(parsed)
        try:
            self.engine: Engine = create_engine(url, pool_pre_ping=True, connect_args=connect_args)
        except ImportError as exc:     # the driver is not installed
            driver = f"its driver, {exc.name}," if exc.name else "its driver"
            # the extra installs psycopg 3: for psycopg2 (postgresql+psycopg2://) it changes nothing
            fix = ("pip install psycopg2-binary in the server's environment, or write the URL "
                   "postgresql://... (psycopg 3, which pip install 'flowerbridge[postgres]' installs)"
                   if exc.name == "psycopg2" else
                   "pip install 'flowerbridge[postgres]' in the server's environment")
            raise StoreError(f"cannot open database {shown}: {driver} is not installed: {fix}") from None
        except (SQLAlchemyError, ValueError) as exc:
            raise StoreError(f"cannot open database {shown}: {exc}") from None
        if self.is_sqlite:
            path = self.engine.url.database
            assert path     # (_check_sqlite_url)
            folder = Path(path).parent
            # a loop of symbolic links (ELOOP), or a folder that may not be searched (EACCES):
            # said as such, not as a folder or a file missing (nor as pathlib's RuntimeError)
            for place in (folder, Path(path)):
                problem = unreachable(place)
                if problem is not None:
                    raise StoreError(f"cannot open database {shown}: {place}: {problem.strerror}")
            if not folder.is_dir():
                raise StoreError(f"cannot open database {shown}: there is no folder {folder}")
            if Path(path).is_dir():
                raise StoreError(f"cannot open database {shown}: {path} is a folder, not a file")
            # a device or a pipe (/dev/null): SQLite would write a journal and the lock
            # file beside it, and fail later with no word of which file
            if Path(path).exists() and not Path(path).is_file():
                raise StoreError(f"cannot open database {shown}: {path} is not a regular file")
            # refused before SQLite opens it: opened, a read-only file in WAL mode gets
            # read-only -wal and -shm files beside it, which go on refusing every write
            # once the file itself is made writable again
            real = os.path.realpath(path)   # (SQLite keeps them beside a link's target)
            for file in (path, f"{real}-wal", f"{real}-shm"):
                if os.path.isfile(file) and not os.access(file, os.W_OK):
                    raise StoreError(f"cannot write to database {shown}: {file} is read-only"
                                     f"{_MAY_NOT_WRITE}")
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self.shown = shown
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._lock: _SqliteLock | _PostgresLock | None = None
        self._file: tuple[int, int] | None = None   # SQLite: the file migrate() found (device, inode)

    def lock(self) -> None:
        """Take this database for this process alone until :meth:`close`; a
        database another server holds is a StoreError, and nothing is changed.

        SQLite: an exclusive ``flock`` on ``FILE.lock`` beside the file (on
        Windows, no lock is taken). PostgreSQL: a session-level advisory lock,
        for the schema the tables are in, on a connection of its own held open.
        Either is let go by the operating system or by PostgreSQL when the
        process dies, however it dies.
        """
        if self._lock is not None:
            return
        if self.is_sqlite:      # a file: an in-memory database is refused by __init__
            self._lock = _SqliteLock.take(Path(self.engine.url.database or ""), self.shown)
        else:                   # PostgreSQL, the one other database taken
            self._lock = _PostgresLock.take(self.url, self.shown)

    def migrate(self) -> None:
        """Bring the schema up to date with the Alembic migrations."""
        from alembic import command
        from alembic.config import Config

        from alembic.util.exc import CommandError

        config = Config(str(ALEMBIC_INI))
        config.set_main_option("script_location", str(MIGRATIONS))
        # SQLite's driver starts no transaction before CREATE TABLE: the
        # migration's engine begins one itself, so that a migration that fails
        # half-way (a table of the same name already there, a killed process)
        # leaves the file as it was, as PostgreSQL does
        try:
            with migration_connection(self.url, self.engine) as connection:
                config.attributes["connection"] = connection
                _check_not_another_programs(connection, self.shown)
                upgrade = _upgrade_from(config, connection)
                command.upgrade(config, "head")
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot migrate the database {self.shown}: {_reason(exc)}") from None
        except CommandError as exc:     # a revision this flowerbridge does not know
            raise StoreError(f"cannot migrate the database {self.shown}: {exc} (made by a newer "
                             "flowerbridge, or not a flowerbridge database?)") from None
        if upgrade is not None:
            log.info("migrated the database %s from revision %s to %s", self.shown, *upgrade)
        if self.is_sqlite:
            # WAL only now, on a file that is flowerbridge's: it is kept in the
            # file, and a start that is refused leaves another program's file as it was
            try:
                with self.engine.connect() as connection:
                    connection.exec_driver_sql("PRAGMA journal_mode=WAL")
            except SQLAlchemyError as exc:
                raise StoreError(f"cannot open database {self.shown}: {_reason(exc)}") from None
            self._file = self._file_now()
        self._check_writable()

    def _file_now(self) -> tuple[int, int] | None:
        """The SQLite file at the database's path now (device, inode); None where there is none."""
        try:
            found = os.stat(self.engine.url.database or "")
        except OSError:
            return None
        return found.st_dev, found.st_ino

    def _check_file(self) -> None:
        """Refuse (a StoreError) to go on where the SQLite file migrate() opened was removed
        or replaced since: the server's connections still write to the file they opened,
        which nobody would find again once the server stops (every action accepted after
        it, lost). The file at the path is looked at before each commit and by the health
        probe; a file removed between that look and the commit is not noticed."""
        if self._file is not None and self._file_now() != self._file:
            raise StoreError(f"the database file {self.engine.url.database} was removed or replaced "
                             "while the server ran: nothing more is stored; restart the server "
                             "(on the file there now, or a new one)")

    def _check_writable(self) -> None:
        """Refuse a database this server can read but not write -- a read-only
        SQLite file, a PostgreSQL role whose transactions are read-only, a hot
        standby -- at start, not at its first table: a write of no row, rolled back."""
        try:
            with self.engine.connect() as connection:
                connection.execute(update(TableRow).where(false()).values(status=TableRow.status))
                connection.rollback()
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot write to database {self.shown}: {_reason(exc)}"
                             f"{_MAY_NOT_WRITE}") from None

    def check(self) -> None:
        """A read of no row, for a health probe: a :class:`StoreError` where the database
        cannot be reached."""
        self._check_file()
        with self._transaction(write=False) as session:
            session.execute(select(TableRow.id).where(false()))

    def limit_waits(self) -> None:
        """PostgreSQL: from now on, a statement that waits on a lock :data:`LOCK_TIMEOUT_MS`,
        or runs :data:`STATEMENT_TIMEOUT_MS`, fails (a server's work, after its migrations,
        which may take longer): a database that takes connections and answers nothing (a
        row locked by a program beside it, a table locked whole) froze every table, nothing
        said to the players nor logged, where a failure is ``busy`` and a log line. Set on
        each connection as it is made, where nothing else set them (:func:`_limit_waits`):
        libpq's options (the URL's, ``PGOPTIONS``) are kept (given as ``options`` here, they
        were replaced, ``PGOPTIONS``'s search_path with them), and a limit set there wins,
        0 included."""
        if self.is_sqlite:
            return
        event.listen(self.engine, "connect", _limit_waits)
        self.engine.dispose()   # (the connections made before are made again, limited)

    def close(self) -> None:
        """Close every connection, and let the database go if :meth:`lock` took it."""
        self.engine.dispose()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    # ------------------------------------------------------------- writes

    def create_table(self, table: TableRow, seats: Iterable[SeatRow],
                     events: Iterable[EventRow], creation: CreationRow | None = None) -> None:
        """Store a new table with its seats and first events, in one transaction; with
        the ``creation`` it was made at, where its request had an ``Idempotency-Key``
        (``repeats.py``), which replaces a row of the same key (one no longer answered,
        not yet forgotten: :meth:`forget_creations`)."""
        with self._transaction(write=True) as session:
            session.add(table)
            session.flush()  # the table row first: seats and events refer to it
            session.add_all([*seats, *events])
            if creation is not None:
                session.execute(delete(CreationRow).where(CreationRow.key_hash == creation.key_hash))
                session.add(creation)

    def forget_creations(self, before: datetime) -> datetime | None:
        """Delete the creations made before ``before`` (no longer answered, their salts
        with them); returns when the oldest left was made, ``None`` where none is left."""
        with self._transaction(write=True) as session:
            session.execute(delete(CreationRow).where(CreationRow.created_at < before))
            return session.scalar(select(func.min(CreationRow.created_at)))

    def append(self, appends: Iterable[Append]) -> None:
        """Append events to tables' logs (and set their status), all in one transaction."""
        with self._transaction(write=True) as session:
            for append in appends:
                session.add_all(append.events)
                if append.status is not None:
                    session.execute(update(TableRow).where(TableRow.id == append.table_id)
                                    .values(status=append.status))

    def mark_joined(self, table_id: str, seat: str) -> None:
        """Record that a seat's person has connected at least once."""
        with self._transaction(write=True) as session:
            session.execute(update(SeatRow).where(SeatRow.table_id == table_id,
                                                  SeatRow.seat == seat).values(joined=True))

    def mark_away(self, table_id: str, seat: str, left_at: datetime | None, replaced: bool,
                  seq: int | None) -> None:
        """Record when a seat's person left (``None``: connected), whether a stand-in
        bot plays for them, and from which ``seq`` of the table's log."""
        with self._transaction(write=True) as session:
            session.execute(update(SeatRow).where(SeatRow.table_id == table_id,
                                                  SeatRow.seat == seat)
                            .values(left_at=left_at, replaced=replaced, replaced_seq=seq))

    def save_analysis(self, table_id: str, hand: int, values: list[list[int]]) -> None:
        """Keep a finished hand's double-dummy values (a second save of a hand replaces none)."""
        with self._transaction(write=True) as session:
            if session.get(AnalysisRow, (table_id, hand)) is None:
                session.add(AnalysisRow(table_id=table_id, hand=hand, values=values))

    # -------------------------------------------------------------- reads

    def load(self, table_id: str) -> StoredTable | None:
        """A table with its seats and its whole log, or ``None``."""
        with self._transaction(write=False) as session:
            table = session.get(TableRow, table_id)
            if table is None:
                return None
            seats = session.scalars(select(SeatRow).where(SeatRow.table_id == table_id)
                                    .order_by(SeatRow.seat)).all()
            events = session.scalars(select(EventRow).where(EventRow.table_id == table_id)
                                     .order_by(EventRow.seq)).all()
            analyses = session.scalars(select(AnalysisRow)
                                       .where(AnalysisRow.table_id == table_id)).all()
            return StoredTable(table, tuple(seats), tuple(events), tuple(analyses))

    def creation(self, key_hash: str) -> CreationRow | None:
        """The table made at the request of that key (``Repeatable.key_hash``), or ``None``."""
        with self._transaction(write=False) as session:
            return session.get(CreationRow, key_hash)

    def has_table(self, table_id: str, seed: str) -> bool:
        """Whether the table of that id and seed is stored (its seats and first
        events with it). The seed tells it from another table that took the id
        first: ids are short, and two tables' ids may collide where seeds do not."""
        with self._transaction(write=False) as session:
            row = session.get(TableRow, table_id)
            return row is not None and row.seed == seed

    def seat_joined(self, table_id: str, seat: str) -> bool:
        """Whether the database holds that a seat's person has connected once."""
        with self._transaction(write=False) as session:
            return bool(session.scalar(select(SeatRow.joined).where(SeatRow.table_id == table_id,
                                                                    SeatRow.seat == seat)))

    def table_ids(self, status: str | None = None) -> list[str]:
        """Ids of all tables (with that status), newest first."""
        query = select(TableRow.id).order_by(TableRow.created_at.desc(), TableRow.id)
        if status is not None:
            query = query.where(TableRow.status == status)
        with self._transaction(write=False) as session:
            return list(session.scalars(query))

    # ------------------------------------------------------------ pruning

    def prune(self, before: datetime, *, unfinished: bool = False, dry_run: bool = False) -> "Pruned":
        """Remove the tables last played before ``before`` — those whose session is over
        (finished, or closed), and with ``unfinished`` those still open too — with their
        seats, logs, values and creations kept for a repeat, in one transaction; and the
        rows a deletion made outside the server left behind (``sqlite3`` deletes with
        foreign keys off, so a table's rows outlived it). With ``dry_run`` only counts them. The caller holds the lock:
        a server keeps its open tables in memory."""
        last = select(EventRow.table_id, func.max(EventRow.created_at).label("at")) \
            .group_by(EventRow.table_id).subquery()
        # (a table with no event, as a hand-made deletion may leave, by its creation)
        query = select(TableRow.id).outerjoin(last, last.c.table_id == TableRow.id) \
            .where(func.coalesce(last.c.at, TableRow.created_at) < before)
        if not unfinished:
            query = query.where(TableRow.status != PLAYING)
        with self._transaction(write=not dry_run) as session:
            ids = list(session.scalars(query))
            hands = events = 0
            for start in range(0, len(ids), PRUNE_BATCH):
                batch = ids[start:start + PRUNE_BATCH]
                hands += session.scalar(select(func.count()).where(EventRow.table_id.in_(batch),
                                                                   EventRow.kind == "deal")) or 0
                events += session.scalar(select(func.count()).where(EventRow.table_id.in_(batch))) or 0
                if not dry_run:
                    for row in TABLES_ROWS:
                        session.execute(delete(row).where(row.table_id.in_(batch)))
                    session.execute(delete(TableRow).where(TableRow.id.in_(batch)))
            stray = 0
            for row in TABLES_ROWS:
                orphans = ~row.table_id.in_(select(TableRow.id))
                stray += session.scalar(select(func.count()).select_from(row).where(orphans)) or 0
                if not dry_run:
                    session.execute(delete(row).where(orphans))
        return Pruned(len(ids), hands, events, stray)

    def is_current(self) -> bool:
        """Whether the database's schema is this version's (no migration pending); a
        StoreError where it is at a revision this version does not know (a newer one's),
        which no migration of this version's brings up to date."""
        from alembic.config import Config
        from alembic.runtime.migration import MigrationContext
        from alembic.script import ScriptDirectory
        from alembic.util import CommandError

        config = Config(str(ALEMBIC_INI))
        config.set_main_option("script_location", str(MIGRATIONS))
        try:
            with self.engine.connect() as connection:
                current = MigrationContext.configure(connection).get_current_heads()
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot open database {self.shown}: {_reason(exc)}") from None
        script = ScriptDirectory.from_config(config)
        try:
            for revision in current:
                script.get_revision(revision)
        except CommandError as exc:     # (as migrate() says it)
            raise StoreError(f"cannot read the database {self.shown}: {exc} (made by a newer "
                             "flowerbridge, or not a flowerbridge database?)") from None
        return set(current) == set(script.get_heads())

    def check_made(self) -> None:
        """Refuse (a StoreError) a database that no flowerbridge server has made: a
        SQLite file that is not there, or a database without the migrations' record."""
        if self.is_sqlite and not Path(self.engine.url.database or "").exists():
            raise StoreError(f"there is no database {self.shown}: give the one the server uses "
                             "(--database, as serve takes it)")
        try:
            with self.engine.connect() as connection:
                made = inspect(connection).has_table("alembic_version")
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot open database {self.shown}: {_reason(exc)}") from None
        if not made:
            raise StoreError(f"database {self.shown} holds no flowerbridge server's tables")

    def compact(self) -> None:
        """Give the space of removed rows back to the file system: SQLite's ``VACUUM``
        (a PostgreSQL server reuses it by itself: autovacuum)."""
        if not self.is_sqlite:
            return
        try:
            with self.engine.connect() as connection:
                connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("VACUUM")
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot compact database {self.shown}: {_reason(exc)}") from None

    def last_played(self, table_ids: Iterable[str]) -> dict[str, datetime]:
        """When each of these tables' latest event was stored (tables with none, or not
        there, left out), read without loading the tables."""
        ids = list(table_ids)
        out: dict[str, datetime] = {}
        with self._transaction(write=False) as session:
            for start in range(0, len(ids), PRUNE_BATCH):
                query = select(EventRow.table_id, func.max(EventRow.created_at)) \
                    .where(EventRow.table_id.in_(ids[start:start + PRUNE_BATCH])).group_by(EventRow.table_id)
                out.update({table_id: at for table_id, at in session.execute(query)})
        return out

    # ----------------------------------------------------------- sessions

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Session]:
        """A session that commits on success; database failures become StoreError."""
        session = self._sessions()
        try:
            yield session
            if write:
                self._check_file()
                session.commit()
        except SQLAlchemyError as exc:
            session.rollback()
            raise StoreError(f"database {'write' if write else 'read'} failed: "
                             f"{_reason(exc)}") from None
        finally:
            session.close()


# Tables named by one statement of :meth:`Store.prune` or :meth:`Store.last_played` at most
# (the ids are bound parameters: SQLite once allowed 999 a statement).
PRUNE_BATCH = 500


@dataclass(frozen=True)
class Pruned:
    """What :meth:`Store.prune` removed (or would): tables, their hands and events,
    and rows left behind by tables removed before."""

    tables: int
    hands: int
    events: int
    stray: int


def _check_not_another_programs(connection: Connection, shown: str) -> None:
    """Refuse (a StoreError) a database that holds tables (or views) but no record of flowerbridge's
    migrations: another program's file, or a PostgreSQL schema in use. The server would
    have added its tables beside that program's (and switched a SQLite file to WAL)."""
    found = inspect(connection)
    if found.has_table("alembic_version"):     # (anywhere on the search path, as Alembic finds it)
        return
    if connection.dialect.name == "postgresql":
        # the schema the tables would be made in alone (not every schema on the search path:
        # `fb,public` gives the server a schema of its own, other programs' tables in public),
        # and no extension's own (pg_stat_statements' views, PostGIS's spatial_ref_sys)
        theirs = sorted(connection.exec_driver_sql(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f') "
            "AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass "
            "AND d.objid = c.oid AND d.deptype = 'e')").scalars())
    else:
        theirs = sorted([*found.get_table_names(), *found.get_view_names()])
    if theirs:
        named = ", ".join(theirs[:5]) + (f" and {len(theirs) - 5} more" if len(theirs) > 5 else "")
        raise StoreError(f"cannot migrate the database {shown}: it holds tables no flowerbridge server "
                         f"made ({named}), another program's: give a new file or an empty database "
                         "(on PostgreSQL, a schema of its own); nothing was changed")


def _upgrade_from(config: Any, connection: Any) -> tuple[str, str] | None:
    """The revisions a migration of tables an earlier version made goes from and to (None
    for a first creation of them, or none to make): logged once it has run, so that the
    operator knows it happened."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    current = MigrationContext.configure(connection).get_current_revision()
    head = ScriptDirectory.from_config(config).get_current_head()
    return (current, head) if current is not None and head is not None and current != head else None


# the databases a server can run on (each with its one-server lock): backend, drivers
SUPPORTED = {"sqlite": ("pysqlite",), "postgresql": ("psycopg", "psycopg2")}
_SUPPORTED_TEXT = ("SQLite (a file path, or sqlite:///FILE) or PostgreSQL "
                   "(postgresql://USER@HOST/DATABASE, driver psycopg)")


def _parse_url(url: str, shown: str) -> URL:
    """``url`` parsed, of a database a server can run on; else a StoreError
    saying what is wrong with it."""
    try:
        parsed = make_url(url)
    except (ValueError, ArgumentError) as exc:
        if str(exc).startswith("invalid literal for int()"):
            # (its text is not repeated: with a '/' in a password, it is part of the password)
            why = ("what stands for its port is not a number (an IPv6 address is written in "
                   "brackets, postgresql://USER@[::1]:5432/DATABASE; a '/', '@', ':' or '?' in a "
                   "name or password as %2F, %40, %3A, %3F)")
        else:
            why = f"give {_SUPPORTED_TEXT}"
        raise StoreError(f"{shown} is not a valid database URL: {why}") from None
    drivers = SUPPORTED.get(parsed.get_backend_name())
    if drivers is None or parsed.get_driver_name() not in drivers:
        raise StoreError(f"{shown}: a server runs on {_SUPPORTED_TEXT}, not "
                         f"{parsed.drivername}")
    if parsed.host is not None and "@" in parsed.host:
        # a password's '@' left as it is: the driver took the rest of the password for the
        # host, and its error ("failed to resolve host 'pw@db'") printed it
        raise StoreError(f"{shown} is not a valid database URL: it has an '@' after the one "
                         "before its host (an '@' in a name or password is written %40)")
    return parsed


def _check_sqlite_url(url: URL, shown: str) -> None:
    """Refuse an in-memory SQLite database, and options (URI filenames among them)."""
    query = {key.lower(): value for key, value in url.query.items()}
    if (not url.database or url.database == ":memory:" or query.get("mode") == "memory"
            or (url.database.startswith("file::memory:") and "uri" in query)):
        raise StoreError(f"{shown} is an in-memory database, which loses every table "
                         "when the server stops: give a file (a path, or sqlite:///FILE)")
    if "uri" in query:
        raise StoreError(f"{shown}: a SQLite URI filename (uri=true) is not taken, as the "
                         "server must know the file it uses: give the file (a path, or "
                         "sqlite:///FILE)")
    if query:
        raise StoreError(f"{shown}: a SQLite database takes no options ({', '.join(query)}): "
                         "give the file alone (a path, or sqlite:///FILE)")
    try:        # (its `~` is expanded: Store.__init__)
        expand_home(url.database)
    except NoHomeError as exc:
        raise StoreError(f"cannot open database {shown}: {exc.why}") from None


# How long the server's statements may wait on a lock, and run, on PostgreSQL (Store.limit_waits)
LOCK_TIMEOUT_MS = 10_000
STATEMENT_TIMEOUT_MS = 60_000


def _limit_waits(connection: Any, _record: Any) -> None:
    """Set :data:`LOCK_TIMEOUT_MS` and :data:`STATEMENT_TIMEOUT_MS` on a new PostgreSQL
    connection, each where nothing set it (PostgreSQL's own default, no limit): a value
    the connection's options, the database's or role's settings or the server's
    configuration gave, 0 (no limit) included, is kept."""
    limits = {"lock_timeout": LOCK_TIMEOUT_MS, "statement_timeout": STATEMENT_TIMEOUT_MS}
    autocommit = connection.autocommit
    connection.autocommit = True    # (a SET in a transaction of its own would be rolled back)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT name FROM pg_settings WHERE name IN ('lock_timeout', 'statement_timeout') "
                           "AND source = 'default'")
            for (name,) in cursor.fetchall():
                cursor.execute(f"SET {name} = {int(limits[name])}")
    finally:
        connection.autocommit = autocommit


def _postgres_connect_args(url: URL, **more: Any) -> dict[str, Any]:
    """libpq's connect timeout and TCP keepalives (a connection whose server or
    network went away is noticed; data sent and not acknowledged for 30 s, too,
    which keepalives do not look at), where the URL does not set them, and ``more``."""
    settings = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10,
                "keepalives_count": 3, "connect_timeout": 10, "tcp_user_timeout": 30_000}
    return {**{key: value for key, value in settings.items() if key not in url.query}, **more}


def _reason(exc: BaseException) -> str:
    # SQLAlchemy's messages carry the statement and parameters: the first line is the reason.
    return str(getattr(exc, "orig", None) or exc).splitlines()[0]


@contextmanager
def migration_connection(url: str, engine: Engine | None = None) -> Iterator[Connection]:
    """A connection in one transaction for the migrations (``engine``'s, or a
    new engine's for ``url``): on SQLite, on an engine of its own
    (:func:`_transactional_sqlite`), and checked by :func:`_check_foreign_keys`
    before the commit (refused, rolled back). Used by :meth:`Store.migrate` and
    by Alembic run by hand (``migrations/env.py``)."""
    sqlite = make_url(url).get_backend_name() == "sqlite"
    own = _transactional_sqlite(url) if sqlite else engine or create_engine(url)
    try:
        with own.begin() as connection:
            # rows already left without their table (a deletion outside the server, with
            # foreign keys off) are not the migration's doing: said, not refused
            there = _foreign_key_problems(connection) if sqlite else []
            yield connection
            if sqlite:
                _check_foreign_keys(connection, len(there))
    finally:
        if own is not engine:
            own.dispose()


def _transactional_sqlite(url: str) -> Engine:
    """An engine on the SQLite file at ``url`` for the migrations: its
    transactions take in DDL too (the SQLAlchemy documentation's recipe for the
    pysqlite driver), and foreign keys are not enforced while they run.

    A batch migration (``render_as_batch``, env.py) rebuilds a table: it makes a
    new one, copies the rows, drops the old one and renames the new. With
    foreign keys on, dropping ``tables`` deletes every seat, event and analysis
    (``ON DELETE CASCADE``); SQLite's own procedure for changing a table
    (https://sqlite.org/lang_altertable.html, section 7) turns them off, which
    can only be done outside a transaction, and checks them before the commit
    (:func:`_check_foreign_keys`).
    """
    engine = create_engine(url)

    def connect(connection: Any, record: Any) -> None:
        _sqlite_pragmas(connection, record, foreign_keys=False)
        connection.isolation_level = None   # the driver's own BEGINs off: ours below

    event.listen(engine, "connect", connect)
    event.listen(engine, "begin", lambda conn: conn.exec_driver_sql("BEGIN IMMEDIATE"))
    return engine


def _foreign_key_problems(connection: Connection) -> list[Any]:
    """SQLite's list of rows that refer to a row that is not there."""
    return list(connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall())


def _check_foreign_keys(connection: Connection, there: int = 0) -> None:
    """Refuse (a StoreError, in the migration's transaction: it is rolled back)
    a migrated SQLite file where the migration left rows referring to rows that
    are not there; the ``there`` such rows found before it are logged, not refused
    (a server refused to start over rows that ``sqlite3`` left, saying that the
    migration, of which none was pending, would leave them)."""
    broken = _foreign_key_problems(connection)
    if len(broken) > there:
        table, rowid, parent = broken[0][:3]
        raise StoreError(f"cannot migrate the database: the migration would leave {len(broken) - there} "
                         f"row(s) referring to rows that are not there (the first: row {rowid} "
                         f"of {table}, in {parent}); nothing was changed")
    if broken:
        log.warning("the database holds %d row(s) of tables that are not there (left by a deletion "
                    "made with foreign keys off, as sqlite3's are); 'flowerbridge prune' removes them",
                    len(broken))


def _sqlite_pragmas(connection: Any, _record: Any, foreign_keys: bool = True) -> None:
    # FULL makes every commit durable on disk, not only against a killed process;
    # the busy timeout waits out a concurrent writer. (WAL, which lets readers run
    # during a write, is set once by Store.migrate: it is kept in the file.)
    cursor = connection.cursor()
    for pragma in ("synchronous=FULL", f"foreign_keys={'ON' if foreign_keys else 'OFF'}",
                   "busy_timeout=10000"):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()


def _in_use(shown: str, how: str) -> StoreError:
    return StoreError(f"another flowerbridge server is using this database ({shown}; {how}): "
                      "stop it first, or give another --database")


class _SqliteLock:
    """An exclusive ``flock`` on ``FILE.lock`` beside a SQLite file, held open."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path, self.fd = path, fd

    @classmethod
    def take(cls, database: Path, shown: str) -> "_SqliteLock | None":
        if sys.platform == "win32":     # no flock: one server per file is up to the user there
            return None
        import fcntl

        # the file's real place, so that two names of it (a symlink) share one lock
        path = database.resolve().with_name(database.resolve().name + ".lock")
        for _ in range(10):
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
            except OSError as exc:
                raise StoreError(f"cannot open database {shown}: cannot create the lock file "
                                 f"{path}: {exc.strerror}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise _in_use(shown, f"{path} is locked") from None
            except OSError as exc:
                os.close(fd)
                raise StoreError(f"cannot open database {shown}: cannot lock {path}: "
                                 f"{exc.strerror}") from None
            # a server stopping unlinks the file it held: locked, ours must still be the one there
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                same = False
            if same:
                return cls(path, fd)
            os.close(fd)
        raise _in_use(shown, f"{path} keeps changing")

    def release(self) -> None:
        # unlinked while still locked: a server starting now finds no file, or a new one
        try:
            self.path.unlink()
        except OSError:
            pass
        os.close(self.fd)


def _advisory_key(schema: str) -> int:
    """A fixed signed 64-bit key for ``pg_try_advisory_lock``, from "flowerbridge"
    and the schema the tables are in (two servers on two schemas of one database
    do not share tables)."""
    digest = hashlib.sha256(f"flowerbridge:{schema}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class _PostgresLock:
    """A session-level advisory lock on a connection of its own (not in the
    pool, so that nothing recycles it), kept open; a thread checks that the
    connection is alive, logs it when it is not, and takes the lock again."""

    def __init__(self, engine: Engine, shown: str, connection: Connection, key: int) -> None:
        self.engine, self.shown, self.connection, self.key = engine, shown, connection, key
        self.guard = threading.Lock()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="flowerbridge-db-lock",
                                       daemon=True)

    @classmethod
    def take(cls, url: str, shown: str) -> "_PostgresLock":
        engine = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT",
                               connect_args=_postgres_connect_args(
                                   make_url(url), application_name="flowerbridge lock"))
        try:
            connection = engine.connect()
            try:
                # the schema the tables are in (found on the search path, as the
                # migrations find them), else the one they would be made in
                schema = connection.exec_driver_sql(
                    "SELECT coalesce((SELECT n.nspname FROM pg_class c JOIN pg_namespace n "
                    "ON n.oid = c.relnamespace WHERE c.oid = to_regclass('alembic_version')), "
                    "current_schema())").scalar() or ""
                key = _advisory_key(schema)
                taken = connection.exec_driver_sql(f"SELECT pg_try_advisory_lock({key})").scalar()
            except BaseException:
                connection.close()
                raise
        except SQLAlchemyError as exc:
            engine.dispose()
            raise StoreError(f"cannot open database {shown}: {_reason(exc)}") from None
        except BaseException:
            engine.dispose()
            raise
        if not taken:
            connection.close()
            engine.dispose()
            raise _in_use(shown, f"advisory lock {key} is held")
        lock = cls(engine, shown, connection, key)
        lock.thread.start()
        return lock

    def _watch(self) -> None:
        lost = False
        while not self.stopping.wait(LOCK_CHECK_SECONDS):
            with self.guard:
                if self.stopping.is_set():
                    return
                lost = not self._check(lost)

    def _check(self, lost: bool) -> bool:
        """Whether the lock is held (taken again if its connection died)."""
        if not lost:
            try:
                self.connection.exec_driver_sql("SELECT 1")
                return True
            except SQLAlchemyError as exc:
                log.error("database %s: the connection that holds this server's lock was lost "
                          "(%s); until it is taken again another server could start on it",
                          self.shown, _reason(exc))
                self.connection.invalidate()
                self.connection.close()
        try:
            connection = self.engine.connect()
            try:
                taken = connection.exec_driver_sql(f"SELECT pg_try_advisory_lock({self.key})").scalar()
            except BaseException:
                connection.close()
                raise
            if taken:
                self.connection = connection
                log.info("database %s: this server's lock is taken again", self.shown)
                return True
            connection.close()
            log.error("database %s: another flowerbridge server now holds the lock: two servers "
                      "on one database show stale tables; stop one of them", self.shown)
        except SQLAlchemyError as exc:
            log.error("database %s: cannot take this server's lock again: %s", self.shown,
                      _reason(exc))
        return False

    def release(self) -> None:
        self.stopping.set()
        # A check stuck on a stalled connection holds the guard: the server stops
        # anyway, and the socket, closed as the process ends, takes the lock with it.
        if not self.guard.acquire(timeout=5):
            log.warning("database %s: the lock's connection does not answer; it goes with "
                        "the process", self.shown)
            return
        try:
            try:
                self.connection.close()     # PostgreSQL lets the lock go with its session
            except SQLAlchemyError:
                pass
            self.engine.dispose()
        finally:
            self.guard.release()
        if self.thread is not threading.current_thread():
            self.thread.join(timeout=5)
