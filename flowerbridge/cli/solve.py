"""``flowerbridge solve FILE``: double-dummy analysis of a JSON hand record.

* A record without a contract (auction unfinished or passed out), or any
  record with ``--table``: ``{"table": {"P": {"N": 8, ...}, ..., "NT": {...}}}``,
  tricks for declarer's side by declarer seat.
* A record with a contract and a partial or empty play: the value of every
  legal card of the seat to play, ``{"to_move": "W", "cards": {"9R": 5, ...}}``
  (tricks still to come, the one in progress included, for that seat's side).
* ``--bridge-file F``: Contract Bridge deals, one PBN deal per line; prints one
  JSON table per deal, ``{"C": {"N": 5, ...}, "D": ..., "H": ..., "S": ..., "NT": ...}``.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager

from ..errors import FlowerBridgeError

MAX_WORKERS = 256   # a bound on a slip: a DD table has 16 (Bridge: 20) entries to share out


def register(subparsers) -> None:
    from . import integer

    p = subparsers.add_parser(
        "solve", help="double-dummy analysis of a hand record (or of Bridge PBN deals)",
        description="Solve a JSON hand record double-dummy: the DD table of its deal, or the value "
                    "of every legal card of the seat to play. Bad input exits 2 with one 'error:' line.")
    p.add_argument("file", metavar="FILE", nargs="?",
                   help="JSON hand record, or - for standard input")
    p.add_argument("--table", action="store_true", help="print the deal's DD table even when a contract is set")
    p.add_argument("--bridge-file", metavar="F",
                   help="Contract Bridge deals, one a line as PBN's Deal value, N:AKQ2.JT9.876.543 ... "
                        "(no tags; '-' for standard input)")
    p.add_argument("--workers", type=integer, metavar="N",
                   help="threads for DD tables (default 2): all search a table together, on one shared "
                        "transposition table; with --bridge-file, one deal a thread (a position's card "
                        "values are solved on one thread)")
    p.add_argument("--memory-mb", type=integer, default=None, metavar="MB",
                   help="bound on the solver's transposition tables, in whole megabytes from 1 to "
                        "65,536 (default 256; exact at any size, "
                        "but Flower Bridge tables slow down sharply below about 32 MB)")
    # the first Ctrl-C stops the search at once and ends the command: the next ones are
    # set aside (see flowerbridge._signals.one_stop)
    p.set_defaults(func=run, one_stop=True)


def run(args) -> int:
    from . import UsageError, hand_record_json, input_name, read_text

    try:
        from ..solver.core import DEFAULT_MEMORY_MB, MAX_MEMORY_MB
    except ImportError as exc:      # an install whose compiled core is missing or broken
        raise FlowerBridgeError(f"the double-dummy solver is not available: its compiled core could not "
                                f"be loaded ({exc}); install the package again") from None

    if args.memory_mb is not None and not 1 <= args.memory_mb <= MAX_MEMORY_MB:
        raise UsageError(f"--memory-mb must be between 1 and {MAX_MEMORY_MB:,}")
    memory = args.memory_mb or DEFAULT_MEMORY_MB
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise UsageError(f"--workers must be between 1 and {MAX_WORKERS}")
    workers = args.workers or 2
    if args.bridge_file is not None:
        if args.file is not None:
            raise UsageError("give either FILE or --bridge-file, not both")
        if args.table:
            raise UsageError("--table is for FILE: --bridge-file always prints each deal's DD table")
        with _reading(args.bridge_file):
            text = read_text(args.bridge_file, "Bridge deals (one PBN deal a line)")
        return _bridge(text, args, workers, memory)
    if args.file is None:
        raise UsageError("FILE is required (or --bridge-file)")

    from ..options import RuleOptions
    from ..records import HandRecord
    from ..solver import FLOWER, DoubleDummy
    from .score import record_options
    from ..solver.game import card_values, dd_table_many
    from .._load import named

    name = input_name(args.file)
    with _reading(args.file):
        data = hand_record_json(read_text(args.file), name, "solve")
        with named(name):
            # the contract's two options alone, as `score` reads them: the lab's scoring
            # scales change no trick (a record a variant's "game_points": 0 was refused)
            options = RuleOptions.from_dict(record_options(data))
            state = HandRecord.from_dict(data, options=options).state
    if args.table or state.contract is None:
        with _tables(memory):
            [table] = dd_table_many([state.deal], workers=workers, memory_mb=memory)
        out: dict[str, object] = {
            "table": {d.name: {s.name: n for s, n in row.items()} for d, row in table.items()}}
    else:
        if state.to_play is None:
            raise UsageError(f"{name}: the play is over: no card left to solve (--table gives the "
                             "deal's DD table)")
        if args.workers is not None:
            raise UsageError("--workers is for DD tables (--table): a position's card values are "
                             "solved on one thread")
        with _tables(memory):
            values = card_values(state, DoubleDummy(FLOWER, memory))
        cards = sorted(values, key=lambda c: -c.index)
        out = {"to_move": state.to_play.name, "cards": {c.code: values[c] for c in cards}}
    print(json.dumps(out))
    return 0


def _bridge(text: str, args, workers: int, memory: float) -> int:
    from . import UsageError, input_name
    from ..solver.bridge import iter_dd_table_many

    name = input_name(args.bridge_file)
    with _reading(args.bridge_file):
        lines = _deal_lines(text, name)
    if not lines:
        raise UsageError(f"{name}: no deal in it (one PBN deal a line; blank lines and # comments are skipped)")
    # each deal's line as soon as it (and those before it) is solved: an
    # interrupted run keeps what it printed. The deals go to the solver BATCH at a time
    # (each line checked above): given all at once, a file of 900,000 deals was held
    # three times over, parsed and checked, before a table came out -- 2.6 GB, a minute
    for start in range(0, len(lines), BATCH):
        with _tables(memory):
            tables = iter_dd_table_many(lines[start:start + BATCH], workers=workers, memory_mb=memory)
            try:
                for table in tables:
                    # one write a line, its end in it: a Ctrl-C lands between lines,
                    # never between a line and its end
                    sys.stdout.write(json.dumps(table) + "\n")
                    sys.stdout.flush()
            finally:
                tables.close()      # (an interrupted run's searches stopped, not waited for)
    return 0


BATCH = 10_000
"""Bridge deals handed to the solver at once by ``--bridge-file`` (some minutes of solving)."""


def _deal_lines(text: str, name: str) -> list[str]:
    """The deals of a PBN file, one a line (each checked; ``name`` the file's, for errors)."""
    from . import UsageError
    from ..notation import text_lines
    from ..solver.bridge import PBNError, parse_pbn

    lines = []
    for number, line in enumerate(text_lines(text), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):    # a PBN file with its tags
            raise UsageError(f"{name}, line {number}: a PBN tag: --bridge-file takes one deal a line, "
                             "the Deal tag's value alone (e.g. N:AKQ2.JT9.876.543 ...)")
        try:
            parse_pbn(line)
        except PBNError as exc:
            raise UsageError(f"{name}, line {number}: {exc}") from None
        lines.append(line)
    return lines


@contextmanager
def _reading(path: str):
    """Out of memory while reading the input: the input is too large (no
    --memory-mb hint: the solver's tables are not made yet)."""
    from . import UsageError, input_name

    try:
        yield
    except MemoryError:
        raise UsageError(f"{input_name(path)}: out of memory reading it: too large an input") from None


@contextmanager
def _tables(memory_mb: float):
    """Out of memory while solving: the solver's transposition tables."""
    try:
        yield
    except MemoryError:
        raise FlowerBridgeError(f"out of memory while solving, with transposition tables of "
                                f"{memory_mb:g} MB (a smaller --memory-mb may fit)") from None
