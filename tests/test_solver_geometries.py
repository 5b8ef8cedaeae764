"""The search is compiled once for any geometry and once each for Contract
Bridge and Flower Bridge (suits, ranks and copies known to the compiler):
the compilations must agree, and the one for any geometry must be exact on
geometries of its own."""

from __future__ import annotations

import random

import pytest

from test_solver_flower import _ns_tricks, brute_force_values

from flowerbridge import Deal
from flowerbridge.solver import BRIDGE, FLOWER, DoubleDummy
from flowerbridge.solver.core import Geometry, _CoreSolver


def generic(geometry: Geometry) -> DoubleDummy:
    """A solver running the search compiled for any geometry."""
    dd = DoubleDummy(geometry, memory_mb=16)
    dd._core = _CoreSolver(geometry.suits, geometry.ranks, geometry.copies, 16.0, specialized=False)
    return dd


def random_position(rng: random.Random, g: Geometry, tricks: int, distinct: int | None = None):
    """``tricks`` cards a hand from a deck of ``distinct`` random cards (all
    their copies), a random trump and leader, and 0-3 cards of a trick."""
    cards = rng.sample(range(g.cards), distinct or g.cards)
    deck = [c for c in cards for _ in range(g.copies)]
    rng.shuffle(deck)
    hands = [sorted(deck[i * tricks:(i + 1) * tricks]) for i in range(4)]
    trump = rng.choice([None, *range(g.suits)])
    leader = rng.randrange(4)
    trick: list[int] = []
    for i in range(rng.randint(0, 3)):
        seat = (leader + i) % 4
        follow = [c for c in hands[seat] if trick and c // g.ranks == trick[0] // g.ranks]
        card = rng.choice(follow or hands[seat])
        hands[seat].remove(card)
        trick.append(card)
    return hands, trump, leader, trick


def test_bridge_and_flower_compilations_agree_with_the_generic_search():
    rng = random.Random(5)
    for g, sizes in ((FLOWER, (4, 5, 6, 7)), (BRIDGE, (5, 6, 7, 8))):
        special, any_geometry = DoubleDummy(g, memory_mb=16), generic(g)
        for i in range(60):
            n = sizes[i % len(sizes)]
            position = random_position(rng, g, n, distinct=None if g.copies == 1 else 2 * n + 2)
            assert special.card_values(*position) == any_geometry.card_values(*position), position


def test_full_dd_tables_agree_between_compilations():
    rng = random.Random(11)
    flower = [[c.index for c in h] for h in Deal.from_seed(3, 0).hands]
    deck = list(range(52))
    rng.shuffle(deck)
    bridge = [sorted(deck[i * 13:(i + 1) * 13]) for i in range(4)]
    for g, hands in ((FLOWER, flower), (BRIDGE, bridge)):
        assert DoubleDummy(g, memory_mb=16).dd_table(hands) == generic(g).dd_table(hands)


def test_generic_search_is_exact_on_other_geometries():
    # any number of copies of a card (issue #3): three and four as well as one and two
    rng = random.Random(3)
    geometries = (Geometry(2, 10, 2), Geometry(4, 10, 1), Geometry(1, 4, 3), Geometry(2, 4, 3),
                  Geometry(2, 5, 3), Geometry(3, 4, 3), Geometry(1, 4, 4), Geometry(2, 3, 4))
    for g in geometries:
        solver = DoubleDummy(g, memory_mb=16)
        for i in range(80):
            n = min((1, 2, 3, 3, 4)[i % 5], g.cards * g.copies // 4)
            # few distinct cards, so that several copies of one are in play
            distinct = None if g.copies == 1 else min(g.cards, -(-4 * n // g.copies) + i % 2)
            position = random_position(rng, g, n, distinct=distinct)
            seat, values = solver.card_values(*position)
            assert values == brute_force_values(*position, ranks=g.ranks), (g, position)
            _ns_tricks.cache_clear()


def test_top_trump_copy_trick_needs_the_opponents_to_hold_one_copy_at_most():
    """A hand holding a copy of the top trump and another trump takes a trick
    when the opponents hold at most one copy; with three copies they may hold
    two, and the second then equals ours, played first.  With one suit, trumps
    and No Trump are the same game."""
    g = Geometry(1, 4, 3)
    solver = DoubleDummy(g, memory_mb=16)
    for hands, leader in (([[0, 3], [1, 2], [0, 3], [0, 3]], 0),
                          ([[0, 2, 3], [1, 1, 3], [2, 2, 3], [0, 0, 1]], 1)):
        expected = brute_force_values(hands, None, leader, [], ranks=g.ranks)
        _ns_tricks.cache_clear()
        assert solver.card_values(hands, 0, leader)[1] == expected
        assert solver.card_values(hands, None, leader)[1] == expected
    assert max(solver.card_values([[0, 3], [1, 2], [0, 3], [0, 3]], 0, 0)[1].values()) == 2


def test_profile_guided_build_training_run_solves_with_the_built_core():
    """The build's training run (setup.py, profile-guided optimisation) drives
    the core as the package does: its deals are valid positions, and the table
    its two threads search on one shared table is the one-thread table."""
    from flowerbridge.solver import _core, _pgo_train

    packed, rows = _pgo_train.main(_core.__file__)
    assert _CoreSolver(*_pgo_train.FLOWER, 64.0).table(packed) == rows
    assert len(rows) == 4 and all(0 <= v <= 13 for row in rows for v in row)


def test_core_solver_made_without_init_refuses_to_search_instead_of_crashing():
    # tp_new left no context: tricks() and stats read through a null pointer (a segfault)
    import pytest

    bare = _CoreSolver.__new__(_CoreSolver)
    for use in (lambda: bare.tricks(bytes(4 * 30), -1, 0), lambda: bare.values(bytes(4 * 30), -1, 0),
                lambda: bare.stats):
        with pytest.raises(RuntimeError, match="solver not initialised"):
            use()


def test_core_solver_whose_second_init_fails_is_left_uninitialised_not_half_built():
    # the context was replaced before the geometry was refused: the next search ran on
    # a half-built one (a shift by 64 under UBSan, a wrong 0 in the normal build)
    import pytest

    dd = DoubleDummy(FLOWER, 1)
    hands = [[c.index for c in h] for h in Deal.from_seed(5, 0).hands]
    assert 0 <= dd.ns_tricks(hands, None, 0) <= 13
    with pytest.raises(ValueError, match="too large for the position key"):
        dd._core.__init__(8, 16, 4, 1.0)
    with pytest.raises(RuntimeError, match="solver not initialised"):
        dd._core.tricks(bytes(4 * 8 * 16), -1, 0)


def test_a_shared_tables_fill_is_read_without_racing_the_owners_search():
    # _shared_table read the owner's stats (counters its own search writes) from the
    # other thread; it reads fill, (blocks used, blocks), loaded atomically
    solver = DoubleDummy(FLOWER, 1)
    used, blocks = solver._core.fill
    assert used == 0 and blocks == 0          # no table yet: it is made at the first search
    solver.ns_tricks([[c.index for c in h] for h in Deal.from_seed(3, 0).hands], None, 0)
    used, blocks = solver._core.fill
    assert 0 < used <= blocks and (used, blocks) == (solver.stats["blocks_used"], solver.stats["blocks"])


def test_a_table_larger_than_memory_holds_is_said_as_a_solver_error_and_a_memory_error(monkeypatch):
    # a bare MemoryError() at the first search, with no message, not a FlowerBridgeError. (The
    # core's failing allocation is stood in for: a machine that holds 64 GB, or overcommits,
    # would make the table, and touch gigabytes of it.)
    from flowerbridge.errors import FlowerBridgeError
    from flowerbridge.solver import FLOWER, DoubleDummy, SolverMemoryError, core, dd_tables

    class NoMemory:
        """A compiled solver whose table cannot be had: its searches and its sharing fail."""

        def __init__(self, *args):
            pass

        def cancel(self, flag):
            pass

        def _fail(self, *args):
            raise MemoryError()

        values = tricks = table = leader = share = _fail

    monkeypatch.setattr(core, "_CoreSolver", NoMemory)
    position = [[0, 1], [10, 11], [20, 21], [2, 3]]
    said = r"^out of memory for a transposition table of \d+ MB \(a smaller memory_mb may fit\)$"
    for attempt in (lambda: DoubleDummy(FLOWER, 4096).card_values(position, None, 0),
                    lambda: dd_tables([position], FLOWER, memory_mb=4096, workers=2),      # one table shared
                    lambda: dd_tables([position] * 3, FLOWER, memory_mb=4096, workers=2)):  # one a thread
        with pytest.raises(SolverMemoryError, match=said) as refused:
            attempt()
        assert isinstance(refused.value, FlowerBridgeError) and isinstance(refused.value, MemoryError)
    monkeypatch.undo()
    assert DoubleDummy(FLOWER, 1).card_values(position, None, 0)[0] == 0     # and solving goes on


def test_a_geometry_of_numpy_integers_is_one_of_pythons_and_nothing_else_is_taken():
    # NumPy int8 counts overflowed in the deck's size (-112 cards): "negative count", or an
    # IndexError, from inside the packing
    np = pytest.importorskip("numpy")
    from flowerbridge.solver import DoubleDummy, Geometry, SolverInputError
    from flowerbridge.solver.bridge import parse_pbn
    geometry = Geometry(*np.array([4, 13, 1], dtype=np.int8))
    assert geometry == Geometry(4, 13, 1) and type(geometry.cards) is int and geometry.cards == 52
    assert DoubleDummy(geometry).dd_table(parse_pbn("N:A... K... Q... J...")) == [[1, 0, 1, 0]] * 5
    for bad in ((1.0, 2, 3), (True, 2, 3), ("3", 10, 2)):
        with pytest.raises(SolverInputError, match="geometry suits must be a whole number"):
            Geometry(*bad)


@pytest.mark.parametrize("memory_mb", [float("nan"), float("inf"), -float("inf"), 1e15, 0.5])
def test_core_solver_refuses_a_memory_bound_it_cannot_hold_in_bytes(memory_mb):
    # the core's own check let NaN, infinities and huge sizes through to an undefined
    # conversion (found under UBSan's float-cast-overflow): NaN became 2**63 bytes,
    # an infinity 0 — a table of a few blocks, silently
    with pytest.raises(ValueError, match="memory_mb must be between 1 and 65536"):
        _CoreSolver(3, 10, 2, memory_mb)
