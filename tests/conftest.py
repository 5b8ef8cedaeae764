"""Shared fixtures: the Chapter 16 example hand, hands played by seeded random legal actions,
a snapshot of a state's public view; and for the browser tests a server and a browser."""

from __future__ import annotations

import copy
import os
import random
import re
import secrets

import pytest

from flowerbridge import Deal, HandState, Phase, RuleOptions, Seat
from flowerbridge.cli import main
from flowerbridge.records import to_dict


# ------------------------------------------------------------ the suite on several CPUs

# The modules whose tests use the one PostgreSQL database of FLOWERBRIDGE_TEST_POSTGRES
# (a server holds it alone; some tests empty it): on several workers they run on one.
POSTGRES_MODULES = frozenset({"test_server.py", "test_server_prune.py", "test_server_restart.py",
                              "test_server_store.py"})


def pytest_configure(config) -> None:
    # pytest-xdist gives its workers COLUMNS=80; the commands' output is tested as written
    # to a file or a pipe (no width), as in a run on one CPU: a test that wants a width
    # sets COLUMNS itself
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)


@pytest.hookimpl(optionalhook=True)     # (a run without pytest-xdist: -p no:xdist)
def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto`` (``make test``): one worker a CPU this process may use, four at most (a
    browser module starts a server and a Chromium of its own)."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(4, usable))


@pytest.hookimpl(optionalhook=True)     # (a run without pytest-xdist: -p no:xdist)
def pytest_xdist_make_scheduler(config, log):
    """Whole modules to a worker (as ``--dist loadfile``: a module's server and browser
    are started once), and the PostgreSQL modules together on one.  (Not ``--dist
    loadgroup`` with ``xdist_group`` marks: xdist 3.8 groups by renaming ``item._nodeid``,
    which pytest 9.2 no longer reads, so the marks are silently lost.)"""
    from xdist.scheduler import LoadScopeScheduling

    class ByModule(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return "postgres" if module.rsplit("/", 1)[-1] in POSTGRES_MODULES else module

    return ByModule(config, log)


def _random_hand(seed: int, *, options: RuleOptions | None = None) -> HandState:
    """A finished (or passed-out) hand from ``Deal.from_seed(seed)``, the dealer,
    the calls and the cards drawn from ``seed``.

    Only :meth:`HandState.legal_actions` is consulted, so the hands cover
    every contract level and denomination, passed-out hands included.
    """
    rng = random.Random(seed)
    return _play_out(HandState(Deal.from_seed(seed), Seat(rng.randrange(4)), options), rng)


def _play_out(state: HandState, rng: random.Random) -> HandState:
    """``state`` played to its end by random legal actions drawn from ``rng``."""
    while not state.is_over:
        legal = state.legal_actions()
        if state.phase is Phase.AUCTION and len(legal) > 1:
            # Pass (legal[0]) often, else one of the six cheapest bids, so that
            # auctions reach every level without racing to 7NT.
            choice = 0 if rng.random() < 0.6 else 1 + rng.randrange(min(6, len(legal) - 1))
            state.apply(legal[choice])
        else:
            state.apply(legal[rng.randrange(len(legal))])
    return state


def _snapshot(state: HandState) -> tuple:
    """Everything public about a state, every seat's observation included."""
    return (to_dict(state), state.phase, state.turn, state.actor, state.leader, state.contract,
            tuple(state.tricks), state.current_trick, state.tricks_won, tuple(state.legal_actions()),
            tuple(repr(state.observation(seat).to_dict()) for seat in Seat))


@pytest.fixture(scope="session")
def snapshot():
    """``snapshot(state)``: compare two of them to tell whether two states are the same."""
    return _snapshot


def _assert_cli_error(result: tuple[int, str, str], pattern: str) -> None:
    status, out, err = result
    assert status == 2
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("error: ") and "Traceback" not in err
    assert re.search(pattern, err), err


@pytest.fixture
def cli(capsys):
    """``cli(*argv)``: run the ``flowerbridge`` command in-process; ``(status, stdout, stderr)``."""
    def run(*argv: str) -> tuple[int, str, str]:
        status = main(list(argv))
        out, err = capsys.readouterr()
        return status, out, err
    return run


@pytest.fixture(scope="session")
def signalled_after():
    """``signalled_after(argv, prefix, signum, env=None)``: run the ``flowerbridge``
    command ``argv`` as a process of its own (standard input a pipe it waits on), send it
    ``signum`` once a line of its output begins with ``prefix``; ``(status, the output after
    that line, standard error)``."""
    import os
    import subprocess
    import sys

    def run(argv, prefix: str, signum: int, env=None) -> tuple[int, str, str]:
        proc = subprocess.Popen([sys.executable, "-m", "flowerbridge.cli", *argv], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, **(env or {})})
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                if line.startswith(prefix):
                    break
            proc.send_signal(signum)
            out, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
        return proc.returncode, out, err
    return run


