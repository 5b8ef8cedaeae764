"""``flowerbridge score FILE``: replay a finished hand record and print its score (FORMATS.md)."""

from __future__ import annotations

import json
import re
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

from . import add_rule_options, rule_option_changes

if TYPE_CHECKING:
    from ..errors import FlowerBridgeError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "score", help="score a finished JSON hand record",
        description="Replay a finished hand record by the rules and print its score as one JSON "
                    "object. Invalid records exit 2 with one 'error:' line.")
    p.add_argument("file", metavar="FILE", help="JSON hand record, or - for standard input")
    add_rule_options(p, record=True,
                     declarer_note="; the opening lead moves with the declarer: a played record "
                                   "whose play is not legal from the new lead is refused")
    p.add_argument("--variant", action="store_true",
                   help="score by the rule variants the record's options hold (the lab's scales, "
                        "which a server table of a variant writes there), as 'show' and "
                        "the server do; without it the hand is scored by the rules and a note says "
                        "which were set aside")
    p.set_defaults(func=run)


CONTRACT_OPTIONS = ("undertrick_penalty", "declarer")
"""The options FORMATS.md's records carry (RULINGS R9, R15). ``score`` replays a hand by
the rules with these alone: any other key of ``options`` is unknown to the contract, so
ignored, never an error and never a change of the score (the lab's variant scales, which
the project's own records may hold, among them: ``"five_bright_bonus": 1000`` scored
1,000, and ``"game_points": 0`` was refused). ``--variant`` applies those scales, so that a
variant table's record scores as the server and ``show`` scored it; without it a note on
standard error names the variants left aside (the score printed differed from the
server's with no word why)."""


def record_options(data, variant: bool = False):
    """The record's ``options`` as the contract knows them, or with ``variant`` all of
    them, the lab's scales included (a value that is not an object is left for the
    reader to refuse)."""
    raw = data.get("options") if isinstance(data, dict) else None
    if variant or not isinstance(raw, dict):
        return raw
    return {k: v for k, v in raw.items() if k in CONTRACT_OPTIONS}


def variant_option_names() -> frozenset[str]:
    """The keys of ``options`` that :class:`RuleOptions` reads beyond the contract's two: the
    lab's rule variants."""
    from ..options import RuleOptions

    return RuleOptions.field_names() - set(CONTRACT_OPTIONS)


def set_aside(data) -> list[str]:
    """The rule variants a record's options hold (keys :class:`RuleOptions` knows beyond
    the contract's two, not null) which ``score`` without ``--variant`` does not apply."""
    raw = data.get("options") if isinstance(data, dict) else None
    if not isinstance(raw, dict):
        return []
    known = variant_option_names()
    return [k for k, v in raw.items() if k in known and v is not None]


def options_from_args(data, args):
    """The record's options with the command line's overrides applied (an
    option overridden is not read from the record: its value there, good or
    bad, no longer counts)."""
    from ..options import RuleOptions

    raw = record_options(data, getattr(args, "variant", False))
    changes = rule_option_changes(args)
    if isinstance(raw, dict):
        return RuleOptions.from_dict({**raw, **changes})
    options = RuleOptions.from_dict(raw)
    return options.with_(**changes) if changes else options


@contextmanager
def as_formats_shows() -> Iterator[None]:
    """A call or a card refused as FORMATS.md's example writes it, its place in the record
    first: ``play 14 (E): must follow Ribbons, holds 9R``, ``auction 3 (N): ...``
    (the position in ``auction`` or ``play``). It was ``hand.json, play 14 (E): ...`` and
    ``call 3 (N)``, which a program reading the documented form did not match. (Any other
    refusal names the file, as the other commands' do.)"""
    from ..errors import FlowerBridgeError

    try:
        yield
    except FlowerBridgeError as exc:
        placed = _formats_form(exc)
        if placed is None:
            raise
        placed.placed = True    # type: ignore[attr-defined]  # (named() leaves it as it is)
        raise placed from None


def _formats_form(exc: FlowerBridgeError) -> FlowerBridgeError | None:
    """``exc``, a refused call or card, as FORMATS.md's example writes it (place first, no
    rule after it); None for any other refusal."""
    from ..errors import FlowerBridgeError     # noqa: F811  (at run time: the CLI imports it late)

    position = getattr(exc, "position", None)
    if not position or getattr(exc, "seat", None) is None or not re.fullmatch(r"(call|play) \d+", position):
        return None
    # (and as that example ends: without the rule in brackets the other commands add,
    # "... holds 9R [R11]", which a program matching the example's line did not expect)
    return FlowerBridgeError(exc.detail, seat=exc.seat, position=position.replace("call", "auction", 1))


def run(args) -> int:
    from ..errors import FlowerBridgeError
    from ..options import RuleOptions
    from ..records import HandRecord
    from .._load import named
    from . import UsageError, hand_record_json, input_name, read_text

    name = input_name(args.file)
    data = hand_record_json(read_text(args.file), name, "score")
    with named(name), as_formats_shows():   # refused naming its file, or a call's or card's place
        options = options_from_args(data, args)
        try:
            record = HandRecord.from_dict(data, options=options)
        except FlowerBridgeError as exc:
            # --declarer moves the opening lead: when the record replays without the
            # override, say that the override is what does not fit.
            if args.declarer is None:
                raise
            try:
                own = RuleOptions.from_dict(record_options(data, args.variant))
            except FlowerBridgeError:   # the record's own options are bad: what failed is the record
                raise exc from None
            if own.declarer == options.declarer:
                raise
            try:
                HandRecord.from_dict(data, options=options.with_(declarer=own.declarer))
            except FlowerBridgeError:
                raise exc from None
            # (the card or call it refuses written as every other of score's: "play 2 (S): ...")
            raise UsageError(f"--declarer {args.declarer} does not fit this record, played with declarer "
                             f"{own.declarer} (the opening lead moves with the declarer): "
                             f"{_formats_form(exc) or exc}") from None
        score = record.state.score()    # (a hand not finished is refused naming its file too)
    print(json.dumps(score.to_dict()))
    aside = [] if args.variant else set_aside(data)
    if aside:
        # The server's and show's score of a variant's record applies them: say why this differs.
        print(f"note: {name}'s options set rule variants ({', '.join(aside)}), left aside: scored by "
              f"the rules; --variant applies them, as the server and 'show' do", file=sys.stderr)
    return 0
