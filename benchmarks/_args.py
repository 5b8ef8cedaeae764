"""What the benchmark scripts share: the package they measure, checked
command-line values, and a main that reports the package's errors on one line.

Every script measures the ``flowerbridge`` of the checkout it sits in, not
whichever one the interpreter has installed: importing this module puts the
checkout first on ``sys.path`` (so a script imports this module before the
package), and each script prints :func:`measured` at the head of its output.
A checkout whose solver core is not compiled is refused on one line that
says to build it (``make install``), not met as a traceback.

A bad value is refused by ``argparse`` before any work starts, as a usage error
(exit status 2, one line naming the option), not met later as a traceback, an
endless loop or a meaningless figure. The scripts import this module by name
(``from _args import ...``): Python puts a script's own folder first on
``sys.path``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, NoReturn

CHECKOUT = Path(__file__).resolve().parents[1]
"""The checkout whose package the scripts measure (the folder above ``benchmarks/``)."""

if sys.path[:1] != [str(CHECKOUT)]:
    sys.path.insert(0, str(CHECKOUT))

from flowerbridge.errors import FlowerBridgeError  # noqa: E402

CORE = "flowerbridge.solver._core"


def fail(message: str, status: int = 2) -> NoReturn:
    """Stop as ``argparse`` does on a usage error: ``PROG: error: MESSAGE``, exit status 2
    (or ``status``)."""
    print(f"{Path(sys.argv[0]).name}: error: {message}", file=sys.stderr)
    raise SystemExit(status)


def build_first() -> NoReturn:
    """Stop on one line: the solver core of :data:`CHECKOUT` is not compiled (exit status 1)."""
    fail(f"the solver core is not built in {CHECKOUT / 'flowerbridge' / 'solver'}: "
         f"build it first (make install)", status=1)


def require_core() -> None:
    """For a script that imports the solver at its top: stop on one line, before
    anything else, if the checkout's solver core is not compiled."""
    try:
        import flowerbridge.solver  # noqa: F401
    except ModuleNotFoundError as exc:
        if exc.name != CORE:
            raise
        build_first()


def measured() -> str:
    """The line that says which package a run measures (its folder)."""
    import flowerbridge

    return f"flowerbridge measured: {Path(flowerbridge.__file__).parent}"


def first_paragraph(doc: str | None) -> str:
    """A script's docstring up to its first blank line, as one line (its ``--help``
    description: a sentence not cut at the end of a source line)."""
    return " ".join((doc or "").split("\n\n")[0].split())


def whole(least: int, most: int | None = None) -> Callable[[str], int]:
    """An ``argparse`` ``type=``: a whole number from ``least`` to ``most`` (no limit if None)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, not {value}")
        if most is not None and value > most:
            raise argparse.ArgumentTypeError(f"must be at most {most:,}, not {value}")
        return value

    return parse


positive = whole(1)
"""A count that must be at least 1 (deals, boards, rounds, workers)."""

count = whole(0)
"""A count that may be 0 (where the option's help says what 0 does)."""


def bot_spec(text: str) -> str:
    """An ``argparse`` ``type=``: a bot level or ``module:attribute`` that loads."""
    from flowerbridge.bots.base import load_bot

    try:
        load_bot(text)
    except FlowerBridgeError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def seed(text: str) -> int | str:
    """An ``argparse`` ``type=``: a seed of the deals read as the ``flowerbridge``
    command reads ``--seed`` (``7`` is the number 7, so a script and ``flowerbridge
    match --seed 7`` deal the same boards; an empty seed is refused)."""
    from flowerbridge.cli import parse_seed

    try:
        return parse_seed(text)
    except FlowerBridgeError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix(f"--seed {text!r}: ")) from None


def run(main: Callable[[], None]) -> None:
    """Run a script's ``main``; an error of the package's own (bad input it refused)
    ends it with one line, as :func:`fail`, instead of a traceback, and so does a
    solver core that is not built (:func:`build_first`)."""
    try:
        main()
    except FlowerBridgeError as exc:
        fail(str(exc))
    except ModuleNotFoundError as exc:
        if exc.name != CORE:
            raise
        build_first()
