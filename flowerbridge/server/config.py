"""The server's settings, as given to ``flowerbridge serve``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

WEB_DIR = Path(__file__).with_name("web")


@dataclass(frozen=True)
class ServerConfig:
    """How a server runs.

    ``database`` is a SQLAlchemy URL or a SQLite file path (``None``: a file in
    the user's data directory). ``bot_delay`` is the pause, in seconds, before
    each bot action, so people can follow the play. ``replace_after`` is how
    long a person may be away before a stand-in bot takes their seat
    (``None``: never). ``analysis`` turns on the double-dummy values of the
    review (when the compiled solver is there). ``max_tables`` caps the tables
    open at once (``503 full`` past it, unless a table has been idle, no
    connection open to it and no event, for ``idle_close`` seconds: the one idle
    longest is closed to make room), ``tables_per_minute`` how fast one
    address may create them and ``tables_per_address`` how many of them it may hold
    open (``429 too_many``), ``connections_per_address``
    how many websockets one address may hold open at once (past it the new
    one is refused ``too_many``, close code 4429); a connection may send
    ``message_rate`` messages a second, ``message_burst`` at once (more are
    answered ``too_fast``, unread); see ``docs/server.md``, *How it is built*, **Limits**.
    ``allowed_hosts``, when given, are the only hosts a request's Host header
    may name (``headers.HostCheck``; serve gives them, loopback ones at least,
    when it listens on loopback); ``None``, any Host is answered.
    ``site_names`` are the names ``--allowed-hosts`` gives: a page of one of those
    sites may open a websocket whatever Host a proxy passes on (its names alone,
    not its addresses: ``headers.HostNames.names_site``).
    """

    database: str | None = None
    bot_delay: float = 0.6
    replace_after: float | None = 60.0
    analysis: bool = True
    max_tables: int = 1000
    idle_close: float = 3600.0
    tables_per_minute: float = 30.0
    # (made by this server since it started: at 30 a minute one address filled a server of
    # 1,000 tables in half an hour, and took each room made again)
    tables_per_address: int = 100
    connections_per_address: int = 200
    # messages a connection may send: this many a second on average, burst at once
    message_rate: float = 20.0
    message_burst: float = 60.0
    web_dir: Path = WEB_DIR
    allowed_hosts: tuple[str, ...] | None = None
    site_names: tuple[str, ...] = ()
