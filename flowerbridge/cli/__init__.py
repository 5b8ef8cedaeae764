"""The ``flowerbridge`` command.

Each subcommand is a module here with ``register(subparsers)``, which adds its
parser and sets ``func`` to a function taking the parsed arguments and
returning an exit status. Modules import heavy dependencies inside that
function, so that ``flowerbridge score`` starts fast.

Bad input never shows a traceback: a :class:`~flowerbridge.errors.FlowerBridgeError`
(or an unreadable file) prints one ``error:`` line on standard error and exits 2.
"""

from __future__ import annotations

import argparse
import codecs
import errno
import functools
import importlib
import os
import re
import signal
import sys
import threading
from typing import Callable

from .._signals import Terminated, one_stop, stop_kept, stops_not_dropped
from ..errors import FlowerBridgeError


COMMANDS = ("score", "deal", "show", "demo", "lab", "serve", "prune", "match", "play", "solve", "rules")


class UsageError(FlowerBridgeError):
    """A command line that cannot be carried out as given."""


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        # an option is written whole: `deal --se 7` is no --seed (a new option
        # beginning alike would silently change what an abbreviation means)
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):
        # An option this parser does not know is named before anything else (the
        # top level's before its subcommand's, whose parser is given the words
        # after its name): `deal --se 7` said "the following arguments are
        # required: --seed", and `score --undertrick 5 h.json` "unrecognized
        # arguments: --undertrick h.json", the 5 taken for FILE.
        unknown, twice = self._scan_options(list(sys.argv[1:] if args is None else args))
        if unknown:
            self.error("unknown option" + ("s " if len(unknown) > 1 else " ")
                       + " and ".join(f"{word}{self._hint(word)}" for word in unknown))
        # `deal --seed 1 --seed 2` dealt seed 2 and said nothing of the 1 (an option
        # that takes one value: those that add up, such as --variant, may repeat)
        if twice:
            self.error(f"{twice[0]} is given more than once: give it once")
        return super().parse_known_args(args, namespace)

    def error(self, message: str):  # argparse's usage errors: one line, exit 2
        raise UsageError(f"{self.prog}: {message}")

    _ONCE = (argparse._StoreAction, argparse._StoreConstAction)   # (store_true is a _StoreConstAction)

    def _scan_options(self, words: list[str]) -> tuple[list[str], list[str]]:
        """The options among ``words``, given to this parser, that it does not know
        (each named as written before any ``=value``), and those of one value given
        more than once: none after ``--``, nor, for a parser with subcommands, after
        the subcommand's name (its own parser's); a negative number is a value, and
        so is whatever follows an option that takes one (argparse refuses ``--seed
        --x`` as "expected one argument")."""
        commands = any(isinstance(a, argparse._SubParsersAction) for a in self._actions)
        negative = getattr(self, "_negative_number_matcher", None)
        unknown: list[str] = []
        seen: set[argparse.Action] = set()
        twice: list[str] = []
        value_next = False
        for word in words:
            if word == "--":
                break
            if value_next:
                value_next = False
                continue
            option = len(word) > 1 and word[0] in self.prefix_chars and " " not in word and not (
                negative is not None and negative.match(word)
                and not getattr(self, "_has_negative_number_optionals", None))
            if not option:
                if commands:
                    break
                continue
            name, eq, joined = word.partition("=")
            action = self._option_string_actions.get(word) or self._option_string_actions.get(name)
            if action is None and not word.startswith(self.prefix_chars[0] * 2):
                action = self._option_string_actions.get(word[:2])   # -n5, a short option's value joined
                eq = eq or word[2:]
                joined = joined or word[2:]
                name = word[:2] if action is not None else name
            if action is None:
                if name not in unknown:
                    unknown.append(name)
                continue
            # `--seed=--`: argparse takes the joined `--` for the end of the options and
            # gives the option an empty list, unchecked (a traceback further on)
            if eq and joined == "--" and action.nargs != 0 and action.option_strings:
                self.error(f"argument {'/'.join(action.option_strings)}: '--' is no value: give one "
                           f"({name}=VALUE)")
            if isinstance(action, self._ONCE):
                if action in seen and "/".join(action.option_strings) not in twice:
                    twice.append("/".join(action.option_strings))
                seen.add(action)
            if not eq:
                value_next = action.nargs is None or action.nargs == "+" or (
                    isinstance(action.nargs, int) and action.nargs > 0)
        return unknown, twice

    def _hint(self, word: str) -> str:
        """`` (did you mean --seed?)`` for the options of this parser closest to
        ``word`` (up to three as close as each other: ``play --se`` is as near
        ``--save``, ``--seat`` and ``--seed``), or ''."""
        import difflib

        options = [o for o in self._option_string_actions if o.startswith("--") or not word.startswith("--")]
        # the start of an option's name (--under for --undertrick-penalty), which is too
        # short beside the whole name to be close by similarity alone
        starts = {o for o in options if len(word) > 3 and word.startswith("--") and o.startswith(word)}
        scores = {o: difflib.SequenceMatcher(None, word, o).ratio() for o in options}
        top = max(scores.values(), default=0)
        best = sorted(starts | {o for o, r in scores.items() if r == top and r >= 0.6})[:3]
        said = " or ".join(best) if len(best) < 3 else f"{best[0]}, {best[1]} or {best[2]}"
        return f" (did you mean {said}?)" if best else ""


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__
    parser = _Parser(prog="flowerbridge",
                     description="Flower Bridge: play, score, solve and study the hwatu member "
                                 "of the Bridge family.")
    parser.add_argument("--version", action="version", version=f"flowerbridge {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns (and, as a script, exits with) the status."""
    return _main(argv)


def _main(argv: list[str] | None) -> int:
    if sys.stderr is None:      # closed (`2>&-`): errors go nowhere, never onto standard output
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    if sys.stdout is None:      # closed (`>&-`): what the command writes would be lost unseen
        print("error: standard output is closed: the command's output would be lost", file=sys.stderr)
        return 2
    _plain_where_not_unicode()
    stdout = sys.stdout
    sys.stdout = _StandardOutput(stdout)   # its write errors say they are standard output's
    try:
        return _run(argv)
    finally:
        if isinstance(sys.stdout, _StandardOutput):
            sys.stdout = stdout


class _OutputError(Exception):
    """Standard output cannot be written (a full disk, a hung-up terminal); not an
    OSError, so that no handler of the command's own files takes it for theirs."""


# A text longer than this (in characters) is written by _StandardOutput._write_whole
_LONG_TEXT = 2048


@functools.lru_cache(maxsize=None)
def _splices(encoding: str) -> bool:
    """Whether bytes of ``encoding`` written apart may be set between the text layer's own:
    texts encoded apart give the bytes encoded together -- not so where a byte-order mark
    starts each (utf-8-sig, utf-16) or a shift state carries over (iso2022_jp)."""
    probe = "a\u00e9\u20ac\u3042"    # (ending where a shift state is left on)
    try:
        encoder = codecs.getincrementalencoder(encoding)("ignore")
    except LookupError:
        return False
    return encoder.encode(probe) == encoder.encode(probe)


class _StandardOutput:
    """``sys.stdout`` for the time a command runs: what writing it raises, but for a
    closed pipe (quiet, as the shell's tools are), is an :class:`_OutputError`."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.mid_line = False   # the last text written did not end its line

    def write(self, text: str) -> int:
        if text:
            self.mid_line = not text.endswith("\n")
        try:
            if len(text) > _LONG_TEXT and hasattr(self._stream, "buffer") \
                    and _splices(getattr(self._stream, "encoding", None) or ""):
                return self._write_whole(text)
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputError(exc.strerror or str(exc)) from None

    def _write_whole(self, text: str) -> int:
        """Write a long ``text`` through the byte layer below the text one, until every
        byte is taken: the text layer takes a short count from below as done, which an
        unbuffered output (``PYTHONUNBUFFERED``, ``python -u``) gives a long write that
        meets a full disk or a closed pipe -- the rest lost, and no error. Asked again,
        the output raises the error."""
        stream = self._stream
        stream.flush()
        if os.linesep != "\n":
            text = text.replace("\n", os.linesep)
        rest = memoryview(text.encode(stream.encoding, stream.errors or "strict"))
        while rest:
            taken = stream.buffer.write(rest)
            if not taken:
                raise OSError(errno.EIO, "the output took nothing of what was written")
            rest = rest[taken:]
        return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputError(exc.strerror or str(exc)) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _end_the_line() -> None:
    """At a terminal, the line that output stopped in the middle of is ended (a Ctrl-C
    as a line was printed), so that what the command says next starts on its own."""
    stdout = sys.stdout
    if isinstance(stdout, _StandardOutput) and stdout.mid_line and _isatty(stdout):
        try:
            stdout.write("\n")
            stdout.flush()
        except (OSError, _OutputError, ValueError):
            pass


def _dispatch(argv: list[str] | None) -> int:
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    # A command whose names may follow its options (`lab --n 10 play`) takes
    # them; anything else left over is the usual error.
    more = getattr(args, "intermixed", None)
    if rest and more and not any(word.startswith("-") for word in rest):
        setattr(args, more, [*getattr(args, more), *rest])
    elif rest:  # named with the subcommand, whose usage it breaks (`flowerbridge play: ...`)
        prog = f"{parser.prog} {args.command}" if getattr(args, "command", None) else parser.prog
        raise UsageError(f"{prog}: unrecognized arguments: {' '.join(rest)}")
    if not getattr(args, "func", None):     # no command: what there is, on stderr, as a usage error
        parser.print_help(sys.stderr)
        status = 2
    elif argv is None and getattr(args, "one_stop", False):
        # a command that the first Ctrl-C ends at once, run as the process
        with one_stop():
            status = int(args.func(args) or 0)
    else:
        status = int(args.func(args) or 0)
    sys.stdout.flush()      # what is still buffered: failing to write it fails the command
    return status


def _run(argv: list[str] | None) -> int:
    try:
        # a stop that came is what ends the command; one that lands in a finalizer is not lost
        with stop_kept(), stops_not_dropped():
            return _dispatch(argv)
    except SystemExit:  # --help and --version have printed: that too is written out, or fails
        failed = _flush_failed()
        if failed:
            return failed
        raise
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as the shell's tools do
        _drop_stdout()
        return 141
    except _OutputError as exc:
        return _output_failed(exc)
    except FlowerBridgeError as exc:
        print(f"error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except OSError as exc:
        filename = getattr(exc, "filename", None)
        where = f"{filename or repr(filename)}: " if filename is not None else ""  # '' for an empty path
        print(f"error: {one_line(f'{where}{exc.strerror or exc}')}", file=sys.stderr)
        return 2
    except UnicodeEncodeError as exc:
        # a name no file can have here: a string passed to main() in-process with a lone
        # surrogate (a shell's arguments decode to ones that encode back)
        shown = exc.object if isinstance(exc.object, str) and len(exc.object) <= 60 else \
            exc.object[max(0, exc.start - 20):exc.end + 20]
        print(f"error: {shown!a} cannot be encoded in {exc.encoding} ({exc.reason})", file=sys.stderr)
        return 2
    except RecursionError:  # the json module's answer to absurdly deep nesting
        print("error: the input is nested too deeply to read", file=sys.stderr)
        return 2
    except MemoryError:
        hint = _MEMORY_HINTS.get(argv_command(argv) or "", "")
        print(f"error: out of memory{hint}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        if argv is None and threading.current_thread() is threading.main_thread():
            # the command is ending: a second Ctrl-C (which the search, taking the first
            # at once, now often meets here) must not cut its last line short with a
            # traceback, nor the exit's wait for threads stopping
            for signum in (signal.SIGINT, signal.SIGTERM):
                signal.signal(signum, signal.SIG_IGN)
        _end_the_line()
        if isinstance(stop, Terminated):    # SIGTERM where a command takes it as a stop
            print("terminated", file=sys.stderr)
            return 143
        print("interrupted", file=sys.stderr)
        return 130


# What the commands print beyond ASCII, and what stands for it where the output
# cannot hold it (a Latin-1 or ASCII locale); anything else (a seed, a table's name
# in Hangul) is written as Python writes it escaped, \uXXXX, not lost to a "?"
_PLAIN = {"\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00d7": "x", "\u25a0": "#",
          "\u25a1": ".", "\u2026": "...", "\u2605": "*", "\u00b7": "."}


def _plain(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeEncodeError)
    text = error.object[error.start:error.end]
    return "".join(_PLAIN.get(ch) or ch.encode("ascii", "backslashreplace").decode() for ch in text), error.end


def print_data(text: str) -> None:
    """Print ``text``, a format read back (the notation, which the commands read as UTF-8),
    as it is: refused (a UsageError) where the output's encoding would not write it as
    UTF-8 does — a character it cannot hold, rather than written with stand-ins that would
    read back as other text, or one it writes in other bytes (Latin-1's é, which the
    commands then refused to read back as "not UTF-8 text")."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    unlike = None
    try:
        if codecs.lookup(encoding).name not in ("utf-8", "utf-8-sig"):   # (the reader drops a BOM)
            text.encode(encoding)
            unlike = next((ch for ch in dict.fromkeys(text) if ch.encode(encoding) != ch.encode("utf-8")), None)
    except UnicodeEncodeError as exc:
        raise UsageError(f"the output's encoding, {encoding}, cannot hold {exc.object[exc.start]!a} of what "
                         "would be written (the notation is read back as written): set a UTF-8 locale, "
                         "or PYTHONIOENCODING=utf-8") from None
    except LookupError:
        pass
    if unlike is not None:
        raise UsageError(f"the output's encoding, {encoding}, would write {unlike!a} as other bytes than "
                         "UTF-8, in which the notation is read back: set a UTF-8 locale, or "
                         "PYTHONIOENCODING=utf-8")
    print(text, end="")


def _plain_where_not_unicode() -> None:
    """Standard output and error in an encoding that lacks the dashes, times
    signs and boxes the commands print write a plain stand-in for each,
    instead of failing with UnicodeEncodeError part-way through."""
    codecs.register_error("flowerbridge-plain", _plain)
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        if not encoding or not hasattr(stream, "reconfigure"):
            continue
        try:
            if codecs.lookup(encoding).name.startswith("utf"):
                continue
            stream.reconfigure(errors="flowerbridge-plain")
        except (LookupError, ValueError, OSError):
            pass


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")   # what may break a line


def one_line(text: str) -> str:
    """``text`` with its control characters written as escapes (a file named with a
    newline in it), so that an error stays one line."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


# (solve gives its --memory-mb hint itself, only where the solver's tables ran out)
_MEMORY_HINTS = {"lab": " (fewer --workers may fit)"}


def argv_command(argv: list[str] | None) -> str | None:
    """The subcommand named on the command line, if any."""
    words = sys.argv[1:] if argv is None else argv
    return next((w for w in words if w in COMMANDS), None)


def _output_failed(exc: _OutputError) -> int:
    _drop_stdout()      # (what is left unwritten is dropped, not tried again at exit)
    print(f"error: cannot write to standard output: {one_line(str(exc))}", file=sys.stderr)
    return 2


def _flush_failed() -> int:
    """Flush standard output: 0, or the exit status of a failure to."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _drop_stdout()
        return 141
    except _OutputError as exc:
        return _output_failed(exc)
    return 0


def _drop_stdout() -> None:
    """Point standard output at /dev/null, so that flushing it at exit raises nothing more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def integer(text: str) -> int:
    """An argparse ``type``: a whole number in ASCII digits, with a minus sign if
    negative; not all that Python's ``int()`` takes (``+5``, `` 5``, ``5_0``,
    another script's digits). The command checks its range."""
    if not re.fullmatch(r"-?[0-9]+", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number in digits 0-9")
    if len(text) > 4000:
        raise argparse.ArgumentTypeError(f"a number of {len(text):,} digits is too long")
    return int(text)


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number in ASCII digits from ``low`` to ``high``."""
    def parse(text: str) -> int:
        digits = text.removeprefix("-")
        if not (digits.isascii() and digits.isdigit() and len(digits) <= 12) or not low <= int(text) <= high:
            sep = "," if high >= 10_000 else ""     # as the help texts write them
            raise argparse.ArgumentTypeError(f"{text!r}: give a whole number from {low:{sep}} to {high:{sep}}")
        return int(text)
    return parse


def add_rule_options(parser: argparse.ArgumentParser, *, record: bool = False, declarer_note: str = "") -> None:
    """The rule options of the rulings (R9, R15) as ``--undertrick-penalty`` and
    ``--declarer``, for the commands that play or score hands; with ``record``,
    what applies without them is the record's option, else the rulebook's."""
    from ..options import DECLARER_RULES, MAX_VALUE, RuleOptions

    rules = RuleOptions()
    penalty, declarer = ("the record's", "the record's") if record else (rules.undertrick_penalty, rules.declarer)
    parser.add_argument("--undertrick-penalty", type=whole_number(0, MAX_VALUE), metavar="N",
                        help=f"points per undertrick to the defenders, 0 to {MAX_VALUE:,} "
                             f"(RULINGS R15; 0 = strict rulebook; default {penalty})")
    parser.add_argument("--declarer", choices=DECLARER_RULES,
                        help=f"who declares (RULINGS R9; default {declarer}){declarer_note}")


def rule_option_changes(args: argparse.Namespace) -> dict[str, object]:
    """The rule options given on the command line by :func:`add_rule_options`'s flags."""
    changes: dict[str, object] = {}
    if getattr(args, "undertrick_penalty", None) is not None:
        changes["undertrick_penalty"] = args.undertrick_penalty
    if getattr(args, "declarer", None) is not None:
        changes["declarer"] = args.declarer
    return changes


def options_line(options, lead: str = "Rule options") -> str:
    """What a session's rule options change from the defaults, in a sentence (for a
    session whose options are the defaults, ``options.changes()`` is empty: say nothing)."""
    return f"{lead}: {'; '.join(options.changes())}."


def seat(text: str):
    """An argparse ``type``: a seat, ``N`` or ``north`` in any case (``--seat``,
    ``--dealer``), so that a bad one is answered naming its option."""
    from ..seats import Seat

    try:
        return Seat.parse(text)
    except FlowerBridgeError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def parse_seed(text: str) -> int | str:
    """A ``--seed``: a whole number written in ASCII digits is that number
    (``7`` and ``007`` deal alike), any other text is a seed of its own."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:      # bytes that are not UTF-8 on the command line
        raise UsageError(f"--seed {text!r}: not UTF-8 text") from None
    if not text.strip():    # an unset shell variable (`--seed "$SEED"`), most likely
        raise UsageError(f"--seed {text!r}: give a number or a word (the seed is empty)")
    return int(text) if re.fullmatch(r"-?[0-9]{1,4000}", text) else text


def terminal_width() -> int:
    """Characters a line may take: the terminal's width less one (COLUMNS where
    set, 80 when not at a terminal), and no fewer than 24."""
    import shutil

    return max(24, shutil.get_terminal_size().columns - 1)


def output_width() -> int | None:
    """Characters a line of output may take: at a terminal, or where COLUMNS is
    set, :func:`terminal_width`, as play fits it; written to a file or a pipe,
    no limit."""
    if not os.environ.get("COLUMNS", "").strip().isdigit() and not sys.stdout.isatty():
        return None
    return terminal_width()


def input_name(path: str) -> str:
    """How messages name a command's input file: its path, or standard input for ``-``."""
    return "standard input" if path == "-" else path


MAX_INPUT_MB = 64
"""The most a command reads of its input file: a hand record is a few kilobytes, a
thousand Bridge deals some 70 KB (``/dev/zero`` was read until memory ran out)."""


def read_text(path: str, what: str = "a hand record") -> str:
    """The UTF-8 text of ``path`` (a byte-order mark is dropped, line ends made LF), or
    standard input for ``-`` (at a terminal, after a line on standard error saying that
    ``what`` is read from it); refused beyond :data:`MAX_INPUT_MB` megabytes."""
    limit = MAX_INPUT_MB << 20
    try:
        if path == "-":
            if sys.stdin is None:   # closed (`<&-`)
                raise UsageError("standard input is closed: give a file, or pipe the input in")
            if _isatty(sys.stdin):  # nothing piped in: the command would wait without a word
                print(f"reading {what} from standard input (end with Ctrl-D)", file=sys.stderr, flush=True)
            # the bytes, decoded here: the text layer would turn bytes that are
            # not UTF-8 into stand-in characters instead of refusing them
            raw = getattr(sys.stdin, "buffer", None)
            if raw is None:     # standard input replaced by a text stream
                text = sys.stdin.read(limit + 1).removeprefix("\ufeff")
                if len(text) > limit:
                    raise UsageError(_too_large(path, what))
                return _text_only(path, text)
            data = raw.read(limit + 1)
        else:
            with open(path, "rb") as fh:
                data = fh.read(limit + 1)
        if len(data) > limit:
            raise UsageError(_too_large(path, what))
        _refuse_other_marks(path, data)
        # line ends made LF, as text files are read (an error's line is the same either way)
        text = data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{input_name(path)}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except MemoryError:     # (under a low memory limit): named, as any other refusal of the input
        raise UsageError(f"{input_name(path)}: out of memory reading it: too large an input") from None
    except OSError as exc:
        if exc.filename is not None:    # (an open's error names the file already)
            raise
        # a read that failed once the file was open (EIO) names no file of itself
        raise UsageError(f"{input_name(path)}: {exc.strerror or exc}") from None
    return _text_only(path, text)


def _too_large(path: str, what: str) -> str:
    return f"{input_name(path)}: more than {MAX_INPUT_MB} MB: too large for {what}"


_MARKS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),      # (UTF-32's first:
           (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))      # its LE mark opens with UTF-16's)


