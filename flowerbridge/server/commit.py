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
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                await self._write([append for append, _ in batch])
            except StoreError as exc:
                if len(batch) == 1:
                    _settle(batch[0][1], exc)
                    continue
                for append, future in batch:
                    try:
                        await self._write([append])
                    except StoreError as single:
                        _settle(future, single)
                    else:
                        _settle(future, None)
                continue
            for _, future in batch:
                _settle(future, None)


def _settle(future: asyncio.Future[None], error: Exception | None) -> None:
    if future.done():  # its caller was cancelled (the server is stopping)
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)
