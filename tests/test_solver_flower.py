"""The Flower Bridge solver against an independent brute-force minimax, and
its engine-facing functions."""

from __future__ import annotations

import json
import multiprocessing
import random
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flowerbridge import Deal, FlowerBridgeError, HandState
from flowerbridge.solver import BRIDGE, FLOWER, DoubleDummy, Geometry, SolverInputError, dd_tables

# ---------------------------------------------------------------- brute force
# Plain minimax over every legal card (no grouping, no pruning), memoised.
# Cards are indices suit*ranks + rank (ten ranks unless told); a card takes the
# trick over only by being higher in the suit of the winning card, or a trump
# over a non-trump.


def _takes_over(card: int, winning: int, trump, ranks: int = 10) -> bool:
    if card // ranks == winning // ranks:
        return card % ranks > winning % ranks
    return trump is not None and card // ranks == trump


def _legal(hand: tuple, trick: tuple, ranks: int = 10) -> list[int]:
    if trick:
        follow = [c for c in hand if c // ranks == trick[0] // ranks]
        if follow:
            return sorted(set(follow))
    return sorted(set(hand))


@lru_cache(maxsize=None)
def _ns_tricks(hands: tuple, trump, leader: int, trick: tuple, ranks: int = 10) -> int:
    to_move = (leader + len(trick)) % 4
    if not hands[to_move]:
        return 0
    results = []
    for card in _legal(hands[to_move], trick, ranks):
        hand = list(hands[to_move])
        hand.remove(card)
        new_hands = hands[:to_move] + (tuple(hand),) + hands[to_move + 1:]
        played = trick + (card,)
        if len(played) == 4:
            win = 0
            for i in range(1, 4):
                if _takes_over(played[i], played[win], trump, ranks):
                    win = i
            winner = (leader + win) % 4
            results.append((winner % 2 == 0) + _ns_tricks(new_hands, trump, winner, (), ranks))
        else:
            results.append(_ns_tricks(new_hands, trump, leader, played, ranks))
    return max(results) if to_move % 2 == 0 else min(results)


def brute_force_values(hands, trump, leader, trick, ranks: int = 10) -> dict[int, int]:
    hands = tuple(tuple(sorted(h)) for h in hands)
    trick = tuple(trick)
    to_move = (leader + len(trick)) % 4
    total = len(hands[to_move])
    out = {}
    for card in _legal(hands[to_move], trick, ranks):
        hand = list(hands[to_move])
        hand.remove(card)
        new_hands = hands[:to_move] + (tuple(hand),) + hands[to_move + 1:]
        played = trick + (card,)
        if len(played) == 4:
            win = 0
            for i in range(1, 4):
                if _takes_over(played[i], played[win], trump, ranks):
                    win = i
            winner = (leader + win) % 4
            ns = (winner % 2 == 0) + _ns_tricks(new_hands, trump, winner, (), ranks)
        else:
            ns = _ns_tricks(new_hands, trump, leader, played, ranks)
        out[card] = ns if to_move % 2 == 0 else total - ns
    return out


def random_ending(rng: random.Random, n: int | None = None):
    """A random ending of 1-5 tricks (``n``), often mid-trick, drawn from few
    distinct cards so that both copies of a card are usually in play."""
    if n is None:
        n = rng.choice((1, 2, 2, 3, 3, 3, 4, 4))
    suits = rng.sample(range(3), rng.choice((1, 2, 2, 3)))
    pool = [s * 10 + r for s in suits for r in range(10)]
    distinct = rng.sample(pool, min(len(pool), max(2 * n + 1, rng.randint(2 * n, 3 * n))))
    deck = [c for c in distinct for _ in range(2)]
    rng.shuffle(deck)
    if len(deck) < 4 * n:
        deck += rng.sample([c for c in range(30) if c not in distinct] * 2, 4 * n - len(deck))
    hands = [deck[i * n:(i + 1) * n] for i in range(4)]
    trump = rng.choice((None, 0, 1, 2))
    leader = rng.randrange(4)
    trick: list[int] = []
    for i in range(rng.randint(0, 3) if n > 0 else 0):
        seat = (leader + i) % 4
        card = rng.choice(_legal(tuple(hands[seat]), tuple(trick)))
        hands[seat].remove(card)
        trick.append(card)
    return hands, trump, leader, trick


def _shared_copies(hands, trick) -> bool:
    """Is some card held (or played) by two different hands?"""
    owners: dict[int, set] = {}
    for seat, hand in enumerate(hands):
        for c in hand:
            owners.setdefault(c, set()).add(seat)
    for i, c in enumerate(trick):
        owners.setdefault(c, set()).add(("table", i))
    return any(len(o) > 1 for o in owners.values())


def _brute_force_alone(ending) -> dict[int, int]:
    """``brute_force_values`` of one ending, its memo cleared after it (in a worker)."""
    try:
        return brute_force_values(*ending)
    finally:
        _ns_tricks.cache_clear()


def test_per_card_values_match_brute_force_on_random_flower_endings():
    rng = random.Random(20261130)
    # every 25th ending is of 5 tricks (the brute force is slow there: nine tenths
    # of its time, shared between two processes)
    endings = [random_ending(rng, 5 if i % 25 == 0 else None) for i in range(500)]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        expected = pool.map(_brute_force_alone, endings)
        solver = DoubleDummy(FLOWER, memory_mb=16)
        shared = 0
        for (hands, trump, leader, trick), brute in zip(endings, expected, strict=True):
            shared += _shared_copies(hands, trick)
            seat, values = solver.card_values(hands, trump, leader, trick)
            assert seat == (leader + len(trick)) % 4
            assert values == brute, (hands, trump, leader, trick)
    assert shared > 400  # the identical-card rule was really exercised


# Endings of 5-6 tricks on which a mutation review's unsound variants of the search went
# wrong where the random endings above let them pass: the quick tricks without the second
# opponent's ruff, the joint quick tricks without drawing the opponents' trumps first, a
# group's proof carried over one rank too far. (hands, trump, leader, trick in progress)
UNSOUND_VARIANTS_WRONG = [
    ([[6, 24, 22, 25, 25], [1, 24, 2, 2, 29], [6, 0, 5, 3, 3], [0, 29, 7, 5, 23]], 0, 1, []),
    ([[4, 1, 7, 25, 9], [21, 15, 2, 4, 8], [24, 14, 1, 2, 12], [6, 8, 15, 7, 12]], 0, 1, []),
    ([[0, 25, 4, 20, 3], [26, 24, 21, 3, 22], [25, 9, 0, 28], [28, 1, 4, 8, 21]], 2, 2, [8]),
    ([[0, 0, 5, 21, 24, 27], [4, 15, 15, 20, 29, 29], [2, 18, 18, 24, 25], [3, 4, 5, 6, 20, 22]], 2, 2, [27]),
    ([[6, 6, 9, 12, 16, 22], [1, 3, 7, 15, 19, 23], [0, 3, 15, 16, 23], [0, 5, 7, 12, 22, 29]], 1, 2, [5]),
    ([[6, 26, 24, 27, 5], [21, 3, 21, 9, 0], [29, 23, 24, 0], [28, 3, 9, 5]], None, 2, [22, 23]),
    ([[0, 5, 7, 10, 10], [1, 15, 16, 16, 27], [4, 15, 24, 29, 29], [1, 7, 9, 24, 28]], 0, 0, []),
    ([[2, 3, 9, 23, 24], [2, 4, 16, 23, 24], [3, 15, 15, 16, 26], [4, 5, 9, 13, 13]], 0, 0, []),
]


@pytest.mark.parametrize("ending", UNSOUND_VARIANTS_WRONG)
def test_per_card_values_match_brute_force_where_unsound_proofs_went_wrong(ending):
    try:
        expected = brute_force_values(*ending)
    finally:
        _ns_tricks.cache_clear()
    assert DoubleDummy(FLOWER, memory_mb=16).card_values(*ending)[1] == expected


def test_group_at_threshold_rank_is_one_move_only_where_its_twin_is_relied_on():
    """Finer table regions (docs/solver.md): a region may leave open which
    hand holds the other copy of its threshold rank, but not where a move's
    group ends at that rank -- a hand holding that copy could play it first,
    and the group's cards would then not all be equal.  This ending (found by
    a stress test, reduced) was misvalued by a build that did."""
    hands = [[3, 5, 14, 23], [4, 24, 25, 28], [5, 6, 7, 23, 27], [2, 4, 24, 28]]
    trick = [6, 2, 7]
    solver = DoubleDummy(FLOWER, memory_mb=16)
    seat, values = solver.card_values(hands, 0, 3, trick)
    assert seat == 2
    assert values == brute_force_values(hands, 0, 3, trick) == {5: 2, 6: 3, 7: 3}


def test_own_copy_of_threshold_rank_is_dropped_only_where_a_lower_card_covers_the_rest():
    """Finer table regions (docs/solver.md): where every move of a hand fails,
    the move of its own copy of the threshold rank may leave that copy out
    of the region only if the hand holds a lower card of the suit -- a card
    below the rank that the region may give the hand in place of its copy
    is covered by that card's move, and by no other.  These endings (found
    by a stress test) were misvalued by a build without that condition."""
    solver = DoubleDummy(FLOWER, memory_mb=16)
    hands = [[20, 26, 27], [25, 21, 27], [15, 21, 22], [15, 22, 26, 10]]
    trick = [16, 10, 12]
    assert solver.card_values(hands, 0, 0, trick) == (3, {10: 2, 15: 2})
    assert brute_force_values(hands, 0, 0, trick) == {10: 2, 15: 2}
    hands = [[26, 21, 24, 22, 0], [22, 2, 7, 25, 2], [21, 7, 1, 4, 4], [1, 20, 0, 25, 24]]
    solver = DoubleDummy(FLOWER, memory_mb=16)
    seat, values = solver.card_values(hands, 1, 0, [])
    assert seat == 0
    assert values == brute_force_values(hands, 1, 0, []) == {0: 2, 21: 2, 22: 2, 24: 2, 26: 2}


def _twin_of_winner_before_lower_card(hands, trump, leader, trick) -> bool:
    """Does a hand still to play to the trick hold the other copy of the card
    winning it and a lower card of its suit?"""
    if not trick:
        return False
    win = 0
    for i in range(1, len(trick)):
        if _takes_over(trick[i], trick[win], trump):
            win = i
    card = trick[win]
    return any(card in hands[(leader + j) % 4]
               and any(c // 10 == card // 10 and c < card for c in hands[(leader + j) % 4])
               for j in range(len(trick), 4))


def test_r12_a_copy_of_the_winning_card_played_later_is_one_move_with_the_cards_below_it():
    """R12 inside the search (docs/solver.md, *One move per group*): a hand
    to play after the card winning the trick, holding its other copy, loses
    with that copy as with its lower cards, so the search plays them as one
    move and carries the proof of one to the others.  Endings with such a
    hand, against the brute force."""
    rng = random.Random(20261206)
    solver = DoubleDummy(FLOWER, memory_mb=16)
    found = 0
    while found < 400:
        hands, trump, leader, trick = random_ending(rng, rng.choice((2, 3, 3, 4)))
        if not _twin_of_winner_before_lower_card(hands, trump, leader, trick):
            continue
        found += 1
        assert solver.card_values(hands, trump, leader, trick)[1] == brute_force_values(hands, trump, leader, trick), \
            (hands, trump, leader, trick)
        _ns_tricks.cache_clear()


@pytest.mark.parametrize(("hands", "trump", "leader", "trick"), [
    ([[29, 27, 25, 24, 20, 18, 15, 11, 11, 9, 8, 2, 1], [28, 27, 22, 22, 21, 20, 18, 17, 16, 14, 10, 8, 7],
      [28, 26, 25, 21, 19, 13, 9, 4, 4, 3, 2, 1], [24, 23, 19, 13, 12, 12, 10, 6, 5, 5, 3, 0]], None, 2, [15, 17]),
    ([[29, 27, 21, 14, 9, 7, 1, 0], [21, 20, 17, 16, 9, 3, 2, 1], [28, 25, 24, 23, 23, 20, 17, 6],
      [29, 26, 25, 12, 8, 5, 5, 4]], 1, 0, []),
])
def test_r12_copy_of_the_winning_card_joins_the_cards_below_only_where_not_relied_on(hands, trump, leader, trick):
    """The proof of such a group's lowest card carries over to the copy
    without narrowing the region only where the region does not rely on the
    hand's copy (docs/solver.md).  A build that carried it over regardless
    misvalued these positions (found by a stress test); here against the
    generic build, compiled without per-copy regions."""
    generic = DoubleDummy(Geometry(4, 10, 2), memory_mb=16)
    expected = generic.card_values(hands, trump, leader, trick)
    assert DoubleDummy(FLOWER, memory_mb=16).card_values(hands, trump, leader, trick) == expected


def _perturbed(rng: random.Random, hands):
    """The hands with one or two cards swapped between two hands, often of
    the same suit, so that related positions share table entries."""
    hands = [list(h) for h in hands]
    for _ in range(rng.randint(1, 2)):
        a, b = rng.sample(range(4), 2)
        ca = rng.choice(hands[a])
        same = [c for c in hands[b] if c // 10 == ca // 10 and c != ca]
        cb = rng.choice(same) if same else rng.choice(hands[b])
        hands[a].remove(ca)
        hands[b].remove(cb)
        hands[a].append(cb)
        hands[b].append(ca)
    return hands


def test_shared_table_values_equal_the_generic_build_on_related_endings():
    """Families of related endings of 4-7 tricks (both copies of most ranks in
    play, cards swapped between hands) solved one after another on one
    solver, so that the table's finer regions at split ranks are used across
    positions, against the generic build of the search (a fourth, empty suit:
    compiled without per-copy regions), one fresh solver per family."""
    rng = random.Random(20261201)
    solver = DoubleDummy(FLOWER, memory_mb=32)
    generic = Geometry(4, 10, 2)
    shared = 0
    for _ in range(60):
        n = rng.randint(4, 7)
        base, trump, first, played = random_ending(rng, n)
        base = [list(h) for h in base]
        for i, card in enumerate(played):  # the trick's cards back in hand
            base[(first + i) % 4].append(card)
        reference = DoubleDummy(generic, memory_mb=16)
        for j in range(6):
            hands = base if j == 0 else _perturbed(rng, base)
            leader = rng.randrange(4)
            trick: list[int] = []
            hands = [list(h) for h in hands]
            for i in range(rng.choice((0, 0, 1, 3))):
                seat = (leader + i) % 4
                card = rng.choice(_legal(tuple(hands[seat]), tuple(trick)))
                hands[seat].remove(card)
                trick.append(card)
            assert (solver.card_values(hands, trump, leader, trick)
                    == reference.card_values(hands, trump, leader, trick)), (hands, trump, leader, trick)
            shared += _shared_copies(hands, trick)
    assert shared > 300  # split ranks were really in play


def _top_card_suits_sum(hands, side: int) -> int:
    """The No Trump bound of a side that needs every trick: over the suits in
    which one of its hands holds a copy of the highest rank left, the longer
    of its two holdings."""
    total = 0
    for suit in range(3):
        left = [c for h in hands for c in h if c // 10 == suit]
        if not left:
            continue
        top = max(left)
        ours = [list(hands[side]), list(hands[(side + 2) % 4])]
        if any(top in h for h in ours):
            total += max(sum(1 for c in h if c // 10 == suit) for h in ours)
    return total


def test_no_trump_side_short_of_top_card_suits_cannot_take_every_trick():
    """The solver's later-tricks rule for three suits (docs/solver.md): at No
    Trump a side on lead that holds the top card of too few suits, counted by
    its longer holding, cannot take every trick -- squeezes included -- and the
    solver's values agree with the brute force where the rule applies."""
    rng = random.Random(20261201)
    solver = DoubleDummy(FLOWER, memory_mb=16)
    applies = 0
    for _ in range(4000):
        n = rng.choice((2, 3, 3, 3, 4))
        hands, _, leader, _ = random_ending(rng, n)
        hands = [h + [] for h in hands]
        if len({len(h) for h in hands}) != 1:  # random_ending may start a trick
            continue
        if _top_card_suits_sum(hands, leader) >= n:
            continue
        applies += 1
        ns = _ns_tricks(tuple(tuple(sorted(h)) for h in hands), None, leader, ())
        side = ns if leader % 2 == 0 else n - ns
        assert side < n, (hands, leader)
        assert solver.ns_tricks(hands, None, leader) == ns, (hands, leader)
        _ns_tricks.cache_clear()
    assert applies > 250  # the rule's condition really arose


def test_identical_card_rule_inside_search():
    # Last trick at No Trump: West leads 9R (index 17), North holds the other
    # copy and cannot take the trick over with it; East-West win.
    nine = 1 * 10 + 7
    hands = [[nine], [1 * 10 + 0], [1 * 10 + 1], []]
    solver = DoubleDummy(FLOWER, memory_mb=8)
    seat, values = solver.card_values(hands, None, 3, [nine])
    assert seat == 0 and values == {nine: 0}
    # Same with trumps: the second copy of a trump does not overruff the first.
    hands = [[2 * 10 + 9], [0], [1], [2 * 10 + 9]]
    seat, values = solver.card_values([hands[0], hands[1], hands[2], []], 2, 3, [2 * 10 + 9])
    assert values == {29: 0}
    # Two tricks: North must cash his top card first; leading the copy whose
    # twin West holds gives West the trick only if West plays it first.
    hands = [[19, 18], [10, 11], [12, 13], [19, 14]]
    seat, values = solver.card_values(hands, None, 0)
    assert values == brute_force_values(hands, None, 0, [])


def test_r12_a_higher_card_can_cost_its_side_a_trick():
    # With identical cards, trading a card for an opponent's higher one of the
    # same suit can lose a trick: the twins meet in partners' hands and the
    # second is no entry (Bridge blocks too, more rarely: a stronger card can
    # leave its partner's suit without an entry).  So a stored bound may not be
    # carried to positions that look stronger for its side (a "finer region"
    # the solver does not use, docs/solver.md).  No Trump, South leads: South runs 9R, then 8A
    # overtaken by North's 9A, and North cashes 2A.  With South's 8A traded
    # for East's 9A, North's 9A can no longer take a trick over South's.
    before = [[12, 22, 29], [3, 10, 29], [1, 19, 28], [5, 16, 23]]
    after = [[12, 22, 29], [3, 10, 28], [1, 19, 29], [5, 16, 23]]
    solver = DoubleDummy(FLOWER, memory_mb=8)
    for hands, tricks in ((before, 3), (after, 2)):
        assert solver.ns_tricks(hands, None, 2) == tricks
        assert max(brute_force_values(hands, None, 2, []).values()) == tricks


def test_both_copies_in_one_hand_are_one_move_and_every_card_is_valued():
    hands = [[19, 19, 5], [18, 4, 3], [17, 2, 1], [16, 0, 6]]
    seat, values = DoubleDummy(FLOWER, memory_mb=8).card_values(hands, None, 0)
    assert set(values) == {19, 5}
    assert values == brute_force_values(hands, None, 0, [])


def test_solver_rejects_impossible_positions():
    solver = DoubleDummy(FLOWER, memory_mb=8)
    with pytest.raises(SolverInputError):
        solver.card_values([[1, 1, 1], [2, 3, 4], [5, 6, 7], [8, 9, 0]], None, 0)
    with pytest.raises(SolverInputError):
        solver.card_values([[1, 2], [3], [4, 5], [6, 7]], None, 0)
    with pytest.raises(SolverInputError):
        solver.card_values([[1], [2], [3], [4]], 5, 0)
    with pytest.raises(SolverInputError, match="unsupported geometry: 3 suits x 17 ranks x 1 copies"):
        DoubleDummy(Geometry(3, 17, 1))


_H = [[0, 1], [10, 11], [20, 21], [2, 3]]
_SHORT = [[1], [10, 11], [20, 21], [2, 3]]     # North has led 0


@pytest.mark.parametrize("call, message", [
    (lambda dd: dd.card_values(_H, None, 2 ** 31), "leader 2147483648 is not a seat 0..3"),
    (lambda dd: dd.card_values(_H, None, 7), "leader 7 is not a seat 0..3"),
    (lambda dd: dd.tricks(_SHORT, None, 0, [2 ** 63]), "card index 9223372036854775808 in the trick out of range"),
    (lambda dd: dd.card_values(_SHORT, None, 0, [30]), "card index 30 in the trick out of range 0..29"),
    (lambda dd: dd.card_values(_H, None, 0, None), "a trick in progress is an iterable"),
    (lambda dd: dd.optimal_line(_H, None, 10 ** 30), "is not a seat 0..3"),
    (lambda dd: dd.optimal_line(_H, None, 0.0), "leader must be a whole number, not 0.0"),
    (lambda dd: dd.optimal_line(_H[:2], None, 3), "a position has 4 hands, not 2"),
    (lambda dd: dd.optimal_line([[0], [1], [2], []], None, 3), r"hands must be of equal size \(1, 1, 1, 0\)"),
    (lambda dd: dd.optimal_line([[], [], [], []], None, 0, [0, 1, 2]), "do not fit a trick of 3 card"),
    (lambda dd: dd.optimal_line([[], [], [], []], None, 0), "no cards left to play"),
    (lambda dd: dd.dd_table([[0, 1], [10], [20, 21], [2, 3]]), r"hands must be of equal size \(2, 1, 2, 2\)"),
    (lambda dd: dd_tables([[[0, 1], [10], [20, 21], [2, 3]]] * 2, FLOWER, workers=2), "deal 1: .*equal size"),
    (lambda dd: dd.card_values([[0, 0, 0], [1, 2, 3], [4, 5, 6], [7, 8, 9]], None, 0),
     "card 0 appears more than 2 times in seat 0's hand; the deck holds 2"),
    (lambda dd: dd.tricks(None, None, 0), "a position is 4 hands"),
    (lambda dd: dd.dd_table([1, 2, 3, 4]), "a position is 4 hands"),
    (lambda dd: dd_tables([_H, None], FLOWER, workers=2), "a position is 4 hands"),
    (lambda dd: dd_tables(5), "deals must be an iterable"),
    (lambda dd: DoubleDummy(Geometry(3.0, 10, 2)), "geometry suits must be a whole number, not 3.0"),
    (lambda dd: DoubleDummy(Geometry(2 ** 40, 10, 2)), "unsupported geometry: 1099511627776 suits"),
    (lambda dd: DoubleDummy(FLOWER, memory_mb=10 ** 400), "between 1 and 65,536, not a number of 401 digits"),
    (lambda dd: DoubleDummy(FLOWER, memory_mb=True), "a number of megabytes, not True"),
    (lambda dd: DoubleDummy(FLOWER, memory_mb=" 64 "), "a number of megabytes, not ' 64 '"),
])
def test_solver_bad_input_is_a_solver_input_error_that_names_it(call, message):
    # docs/solver.md, Errors: a position or solver the core cannot take is a
    # SolverInputError saying what is wrong (they were OverflowError, TypeError,
    # IndexError, an empty line, or the core's "bad leader")
    with pytest.raises(SolverInputError, match=message):
        call(DoubleDummy(FLOWER, memory_mb=4))


def test_solver_errors_are_the_packages_errors():
    # docs/rules-engine.md, Errors: every error of the package is a FlowerBridgeError,
    # so one `except FlowerBridgeError` (the command line's) catches the solver's too
    with pytest.raises(FlowerBridgeError, match="memory_mb must be"):
        DoubleDummy(FLOWER, memory_mb=0)
    with pytest.raises(FlowerBridgeError, match="4 hands"):
        DoubleDummy(FLOWER, memory_mb=8).card_values([[1], [2], [3]], None, 0)


def _in_play():
    from flowerbridge import HandState
    hand = HandState(Deal.from_seed(1))
    for call in ["1A", "Pass", "Pass", "Pass"]:
        hand.call(call)
    return hand


def _passed_out():
    hand = HandState(Deal.from_seed(1))
    for _ in range(4):
        hand.call("Pass")
    return hand


@pytest.mark.parametrize("call, message", [
    (lambda game: game.dd_table_many(Deal.from_seed(1)), "dd_table_many solves many deals"),
    (lambda game: game.dd_table_many([None]), "a deal .* is solved, not null"),
    (lambda game: game.dd_table_many(5), "solves a list of deals, not a number"),
    # (a SolverInputError, where every other refusal here is a SolverError)
    (lambda game: game.dd_table_many([Deal.from_seed(1)], workers=0), "^workers must be at least 1, not 0$"),
    (lambda game: game.dd_table("N:AKQ"), "a deal .* is solved, not a string"),
    (lambda game: game.card_values(Deal.from_seed(1)), "a hand in play .* is solved, not a Deal"),
    # a hand still in its auction, or passed out: no card to value, and none to claim
    (lambda game: game.card_values(HandState(Deal.from_seed(1))),
     "^no card to play: the hand is not in its play phase$"),
    (lambda game: game.claim_line(_passed_out()), "^no card to play: the hand is not in its play phase$"),
    # a solver= that is none, or a Bridge one (it read the cards as Bridge's: "card 0 appears
    # 2 times"), was an AttributeError or a misleading count
    (lambda game: game.card_values(_in_play(), solver="x"),
     r"^solver must be a Flower Bridge DoubleDummy \(DoubleDummy\(FLOWER\)\), not a string$"),
    (lambda game: game.optimal_line(_in_play(), solver=DoubleDummy(BRIDGE, memory_mb=8)),
     r"not a DoubleDummy of Geometry\(suits=4, ranks=13, copies=1\)$"),
    (lambda game: game.dd_table(Deal.from_seed(1), solver=object()), "not an object$"),
])
def test_solver_functions_of_the_engines_objects_refuse_other_objects_by_name(call, message):
    # dd_table_many(deal) was a TypeError, dd_table_many([None]) an AttributeError:
    # not the package's errors, which the command line and callers catch
    from flowerbridge.solver import SolverError, game
    with pytest.raises(SolverError, match=message):
        call(game)


def test_solver_takes_hands_and_a_trick_in_progress_as_any_iterables():
    hands, trick = [[19, 5], [18, 4], [17, 2], [16]], [6]
    solver = DoubleDummy(FLOWER, memory_mb=8)
    expected = solver.tricks(hands, None, 3, trick)
    assert solver.tricks((iter(h) for h in hands), None, 3, iter(trick)) == expected
    assert solver.card_values([iter(h) for h in hands], None, 3, (c for c in trick)) == \
        solver.card_values(hands, None, 3, trick)


def _trick_winner(trick: list[int], trump) -> int:
    """The place in a trick of four cards of the card that wins it."""
    win = 0
    for i in range(1, 4):
        if _takes_over(trick[i], trick[win], trump):
            win = i
    return win


def test_optimal_line_achieves_the_solved_value():
    rng = random.Random(7)
    solver = DoubleDummy(FLOWER, memory_mb=16)
    for _ in range(30):
        hands, trump, leader, trick = random_ending(rng)
        seat, values = solver.card_values(hands, trump, leader, trick)
        line = solver.optimal_line(hands, trump, leader, trick)
        assert line[0][0] == seat and line[0][2] == max(values.values())
        # replay the line: the side to move really takes that many tricks
        won = 0
        cur_leader, cur = leader, list(trick)
        for _seat, card, _ in line:
            cur.append(card)
            if len(cur) == 4:
                cur_leader = (cur_leader + _trick_winner(cur, trump)) % 4
                won += cur_leader % 2 == seat % 2
                cur = []
        assert won == max(values.values())


def test_tricks_is_the_side_to_moves_best_card_and_the_line_takes_the_lowest_of_equal_cards():
    # docs: tricks() counts for the side of the seat to move (mid-trick: not the leader's);
    # optimal_line plays, among equally good cards, the lowest index
    rng = random.Random(11)
    solver = DoubleDummy(FLOWER, memory_mb=16)
    mid_trick = 0
    for _ in range(40):
        hands, trump, leader, trick = random_ending(rng)
        seat, values = solver.card_values(hands, trump, leader, trick)
        assert solver.tricks(hands, trump, leader, trick) == max(values.values())
        mid_trick += len(trick) % 2 == 1       # (the side to move is not the leader's)
        line = solver.optimal_line(hands, trump, leader, trick)
        now = [list(h) for h in hands]
        cur_leader, cur = leader, list(trick)
        for step_seat, card, _ in line:
            _, step_values = solver.card_values(now, trump, cur_leader, cur)
            best = max(step_values.values())
            assert card == min(c for c, v in step_values.items() if v == best)
            now[step_seat].remove(card)
            cur.append(card)
            if len(cur) == 4:
                cur_leader, cur = (cur_leader + _trick_winner(cur, trump)) % 4, []
    assert mid_trick


def test_engine_functions_on_a_replayed_hand():
    from flowerbridge import Deal
    from flowerbridge.records import HandRecord
    from flowerbridge.solver import card_values, dd_table, optimal_line

    deal = Deal.from_seed(11)
    rec = {"dealer": "N", "hands": {s: [c.code for c in h] for s, h in zip("NESW", deal.hands)},
           "auction": ["1NT", "Pass", "Pass", "Pass"]}
    state = HandRecord.from_dict(rec).state
    # play 9 tricks along the engine's first legal card, then solve the ending
    while len(state.tricks) < 9:
        state.play(state.legal_cards()[0])
    state.play(state.legal_cards()[-1])
    values = card_values(state)
    assert set(values) == set(state.legal_cards())
    hands = [[c.index for c in state.remaining(s)] for s in range(4)]
    trick = [c.index for _, c in state.current_trick]
    assert {c.index: v for c, v in values.items()} == brute_force_values(
        hands, None, int(state.current_trick[0][0]), trick)
    line = optimal_line(state)
    assert len(line) == sum(len(h) for h in hands)
    for seat, card in line:  # the engine accepts every card of the line, in turn
        assert state.to_play == seat
        state.play(card)
    assert state.is_over
    table = dd_table(deal)
    assert len(table) == 4 and all(len(row) == 4 for row in table.values())


def test_dd_table_entry_is_declarers_sides_tricks_when_declarers_left_hand_opponent_leads():
    # issue #3: each of the 16 numbers against the engine's own hand: declarer bids the
    # denomination at one (dealer), and the opening leader's best card (tricks: its side's
    # tricks with best play by all four) leaves declarer's side the rest
    from flowerbridge.calls import Denomination
    from flowerbridge.records import HandRecord
    from flowerbridge.seats import Seat
    from flowerbridge.solver.game import dd_table, tricks

    deal = Deal.from_seed(1)
    table = dd_table(deal)
    # a deal that tells the entries apart: partners' seats and the denominations differ
    assert any(table[d][Seat.E] != table[d][Seat.W] for d in Denomination)
    assert len({tuple(table[d].values()) for d in Denomination}) == 4
    hands = {s: [c.code for c in h] for s, h in zip("NESW", deal.hands)}
    for d in Denomination:
        for declarer in Seat:
            state = HandRecord.from_dict({"dealer": declarer.name, "hands": hands,
                                          "auction": [f"1{d.name}", "Pass", "Pass", "Pass"]}).state
            assert state.contract is not None and state.contract.declarer is declarer
            assert state.to_play is declarer.next(1)
            assert table[d][declarer] == 13 - tricks(state), (d, declarer)


def test_batch_tables_on_two_threads_equal_one_at_a_time():
    rng = random.Random(3)
    deals = []
    for _ in range(8):
        deck = [c for c in range(30) for _ in range(2)]
        rng.shuffle(deck)
        deals.append([deck[i * 4:(i + 1) * 4] for i in range(4)])  # 4-card hands
    solver = DoubleDummy(FLOWER, memory_mb=16)
    one = [solver.dd_table(d) for d in deals]
    assert dd_tables(deals, FLOWER, workers=2, memory_mb=32) == one
    for deal, table in zip(deals, one):
        for denom in range(4):
            trump = None if denom == 3 else denom
            for declarer in range(4):
                leader = (declarer + 1) % 4
                best = max(brute_force_values(deal, trump, leader, []).values())
                assert table[denom][declarer] == 4 - best
                _ns_tricks.cache_clear()


def test_one_table_shared_among_threads_equals_one_thread():
    # a single deal on several threads: its 16 entries are shared among
    # them, all searching one transposition table at once
    from flowerbridge import Deal
    solo = DoubleDummy(FLOWER, memory_mb=64)
    for board in range(3):
        hands = [[c.index for c in h] for h in Deal.from_seed(11, board).hands]
        table = solo.dd_table(hands)
        assert dd_tables([hands], FLOWER, workers=2, memory_mb=64) == [table]
        assert dd_tables([hands], FLOWER, workers=3, memory_mb=64) == [table]


def test_one_table_shared_among_threads_stops_when_one_thread_fails(monkeypatch):
    # A Ctrl-C (or a thread's error) while one deal's table was searched on two
    # threads left the other thread to search every entry left before it stopped
    import threading
    import time
    calls = []
    search = DoubleDummy._call

    def failing_first(self, *args):
        with lock:
            calls.append(args)
            first = len(calls) == 1
        if first:
            raise KeyboardInterrupt
        time.sleep(0.1)
        return search(self, *args)

    lock = threading.Lock()
    monkeypatch.setattr(DoubleDummy, "_call", failing_first)
    hands = [[c.index for c in h] for h in Deal.from_seed(11, 0).hands]
    with pytest.raises(KeyboardInterrupt):
        dd_tables([hands], FLOWER, workers=2, memory_mb=8)
    assert len(calls) <= 3          # of the table's 16 entries


def _team_table(team, hands, order):
    """A DD table (North-South tricks) by threads of a team sharing one
    table, each taking the next (denomination, leader) of ``order``."""
    import threading
    packed = team[0].pack(hands)
    todo = list(order)
    rows = [[None] * 4 for _ in range(4)]
    lock = threading.Lock()

    def work(solver):
        while True:
            with lock:
                if not todo:
                    return
                d, leader = todo.pop(0)
            value = solver._core.leader(packed, d, leader)
            with lock:
                rows[d][leader] = value

    threads = [threading.Thread(target=work, args=(s,)) for s in team]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return rows


def test_shared_table_cleared_when_full_in_mid_search_keeps_values_exact():
    # A table too small for a deal is cleared by whichever thread's store
    # finds it full, while the other thread is in the middle of look-ups:
    # those drop what they read (the table's generation changed), so every
    # value stays the one-thread value.
    from flowerbridge import Deal
    solo = DoubleDummy(FLOWER)
    team = [DoubleDummy(FLOWER, memory_mb=1), DoubleDummy(FLOWER, memory_mb=1)]
    team[1]._core.share(team[0]._core)
    order = [(d, leader) for d in (3, 0, 1, 2) for leader in (1, 2, 3, 0)]
    for board in range(2):
        hands = [[c.index for c in h] for h in Deal.from_seed(5, board).hands]
        team[0]._core.clear()
        assert _team_table(team, hands, order) == solo.ns_table(hands)
    assert team[0]._core.stats["clears"] > 6        # cleared in mid-search, not only by clear()


def test_shared_table_solvers_refuse_what_would_break_the_sharing():
    owner, other = DoubleDummy(FLOWER, memory_mb=8), DoubleDummy(FLOWER, memory_mb=8)
    other._core.share(owner._core)
    hands = [list(range(4 * i, 4 * i + 4)) for i in range(4)]
    packed = owner.pack(hands)
    with pytest.raises(RuntimeError, match="shared"):
        owner._core.table(packed)                   # would clear the table under the others
    with pytest.raises(ValueError, match="owns its table"):
        DoubleDummy(FLOWER)._core.share(other._core)
    from flowerbridge.solver import BRIDGE
    with pytest.raises(ValueError, match="geometries"):
        DoubleDummy(BRIDGE)._core.share(owner._core)
    with pytest.raises(ValueError, match="denomination 4"):
        other._core.leader(packed, 4, 0)
    assert other._core.leader(packed, 3, 0) == DoubleDummy(FLOWER).ns_table(hands)[3][0]


def test_table_by_denominations_equals_the_whole_table():
    rng = random.Random(8)
    deck = [c for c in range(30) for _ in range(2)]
    rng.shuffle(deck)
    hands = [deck[i * 6:(i + 1) * 6] for i in range(4)]
    solver = DoubleDummy(FLOWER, memory_mb=16)
    whole = solver.ns_table(hands)
    packed = solver.pack(hands)
    part = solver._core.table(packed, (1, 3))
    assert part[1] == whole[1] and part[3] == whole[3] and part[0] is None and part[2] is None
    # the same deal's entries kept (fresh=False), and a first guess given
    assert solver._core.table(packed, (0,), False, whole[3][1])[0] == whole[0]
    assert solver._core.table(packed, (2,), False, -1)[2] == whole[2]
    with pytest.raises(ValueError, match="denomination 4"):
        solver._core.table(packed, (4,))
    with pytest.raises(ValueError, match="denomination 1"):
        solver._core.table(packed, (1, 1))


def test_memory_bound_is_configurable():
    assert DoubleDummy(FLOWER, memory_mb=8)._core.memory_bytes == 8 * 1024 * 1024
    assert DoubleDummy(FLOWER)._core.memory_bytes <= 256 * 1024 * 1024
    # a tiny table still gives exact answers (it is cleared when full)
    rng = random.Random(5)
    tiny = DoubleDummy(FLOWER, memory_mb=1)
    for _ in range(20):
        hands, trump, leader, trick = random_ending(rng)
        assert tiny.card_values(hands, trump, leader, trick)[1] == brute_force_values(hands, trump, leader, trick)
        _ns_tricks.cache_clear()


def _bridge_deal(seed: int) -> list[list[int]]:
    cards = list(range(52))
    random.Random(seed).shuffle(cards)
    return [sorted(cards[13 * h:13 * h + 13]) for h in range(4)]


def test_tables_searched_on_memory_another_games_tables_left_are_exact():
    # A freed table's memory is kept for the next table (release_memory), with
    # whatever it held: here Bridge entries (another entry size, other block
    # links) under Flower Bridge tables and the other way round, on 16 MB tables
    # that fill and are cleared mid-search, one thread and a shared team of two.
    from flowerbridge.solver import kept_memory, release_memory

    flower = [[c.index for c in h] for h in Deal.from_seed(7, 3).hands]
    bridge = _bridge_deal(7)
    want_flower, want_bridge = DoubleDummy(FLOWER).dd_table(flower), DoubleDummy(BRIDGE).dd_table(bridge)
    release_memory()
    for first, then, deal, want in ((BRIDGE, FLOWER, flower, want_flower), (FLOWER, BRIDGE, bridge, want_bridge)):
        before = DoubleDummy(first, 16)
        before.dd_table(bridge if first is BRIDGE else flower)
        assert before.stats["clears"] > 0           # its blocks hold entries through and through
        del before
        kept = kept_memory()
        assert kept >= 12 << 20                      # its blocks (3/4 of the bound) and its lists
        after = DoubleDummy(then, 16)
        assert after.dd_table(deal) == want
        assert kept_memory() < kept                  # (the table above took them)
        del after
        assert dd_tables([deal], then, workers=2, memory_mb=16) == [want]
    release_memory()


def test_freed_tables_memory_kept_for_the_next_is_bounded_and_given_back_on_request():
    from flowerbridge.solver import kept_memory, release_memory

    release_memory()
    assert kept_memory() == 0
    ending = [[0], [10], [20], [1]]
    solvers = [DoubleDummy(FLOWER, 200) for _ in range(3)]
    for solver in solvers:
        solver.tricks(ending, None, 0)               # its table is allocated on first use
    del solvers, solver
    kept = kept_memory()
    assert 190 << 20 <= kept <= 320 << 20            # a table's arrays kept (19/20 of its bound), not three's
    assert release_memory() == kept
    assert kept_memory() == 0
    tiny = DoubleDummy(FLOWER, 1)
    tiny.tricks(ending, None, 0)
    del tiny
    assert kept_memory() == 0                        # arrays under 2 MB go back at once


def test_an_array_kept_serves_a_table_of_its_own_size_again_after_a_smaller_one_took_it():
    # a kept 48 MB block array that served a 60 MB table's 46 MB request was kept again as
    # 46 MB: too small, then, for the next 64 MB table (and the kept total under-counted)
    from flowerbridge.solver import kept_memory, release_memory

    ending = [[0], [10], [20], [1]]

    def made_and_dropped(memory_mb: float) -> None:
        solver = DoubleDummy(FLOWER, memory_mb)
        solver.tricks(ending, None, 0)               # its table is allocated on first use

    release_memory()
    made_and_dropped(64)
    made_and_dropped(60)                             # takes the 64 MB table's block array
    kept = kept_memory()
    solver = DoubleDummy(FLOWER, 64)
    solver.tricks(ending, None, 0)
    assert kept - kept_memory() >= 48 << 20          # the block array (3/4 of 64 MB) again
    del solver
    release_memory()


@pytest.mark.parametrize("memory_mb", [float("nan"), float("inf"), 0.5, 1e12, "lots"])
def test_memory_bound_out_of_range_is_refused_at_once(memory_mb):
    with pytest.raises(SolverInputError, match="memory_mb must be"):
        DoubleDummy(FLOWER, memory_mb=memory_mb)
    with pytest.raises(SolverInputError, match="memory_mb must be"):
        dd_tables([], FLOWER, memory_mb=memory_mb)


def test_dd_tables_memory_bound_holds_for_all_workers_together(monkeypatch):
    # each worker's table is the bound shared out (at least 1 MB, so a bound of
    # fewer megabytes than workers runs fewer workers); no more threads than
    # the deal's 16 entries search one table
    from flowerbridge.solver import core
    made = []
    real = core.DoubleDummy.__init__

    def counting(self, geometry=FLOWER, memory_mb=core.DEFAULT_MEMORY_MB):
        made.append(float(memory_mb))
        real(self, geometry, memory_mb)

    monkeypatch.setattr(core.DoubleDummy, "__init__", counting)
    hands = [[c.index for c in h] for h in Deal.from_seed(3).hands]
    ref = DoubleDummy(FLOWER).dd_table(hands)
    made.clear()
    assert dd_tables([hands], FLOWER, workers=64, memory_mb=3) == [ref]
    assert made == [3.0] * 3                 # a team of 3 on one 3 MB table
    made.clear()
    assert dd_tables([hands], FLOWER, workers=100, memory_mb=256) == [ref]
    assert len(made) == 16                   # one thread an entry at most
    made.clear()
    deals = [[[c.index for c in h] for h in Deal.from_seed(3, b).hands] for b in range(3)]
    assert dd_tables(deals, FLOWER, workers=2, memory_mb=16)[0] == ref
    assert made and max(made) <= 8.0


def test_solver_takes_hands_as_any_iterables():
    hands = [[c.index for c in h] for h in Deal.from_seed(4).hands]
    solver = DoubleDummy(FLOWER)
    assert solver.dd_table([iter(h) for h in hands]) == solver.dd_table(hands)
    ending = [h[:2] for h in hands]
    assert solver.tricks([iter(h) for h in ending], None, 1) == solver.tricks(ending, None, 1)


def test_cli_solve_prints_cards_or_table(tmp_path, capsys):
    from flowerbridge import Deal
    from flowerbridge.cli import main

    deal = Deal.from_seed(5)
    hands = {s: [c.code for c in h] for s, h in zip("NESW", deal.hands)}
    # a contract and most of the play done: per-card values
    from flowerbridge.records import HandRecord
    rec = {"dealer": "N", "hands": hands, "auction": ["1A", "Pass", "Pass", "Pass"]}
    state = HandRecord.from_dict(rec).state
    while len(state.plays) < 42:
        state.play(state.legal_cards()[0])
    rec["play"] = [p.card.code for p in state.plays]
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(rec))
    assert main(["solve", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["to_move"] == state.to_play.name
    # --table: the deal's DD table, the same on one thread as on two
    assert main(["solve", "--table", str(path)]) == 0
    shared = json.loads(capsys.readouterr().out)
    assert main(["solve", "--table", "--workers", "1", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == shared
    assert set(shared["table"]) == {"P", "R", "A", "NT"}
    # each row by declarer seat, N E S W (docs/solver.md), the tricks of declarer's side
    from flowerbridge.solver.game import dd_table
    assert shared["table"] == {d.name: {s.name: n for s, n in row.items()} for d, row in dd_table(deal).items()}
    assert all(set(row) == {"N", "E", "S", "W"} for row in shared["table"].values())
    assert set(out["cards"]) == {c.code for c in state.legal_cards()}
    # --workers serves DD tables only: on card values it would be ignored, so it is refused
    assert main(["solve", "--workers", "2", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("error: --workers is for DD tables")
    # bad input: one error line, exit 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"dealer": "N", "hands": {}}')
    assert main(["solve", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and err.count("\n") == 1
    # no contract (the auction unfinished, as deal --json writes a deal, or passed out): the
    # table without --table
    dealt = tmp_path / "dealt.json"
    for auction in ([], ["Pass"] * 4):
        dealt.write_text(json.dumps({"dealer": "N", "hands": hands, "auction": auction}))
        assert main(["solve", str(dealt)]) == 0
        assert json.loads(capsys.readouterr().out) == shared


@pytest.mark.parametrize("hands, trump, leader, words", [
    ([[0.5], [1], [2], [3]], None, 0, "card index must be a whole number, not 0.5"),
    ([["0"], [1], [2], [3]], None, 0, "card index must be a whole number, not '0'"),
    ([[0], [1], [2], [3]], 1.7, 0, "trump must be a whole number, not 1.7"),
    ([[0], [1], [2], [3]], True, 0, "trump must be a whole number, not True"),
    ([[0], [1], [2], [3]], None, 1.5, "leader must be a whole number, not 1.5"),
    (None, None, 0, "a position is 4 hands"),
])
def test_solver_takes_whole_numbers_only_not_a_neighbouring_position(hands, trump, leader, words):
    # int() took 1.7 for Ribbons and 1.5 for East: an answer for another position
    solver = DoubleDummy(FLOWER, memory_mb=8)
    with pytest.raises(SolverInputError, match=words):
        solver.card_values(hands, trump, leader)


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_dd_tables_check_every_deal_before_solving_any(monkeypatch, workers):
    # the docstring said the arguments were checked at once, but a bad deal at the end of
    # a batch was refused only after the tables before it were solved
    from flowerbridge.solver import core, iter_dd_tables
    solved = []
    monkeypatch.setattr(core.DoubleDummy, "ns_table", lambda self, hands: solved.append(hands) or [[0] * 4] * 4)
    good = [[c.index for c in h] for h in Deal.from_seed(0).hands]
    for bad, message in (([[0]], "deal 4: a position has 4 hands, not 1"),
                         ([[0, 0, 0], [1, 2, 3], [4, 5, 6], [7, 8, 9]], "deal 4: card 0 appears more than 2"),
                         # (four empty hands passed, and failed once the tables before were solved)
                         ([[], [], [], []], "deal 4: no cards left to play")):
        with pytest.raises(SolverInputError, match=message):
            dd_tables([good] * 3 + [bad], FLOWER, workers=workers)
        with pytest.raises(SolverInputError, match=message):
            iter_dd_tables(iter([good] * 3 + [bad]), FLOWER, workers=workers)    # at the call, not at next()
    assert solved == []
    # each deal's hands are read once, so iterators still serve
    hands_once = [iter(hand) for hand in good]
    assert len(dd_tables([iter(hands_once)], FLOWER, workers=1)) == 1 and solved == [good]


@pytest.mark.parametrize("workers", [0, -3, "x", 1.5])
def test_dd_tables_refuses_a_number_of_workers_that_is_not_one_or_more(workers):
    with pytest.raises(SolverInputError, match="workers must be"):
        dd_tables([[[c.index for c in h] for h in Deal.from_seed(0).hands]], FLOWER, workers=workers)


# ---------------------------------------------------------------- threads


def _in_threads(*calls):
    """Run each call on a thread of its own, all at once: (results, errors)."""
    import threading

    results: list = [None] * len(calls)
    errors: list = []

    def run(i, call):
        try:
            results[i] = call()
        except Exception as exc:  # noqa: BLE001 - the test reports any
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, errors


def test_module_functions_may_be_called_from_two_threads_at_once():
    from flowerbridge.solver import game

    deals = [Deal.from_seed(0), Deal.from_seed(1)]
    results, errors = _in_threads(*(lambda d=d: game.dd_table(d) for d in deals))
    assert errors == []
    assert results == [game.dd_table(d) for d in deals]


def test_one_solver_searched_from_two_threads_at_once_is_a_solver_busy_error():
    from flowerbridge.solver import SolverBusyError

    dd = DoubleDummy(FLOWER)
    hands = [[c.index for c in h] for h in Deal.from_seed(0).hands]
    _, errors = _in_threads(lambda: dd.dd_table(hands), lambda: dd.dd_table(hands))
    assert len(errors) == 1
    assert isinstance(errors[0], SolverBusyError) and isinstance(errors[0], FlowerBridgeError)
    assert "another thread" in str(errors[0]) and "one per thread" in str(errors[0])


def test_idle_teams_keep_only_the_last_size_asked_for_when_an_older_team_comes_back_later():
    from flowerbridge.solver import core

    older = core._borrow_team(FLOWER, 3.0, 2)     # a slow table on one size ...
    newer = core._borrow_team(FLOWER, 5.0, 2)     # ... while another size is asked for
    core._give_back(newer)
    core._give_back(older)                        # the older size comes back last
    assert {key: len(teams) for key, teams in core._idle.items()} == {(FLOWER, 5.0, 2): 1}


def test_a_geometry_that_is_not_a_geometry_is_refused_naming_what_was_given():
    hands = [[0, 1], [2, 3], [4, 5], [6, 7]]
    for call in (lambda: DoubleDummy((3, 10, 2)),
                 lambda: dd_tables([hands], (3, 10, 2), workers=2),
                 lambda: dd_tables([hands, hands], (3, 10, 2), workers=2)):
        with pytest.raises(SolverInputError, match=r"^geometry must be a Geometry .*not \(3, 10, 2\)$"):
            call()


def test_too_many_copies_of_a_card_across_seats_and_the_trick_name_the_card_and_where_they_are():
    dd = DoubleDummy(FLOWER)
    with pytest.raises(SolverInputError, match=r"^card 0 appears 3 times \(2 in seat 0's hand, "
                                               r"1 in seat 1's hand\); the deck holds 2$"):
        dd.card_values([[0, 0], [0, 3], [5, 6], [8, 9]], None, 0)
    with pytest.raises(SolverInputError, match=r"^card 0 appears 3 times \(1 in seat 0's hand, "
                                               r"1 in seat 2's hand, 1 in the trick\); the deck holds 2$"):
        dd.card_values([[0], [3, 4], [0, 6], [8, 9]], None, 0, [0])


def test_takes_all_is_true_exactly_where_the_side_to_move_takes_every_trick_left_and_searches_once():
    # a claim's double-dummy check (docs/solver.md, Layers): one null-window search at the
    # bound, not the value, on either side of the table, mid-trick too
    rng = random.Random(20261205)
    solver = DoubleDummy(FLOWER, memory_mb=16)
    seen = {True: 0, False: 0}
    for i in range(200):
        hands, trump, leader, trick = random_ending(rng, 5 if i % 20 == 0 else None)
        to_move = (leader + len(trick)) % 4
        every = max(brute_force_values(hands, trump, leader, trick).values()) == len(hands[to_move])
        searches = solver.stats["searches"]
        assert solver.takes_all(hands, trump, leader, trick) == every, (hands, trump, leader, trick)
        assert solver.stats["searches"] - searches == 1
        seen[every] += 1
        _ns_tricks.cache_clear()
    assert min(seen.values()) > 40, seen


def test_takes_all_of_a_bridge_deal_agrees_with_the_exact_value():
    rng = random.Random(7)
    solver = DoubleDummy(BRIDGE, memory_mb=16)
    seen = set()
    for _ in range(60):
        deck = list(range(52))
        rng.shuffle(deck)
        n = rng.choice((3, 5, 7))
        # the top cards mostly to one side, so that some of them take every trick
        deck = sorted(deck[:4 * n], key=lambda c: (c % 13) * rng.choice((1, 1, 0.2)), reverse=True)
        hands = [[] for _ in range(4)]
        for c in deck:
            hands[min((s for s in range(4) if len(hands[s]) < n),
                      key=lambda s: (s % 2 != 0, len(hands[s])))].append(c)
        trump, leader = rng.choice((None, 0, 1, 2, 3)), rng.randrange(4)
        every = solver.tricks(hands, trump, leader) == n
        assert solver.takes_all(hands, trump, leader) == every
        seen.add(every)
    assert seen == {True, False}


@pytest.mark.parametrize("contract", ["1NT", "1P", "1R", "1A"])
def test_claim_line_is_given_exactly_where_no_defence_takes_a_trick(contract):
    # a claim of every trick left (terminal play, the server): judged against brute force
    # on endings of a played hand, and the line it gives takes them all in the engine
    from flowerbridge.records import HandRecord
    from flowerbridge.solver.game import claim_line

    seen = {True: 0, False: 0}
    for seed in range(12):
        deal = Deal.from_seed(seed)
        state = HandRecord.from_dict({
            "dealer": "N", "hands": {s: [c.code for c in h] for s, h in zip("NESW", deal.hands)},
            "auction": [contract, "Pass", "Pass", "Pass"]}).state
        rng = random.Random(seed)
        while len(state.tricks) < 9 + seed % 3:
            state.play(rng.choice(state.legal_cards()))
        for _ in range(seed % 4):       # mid-trick too
            state.play(rng.choice(state.legal_cards()))
        hands = [[c.index for c in state.remaining(s)] for s in range(4)]
        trick = [c.index for _, c in state.current_trick]
        leader = int(state.current_trick[0][0]) if trick else int(state.to_play)
        trump = state.contract.denomination.trump
        left = 13 - len(state.tricks)
        every = max(brute_force_values(hands, None if trump is None else int(trump), leader, trick).values()) == left
        line = claim_line(state)
        assert (line is not None) == every
        seen[every] += 1
        if line is not None:
            side = state.to_play % 2
            before = len(state.tricks)
            for seat, card in line:
                assert state.to_play == seat
                state.play(card)
            assert state.is_over and all(t.winner % 2 == side for t in state.tricks[before:])
    assert seen[True] and seen[False]


# ------------------------------------------------- properties over random hands


def _played_to(random_hand, seed: int, back: int):
    """A random hand replayed to ``back`` actions before its end (None if passed out)."""
    from flowerbridge import CallMade
    full = random_hand(seed)
    if full.contract is None:
        return None
    state = HandState(full.deal, full.dealer, full.options)
    for event in full.history[:len(full.history) - back]:
        state.apply(event.call if isinstance(event, CallMade) else event.card)
    return state


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**32), back=st.integers(2, 52))
def test_a_cards_value_is_its_tricks_won_now_and_the_best_play_after_it(random_hand, seed, back):
    # Each card's double-dummy value (the tricks left for the side to move, the trick in
    # progress included) is the trick it closes, if its side takes it, plus the value of
    # the position it leaves, seen from that side: mid-trick, twins in the trick, dummy.
    from flowerbridge import Phase
    from flowerbridge.solver.game import card_values, tricks
    state = _played_to(random_hand, seed, back)
    if state is None or state.phase is not Phase.PLAY:
        return
    values = card_values(state)
    assert set(values) == set(state.legal_cards())
    side = int(state.to_play) % 2
    for card, value in values.items():
        after = state.copy()
        before = len(after.tricks)
        after.apply(card, after.actor)
        won = int(len(after.tricks) > before and int(after.tricks[-1].winner) % 2 == side)
        if after.is_over:
            rest = 0
        else:
            left, best = 13 - len(after.tricks), tricks(after)
            rest = best if int(after.to_play) % 2 == side else left - best
        assert value == won + rest, (card, value, won, rest)


@settings(max_examples=4, deadline=None)     # (three DD tables an example: seconds each)
@given(seed=st.integers(0, 2**32), k=st.integers(1, 3), order=st.permutations([0, 1, 2]))
def test_dd_table_turns_with_the_seats_and_follows_the_suits_renamed(seed, k, order):
    # The three suits are alike (ten ranks, every card twice): the hands moved k seats round
    # the table move the table's columns with them, and the suits renamed (ranks kept) rename
    # its rows; No Trump stays.
    from flowerbridge import CARDS, Seat
    from flowerbridge.solver import dd_table
    deal = Deal.from_seed(seed)
    table = dd_table(deal)
    turned = dd_table(Deal.from_hands({Seat((i + k) % 4).name: [c.code for c in deal.hands[i]]
                                       for i in range(4)}))
    renamed = dd_table(Deal.from_hands({Seat(i).name: [CARDS[order[c.index // 10] * 10 + c.index % 10].code
                                                       for c in deal.hands[i]] for i in range(4)}))
    denominations = list(table)
    for d in denominations:
        other = denominations[order[int(d)]] if int(d) < 3 else d
        for seat in Seat:
            assert turned[d][Seat((seat + k) % 4)] == table[d][seat], (d, seat)
            assert renamed[other][seat] == table[d][seat], (d, other, seat)
