"""``flowerbridge deal --seed N``: a reproducible deal, as text or as a JSON hand record."""

from __future__ import annotations

from . import seat, whole_number


def register(subparsers) -> None:
    p = subparsers.add_parser("deal", help="deal a hand from a seed",
                              description="Deal the 60-card deck from a seed: the same seed gives "
                                          "the same deal on every machine.")
    p.add_argument("--seed", required=True, help="any integer or word")
    p.add_argument("--board", type=whole_number(0, 10**12 - 1), default=0,
                   help="board number within the seed, from 0 (default 0)")
    p.add_argument("--dealer", type=seat, default="N", help="dealer seat, N, E, S or W (default N)")
    p.add_argument("--json", action="store_true", help="print a JSON hand record")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..dealing import Deal
    from ..records import dumps
    from ..render import render_deal
    from ..state import HandState

    from . import parse_seed
    seed = parse_seed(args.seed)
    deal = Deal.from_seed(seed, args.board)
    state = HandState(deal, args.dealer)
    print(dumps(state) if args.json else render_deal(state))
    return 0
