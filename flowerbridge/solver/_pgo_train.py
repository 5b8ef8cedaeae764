"""Training run for the profile-guided build of the solver core (see setup.py).

    python _pgo_train.py PATH/TO/_core.so

Run by the build, in a process of its own, on the instrumented extension: it
solves a few fixed random deals the way the package does (one-thread DD tables
of Flower Bridge and Contract Bridge, one Flower Bridge table searched by two
threads on one shared table, an opening leader's card values), and the
compiler then lays out the core for the branches and calls those take.

It loads the extension by its path and imports nothing of the package, whose
dependencies need not be installed while it builds.  The deals come from a
fixed seed of their own (no benchmark's or test's).  The one-thread part
counts the same every time; the shared table's counts depend on how the two
threads meet, so two builds of the same source may differ by a few bytes.
Any failure exits non-zero (an exception in a thread too), and the build then
falls back to the plain one.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import random
import sys
import threading

FLOWER = (3, 10, 2)   # suits, ranks a suit, copies a card
BRIDGE = (4, 13, 1)


def load(path: str):
    # the module's init function is named after the last part of its name
    loader = importlib.machinery.ExtensionFileLoader("_core", path)
    spec = importlib.util.spec_from_file_location("_core", path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def deal(rng: random.Random, geometry: tuple[int, int, int]) -> bytes:
    """A random deal of 13 cards a hand, packed as the core reads it: per
    seat, how many copies of each card it holds."""
    suits, ranks, copies = geometry
    cards = suits * ranks
    pack = [card for card in range(cards) for _ in range(copies)]
    rng.shuffle(pack)
    buf = bytearray(4 * cards)
    for i, card in enumerate(pack[:52]):
        buf[(i // 13) * cards + card] += 1
    return bytes(buf)


def shared_table(core, packed: bytes, suits: int) -> list[list[int]]:
    """One table's 4 (S + 1) entries taken by two threads sharing a table:
    North-South tricks by denomination (suits, then No Trump) and leader."""
    first = core.Solver(*FLOWER, 64.0)
    second = core.Solver(*FLOWER, 64.0)
    second.share(first)
    todo = [(d, leader) for d in (suits, *range(suits)) for leader in (1, 2, 3, 0)]
    rows = [[-1] * 4 for _ in range(suits + 1)]
    lock = threading.Lock()
    failed: list[BaseException] = []

    def work(solver) -> None:
        try:
            while True:
                with lock:
                    if not todo:
                        return
                    d, leader = todo.pop(0)
                rows[d][leader] = solver.leader(packed, d, leader)
        except BaseException as exc:  # noqa: BLE001 - raised again below
            failed.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failed:
        raise failed[0]
    return rows


def main(path: str) -> tuple[bytes, list[list[int]]]:
    """The training run; returns the deal of the shared table and its table."""
    core = load(path)
    rng = random.Random(20261201)
    flower = core.Solver(*FLOWER, 64.0)
    for _ in range(4):
        flower.table(deal(rng, FLOWER))
    for _ in range(2):
        flower.values(deal(rng, FLOWER), 0, 1)
    packed = deal(rng, FLOWER)
    rows = shared_table(core, packed, FLOWER[0])
    bridge = core.Solver(*BRIDGE, 64.0)
    for _ in range(3):
        bridge.table(deal(rng, BRIDGE))
    return packed, rows


if __name__ == "__main__":
    main(sys.argv[1])
