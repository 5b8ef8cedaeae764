"""Storage models (SQLAlchemy 2): tables, seats, the append-only event log, analyses,
and the creations a repeat of their request is answered again from.

These are the server's persistent nouns, kept apart from the wire schemas
(:mod:`flowerbridge.server.schemas`). A table's state is never stored as such:
it is rebuilt by replaying its events through the rules engine, so the log is
the single source of truth and a restart resumes exactly where the last
committed event left the table.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Integer, String, false
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    """Declarative base of the server's models."""


class TableRow(Base):
    """A table: its rule options, session length and the secret seed of its deals."""

    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    seed: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    max_hands: Mapped[int | None] = mapped_column(Integer, nullable=True)
    max_games: Mapped[int | None] = mapped_column(Integer, nullable=True)
    stand_in: Mapped[str] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(16), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SeatRow(Base):
    """One of a table's four seats: a bot of some level, or a person with a token.

    Only the SHA-256 hash of a person's token is kept. ``joined`` records that
    the person has connected once, which starts the stand-in clock when they leave;
    ``replaced`` that a stand-in bot plays for them (they stayed away longer than
    the server's ``replace_after``, and have not come back), so that it goes on
    playing at once after a restart rather than after another ``replace_after``;
    ``left_at`` when the person left (every connection of the seat closed; null
    while connected, or never joined), so that after a restart the stand-in comes
    ``replace_after`` after that, not after the restart; ``replaced_seq`` the
    table's ``seq`` when the stand-in took the seat, so that the person is told,
    coming back, what it did since (its events after that ``seq``, marked
    ``"stand_in"`` in their detail), however many restarts came between.
    """

    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"),
                                          primary_key=True)
    seat: Mapped[str] = mapped_column(String(1), primary_key=True)
    player: Mapped[str] = mapped_column(String(8))
    level: Mapped[str | None] = mapped_column(String(40), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    joined: Mapped[bool] = mapped_column(Boolean, default=False)
    replaced: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    left_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    replaced_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)


class EventRow(Base):
    """One event of a table's log: a deal, a call, a card, an undo (a person at a
    table of bots took back calls and cards: ``detail`` names them; they stay in
    the log) or a close.

    ``seq`` numbers a table's events from 1 without gaps; the primary key makes
    a second writer of the same number fail instead of forking the log.
    ``seat`` is who decided the action (declarer for the dummy's cards);
    ``action`` is the call's text or the card's code. ``detail`` holds the
    dealt hands of a deal (so a resumed table never depends on how a seed is
    turned into cards), a bot's explanation of its call, and ``"stand_in": true``
    for a call or card a stand-in made for a person (with ``"from"``, the dummy's
    seat, for a card it played from the dummy as declarer).
    """

    __tablename__ = "events"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"),
                                          primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    hand: Mapped[int] = mapped_column(Integer)
    seat: Mapped[str | None] = mapped_column(String(1), nullable=True)
    action: Mapped[str | None] = mapped_column(String(8), nullable=True)
    detail: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AnalysisRow(Base):
    """The double-dummy values of a finished hand's cards, computed once.

    ``values`` holds one ``[dd, best]`` pair per card played, in order
    (``docs/protocol.md``, "The review"); the solver takes minutes on a hand,
    so a restarted server reads them instead of solving again.
    """

    __tablename__ = "analyses"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"),
                                          primary_key=True)
    hand: Mapped[int] = mapped_column(Integer, primary_key=True)
    values: Mapped[list[list[int]]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CreationRow(Base):
    """A table made at a request sent with an ``Idempotency-Key``: what answers a
    repeat of that request after a restart (``server/repeats.py``), for as long as
    a repeat is answered (10 minutes), then deleted (``Store.forget_creations``).

    ``key_hash`` is the SHA-256 of the client's address (as the limits count it) and
    its key, ``request_hash`` that of the request as the server read it; ``salt`` is
    the secret that, with the key only the client knows, gives the seat tokens again
    (``repeats.seat_token``); the key is never stored.
    """

    __tablename__ = "creations"

    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    salt: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
