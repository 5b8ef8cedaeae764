"""Engine-independent face of the double-dummy solver.

Positions are given by plain numbers, so that the same code serves Flower
Bridge (3 suits x 10 ranks x 2 copies) and standard Contract Bridge
(4 suits x 13 ranks x 1 copy):

* a card is an index ``suit * ranks + rank`` (rank 0 is the lowest);
* ``hands`` is four sequences of card indices (N, E, S, W; a card held twice
  appears twice), without the cards already on the table;
* ``trump`` is a suit index or ``None`` for No Trump;
* ``leader`` is the seat (0-3) that led the trick in progress, or leads next;
* ``trick`` is the card indices already played to the unfinished trick, in
  order, the first by ``leader``.

Seats are numbered clockwise N=0, E=1, S=2, W=3; North-South are 0 and 2.
"""

from __future__ import annotations

import itertools
import operator
import os
import threading
import time
from collections import deque
from contextlib import contextmanager
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Callable, Generator, Iterable, Iterator, Sequence, cast

from ..errors import FlowerBridgeError
from ._core import BusyError as _CoreBusy
from ._core import Cancelled as _CoreCancelled
from ._core import InputError as _CoreInputError
from ._core import Solver as _CoreSolver
from ._core import after_fork_in_child as _after_fork_in_child
from ._core import kept_memory as _kept_memory
from ._core import release_memory as _release_memory

DEFAULT_MEMORY_MB = 256
"""Default bound on the transposition tables of one call (all workers together)."""
MAX_MEMORY_MB = 65536
"""The largest ``memory_mb`` taken (64 GB): a bound on a slip, not on the machine."""


