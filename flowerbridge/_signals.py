"""SIGTERM taken as a stop of Ctrl-C's kind, for the commands that work long and
keep what they finished (``lab``, ``match``, ``demo``): ``kill PID`` or a job scheduler's stop
then ends them as Ctrl-C does, what was finished kept and said, exit status 143,
rather than killing them outright."""

from __future__ import annotations

import signal
from contextlib import contextmanager
from typing import Any, Generator


class Terminated(KeyboardInterrupt):
    """SIGTERM received inside :func:`terminated_as_a_stop`: a stop as Ctrl-C's (every
    ``except KeyboardInterrupt`` cleans up after it alike), said and ended with exit
    status 143 where the command tells the two apart."""


@contextmanager
def terminated_as_a_stop() -> Generator[None, None, None]:
    """While this lasts, SIGTERM raises :class:`Terminated` in the main thread (where
    Python runs signal handlers); then the handler before comes back. In another
    thread, where no handler can be set, SIGTERM keeps what it does."""
    def stop(signum: int, frame: Any) -> None:
        raise Terminated()

    try:
        before = signal.signal(signal.SIGTERM, stop)
    except ValueError:      # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
