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
