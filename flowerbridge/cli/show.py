"""``flowerbridge show FILE``: a hand record (JSON or text notation) for people, or
in the text notation (``--notation``)."""

from __future__ import annotations

import re

# the first line of a hand as deal and show print it for people (no record: no cards played)
_SHOWN = re.compile(r"Dealer (North|East|South|West)[ \t]*(\r?\n|$)")


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


def run(args) -> int:
    from ..render import render_hand
    from . import UsageError, input_name, output_width, read_text
    from .._load import load_records

    if args.notation and args.names:
        raise UsageError("--names is for the hands shown for people: --notation writes the record "
                         "in the text notation")
    text = read_text(args.file)
    name = input_name(args.file)
    if _SHOWN.match(text.lstrip()):
        raise UsageError(f"{name} is a hand as deal or show print it for people, not a hand record: "
                         "show reads what deal --json or deal --notation writes")
    records = load_records(text, name)
    session = _session(text, name)      # (read again for its scoresheet: its hands are read above)
    if not records:      # a session record of no hands
        raise UsageError(f"{name} holds a session of no hands: nothing to show")
    if args.notation:
        from ..notation import dumps_all
        print(dumps_all(records), end="")
        return 0
    for number, record in enumerate(records, 1):
        if len(records) > 1 or session is not None:     # as the session's scoresheet names them
            print(f"=== Hand {number} ===")
        print(render_hand(record.state, names=args.names))
        print()
    if session is not None:
        print(session_totals(session, output_width()))
    return 0


def _session(text: str, name: str):
    """The :class:`~flowerbridge.session.Session` that ``text`` holds, if it is a JSON
    session record (which :func:`load_records` has read); else None."""
    from .._load import is_notation
    from ..records import parse_json
    from ..session import Session, is_session_record

    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")) or is_notation(stripped):
        return None
    data = parse_json(text, name)
    return Session.from_dict(data) if is_session_record(data) else None


def session_totals(session, width: int | None) -> str:
    """The session's scoresheet (Appendix B) down to its totals: its last part, the
    record of the last hand, repeats what is shown of that hand above it."""
    lines = session.render(width).split("\n")
    if "HAND RECORD" in lines:      # (after a rule, which closes the sheet)
        lines = lines[:lines.index("HAND RECORD")]
    return "\n".join(lines)
