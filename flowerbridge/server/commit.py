"""Group commit: the appends of all tables, made durable together.

A durable commit costs a disk flush (milliseconds on SQLite with
``synchronous=FULL``). Flushing once per action would cap the whole server at a
few hundred actions a second however many tables play; instead, appends that
arrive while a commit is on its way wait for the next one, and each commit
carries all of them in one transaction. Every caller still returns only once
its own events are committed, so "committed before broadcast" holds.
"""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable

from .store import Append, StoreError


class GroupCommit:
    """Batches :class:`Append`\\ s into as few transactions as the database allows.

    ``write(batch)`` commits a list of appends in one transaction (in a worker
    thread: it is awaited). If a batch fails, its appends are retried one by
    one, so one bad append cannot sink the others.
    """

    def __init__(self, write: Callable[[list[Append]], Awaitable[None]]) -> None:
        self._write = write
        self._pending: list[tuple[Append, asyncio.Future[None]]] = []
        self._flusher: asyncio.Task | None = None

    async def append(self, append: Append) -> None:
        """Return once ``append`` is committed; raise :class:`StoreError` if it cannot be."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((append, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        await future

    async def _flush(self) -> None:
        batch: list[tuple[Append, asyncio.Future[None]]] = []
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                error = await self._try([append for append, _ in batch])
                if error is None or len(batch) == 1:
                    for _, future in batch:
                        _settle(future, error)
                    continue
                for append, future in batch:
                    _settle(future, await self._try([append]))
        finally:
            # cancelled (the server is stopping): no caller is left waiting for good
            for _, future in [*batch, *self._pending]:
                _settle(future, StoreError("database write failed: the server is stopping"))

    async def _try(self, appends: list[Append]) -> StoreError | None:
        """Write ``appends`` in one transaction; the failure, as a StoreError, or None.
        Any exception is a failure of the write (a closed database thread pool, a
        driver's own error): it must reach the callers, never stop the flusher."""
        try:
            await self._write(appends)
        except StoreError as exc:
            return exc
        except Exception as exc:  # noqa: BLE001 - see above
            return StoreError(f"database write failed: {type(exc).__name__}: {exc}")
        return None


def _settle(future: asyncio.Future[None], error: Exception | None) -> None:
    if future.done():  # its caller was cancelled (the server is stopping)
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)
