"""The server's database: SQLite by default, PostgreSQL by URL.

:class:`Store` is synchronous (SQLAlchemy 2 sessions); the table manager calls
it from a worker thread so the event loop never waits on a disk. Every write
is one transaction, committed before the server tells anyone about it.
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from sqlalchemy import create_engine, event, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from ..errors import FlowerBridgeError
from .models import AnalysisRow, EventRow, SeatRow, TableRow

ALEMBIC_INI = Path(__file__).with_name("alembic.ini")


class StoreError(FlowerBridgeError):
    """The database cannot be opened, migrated or written."""

    code = "busy"


def default_database() -> str:
    """The SQLite file in the user's data directory (created if missing)."""
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("flowerbridge"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'flowerbridge.db'}"


def engine_url(database: str) -> str:
    """A SQLAlchemy URL from what a user types: a URL or a path to a SQLite file.

    ``postgresql://`` without a driver means psycopg 3, the driver the project installs.

    >>> engine_url("games.db"), engine_url("postgresql://u@localhost/fb")
    ('sqlite:///games.db', 'postgresql+psycopg://u@localhost/fb')
    """
    if "://" not in database:
        return f"sqlite:///{database}"
    scheme, _, rest = database.partition("://")
    if scheme in ("postgresql", "postgres"):
        return f"postgresql+psycopg://{rest}"
    return database


def shown_url(database: str) -> str:
    """A database URL fit to print: any password is masked.

    >>> shown_url("postgresql://fb:secret@db/flowerbridge")
    'postgresql://fb:***@db/flowerbridge'
    """
    scheme, sep, rest = database.partition("://")
    credentials, at, where = rest.rpartition("@")
    if not (sep and at and ":" in credentials):
        return database
    return f"{scheme}://{credentials.partition(':')[0]}:***@{where}"


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
    """Tables, seats and event logs in one database."""

    def __init__(self, database: str | None = None) -> None:
        url = engine_url(database or default_database())
        self.is_sqlite = url.startswith("sqlite")
        if self.is_sqlite:
            path = url.partition(":///")[2].partition("?")[0]
            if not path or path == ":memory:":
                raise StoreError(f"{shown_url(url)} is an in-memory database, which loses every table "
                                 "when the server stops: give a file (a path, or sqlite:///FILE)")
            folder = Path(path).expanduser().parent
            if not folder.is_dir():
                raise StoreError(f"cannot open database {shown_url(url)}: there is no folder {folder}")
        try:
            self.engine: Engine = create_engine(url, pool_pre_ping=True)
        except (SQLAlchemyError, ImportError, ValueError) as exc:
            raise StoreError(f"cannot open database {shown_url(url)}: {exc}") from None
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    def migrate(self) -> None:
        """Bring the schema up to date with the Alembic migrations."""
        from alembic import command
        from alembic.config import Config

        config = Config(str(ALEMBIC_INI))
        config.set_main_option("script_location", str(ALEMBIC_INI.with_name("migrations")))
        try:
            with self.engine.begin() as connection:
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot migrate the database: {_reason(exc)}") from None

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------- writes

    def create_table(self, table: TableRow, seats: Iterable[SeatRow],
                     events: Iterable[EventRow]) -> None:
        """Store a new table with its seats and first events, in one transaction."""
        with self._transaction(write=True) as session:
            session.add(table)
            session.flush()  # the table row first: seats and events refer to it
            session.add_all([*seats, *events])

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

    def table_ids(self, status: str | None = None) -> list[str]:
        """Ids of all tables (with that status), newest first."""
        query = select(TableRow.id).order_by(TableRow.created_at.desc(), TableRow.id)
        if status is not None:
            query = query.where(TableRow.status == status)
        with self._transaction(write=False) as session:
            return list(session.scalars(query))

    # ----------------------------------------------------------- sessions

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Session]:
        """A session that commits on success; database failures become StoreError."""
        session = self._sessions()
        try:
            yield session
            if write:
                session.commit()
        except SQLAlchemyError as exc:
            session.rollback()
            raise StoreError(f"database {'write' if write else 'read'} failed: "
                             f"{_reason(exc)}") from None
        finally:
            session.close()


def _reason(exc: BaseException) -> str:
    # SQLAlchemy's messages carry the statement and parameters: the first line is the reason.
    return str(getattr(exc, "orig", None) or exc).splitlines()[0]


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    # WAL lets readers run during a write; FULL makes every commit durable on disk,
    # not only against a killed process; the busy timeout waits out a concurrent writer.
    cursor = connection.cursor()
    for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON",
                   "busy_timeout=10000"):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()
