"""``flowerbridge deal --seed N``: a reproducible deal, as text for people, or as a hand
record in JSON (``--json``) or in the text notation (``--notation``)."""

from __future__ import annotations

from . import seat, whole_number

MAX_BOARD = 999_999_999     # as the text notation's Board tag (docs/notation.md)


def register(subparsers) -> None:
    p = subparsers.add_parser("deal", help="deal a hand from a seed",
                              description="Deal the 60-card deck from a seed: the same seed gives "
                                          "the same deal on every machine.")
    p.add_argument("--seed", required=True, help="any integer or word")
    p.add_argument("--board", type=whole_number(1, MAX_BOARD), default=1,
                   help=f"board number within the seed, 1 to {MAX_BOARD:,} (default 1): board K is "
                        "the K-th hand that play and demo deal from the seed")
    p.add_argument("--dealer", type=seat,
                   help="dealer seat, N, E, S or W (default: the board's dealer in a session, as play "
                        "and demo deal it: board 1 North, 2 East, 3 South, 4 West, 5 North ...)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print a JSON hand record")
    out.add_argument("--notation", action="store_true",
                     help="print the hand record in the text notation (docs/notation.md); show "
                          "reads either back")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..dealing import Deal, json_seed
    from ..records import HandRecord, dumps
    from ..render import render_deal
    from ..session import Session
    from ..state import HandState

    from . import parse_seed
    seed = parse_seed(args.seed)
    deal = Deal.from_seed(seed, args.board)
    # the dealer rotates after every hand of a session from its first dealer (R5),
    # so board K is dealt by the seat K - 1 after it
    dealer = args.dealer if args.dealer is not None else Session().first_dealer.next(args.board - 1)
    state = HandState(deal, dealer)
    if not (args.json or args.notation):
        print(render_deal(state))
        return 0
    # the record names where it was dealt from, as tags of the notation's (a JSON record's
    # keys of the same names): `deal --seed S --board K` deals it again, and show heads it so
    record = HandRecord(state, {"Seed": json_seed(seed), "Board": args.board})
    if args.notation:
        from .. import notation
        from . import print_data
        print_data(notation.dumps(record))
    else:
        print(dumps(record))
    return 0
