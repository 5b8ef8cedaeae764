"""``flowerbridge match --ns A --ew B --boards N --seed S``: a duplicate match between two bots."""

from __future__ import annotations

from . import add_rule_options, options_line, rule_option_changes, whole_number

MAX_BOARDS = 100_000
MAX_SAMPLES = 10_000


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "match", help="play a duplicate match between two bots and report IMPs",
        description="Play each board twice with the pairs swapped, score every hand by the rules "
                    "and report bot A's (--ns) mean IMPs per board with a 95% confidence interval. "
                    "Bots are levels (random, basic, pimc) or module:attribute paths. The same "
                    "seed gives the same result.")
    p.add_argument("--ns", required=True, metavar="A", help="bot A: North-South at table 1")
    p.add_argument("--ew", required=True, metavar="B", help="bot B: East-West at table 1")
    p.add_argument("--boards", type=whole_number(1, MAX_BOARDS), default=32,
                   help=f"number of boards, 1 to {MAX_BOARDS:,} (default 32)")
    p.add_argument("--seed", default="match", help="seed for the deals and the bots (default 'match')")
    p.add_argument("--samples", type=whole_number(1, MAX_SAMPLES), metavar="N",
                   help=f"worlds per pimc decision, 1 to {MAX_SAMPLES:,} (for pimc and bots that take "
                        "a samples option)")
    add_rule_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args) -> int:
    import contextlib
    import sys

    from .._signals import Terminated, terminated_as_a_stop
    from ..bots.base import bot_takes
    from ..bots.match import MatchFailed, MatchInterrupted

    from . import parse_seed
    seed = parse_seed(args.seed)
    # an option no bot takes would be ignored: refused (asking imports a bot's module, whose
    # prints go to standard error too: they came before match --json's object)
    with contextlib.redirect_stdout(sys.stderr):
        sampled = args.samples is None or any(bot_takes(bot, "samples") for bot in (args.ns, args.ew))
    if not sampled:
        from . import UsageError
        raise UsageError(f"--samples is for pimc (or a bot that takes a samples option): "
                         f"{args.ns} and {args.ew} do not sample")
    bot_options = {} if args.samples is None else {"samples": args.samples}
    stopped: MatchInterrupted | None = None
    played: list = []
    try:
        # what a bot prints goes to standard error: standard output holds the report alone
        # (a bot printing in its play put its lines before match --json's object)
        with terminated_as_a_stop(), contextlib.redirect_stdout(sys.stderr):
            _play(args, seed, bot_options, played)
    except MatchInterrupted as stop:    # Ctrl-C or SIGTERM: the report of the boards played
        result, stopped = stop.result, stop
    except MatchFailed as failed:       # a bot failed: the report of the boards played, then why
        if failed.result.boards:
            _report(args, failed.result)
            raise MatchFailed(f"{failed} (after {failed.result.boards} of {args.boards} boards, "
                              "reported above)", failed.result) from None
        raise
    except KeyboardInterrupt as stop:   # as the match ended (its progress bar closing): every board
        if not played:
            raise
        result = played[0]
        stopped = MatchInterrupted(result, terminated=isinstance(stop, Terminated))
    else:
        result = played[0]
    said, status = ("terminated", 143) if stopped is not None and stopped.terminated else ("interrupted", 130)
    if stopped is not None and not result.boards:
        print(said, file=sys.stderr)
        return status
    _report(args, result)
    if stopped is not None:
        print(f"{said} after {result.boards} of {args.boards} boards", file=sys.stderr)
        return status
    return 0


def _report(args, result) -> None:
    """The match's report on standard output: its JSON object, or its text."""
    if args.json:
        import json
        print(json.dumps(result.to_dict()))
    else:
        from . import output_width
        print(render_match(result, output_width()))