@pytest.fixture(scope="session")
def assert_cli_error():
    """``assert_cli_error(cli(...), pattern)``: the failure FORMATS.md prescribes — exit 2,
    nothing on stdout, one ``error:`` line on stderr matching ``pattern``, no traceback."""
    return _assert_cli_error


class _FixedSeed:
    """Stands in for :mod:`secrets` in the server's table module: every new table
    gets one seed (its ids and token checks are still the real module's)."""

    SEED = "5eed" * 8

    @classmethod
    def token_hex(cls, nbytes: int) -> str:
        assert nbytes == len(cls.SEED) // 2
        return cls.SEED

    def __getattr__(self, name: str):
        return getattr(secrets, name)


@pytest.fixture
def fixed_table_seed(monkeypatch) -> str:
    """Every table a server in this process makes deals from one seed (returned), for
    a test that needs a deal that plays out (``5eed…``: hand 1 is 2A by East, with
    four basic bots). A table's seed is otherwise random: a test that relied on some
    deal failed by chance (a grand slam made, a hand passed out)."""
    from flowerbridge.server import table

    monkeypatch.setattr(table, "secrets", _FixedSeed())
    return _FixedSeed.SEED


@pytest.fixture(scope="session")
def random_hand():
    """``random_hand(seed, options=None)``: a reproducible random legal hand, played out."""
    return _random_hand


@pytest.fixture(scope="session")
def play_out():
    """``play_out(state, rng)``: a hand played to its end by random legal actions."""
    return _play_out


# Chapter 16's example hand: South (two Brights, three Animals, four Ribbons, four
# Plains) opens 1A, North (one Bright, three Animals, four Ribbons, five Plains)
# raises to 3A, South bids 4A; West leads a Ribbon and North-South take 11 tricks.
CH16_RECORD = {
    "dealer": "S",
    "hands": {"N": "11B 7A 6A 6A 9R 7R 7R 6R 9P 6P 6P 5P 5P".split(),
              "E": "5A 2A 6R 5R 4R 3R 2R 1R 4P 3P 2P 1Pb 1Pa".split(),
              "S": "12B 12B 8A 8A 7A 11R 10R 10R 9R 11P 10P 10P 9P".split(),
              "W": "5A 2A 11R 5R 4R 3R 2R 1R 11P 4P 3P 2P 1Pb".split()},
    "auction": "1A Pass 3A Pass 4A Pass Pass Pass".split(),
    "play": " ".join([  # one trick per line, in play order
        "11R 6R 6R 10R", "2A 7A 2A 8A", "11P 4P 9P 1Pb", "12B 5A 6A 5A", "9P 2P 6P 4P",
        "7A 5R 11B 5R", "5P 3P 10P 1Pb", "8A 1R 6A 2P", "11R 3R 7R 3R", "9R 4R 9R 2R",
        "10R 2R 7R 4R", "12B 3P 6P 1Pa", "10P 11P 5P 1R",
    ]).split(),
}


@pytest.fixture
def ch16_record() -> dict:
    """The Chapter 16 example hand as a FORMATS.md JSON hand record (a fresh copy)."""
    return copy.deepcopy(CH16_RECORD)


# ------------------------------------------------------------ browser tests

@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The browser tests' ``flowerbridge serve``, one per module (the server
    tests' modules define a ``server`` of their own, which takes precedence)."""
    from browser_support import Server

    with Server(tmp_path_factory.mktemp("server")) as running:
        yield running


@pytest.fixture(scope="module")
def chromium():
    """Headless Chromium through Playwright, one per module."""
    from playwright import sync_api

    from browser_support import launch_chromium

    with sync_api.sync_playwright() as playwright:
        launched = launch_chromium(playwright)
        yield launched
        launched.close()


@pytest.fixture
def browser(chromium):
    """The module's Chromium for one test: the contexts (and pages) the test opens are
    closed after it. (Left open, a table's page kept its bots playing and its socket
    served through the module's later tests, which all ran the slower for it.)"""
    before = set(chromium.contexts)
    yield chromium
    for context in set(chromium.contexts) - before:
        context.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def own_database(request, tmp_path):
    """A database with no other test's tables in it (they would count against
    ``max_tables``): a fresh SQLite file, or a schema of its own on PostgreSQL."""
    import secrets

    from flowerbridge.server.testing import database_for_tests

    found = database_for_tests(request.param, tmp_path)
    if found is None:
        pytest.skip("FLOWERBRIDGE_TEST_POSTGRES is not set")
    if request.param == "sqlite":
        yield found
        return
    from sqlalchemy import create_engine, text

    from flowerbridge.server.store import engine_url

    schema = f"fb_test_{secrets.token_hex(4)}"
    engine = create_engine(engine_url(found))
    with engine.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))
    try:
        yield f"{found}{'&' if '?' in found else '?'}options=-csearch_path%3D{schema}"
    finally:
        with engine.begin() as connection:
            connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        engine.dispose()
