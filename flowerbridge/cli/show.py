"""``flowerbridge show FILE``: a hand record (JSON or text notation) for people, or
in the text notation (``--notation``)."""

from __future__ import annotations

import json
import sys

from ..errors import FlowerBridgeError


def register(subparsers) -> None:
    p = subparsers.add_parser("show", help="show a hand record: hands, auction, tricks, score",
                              description="Replay a hand record (JSON, a session of them, or the text "
                                          "notation of docs/notation.md) and show the hands, the "
                                          "auction, each trick with its winner and the score "
                                          "breakdown; or, with --notation, write the record in the "
                                          "text notation.")
    p.add_argument("file", metavar="FILE", help="hand record, or - for standard input")
    p.add_argument("--names", action="store_true", help="show card names beside the codes")
    p.add_argument("--notation", action="store_true",
                   help="print the record in the text notation (docs/notation.md), canonical, which "
                        "show reads back; a session's hands one after another, a blank line between")
    p.set_defaults(func=run)


def _read(text: str, name: str):
    """The records and session of ``text`` (see ``load_records_and_session``), and what was
    left aside reading them: a JSON record whose ``options`` hold a rule variant of the lab's
    out of its range is shown with that value left aside (the rulebook's in its place, said
    in a note), since FORMATS.md makes every key of ``options`` but the contract's two
    unknown, and an unknown key never an error (`"game_points": 0` was refused)."""
    from ..errors import OptionError
    from .._load import load_records_and_session

    try:
        return (*load_records_and_session(text, name), [])
    except OptionError:
        data = _json_object(text)
        aside: list[str] = []
        if data is None:
            raise
        # (the server's answer for a session holds its session record under "session")
        from .._load import servers_session_answer
        if not _drop_bad_variants(data["session"] if servers_session_answer(data) else data, aside):
            raise
    records, session = load_records_and_session(json.dumps(data), name)
    return records, session, [f"{name}'s options hold rule variants it cannot take, left aside (the "
                              f"rulebook's values in their place): {'; '.join(aside)}"]


def _json_object(text: str) -> dict | None:
    """``text`` as a JSON object, or None where it is no JSON object (the notation)."""
    from ..records import parse_json

    if not text.lstrip().startswith("{"):
        return None
    try:
        data = parse_json(text, hand_record=True)
    except FlowerBridgeError:
        return None
    return data if isinstance(data, dict) else None


def _drop_bad_variants(data: dict, aside: list[str]) -> bool:
    """Take out of the ``options`` of ``data`` (a hand or session record) and of its hands'
    the lab's rule variants it cannot take (out of range, or not of the default's shape), each
    said in ``aside`` with the hand that held it where a session's hand did; whether any was.
    The contract's own two options are left to be judged as they are."""
    from ..errors import OptionError
    from ..options import RuleOptions
    from .score import variant_option_names

    variants = variant_option_names()
    hands = data.get("hands")
    found = False
    holders = [("", data), *((f"hand {i}: ", hand) for i, hand in enumerate(hands if isinstance(hands, list)
                                                                           else [], 1))]
    for where, holder in holders:
        options = holder.get("options") if isinstance(holder, dict) else None
        if not isinstance(options, dict):
            continue
        for key in [k for k in options if k in variants and options[k] is not None]:
            try:
                RuleOptions.from_dict({key: options[key]})
            except OptionError as exc:
                del options[key]
                found = True
                aside.append(f"{where}{exc}")
    return found