def _play(args, seed, bot_options, played: list) -> None:
    """The match, with a progress bar on standard error where it is a terminal; put
    in ``played`` as soon as it is over (a stop while the bar closes keeps it)."""
    import sys

    from ..bots.match import run_match
    from ..options import RuleOptions

    options = RuleOptions().with_(**rule_option_changes(args))
    if not sys.stderr.isatty():
        played.append(run_match(args.ns, args.ew, args.boards, seed, options=options, bot_options=bot_options))
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(f"{args.ns} v {args.ew}", total=args.boards)
        played.append(run_match(args.ns, args.ew, args.boards, seed, options=options, bot_options=bot_options,
                                on_board=lambda _: progress.advance(task)))


def render_match(result, width: int | None = None) -> str:
    """The match report for people. Its sentences break between their parts to fit
    ``width`` where given; the table's columns are as wide as their cells (with short
    bot names it fits 40 columns)."""
    ci = result.ci95
    interval = "n/a (one board)" if ci is None else f"[{ci[0]:+.2f}, {ci[1]:+.2f}]"
    if ci is not None and not result.spread:     # ([+0.00, +0.00] read as a certainty)
        interval = "n/a (every board scored the same)"
    from ..render import count_text

    total = sum(r.imps for r in result.results)
    headline = [f"{result.pairs[0].spec} (A) v {result.pairs[1].spec} (B)",
                count_text(result.boards, "board"), f"seed {result.seed!r}"]
    score = [f"A: {result.imps_per_board:+.2f} IMPs per board", f"95% CI {interval}",
             f"total {total:+d} {'IMP' if abs(total) == 1 else 'IMPs'}"]
    lines = [*_parts(headline, width), *_parts(score, width)]
    if result.options.changes():    # (under the defaults nothing is said, as in play and demo)
        import textwrap
        said = options_line(result.options)
        lines.extend(textwrap.wrap(said, width, subsequent_indent="  ") if width else [said])
    lines.append("")
    a, b = (p.to_dict() for p in result.pairs)
    rows = [(label, ["—" if d[key] is None else fmt.format(d[key]) for d in (a, b)])
            for label, key, fmt in (("bot", "bot", "{}"), ("contracts declared", "declared", "{}"),
                                    ("made", "made", "{}"), ("making rate", "making_rate", "{:.0%}"),
                                    ("honors per hand", "honors_per_hand", "{:.2f}"),
                                    ("bright bonus per hand", "bright_bonus_per_hand", "{:.2f}"),
                                    ("ms per decision", "ms_per_decision", "{:.2f}"))]
    # each column as wide as its widest cell, and a gap
    label_width = max(len(label) for label, _ in rows)
    widths = [max(len(cells[i]) for _, cells in rows) + 2 for i in (0, 1)]
    lines.append(f"{'':<{label_width}}{'A':>{widths[0]}}{'B':>{widths[1]}}")
    for label, cells in rows:
        lines.append(f"{label:<{label_width}}{cells[0]:>{widths[0]}}{cells[1]:>{widths[1]}}")
    for name, d in (("A", a), ("B", b)):
        kinds = list(d["contracts"].items())
        common = [f"{c} ×{n}" for c, n in kinds[:8]] or ["nothing"]
        if len(kinds) > 8:      # (the list stopped at eight, saying nothing of the rest)
            rest = sum(n for _, n in kinds[8:])
            common.append(f"and {len(kinds) - 8} more ({rest} {'contract' if rest == 1 else 'contracts'})")
        common[0] = f"{name} declared: {common[0]}"
        lines.extend(_parts(common, width))
    return "\n".join(lines)


def _parts(parts: list[str], width: int | None) -> list[str]:
    """``parts`` joined by commas, in lines of at most ``width`` characters where given
    (a line broken between two parts, the next indented); a part is never broken."""
    lines = [parts[0]]
    for part in parts[1:]:
        if width is None or len(lines[-1]) + 2 + len(part) + 1 <= width:
            lines[-1] += f", {part}"
        else:
            lines[-1] += ","
            lines.append(f"  {part}")
    return lines