def _index(value: object, what: str) -> int:
    """``value`` as a whole number (an int, or a NumPy integer), else a
    :class:`SolverInputError`: 1.7 or True is not taken for 1."""
    if isinstance(value, bool):
        raise SolverInputError(f"{what} must be a whole number, not {value!r}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise SolverInputError(f"{what} must be a whole number, not {value!r}") from None


@dataclass(frozen=True)
class Geometry:
    """The shape of a deck: suits, ranks per suit and identical copies per card."""

    suits: int
    ranks: int
    copies: int

    def __post_init__(self) -> None:
        # whole numbers as Python's (a NumPy int8's product overflowed: a deck of -112
        # cards), and nothing else (1.0 or True is no count)
        for name in ("suits", "ranks", "copies"):
            object.__setattr__(self, name, _index(getattr(self, name), f"geometry {name}"))

    @property
    def cards(self) -> int:
        """Number of distinct cards."""
        return self.suits * self.ranks


FLOWER = Geometry(3, 10, 2)
"""Flower Bridge: Plains, Ribbons, Bright Animals; ten ranks; every card twice."""

BRIDGE = Geometry(4, 13, 1)
"""Contract Bridge: clubs, diamonds, hearts, spades (suit 0..3); 2..A (rank 0..12)."""


def _hands(hands: object) -> list[list]:
    """``hands`` as four lists (read once: they may be iterators), else a
    :class:`SolverInputError`."""
    try:
        out = [list(hand) for hand in hands]  # type: ignore[attr-defined]
    except TypeError:
        raise SolverInputError("a position is 4 hands, each an iterable of card indices") from None
    if len(out) != 4:
        raise SolverInputError(f"a position has 4 hands, not {len(out)}")
    return out


def _seat(value: object, what: str) -> int:
    seat = _index(value, what)
    if not 0 <= seat < 4:
        raise SolverInputError(f"{what} {seat} is not a seat 0..3")
    return seat


class SolverInputError(FlowerBridgeError):
    """A position the solver cannot accept (wrong sizes, too many copies ...),
    or a solver it cannot build (an unsupported geometry, a bad memory bound).
    Like every error of the package, a :class:`FlowerBridgeError` (and so a
    :class:`ValueError`)."""


class SolverBusyError(FlowerBridgeError):
    """A :class:`DoubleDummy` asked to search while it is searching on another
    thread (an instance serves one thread at a time)."""


class SolverMemoryError(FlowerBridgeError, MemoryError):
    """The memory for a solver's transposition table could not be had: a
    :class:`FlowerBridgeError` that says so, and a :class:`MemoryError`."""


def _no_memory(memory_mb: float) -> SolverMemoryError:
    return SolverMemoryError(f"out of memory for a transposition table of {memory_mb:g} MB "
                             "(a smaller memory_mb may fit)")


class SearchCancelled(Exception):
    """A search stopped by :meth:`DoubleDummy.cancel` from another thread (not an
    error of its input, so not a :class:`FlowerBridgeError`)."""


def _winner(trick: Sequence[int], trump: int | None, ranks: int) -> int:
    """Position in ``trick`` of the card that wins it: a card takes over only
    by outranking the current winner, so the first of two equal cards wins."""
    best = 0
    for i in range(1, len(trick)):
        s, r = divmod(trick[i], ranks)
        bs, br = divmod(trick[best], ranks)
        if (s == bs and r > br) or (s != bs and s == trump):
            best = i
    return best


class _Positions:
    """The checks of a position against a geometry, and its packing for the core: what a
    solver does with its input before any search."""

    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry

    def pack(self, hands: Sequence[Iterable[int]]) -> bytes:
        """Copy counts per seat and card, the compiled core's input format."""
        cards, copies = self.geometry.cards, self.geometry.copies
        hands = _hands(hands)
        buf = bytearray(4 * cards)
        for seat, hand in enumerate(hands):
            base = seat * cards
            for card in hand:
                if type(card) is not int:   # (the checks of every card are most of a small search's time)
                    card = _index(card, "card index")
                if not 0 <= card < cards:
                    raise SolverInputError(f"card index {card} out of range 0..{cards - 1}")
                held = buf[base + card] + 1
                if held > copies:
                    raise SolverInputError(f"card {card} appears more than {copies} "
                                           f"{'time' if copies == 1 else 'times'} in seat {seat}'s hand; "
                                           f"the deck holds {copies}")
                buf[base + card] = held
        return bytes(buf)

    def _trump(self, trump: int | None) -> int:
        if trump is None:
            return -1
        index = _index(trump, "trump")
        if not 0 <= index < self.geometry.suits:
            raise SolverInputError(f"trump {trump} is not a suit index")
        return index

    def _trick(self, trick: object) -> tuple[int, ...]:
        try:
            cards = tuple(_index(c, "card index") for c in trick)  # type: ignore[attr-defined]
        except TypeError:
            raise SolverInputError("a trick in progress is an iterable of card indices") from None
        for card in cards:
            if not 0 <= card < self.geometry.cards:
                raise SolverInputError(f"card index {card} in the trick out of range "
                                       f"0..{self.geometry.cards - 1}")
        if len(cards) > 3:
            raise SolverInputError(f"a trick in progress has 0 to 3 cards, not {len(cards)}")
        return cards

    def _position(self, hands, trump, leader, trick) -> tuple[bytes, int, int, tuple[int, ...]]:
        """The core's arguments for a position, each checked with a message
        that names what is wrong."""
        hands = _hands(hands)
        leader = _seat(leader, "leader")
        cards = self._trick(trick)
        sizes = [len(hand) for hand in hands]
        # the seats that have played to the trick hold one card fewer
        full = sizes[(leader + len(cards)) % 4]
        expected = [full - ((seat - leader) % 4 < len(cards)) for seat in range(4)]
        if sizes != expected:
            shown = ", ".join(map(str, sizes))
            raise SolverInputError(f"hands must be of equal size ({shown})" if not cards else
                                   f"hand sizes ({shown}) do not fit a trick of {len(cards)} "
                                   f"card(s) led by seat {leader}: the seats that have played to "
                                   "it hold one card fewer than the others")
        packed = self.pack(hands)
        self._check_copies(packed, cards)
        return packed, self._trump(trump), leader, cards

    def _check_copies(self, packed: bytes, trick: Sequence[int]) -> None:
        """No card more often, in the four hands and the trick together, than
        the deck holds it: else an error naming the card and its copies."""
        g = self.geometry
        n = g.cards
        totals = [a + b + c + d for a, b, c, d in zip(packed[:n], packed[n:2 * n], packed[2 * n:3 * n], packed[3 * n:])]
        for card in trick:
            totals[card] += 1
        if max(totals) <= g.copies:
            return
        on_table = [0] * g.cards
        for card in trick:
            on_table[card] += 1
        for card in range(g.cards):
            held = [packed[seat * g.cards + card] for seat in range(4)]
            if sum(held) + on_table[card] > g.copies:
                where = [f"{n} in seat {seat}'s hand" for seat, n in enumerate(held) if n]
                if on_table[card]:
                    where.append(f"{on_table[card]} in the trick")
                raise SolverInputError(f"card {card} appears {sum(held) + on_table[card]} times "
                                       f"({', '.join(where)}); the deck holds {g.copies}")


class DoubleDummy(_Positions):
    """Double-dummy solver for one :class:`Geometry`.

    Holds a compiled search engine and its transposition table (at most
    ``memory_mb`` megabytes, allocated on first use and kept between calls).
    The search releases the GIL; an instance serves one thread at a time (use
    one per thread, as :func:`dd_tables` does): a call while it searches on
    another thread is a :class:`SolverBusyError`. A search can be stopped:
    on the main thread by Ctrl-C (its call raises KeyboardInterrupt, as Python
    code would), from another thread by :meth:`cancel`.
    """

    def __init__(self, geometry: Geometry = FLOWER, memory_mb: float = DEFAULT_MEMORY_MB) -> None:
        memory_mb = _memory_bound(memory_mb)
        geometry = _geometry(geometry)
        super().__init__(geometry)
        self.memory_mb = memory_mb
        self._core = _new_core(geometry, memory_mb)
        self._depth = 0         # calls of this instance under way (optimal_line makes several)

    @contextmanager
    def _searching(self) -> Iterator[None]:
        """Around a call: a :meth:`cancel` stops it from now until it ends, whichever of
        its searches runs (the core's flag stays set; the outermost call clears it)."""
        if self._depth == 0:
            self._core.cancel(False)
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    def _call(self, fn, *args):
        # (only the core's own errors are translated: a signal handler run in the middle
        # of a search raises its own exception here, which passes through as it is)
        with self._searching():
            try:
                return fn(*args)
            except _CoreCancelled:
                raise SearchCancelled("the search was cancelled (DoubleDummy.cancel)") from None
            except _CoreInputError as exc:
                raise SolverInputError(str(exc)) from None
            except _CoreBusy:
                raise SolverBusyError("this DoubleDummy is already searching (on another thread, or in "
                                      "the call a signal handler interrupted): an instance serves one "
                                      "search at a time (make one per thread)") from None
            except MemoryError:     # (the core's own said nothing: a bare MemoryError())
                raise _no_memory(self.memory_mb) from None

    # --------------------------------------------------------------- solving

    def card_values(self, hands, trump, leader: int, trick: Sequence[int] = ()) -> tuple[int, dict[int, int]]:
        """``(seat to move, {card: tricks})``: for every legal card of the seat
        to move, the tricks still to come (the one in progress included) that
        the side to move takes when all four hands play their best."""
        return self._call(self._core.values, *self._position(hands, trump, leader, trick))

    def ns_tricks(self, hands, trump, leader: int, trick: Sequence[int] = ()) -> int:
        """Tricks still to come (the one in progress included) for North-South."""
        return self._call(self._core.tricks, *self._position(hands, trump, leader, trick))

    def tricks(self, hands, trump, leader: int, trick: Sequence[int] = ()) -> int:
        """Tricks still to come for the side of the seat to move."""
        hands = _hands(hands)    # read twice (hands and trick may be iterators)
        trick = self._trick(trick)
        ns = self.ns_tricks(hands, trump, leader, trick)
        to_move = (_seat(leader, "leader") + len(trick)) % 4
        total = len(hands[to_move])
        return ns if to_move % 2 == 0 else total - ns

    def takes_all(self, hands, trump, leader: int, trick: Sequence[int] = ()) -> bool:
        """Whether the side of the seat to move takes every trick still to come
        (the one in progress included) against any defence: one null-window
        search, which a defence that takes a trick usually ends at once (the
        exact value can cost a hundred times more)."""
        hands = _hands(hands)    # read twice (hands may be iterators)
        packed, trump_code, leader, cards = self._position(hands, trump, leader, trick)
        to_move = (leader + len(cards)) % 4
        total = len(hands[to_move])
        if to_move % 2 == 0:    # North-South to move: do they take at least all of them?
            return self._call(self._core.tricks, packed, trump_code, leader, cards, total, total - 1, total) == total
        return self._call(self._core.tricks, packed, trump_code, leader, cards, 1, 0, 1) == 0

    def ns_table(self, hands) -> list[list[int]]:
        """North-South tricks, ``[denomination][opening leader]``; denominations
        are the suits in index order, then No Trump."""
        packed = self._position(hands, None, 0, ())[0]      # four hands of one size
        return self._call(self._core.table, packed)

    def dd_table(self, hands) -> list[list[int]]:
        """Double-dummy table ``[denomination][declarer]``: tricks for the
        declarer's side when declarer's left-hand opponent leads."""
        hands = _hands(hands)    # read twice (hands may be iterators)
        return _declarer_view(self.ns_table(hands), len(hands[0]))

    def optimal_line(self, hands, trump, leader: int, trick: Sequence[int] = ()) -> list[tuple[int, int, int]]:
        """One line of best play to the end: ``[(seat, card, tricks), ...]``,
        where ``tricks`` is what the side of ``seat`` takes from that point
        on (current trick included).  Among equally good cards the lowest
        index is chosen."""
        with self._searching():     # (a cancel between two of its searches stops it too)
            return self._optimal_line(hands, trump, leader, trick)

    def _optimal_line(self, hands, trump, leader: int, trick: Sequence[int]) -> list[tuple[int, int, int]]:
        g = self.geometry
        tmp = _hands(hands)
        trick = list(self._trick(trick))
        leader = _seat(leader, "leader")
        line: list[tuple[int, int, int]] = []
        while True:
            to_move = (leader + len(trick)) % 4
            if line and not tmp[to_move]:   # the first step checks the position
                break
            seat, values = self.card_values(tmp, trump, leader, trick)
            best = max(values.values())
            card = min(c for c, v in values.items() if v == best)
            line.append((seat, card, best))
            tmp[seat].remove(card)
            trick.append(card)
            if len(trick) == 4:
                leader = (leader + _winner(trick, trump, g.ranks)) % 4
                trick = []
        return line

    def cancel(self) -> None:
        """Stop the call this instance runs now, on another thread: it raises
        :class:`SearchCancelled` within about a thousand trick nodes (well under a
        second), and the instance serves the next call as before (its table keeps
        what was proved). No effect when it is not searching. (A search on the main
        thread takes Ctrl-C by itself: its call raises KeyboardInterrupt.)"""
        if self._depth:
            self._core.cancel()

    @property
    def stats(self) -> dict:
        """Search counters of this instance (nodes, table look-ups, ...)."""
        return self._core.stats


def _geometry(geometry: object) -> Geometry:
    """``geometry`` if it is a :class:`Geometry`, else a :class:`SolverInputError`
    that names what was given."""
    if not isinstance(geometry, Geometry):
        raise SolverInputError(f"geometry must be a Geometry (FLOWER, BRIDGE or Geometry(suits, ranks, "
                               f"copies)), not {geometry!r}")
    return geometry


def release_memory() -> int:
    """Give back to the system the memory of freed transposition tables, and
    return how many bytes that was.

    A solver's table, once freed (the solver dropped, or a DD table's threads
    done with theirs), is kept for the next table the process makes: up to
    320 MB, enough for one table of the default size, the oldest given back
    first.  Writing to fresh memory for the first time is what costs (the
    system zeroes each page, and a virtual machine's host may only then
    provide it), so a new table on kept memory starts at full speed.  A
    process that is done solving can give it back at once."""
    return _release_memory()


def kept_memory() -> int:
    """The bytes of freed tables' memory kept for the next tables (see
    :func:`release_memory`)."""
    return _kept_memory()


def _new_core(geometry: Geometry, memory_mb: float) -> "_CoreSolver":
    """A compiled solver for ``geometry`` (its table allocated on its first search), or
    a :class:`SolverInputError` for a geometry the core does not take."""
    shape = [_index(getattr(geometry, name, None), f"geometry {name}") for name in ("suits", "ranks", "copies")]
    try:
        return _CoreSolver(*shape, float(memory_mb))
    except (ValueError, OverflowError) as exc:
        raise SolverInputError(str(exc) if isinstance(exc, ValueError) else
                               f"unsupported geometry: {shape[0]} suits x {shape[1]} ranks x "
                               f"{shape[2]} copies") from None


def _memory_bound(memory_mb: float) -> float:
    """``memory_mb`` as a float, or a :class:`SolverInputError` (NaN, infinite,
    below 1 MB or above :data:`MAX_MEMORY_MB`)."""
    try:
        if isinstance(memory_mb, (bool, str, bytes)):   # True is no size, nor is " 64 "
            raise TypeError
        value = float(memory_mb)
    except OverflowError:   # an int too large for a float: a number, out of range
        raise SolverInputError(f"memory_mb must be between 1 and {MAX_MEMORY_MB:,}, not a number "
                               f"of {len(str(memory_mb)):,} digits") from None
    except (TypeError, ValueError):
        raise SolverInputError(f"memory_mb must be a number of megabytes, not {memory_mb!r}") from None
    if not 1 <= value <= MAX_MEMORY_MB:     # (NaN compares false)
        raise SolverInputError(f"memory_mb must be between 1 and {MAX_MEMORY_MB:,}, not {memory_mb!r}")
    return value


def _declarer_view(ns: Sequence[Sequence[int]], total: int) -> list[list[int]]:
    """``[denomination][opening leader]`` North-South tricks to
    ``[denomination][declarer]`` tricks for declarer's side."""
    return [[row[(d + 1) % 4] if d % 2 == 0 else total - row[(d + 1) % 4] for d in range(4)] for row in ns]


_local = threading.local()


def _worker_solver(geometry: Geometry, memory_mb: float) -> DoubleDummy:
    key = (geometry, memory_mb)
    cache = getattr(_local, "solvers", None)
    if cache is None:
        cache = _local.solvers = {}
    if key not in cache:
        cache.clear()  # one table per thread at a time keeps memory bounded
        cache[key] = DoubleDummy(geometry, memory_mb)
    return cache[key]


# Teams of solvers lent to the threads that share one DD table, kept between
# calls (the table is allocated once): every solver of a team searches its
# first solver's table.  Only the last size asked for is kept.
_idle_lock = threading.Lock()
# holds the last size asked for alone (its list empty while every team is lent)
_idle: dict[tuple[Geometry, float, int], list[list[DoubleDummy]]] = {}


def _borrow_team(geometry: Geometry, memory_mb: float, n: int) -> list[DoubleDummy]:
    key = (geometry, memory_mb, n)
    with _idle_lock:
        if key not in _idle:
            _idle.clear()
        free = _idle.setdefault(key, [])
        if free:
            return free.pop()
    team = [DoubleDummy(geometry, memory_mb) for _ in range(n)]
    for solver in team[1:]:
        try:
            solver._core.share(team[0]._core)   # (the shared table is made here)
        except MemoryError:
            raise _no_memory(memory_mb) from None
    return team


def _give_back(team: list[DoubleDummy]) -> None:
    key = (team[0].geometry, team[0].memory_mb, len(team))
    with _idle_lock:
        free = _idle.get(key)
        if free is None:    # another size was asked for since: this one is dropped
            return
        if not free:
            free.append(team)


def _shared_table(hands, geometry: Geometry, workers: int, memory_mb: float) -> list[list[int]]:
    """One deal's DD table searched by ``workers`` threads on one shared
    transposition table: the table's 4 (S + 1) entries (a denomination and
    an opening leader each) are taken in order, No Trump first, then the
    suits, each denomination's leaders East, South, West, North, each by
    the next thread free, and what one thread stores serves the others at
    once.  An entry's first guess is, as on one thread, East's value plus
    one for South and the partner's value for West and North when those
    are known, else the estimate (from East's No Trump value where known)."""
    hands = _hands(hands)    # read twice (hands may be iterators)
    suits = geometry.suits
    todo = deque((d, leader) for d in (suits, *range(suits)) for leader in (1, 2, 3, 0))
    rows: list[list[int | None]] = [[None] * 4 for _ in range(suits + 1)]
    lock = threading.Lock()
    running = 0         # threads in work(): a stop waits for none left (see below)
    team = _borrow_team(geometry, memory_mb, workers)
    try:
        packed = team[0]._position(hands, None, 0, ())[0]      # four hands of one size
        team[0]._core.clear()

        def work(solver: DoubleDummy) -> None:
            nonlocal running
            with lock:
                running += 1
            try:
                take_entries(solver)
            finally:
                with lock:
                    running -= 1

        def take_entries(solver: DoubleDummy) -> None:
            while True:
                with lock:
                    if not todo:
                        return
                    d, leader = todo.popleft()
                    # a denomination's entries serve no other's positions
                    # (but those with no trump left): once the table is half
                    # full, a new denomination starts it empty rather than
                    # let it fill up in the middle of a search
                    if leader == 1 and d != suits:
                        used, blocks = team[0]._core.fill    # (stats would race the owner's search)
                        if 2 * used > blocks:
                            solver._core.clear()
                    known = rows[d][1] if leader == 2 else rows[d][(leader + 2) % 4] if leader != 1 else None
                    guess = -1 if known is None else known + (leader == 2)
                    nt_east = rows[suits][1]
                nt_east = -1 if nt_east is None else nt_east
                value = solver._call(solver._core.leader, packed, d, leader, guess, nt_east)
                with lock:
                    rows[d][leader] = value

        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures: list[Future] = []
            try:
                # (in the try: a Ctrl-C while the threads start stops them too, and waits
                # for them; it came within a submit's thread start often enough, leaving
                # a full search for the pool's exit to wait for)
                futures.extend(pool.submit(work, s) for s in team)
                # a thread's error as soon as raised; and the wait wakes every tenth of a
                # second, so that a KeyboardInterrupt raised in this thread from another (a
                # command's Ctrl-C, cli.on_a_thread_of_its_own) is taken at once: a wait on
                # the futures alone took it only once every entry had been taken
                pending = set(futures)
                while pending:
                    done, pending = wait(pending, timeout=0.1, return_when=FIRST_EXCEPTION)
                    for future in done:
                        future.result()
            except BaseException:
                # a Ctrl-C, or another thread's error: the others take no further
                # entry and stop the one they are searching
                with lock:
                    todo.clear()
                def cancel() -> None:
                    for solver in team:
                        solver.cancel()

                def searching(seconds: float) -> bool:
                    # a thread that took an entry is in work(); one that is not yet will
                    # find none left (so the futures of a submit that a Ctrl-C cut
                    # short, never returned, need no waiting for)
                    wait(futures, timeout=seconds) if futures else time.sleep(seconds)
                    with lock:
                        return running > 0

                stop_searches(cancel, searching)
                raise
    finally:
        # lent out again only with none of its threads in work() and no entry left for one
        # yet to start: a Ctrl-C that cut the stop short (in its few bytecodes outside a
        # try) left a search running on it, and the next call found it busy; such a team
        # is dropped, and the next call makes another
        with lock:
            todo.clear()
            idle = running == 0
        if idle:
            _give_back(team)
    # every entry is filled once the workers are done
    return _declarer_view(cast("list[list[int]]", rows), len(hands[0]))


def dd_tables(deals: Sequence, geometry: Geometry = FLOWER, *, workers: int = 2,
              memory_mb: float = DEFAULT_MEMORY_MB) -> list[list[list[int]]]:
    """Double-dummy tables (see :meth:`DoubleDummy.dd_table`) of many deals,
    solved by ``workers`` threads at once (the search runs without the GIL):
    one deal a thread, or, given fewer deals than threads (a single deal),
    all threads on each table, searching one transposition table together.
    ``memory_mb`` bounds all workers' transposition tables together (each
    worker gets at least 1 MB: a bound below ``workers`` MB runs fewer).
    No more threads run than there are deals, or, on one deal, entries of
    its table (4 per denomination).  :func:`iter_dd_tables` gives each
    table as soon as it is solved."""
    return list(iter_dd_tables(deals, geometry, workers=workers, memory_mb=memory_mb))


def iter_dd_tables(deals: Sequence, geometry: Geometry = FLOWER, *, workers: int = 2,
                   memory_mb: float = DEFAULT_MEMORY_MB) -> Generator[list[list[int]], None, None]:
    """:func:`dd_tables` one table at a time, in the deals' order: each is
    given as soon as it and those before it are solved (the workers go on
    with the next deals meanwhile).  The arguments are checked at once, every
    deal included (an error names the deal, counted from 1): a bad deal at the
    end of a batch was found only once the tables before it were solved.
    Closing the iterator early cancels the deals not started."""
    try:
        deals = list(deals)
    except TypeError:
        raise SolverInputError("deals must be an iterable of positions (4 hands each)") from None
    geometry = _geometry(geometry)
    memory_mb = _memory_bound(memory_mb)
    workers = _index(workers, "workers")
    if workers < 1:
        raise SolverInputError(f"workers must be at least 1, not {workers}")
    _new_core(geometry, 1)      # (a geometry the core does not take, refused before the deals)
    checker = _Positions(geometry)
    for number, deal in enumerate(deals, 1):
        try:
            deals[number - 1] = deal = _hands(deal)     # read once: a hand may be an iterator
            checker._position(deal, None, 0, ())
            if not deal[0]:     # (four empty hands passed, and failed once solving began)
                raise SolverInputError("no cards left to play")
        except SolverInputError as exc:
            raise SolverInputError(f"deal {number}: {exc}") from None
    workers = min(workers, int(memory_mb))
    if workers > 1 and len(deals) < workers:
        team = min(workers, 4 * (geometry.suits + 1))
        return (_shared_table(d, geometry, team, memory_mb) for d in deals)
    workers = min(workers, max(1, len(deals)))
    per = memory_mb / workers
    if workers == 1:
        solver = DoubleDummy(geometry, per)
        return (solver.dd_table(d) for d in deals)
    return _pooled_tables(deals, geometry, workers, per)


def _pooled_tables(deals: list, geometry: Geometry, workers: int,
                   per: float) -> Generator[list[list[int]], None, None]:
    searches = Searches()

    def one(deal):
        solver = _worker_solver(geometry, per)
        with searches.by(solver):
            return solver.dd_table(deal)

    pool = ThreadPoolExecutor(max_workers=workers)
    # at most AHEAD deals a worker handed to the pool ahead of the table given next: a
    # future a deal, all at once, held a million deals' futures before the first table
    waiting = iter(deals)
    futures: deque = deque()
    try:
        futures.extend(pool.submit(one, deal) for deal in itertools.islice(waiting, AHEAD * workers))
        while futures:
            table = futures[0].result()
            futures.popleft()
            futures.extend(pool.submit(one, deal) for deal in itertools.islice(waiting, 1))
            yield table
    finally:
        # also when closed early, or on a Ctrl-C: the deals not started are dropped,
        # those being searched stopped (they went on to the end of their tables)
        for future in futures:
            future.cancel()
        # (until no search is under way too: a Ctrl-C within a submit's thread start left
        # a future out of the list, and its deal's whole table searched on after the call)
        stop_searches(searches.cancel, searches.running(list(futures)))
        pool.shutdown(wait=True)


AHEAD = 64
"""Deals a worker of :func:`iter_dd_tables` may be given ahead of the table it yields next
(so that a dear deal at the head leaves the other workers deals enough to go on with)."""


class Searches:
    """The solvers searching for one piece of work now (a batch's tables, a bot's
    decision), so that it can be stopped: :meth:`cancel` cancels each while it searches
    for it, and any that would begin for it later. A solver may serve other work too (a
    thread's own, in a shared pool): it is cancelled only while in this set, under the
    lock it leaves the set by once done."""

    def __init__(self) -> None:
        self._solvers: set[DoubleDummy] = set()
        self._lock = threading.Lock()
        self._stopped = False

    @contextmanager
    def by(self, solver: DoubleDummy) -> Iterator[DoubleDummy]:
        """While this lasts, ``solver`` searches for this work (SearchCancelled at once
        where the work was stopped)."""
        with self._lock:
            if self._stopped:
                raise SearchCancelled("the search was cancelled before it began (the work was stopped)")
            self._solvers.add(solver)
        try:
            yield solver
        finally:
            with self._lock:
                self._solvers.discard(solver)

    def cancel(self) -> None:
        with self._lock:
            self._stopped = True
            for solver in self._solvers:
                solver.cancel()

    def busy(self) -> bool:
        """Whether a solver searches for this work now."""
        with self._lock:
            return bool(self._solvers)

    def running(self, futures: Sequence) -> Callable[[float], bool]:
        """For :func:`stop_searches`: whether any of ``futures`` (those running this work)
        is still not done once waited for up to so many seconds, or a search for this work
        is under way all the same (a future that a Ctrl-C within its submit left out)."""
        def running(seconds: float) -> bool:
            if wait(futures, timeout=seconds).not_done:
                return True
            if not self.busy():
                return False
            time.sleep(seconds)  # a search no future waits for: wait for it all the same
            return True

        return running


def stop_searches(cancel: Callable[[], None], running: Callable[[float], bool]) -> None:
    """Call ``cancel()`` — which cancels the searches under way — until ``running(seconds)``,
    which waits up to that long for them to end, says none is left (again and again: a
    thread may be about to begin a search when first asked). A further Ctrl-C meanwhile is
    raised once they are: leaving sooner would leave a search running, and its solver lent
    out again while it searched."""
    interrupted: BaseException | None = None
    while True:
        try:
            cancel()
            if not running(0.02):
                break
        except KeyboardInterrupt as exc:
            interrupted = exc
    if interrupted is not None:
        raise interrupted


if hasattr(os, "register_at_fork"):
    # a child forked from another thread than the main one has that thread for its
    # main one: the searches there take Ctrl-C on it (see docs/solver.md)
    os.register_at_fork(after_in_child=_after_fork_in_child)
