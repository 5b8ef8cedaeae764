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
    review (when the compiled solver is there).
    """

    database: str | None = None
    bot_delay: float = 0.6
    replace_after: float | None = 60.0
    analysis: bool = True
    web_dir: Path = WEB_DIR
