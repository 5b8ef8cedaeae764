"""What the benchmark scripts share: checked command-line values, and a main that
reports the package's errors on one line.

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

from flowerbridge.errors import FlowerBridgeError


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


def fail(message: str) -> NoReturn:
    """Stop as ``argparse`` does on a usage error: ``PROG: error: MESSAGE``, exit status 2."""
    print(f"{Path(sys.argv[0]).name}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def run(main: Callable[[], None]) -> None:
    """Run a script's ``main``; an error of the package's own (bad input it refused)
    ends it with one line, as :func:`fail`, instead of a traceback."""
    try:
        main()
    except FlowerBridgeError as exc:
        fail(str(exc))
