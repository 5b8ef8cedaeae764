"""Signals as the commands take them. SIGTERM as a stop of Ctrl-C's kind, for the commands
that work long and keep what they finished (``lab``, ``match``, ``demo``): ``kill PID`` or a
job scheduler's stop then ends them as Ctrl-C does, what was finished kept and said, exit
status 143, rather than killing them outright. And clean-up that a second stop must not cut
short (``serve`` letting its database's lock go)."""

from __future__ import annotations

import signal
from contextlib import contextmanager
from typing import Any, Callable, Generator, Iterable


class Terminated(KeyboardInterrupt):
    """SIGTERM received inside :func:`terminated_as_a_stop`: a stop as Ctrl-C's (every
    ``except KeyboardInterrupt`` cleans up after it alike), said and ended with exit
    status 143 where the command tells the two apart."""


@contextmanager
def handling(signums: Iterable[int], handler: Callable[[int, Any], None]) -> Generator[bool, None, None]:
    """While this lasts, ``handler`` takes the signals ``signums`` in the main thread (where
    Python runs signal handlers); then the handlers before come back. In another thread,
    where no handler can be set, the signals keep what they do (it yields False there)."""
    try:
        before = {signum: signal.signal(signum, handler) for signum in signums}
    except ValueError:      # not the main thread (the first signal.signal refused: none was set)
        yield False
        return
    try:
        yield True
    finally:
        for signum, previous in before.items():
            signal.signal(signum, previous)


@contextmanager
def terminated_as_a_stop() -> Generator[list[int], None, None]:
    """While this lasts, SIGTERM raises :class:`Terminated` (see :func:`handling`). It
    yields a list that holds SIGTERM once it came: a library that catches the stop and
    raises a ``KeyboardInterrupt`` of its own loses its kind (Ray's wait, blocked in its
    core: a run stopped there said "interrupted", status 130), which the list keeps."""
    came: list[int] = []

    def stop(signum: int, frame: Any) -> None:
        came.append(signum)
        raise Terminated()

    with handling((signal.SIGTERM,), stop):
        yield came


@contextmanager
def signals_held() -> Generator[None, None, None]:
    """While this lasts (clean-up that a stop must not cut short, such as letting a lock go),
    Ctrl-C and SIGTERM are only noted; the first that came is raised as it ends, through the
    handler it had before (in another thread nothing is held: see :func:`handling`)."""
    came: list[int] = []
    with handling((signal.SIGINT, signal.SIGTERM), lambda signum, frame: came.append(signum)):
        yield
    if came:
        signal.raise_signal(came[0])


@contextmanager
def one_stop() -> Generator[None, None, None]:
    """While this lasts (in the main thread; elsewhere it changes nothing), the first
    Ctrl-C raises ``KeyboardInterrupt`` as Python's own handler does, and the handler
    first sets Ctrl-C and SIGTERM aside: a command that a stop ends at once, whose
    second Ctrl-C (pressed twice, or held) came while the first was still unwinding
    and printed a traceback under its last line, however early its ``except`` clause
    set them aside. After a stop they stay aside (the command is ending); else the
    handlers before come back."""
    came: list[int] = []

    def stop(signum: int, frame: Any) -> None:
        if came:    # (a second, run before the first could set them aside)
            return
        came.append(signum)
        for held in (signal.SIGINT, signal.SIGTERM):
            signal.signal(held, signal.SIG_IGN)
        raise KeyboardInterrupt

    try:
        before = signal.signal(signal.SIGINT, stop)
    except ValueError:      # not the main thread
        yield
        return
    try:
        yield
    finally:
        if not came:
            signal.signal(signal.SIGINT, before)


def stop_behind(error: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM that ``error`` was raised while unwinding from, if any: a stop
    raised where a library cannot unwind from it (inside a ``threading.Condition``'s wait,
    which then fails to release a lock it no longer holds) turns into another error.  Only
    errors raised by accident count (Python chained them to the stop itself); one raised on
    purpose in the stop's place (``raise ... from``) is its own."""
    seen: set[int] = set()
    current: BaseException = error
    while not current.__suppress_context__ and current.__context__ is not None \
            and id(current) not in seen:
        seen.add(id(current))
        current = current.__context__
        if isinstance(current, KeyboardInterrupt):
            return current
    return None


@contextmanager
def stop_kept() -> Generator[None, None, None]:
    """While this lasts, an error raised while a stop unwound (see :func:`stop_behind`) is
    raised as that stop, which the ``except KeyboardInterrupt`` around it then takes."""
    try:
        yield
    except Exception as error:
        stop = stop_behind(error)
        if stop is None:
            raise
        raise stop from None


AGAIN_AFTER = 0.05
"""Seconds after Python dropped a stop that :func:`stops_not_dropped` sends it again."""


@contextmanager
def stops_not_dropped() -> Generator[None, None, None]:
    """While this lasts, a stop that Python drops is sent again. A signal's handler runs
    at the main thread's next instruction, wherever it is; where that is a callback run
    by the garbage collector or a finalizer (a weak reference's, a ``__del__``), the
    ``KeyboardInterrupt`` (or :class:`Terminated`) it raises cannot unwind the code
    below and Python only prints "Exception ignored in ...": the Ctrl-C was lost, and a
    server pressed Ctrl-C as it started served on (SQLAlchemy's event registry has such
    callbacks). Python hands the dropped exception to ``sys.unraisablehook``: this one
    hands it to a thread of its own, which sends the signal again :data:`AGAIN_AFTER`
    later, once the callback is over, as if pressed a moment later (and again, should
    that one land in such a callback too); every other exception goes to the hook before
    it. The hook only puts the stop on a queue: a hook that waited (for a thread to
    start) was itself stopped by the stop sent again on a loaded machine, and dropped it.
    Once this ends, a stop not yet sent again is not sent."""
    import os
    import queue
    import sys
    import threading

    before = sys.unraisablehook
    dropped: queue.SimpleQueue[type[BaseException] | None] = queue.SimpleQueue()
    main = threading.main_thread().ident or 0     # (set: it is running)
    ended = threading.Event()

    def send_again() -> None:
        while (kind := dropped.get()) is not None:
            if ended.wait(AGAIN_AFTER):      # the command is over: nothing more is sent
                return
            signum = signal.SIGTERM if issubclass(kind, Terminated) else signal.SIGINT
            if signal.getsignal(signum) is signal.SIG_IGN:
                # the handler set stops aside as it raised (one_stop): the signal would be
                # ignored, so its exception is raised in the main thread itself
                import ctypes
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(main), ctypes.py_object(kind))
            else:
                os.kill(os.getpid(), signum)

    def hook(unraisable: Any) -> None:
        kind = unraisable.exc_type
        if isinstance(kind, type) and issubclass(kind, KeyboardInterrupt) \
                and threading.current_thread() is threading.main_thread():
            dropped.put(kind)
        else:
            before(unraisable)

    sender = threading.Thread(target=send_again, name="flowerbridge-stop-again", daemon=True)
    sender.start()
    sys.unraisablehook = hook
    try:
        yield
    finally:
        if sys.unraisablehook is hook:
            sys.unraisablehook = before
        # (in a process that runs on, as a test's, a stop sent after the command would
        # stop whatever came next)
        ended.set()
        dropped.put(None)
        sender.join(1.0)    # (at once: nothing keeps it; a command leaves no thread behind)
