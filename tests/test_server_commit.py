"""Group commit (issue #5, item 6): appends from many tables share one durable
commit, every caller returns only once its own events are committed, and one
append that cannot be stored fails alone."""

from __future__ import annotations

import asyncio

import pytest

from flowerbridge.server.commit import GroupCommit
from flowerbridge.server.store import Append, StoreError


def run_appends(appends, *, refuse=()):
    """Commit ``appends`` concurrently; returns (batches written, outcome per append)."""
    batches: list[list[str]] = []

    async def write(batch):
        await asyncio.sleep(0.01)  # a disk flush: others queue up meanwhile
        if any(a.table_id in refuse for a in batch):
            raise StoreError(f"cannot store {[a.table_id for a in batch]}")
        batches.append([a.table_id for a in batch])

    async def main():
        commits = GroupCommit(write)
        results = await asyncio.gather(*(commits.append(a) for a in appends),
                                       return_exceptions=True)
        return [type(r).__name__ if r else "ok" for r in results]

    return batches, asyncio.run(main())


def appends(n):
    return [Append(f"t{i}", []) for i in range(n)]


def test_group_commit_shares_one_commit_among_waiting_tables():
    batches, outcome = run_appends(appends(50))
    assert outcome == ["ok"] * 50
    assert sorted(t for batch in batches for t in batch) == sorted(f"t{i}" for i in range(50))
    assert len(batches) <= 2  # the first append alone, then everything that queued behind it


def test_group_commit_an_append_that_cannot_be_stored_fails_alone():
    batches, outcome = run_appends(appends(10), refuse={"t7"})
    assert outcome == ["ok"] * 7 + ["StoreError"] + ["ok"] * 2
    committed = [t for batch in batches for t in batch]
    assert "t7" not in committed and len(committed) == 9


@pytest.mark.parametrize("n", [1, 3])
def test_group_commit_returns_only_after_the_commit(n):
    committed: list[str] = []

    async def write(batch):
        await asyncio.sleep(0.01)
        committed.extend(a.table_id for a in batch)

    async def main():
        commits = GroupCommit(write)

        async def one(append):
            await commits.append(append)
            assert append.table_id in committed  # what the caller broadcasts is on disk

        await asyncio.gather(*(one(a) for a in appends(n)))

    asyncio.run(main())


def test_group_commit_any_failure_of_a_write_reaches_every_caller_as_a_store_error():
    # e.g. the database thread pool already shut down: a RuntimeError, not a
    # StoreError. It stopped the flusher, and every caller of the batch (and
    # those queued behind it) waited for good, holding their tables' locks
    calls = 0

    async def write(batch):
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.01)
        if calls == 1:
            raise RuntimeError("cannot schedule new futures after shutdown")

    async def main():
        commits = GroupCommit(write)
        first = [asyncio.create_task(commits.append(Append(t, []))) for t in ("t1", "t2")]
        await asyncio.sleep(0.001)
        later = asyncio.create_task(commits.append(Append("t3", [])))   # queued behind the batch
        done, waiting = await asyncio.wait({*first, later}, timeout=2)
        assert not waiting
        return [type(task.exception()).__name__ if task.exception() else "ok" for task in (*first, later)]

    # the batch failed as a whole; each was retried alone (the write works again)
    assert asyncio.run(main()) == ["ok", "ok", "ok"]

    async def always_failing(batch):
        raise RuntimeError("cannot schedule new futures after shutdown")

    async def failing():
        commits = GroupCommit(always_failing)
        results = await asyncio.wait_for(asyncio.gather(
            *(commits.append(Append(t, [])) for t in ("t1", "t2")), return_exceptions=True), 2)
        return [(type(r).__name__, str(r)) for r in results]

    for name, message in asyncio.run(failing()):
        assert name == "StoreError" and "RuntimeError: cannot schedule new futures" in message
