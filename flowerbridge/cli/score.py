"""``flowerbridge score FILE``: replay a finished hand record and print its score (FORMATS.md)."""

from __future__ import annotations

import json

from . import add_rule_options, rule_option_changes


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "score", help="score a finished JSON hand record",
        description="Replay a finished hand record by the rules and print its score as one JSON "
                    "object. Invalid records exit 2 with one 'error:' line.")
    p.add_argument("file", metavar="FILE", help="JSON hand record, or - for standard input")
    add_rule_options(p, record=True,
                     declarer_note="; a played record whose declarer (and so its opening lead) "
                                   "differs under this ruling is refused")
    p.set_defaults(func=run)


def options_from_args(data, args):
    """The record's options with the command line's overrides applied (an
    option overridden is not read from the record: its value there, good or
    bad, no longer counts)."""
    from ..options import RuleOptions

    raw = data.get("options") if isinstance(data, dict) else None
    changes = rule_option_changes(args)
    if isinstance(raw, dict):
        return RuleOptions.from_dict({**raw, **changes})
    options = RuleOptions.from_dict(raw)
    return options.with_(**changes) if changes else options


def run(args) -> int:
    from ..errors import FlowerBridgeError
    from ..options import RuleOptions
    from ..records import HandRecord
    from .._load import named
    from . import UsageError, hand_record_json, input_name, read_text

    name = input_name(args.file)
    data = hand_record_json(read_text(args.file), name, "score")
    with named(name):   # what the record holds is refused naming its file
        options = options_from_args(data, args)
        try:
            record = HandRecord.from_dict(data, options=options)
        except FlowerBridgeError as exc:
            # --declarer moves the opening lead: when the record replays without the
            # override, say that the override is what does not fit.
            if args.declarer is None:
                raise
            try:
                own = RuleOptions.from_dict(data.get("options") if isinstance(data, dict) else None)
            except FlowerBridgeError:   # the record's own options are bad: what failed is the record
                raise exc from None
            if own.declarer == options.declarer:
                raise
            try:
                HandRecord.from_dict(data, options=options.with_(declarer=own.declarer))
            except FlowerBridgeError:
                raise exc from None
            raise UsageError(f"--declarer {args.declarer} does not fit this record, played with declarer "
                             f"{own.declarer} (the opening lead moves with the declarer): {exc}") from None
        score = record.state.score()    # (a hand not finished is refused naming its file too)
    print(json.dumps(score.to_dict()))
    return 0
