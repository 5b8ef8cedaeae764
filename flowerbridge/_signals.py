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


@contextmanager
def signals_held() -> Generator[None, None, None]:
    """While this lasts (clean-up that a stop must not cut short, such as letting a lock go),
    Ctrl-C and SIGTERM are only noted; the first that came is raised as it ends, through the
    handler it had before. In another thread, where no handler can be set, nothing is held."""
    came: list[int] = []

    def note(signum: int, frame: Any) -> None:
        came.append(signum)

    try:
        before = {signum: signal.signal(signum, note) for signum in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:      # not the main thread
        yield
        return
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
        if came:
            signal.raise_signal(came[0])