def _refuse_other_marks(path: str, data: bytes) -> None:
    """Text that opens with UTF-16's or UTF-32's byte-order mark (a record Windows' Notepad
    saved as "Unicode") is refused by its name: the commands read UTF-8, with or without
    a mark (it was "not UTF-8 text (byte 0: invalid start byte)")."""
    for mark, name in _MARKS:
        if data.startswith(mark):
            raise UsageError(f"{input_name(path)}: not UTF-8 text ({name} text, by its byte-order mark: "
                             "save it as UTF-8)")


def _text_only(path: str, text: str) -> str:
    if "\0" in text:   # decodes as UTF-8, but no record holds it: UTF-16 or 32 with no mark
        raise UsageError(f"{input_name(path)}: not UTF-8 text (character {text.index(chr(0)) + 1} is "
                         "NUL, as in UTF-16 or UTF-32 text: save it as UTF-8)")
    return text


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):     # no such method, or a closed stream
        return False


SHOWN_FOR_PEOPLE = re.compile(r"Dealer (North|East|South|West)[ \t]*(\r?\n|$)")
"""How a hand that deal or show print for people begins (not a record)."""


# a Bridge deal in PBN, on a line of its own or as a Deal tag's value: four hands of
# four suits parted by dots (a Flower Bridge Deal tag parts its three suits with slashes)
BRIDGE_PBN = re.compile(r"[NESWnesw]:\s*\S*\.\S*\.\S*\.\S*")
# (a line's own leading blanks only: "\s*" ran on through every blank line after each line
# start, and a record followed by a megabyte of blank lines took most of an hour)
BRIDGE_PBN_TAG = re.compile(r'^[^\S\n]*\[Deal\s+"[NESWnesw]:[^"/]*\.[^"/]*\.[^"/]*\.', re.MULTILINE)


