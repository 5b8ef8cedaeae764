"""``flowerbridge score FILE``: replay a finished hand record and print its score (FORMATS.md)."""

from __future__ import annotations

import json


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "score", help="score a finished JSON hand record",
        description="Replay a finished hand record by the rules and print its score as one JSON "
                    "object. Invalid records exit 2 with one 'error:' line.")
    p.add_argument("file", metavar="FILE", help="JSON hand record, or - for standard input")
    p.add_argument("--undertrick-penalty", type=_non_negative, metavar="N",
                   help="points per undertrick to the defenders (RULINGS R15; 0 = strict rulebook)")
    p.add_argument("--declarer", choices=("final-bidder", "first-named"),
                   help="who declares (RULINGS R9)")
    p.set_defaults(func=run)


def _non_negative(text: str) -> int:
    import argparse
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative")
    return value


def options_from_args(data, args):
    """The record's options with the command line's overrides applied."""
    from ..options import RuleOptions

    options = RuleOptions.from_dict(data.get("options") if isinstance(data, dict) else None)
    changes = {}
    if getattr(args, "undertrick_penalty", None) is not None:
        changes["undertrick_penalty"] = args.undertrick_penalty
    if getattr(args, "declarer", None) is not None:
        changes["declarer"] = args.declarer
    return options.with_(**changes) if changes else options


def run(args) -> int:
    from ..records import HandRecord, parse_json
    from . import input_name, read_text

    text = read_text(args.file)
    data = parse_json(text, input_name(args.file))
    record = HandRecord.from_dict(data, options=options_from_args(data, args))
    score = record.state.score()
    print(json.dumps(score.to_dict()))
    return 0
