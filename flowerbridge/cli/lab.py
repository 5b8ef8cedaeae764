"""``flowerbridge lab``: seeded studies over many deals, with an HTML report.

    flowerbridge lab deals play variants --n 20000 --seed 1 --out lab-output/run1
    flowerbridge lab --designer docs/designer-report.md --n 20000 --seed 2026 --dd-n 1000

Work is saved chunk by chunk in the output folder; running the same command
again after an interruption resumes it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path


def register(subparsers) -> None:
    from . import integer

    p = subparsers.add_parser(
        "lab", help="study many seeded deals: distributions, double dummy, bot play, rule variants",
        description="Run analyses over deals 0..N-1 of a seed and write an HTML report, CSV results "
                    "and summary.json into the output folder. Interrupted runs resume.")
    p.add_argument("analyses", nargs="*", metavar="ANALYSIS",
                   help="deals, dd, play, variants (default: deals play variants; dd, the "
                        "double-dummy analysis, is slower and run only when named)")
    p.set_defaults(intermixed="analyses")     # `lab --n 10 play`: the names after the options too
    p.add_argument("--n", type=integer, default=1000, help="number of deals (default 1000)")
    p.add_argument("--seed", default="0", help="any integer or word (default 0)")
    p.add_argument("--out", help="output folder (default lab-output/seed-<SEED>)")
    p.add_argument("--workers", type=integer, help="local worker processes (default: one a CPU)")
    p.add_argument("--ray", metavar="ADDRESS", help="run the chunks on the Ray cluster at ADDRESS")
    p.add_argument("--bots", help="bot level or module:attribute for play and variants "
                                  "(default basic)")
    p.add_argument("--variant", action="append", metavar="NAME=JSON", default=[],
                   help="a rule set to compare, e.g. strict='{\"undertrick_penalty\": 0}'; "
                        "repeat for more (the default rules are always included first)")
    p.add_argument("--chunk-size", type=integer,
                   help="deals per unit of work (default per analysis, or the size the folder was begun with)")
    p.add_argument("--designer", metavar="PATH",
                   help="write the designer's report (Markdown, figures in a folder beside it) "
                        "from deals, play and variants over N deals")
    p.add_argument("--dd-n", type=integer, metavar="K",
                   help="with --designer: the double-dummy analysis over the first K deals (default 0)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress (a bar at a terminal, otherwise a line every 30 s)")
    p.set_defaults(func=run)


def parse_variants(specs: list[str]) -> list | None:
    """``NAME=JSON`` arguments as ``[[name, options], ...]``, the default rules first."""
    from ..lab import LabError
    from ..jsontext import NotJSON, json_error_text, strict_json_loads

    if not specs:
        return None
    out = []
    for spec in specs:
        name, sep, text = spec.partition("=")
        if not sep or not name:
            raise LabError(f"--variant {spec!r}: expected NAME=JSON, "
                           "e.g. strict='{\"undertrick_penalty\": 0}'")
        try:
            options = strict_json_loads(text)
        except json.JSONDecodeError as exc:
            raise LabError(f"--variant {name}: malformed JSON at column {exc.colno}: "
                           f"{json_error_text(exc)}") from None
        except NotJSON as exc:
            raise LabError(f"--variant {name}: malformed JSON ({exc})") from None
        except ValueError:      # an integer of more digits than Python converts
            raise LabError(f"--variant {name}: a number has too many digits") from None
        if not isinstance(options, dict):
            from ..errors import json_type
            raise LabError(f"--variant {name}: the rules are a JSON object of options, not "
                           f"{json_type(options)}, e.g. {name}='{{\"undertrick_penalty\": 0}}'")
        if name == "default":
            raise LabError("--variant default: that name is kept for the default rules, "
                           "which every comparison includes first; give the variant another name")
        out.append([name, options])
    return [["default", {}], *out]


def run(args) -> int:
    from .._files import name_max
    from ..lab import LabError
    from ..render import count_text
    from . import parse_seed

    seed = parse_seed(args.seed)
    # the ranges the lab checks, named as options here (its own messages name its arguments)
    from ..lab.runner import MAX_CHUNK_SIZE, MAX_DEALS, MAX_WORKERS, usable_cpus
    for option, value, low, high in (("--n", args.n, 1, MAX_DEALS), ("--workers", args.workers, 1, MAX_WORKERS),
                                     ("--chunk-size", args.chunk_size, 1, MAX_CHUNK_SIZE)):
        if value is not None and not low <= value <= high:
            raise LabError(f"{option} {value}: give a whole number from {low} to {high:,}")
    cpus = usable_cpus()
    if args.workers is not None and args.workers > cpus and not args.ray and not args.quiet:
        # taken (the results are the same), but said: 256 workers for 3,000 one-deal
        # chunks on 2 CPUs took 66 s, most of it starting and switching interpreters
        print(f"note: --workers {args.workers} on {count_text(cpus, 'CPU')}: workers beyond one a CPU "
              "share them, the results the same and the run no faster", file=sys.stderr)
    # `--designer=~/r.md` reaches us with its `~` (the shell expands it only at a word's
    # start): expanded once here, and that one path is checked, written and printed
    if args.designer is not None and not args.designer.strip():     # an unset "$REPORT"
        raise LabError("--designer '': give the report's file name, e.g. --designer report.md")
    designer = _home_expanded("--designer", args.designer) if args.designer else None
    if designer is not None:
        given = [name for name, value in (("analyses", args.analyses), ("--variant", args.variant),
                                          ("--chunk-size", args.chunk_size)) if value]
        if given:
            raise LabError(f"--designer runs its own analyses and variants: drop {', '.join(given)}")
        if not designer.parent.is_dir():
            parent = designer.parent
            raise LabError(f"--designer {args.designer}: " + (f"{parent} is not a folder" if parent.exists()
                                                               else f"there is no folder {parent}"))
        # refused now, not once the study has run (and its figures' folder been made)
        if len(os.fsencode(designer.name)) > name_max(designer.parent):
            raise LabError(f"--designer {args.designer}: the file name is longer than its folder "
                           f"takes ({name_max(designer.parent)} bytes)")
    elif args.dd_n is not None:     # (0 too: given, it would be ignored)
        raise LabError("--dd-n belongs to --designer; for the double-dummy analysis alone, name it: "
                       "flowerbridge lab dd --n K")
    # the default folder is named after the seed, kept to characters safe in a
    # file name (a seed such as "x/../.." must not lead out of lab-output)
    # (seeds that differ only in such characters get folders of their own, by a digest)
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", str(seed)).replace("..", "__")[:80]
    if safe != str(seed):
        safe += "-" + hashlib.sha256(str(seed).encode("utf-8", "surrogatepass")).hexdigest()[:8]
    if args.out is not None and not args.out.strip():
        raise LabError("--out names no folder: give one, or leave it out for the default")
    out = str(_home_expanded("--out", args.out)) if args.out \
        else f"lab-output/{'designer' if args.designer else 'seed'}-{safe}"
    # a bar at a terminal; in a log, a plain line now and then
    progress = False if args.quiet else (True if sys.stderr.isatty() else "lines")
    from .._signals import Terminated, stop_kept, terminated_as_a_stop
    replacing = designer is not None and designer.is_file()    # a report of the lab's (another is refused)
    termed: list[int] = []
    try:
        with terminated_as_a_stop() as termed, stop_kept():
            study = _run(args, designer, out, seed, progress)
    except KeyboardInterrupt as stop:
        said, status = ("terminated", 143) if isinstance(stop, Terminated) or termed else ("interrupted", 130)
        if any(Path(out).glob("chunks/*/*.csv")):
            print(f"{said}: finished work is saved in {out}; run the same command to resume",
                  file=sys.stderr)
        else:
            print(f"{said} before any chunk was finished: nothing was saved", file=sys.stderr)
        return status
    done = study.result
    print(f"{count_text(done.n, 'deal')}, seed {seed!r}: {_chunks(done)}")
    if study.report:
        print(f"report: {study.report}")
    for name, deals in study.earlier.items():    # beside the report, and left out of it
        print(f"{Path(out) / name} is from an earlier run"
              + (f" of {count_text(deals, 'deal')}" if deals is not None else "") + ", not in this report")
    if study.dd is not None:        # the designer's double-dummy part, a run of its own
        print(f"double dummy, the first {count_text(study.dd.result.n, 'deal')}: {_chunks(study.dd.result)}")
        if study.dd.report:
            print(f"report: {study.dd.report}")
    elif designer is not None and (Path(out) / "dd" / "lab.json").exists():    # (left as it was)
        print(f"{Path(out) / 'dd'} is from an earlier run with --dd-n, not in this report")
    if designer is not None:
        print(f"designer's report: {designer}{' (it replaces the one written before)' if replacing else ''}, "
              f"its figures in {designer.with_suffix('')}{os.sep}")
    return 0


def _home_expanded(option: str, path: str) -> Path:
    """``path`` with its ``~`` expanded; a ``~user`` of no user is the option's error."""
    from .._files import NoHomeError, expand_home
    from ..lab import LabError

    try:
        return expand_home(path)
    except NoHomeError as exc:
        raise LabError(f"{option} {exc}") from None


def _run(args, designer: Path | None, out: str, seed, progress):
    """The run the command asks for: the designer's report and its studies, or the analyses."""
    from ..lab import run_lab
    if designer is not None:
        from ..lab.designer import write_designer_report
        return write_designer_report(designer, out, n=args.n, seed=seed, dd_n=args.dd_n or 0, bots=args.bots,
                                     workers=args.workers, ray_address=args.ray, progress=progress)
    return run_lab(out, args.analyses or None, n=args.n, seed=seed, bots=args.bots,
                   variants=parse_variants(args.variant), workers=args.workers,
                   ray_address=args.ray, chunk_size=args.chunk_size, progress=progress)


def _chunks(done) -> str:
    """What a run computed and reused, in words (``3,000 chunks computed, 0 reused``)."""
    from ..render import count_text

    return f"{count_text(done.computed, 'chunk')} computed, {done.reused:,} reused"