def refuse_bridge_deals(text: str, name: str, command: str) -> None:
    """A UsageError if ``text`` (the input ``name``) holds Bridge deals in PBN, which
    ``command`` was given in place of a Flower Bridge record: said as such, with where
    such deals are taken (they were "malformed JSON", or a notation missing its tags)."""
    tagged = BRIDGE_PBN_TAG.search(text) is not None
    if tagged or BRIDGE_PBN.match(text.lstrip("\ufeff \t\r\n")):
        bridge = ("solve --bridge-file FILE solves Bridge deals, one a line"
                  + (" (each Deal tag's value alone)" if tagged else ""))
        takes = {"solve": bridge, "show": "show takes what deal --json or deal --notation writes"}
        raise UsageError(f"{name} holds Bridge deals (PBN), not a Flower Bridge hand record: "
                         + takes.get(command, f"{command} takes a JSON hand record"))


def _which_hand(session: dict, command: str) -> str:
    """Where in a session record the hand record ``command`` takes lies: one of its
    finished hands, or (for solve) the hand ``play --save`` was playing."""
    from ._save import UNFINISHED

    finished = bool(session.get("hands"))
    if command == "solve" and isinstance(session.get(UNFINISHED), dict):
        some = "one of its 'hands' (jq '.hands[0]') or " if finished else ""
        return f"{some}the hand it was playing, its '{UNFINISHED}' (jq .{UNFINISHED})"
    if not finished:
        return "and it holds no finished hand yet"
    return "one of its 'hands'"