def run(args) -> int:
    from ..render import fit_lines, render_hand
    from ..options import RuleOptions
    from . import SHOWN_FOR_PEOPLE, UsageError, input_name, options_line, output_width, read_text, \
        refuse_bridge_deals

    if args.notation and args.names:
        raise UsageError("--names is for the hands shown for people: --notation writes the record "
                         "in the text notation")
    text = read_text(args.file)
    name = input_name(args.file)
    if SHOWN_FOR_PEOPLE.match(text.lstrip()):
        raise UsageError(f"{name} is a hand as deal or show print it for people, not a hand record: "
                         "show reads what deal --json or deal --notation writes")
    refuse_bridge_deals(text, name, "show")
    records, session, aside = _read(text, name)
    for line in aside:
        print(f"note: {line}", file=sys.stderr)
    from ._seeded import dealt_from_seed, saved_first_board, saved_seed, saved_unfinished

    unfinished = saved_unfinished(session, name)    # the hand play was playing, as it stands
    if not records and unfinished is None:      # a session record of no hands
        raise UsageError(f"{name} holds a session of no hands: nothing to show")
    if not records and args.notation:
        raise UsageError(f"{name} holds a session of no finished hands: the text notation writes "
                         "finished hands only (show without --notation shows the unfinished one)")
    if args.notation:
        from ..notation import dumps_all

        if unfinished is not None:
            print("note: the unfinished hand is left out: the text notation writes finished hands only",
                  file=sys.stderr)

        from . import print_data
        print_data(dumps_all(_boards_named(records, session) if session is not None else records))
        return 0
    seed, first = saved_seed(session), saved_first_board(session)
    hands = [record.state for record in records] + ([unfinished] if unfinished is not None else [])
    said = RuleOptions()    # the options last said (the defaults: none)
    if session is not None and session.options.changes():     # a session's, once, before its hands
        said = session.options
        print(fit_lines(options_line(said), output_width()))
        print()
    for number, state in enumerate(hands, 1):
        if len(hands) > 1 or session is not None:     # as the session's scoresheet names them
            # a session play or demo saved names the seed its boards were dealt from (hand K,
            # board K), where deal --seed --board deals that hand again
            board = first + number - 1
            again = seed is not None and dealt_from_seed(state, seed, board)
            which = f"Hand {number}" + (", unfinished" if state is unfinished else "")
            print(fit_lines(f"=== {which} (seed {seed!r}, board {board}) ===" if again
                            else f"=== {which} ===", output_width()))
        if state.options != said:     # what the hands' scores follow, where not the defaults
            said = state.options
            # (back to the defaults after a hand under others: said too, not left to look the same)
            print(fit_lines(options_line(said) if said.changes() else
                            "Rule options: the defaults (R9: the final bidder declares; R15: 50 points a "
                            "trick down).", output_width()))
        named = _identity(records[number - 1]) if number <= len(records) else None
        if named is not None:
            print(fit_lines(named, output_width()))
        print(render_hand(state, names=args.names, width=output_width()))
        print()
    if session is not None:
        # the sheet down to its totals: its record of the last hand repeats what is shown above
        print(session.render(output_width(), record=False))
    return 0


def _boards_named(records, session) -> list:
    """A session's hand records, each naming its board as a tag (``Board``) where it names
    none the notation writes: hand K of a session play or demo dealt from a seed is the seed's
    board (``Seed`` and ``Board``, as ``deal --seed S --board K`` writes it); any other
    session's hand K is board K. (A ``Board`` the notation would not write, ``"abc"`` or 0,
    gives way to that.)"""
    import dataclasses

    from ..notation import writable_tag
    from ._seeded import dealt_from_seed, saved_first_board, saved_seed

    seed, first = saved_seed(session), saved_first_board(session)
    named = []
    for number, record in enumerate(records, 1):
        if "Board" in record.extra and writable_tag("Board", record.extra["Board"]) is None:
            record = dataclasses.replace(record, extra={k: v for k, v in record.extra.items() if k != "Board"})
        # (a JSON record's "board" names it too, where it is a board number)
        if not any(key in record.extra and writable_tag("Board", record.extra[key]) is not None
                   for key in ("Board", "board")):
            board = first + number - 1
            if seed is not None and dealt_from_seed(record.state, seed, board):
                from ..dealing import json_seed
                tags = {} if any(key in record.extra for key in ("Seed", "seed")) else {"Seed": json_seed(seed)}
                record = dataclasses.replace(record, extra={**record.extra, **tags, "Board": board})
            else:
                record = dataclasses.replace(record, extra={**record.extra, "Board": number})
        named.append(record)
    return named


# The tags that name a hand where it was played (the notation's, or a JSON record's keys of
# those names, either case): shown above it, where show said nothing of them
IDENTITY_TAGS = ("Event", "Site", "Date", "Seed", "Board")


def _identity(record) -> str | None:
    """``Event: Club night; Site: Seoul; Date: 2026.11.30; Board: 16`` of a hand record's
    own tags, those it has; None where it has none."""
    import unicodedata

    found = []
    for name in IDENTITY_TAGS:
        for value in (record.extra.get(name), record.extra.get(name.lower())):
            text = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
            # (a JSON record's value may hold a line end, a terminal's escape or a character
            # that turns the text round: left out, as the server refuses them in a table's name)
            if text.strip() and not any(unicodedata.category(ch) in UNSHOWN for ch in text):
                found.append(f"{name}: {text}")
                break
    return "; ".join(found) or None


# Unicode categories of what a heading leaves out: controls, format characters (bidi), line
# and paragraph separators
UNSHOWN = {"Cc", "Cf", "Zl", "Zp"}
