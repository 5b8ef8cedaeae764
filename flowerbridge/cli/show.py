"""``flowerbridge show FILE``: a hand record (JSON or text notation) for people."""

from __future__ import annotations


def register(subparsers) -> None:
    p = subparsers.add_parser("show", help="show a hand record: hands, auction, tricks, score",
                              description="Replay a hand record (JSON, or the text notation) and "
                                          "show the hands, the auction, each trick with its winner "
                                          "and the score breakdown.")
    p.add_argument("file", metavar="FILE", help="hand record, or - for standard input")
    p.add_argument("--names", action="store_true", help="show card names beside the codes")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..render import render_hand
    from . import UsageError, input_name, read_text
    from .._load import load_any

    text = read_text(args.file)
    states = load_any(text, input_name(args.file))
    if not states:      # a session record of no hands
        raise UsageError(f"{input_name(args.file)} holds a session of no hands: nothing to show")
    for state in states:
        print(render_hand(state, names=args.names))
        print()
    return 0