def hand_record_json(text: str, name: str, command: str):
    """The JSON value of ``text`` (the input ``name``), for a ``command`` that takes
    one JSON hand record (score, solve): the project's other records, which show
    reads, are told apart from malformed JSON and named as what they are."""
    from .._load import SERVERS_SESSION_ANSWER, is_notation, refuse_empty, servers_session_answer
    from ..records import parse_json
    from ..session import is_session_record

    refuse_empty(text, name)
    refuse_bridge_deals(text, name, command)
    if is_notation(text):
        raise UsageError(f"{name} is in the text notation: {command} takes a JSON hand record "
                         f"(show reads the notation)")
    if SHOWN_FOR_PEOPLE.match(text.lstrip()):
        raise UsageError(f"{name} is a hand as deal or show print it for people, not a hand record: "
                         f"{command} takes what deal --json writes")
    data = parse_json(text, name, hand_record=True)
    if is_session_record(data):
        raise UsageError(f"{name} is a session record: {command} takes one hand record, "
                         f"{_which_hand(data, command)} (show reads sessions)")
    if servers_session_answer(data):
        raise UsageError(f"{name} is {SERVERS_SESSION_ANSWER}: {command} takes one hand record, one of "
                         f"the 'hands' of its \"session\" (jq '.session.hands[0]')")
    return data
