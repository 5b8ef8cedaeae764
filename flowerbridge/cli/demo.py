"""``flowerbridge demo``: random-playing bots play a session; the scoresheet is printed."""

from __future__ import annotations

import sys

from . import add_rule_options, options_line, output_width, rule_option_changes, whole_number

MAX_HANDS = 10_000


def register(subparsers) -> None:
    p = subparsers.add_parser("demo", help="bots play a short session and the scoresheet is printed",
                              description="Four bots play a session of Flower Bridge from a seed; "
                                          "each hand and the final scoresheet are printed.")
    p.add_argument("--seed", default="demo", help="seed for deals and bots (default 'demo')")
    p.add_argument("--hands", type=whole_number(1, MAX_HANDS), default=8,
                   help=f"session length in hands, 1 to {MAX_HANDS:,} (default 8)")
    p.add_argument("--bots", default="random", help="bot level or module:attribute (default random)")
    p.add_argument("--quiet", action="store_true", help="print only the scoresheet")
    from ._save import add_save_options
    add_save_options(p, "write the session to FILE as a JSON session record (flowerbridge show reads it)")
    add_rule_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from .._signals import Terminated, stop_kept, terminated_as_a_stop
    from ..bots import bot_seed, load_bot, play_hand
    from ..dealing import Deal
    from ..errors import BotError
    from ..options import RuleOptions
    from ..render import fit_lines, render_auction, render_score
    from ..seats import SEATS
    from ..session import Session

    from . import parse_seed
    from ._save import SaveError, session_file
    from ..dealing import json_seed

    seed = parse_seed(args.seed)    # as deal, match, play and lab read it: 7 and 007 alike
    save = session_file(args)   # a path that cannot be written is refused before any hand
    session = Session(RuleOptions().with_(**rule_option_changes(args)), max_hands=args.hands)
    session.extra["seed"] = json_seed(seed)    # in the saved record: the same seed deals the same boards again
    bots = {seat: load_bot(args.bots, seed=bot_seed(seed, seat.name)) for seat in SEATS}
    width = output_width()
    if not args.quiet and session.options.changes():     # (--quiet: the scoresheet says them)
        print(fit_lines(options_line(session.options), width))
        print()
    board = 0
    save_error = None
    stopped: BaseException | None = None     # Ctrl-C, or a bot's error: the sheet of the hands finished
    try:
        try:
            # SIGTERM (kill, a job's stop) ends it as Ctrl-C does: the hands finished saved
            with terminated_as_a_stop(), stop_kept():
                while not session.is_over:
                    board += 1
                    state = play_hand(session.new_hand(Deal.from_seed(seed, board)), bots)
                    session.add(state)
                    if not args.quiet:
                        # board K of the seed is what `flowerbridge deal --seed S --board K` deals
                        print(fit_lines(f"Board {board} (seed {seed!r}), dealer {state.dealer.full_name}", width))
                        print(fit_lines(render_auction(state, width=width), width))    # (as show fits it)
                        if state.contract is not None:     # (a passed-out hand's auction ends "Passed out")
                            print(fit_lines(render_score(state), width))
                        print()
        except (KeyboardInterrupt, BotError) as exc:
            stopped = exc
    finally:    # the hands finished, also when the session is cut short (the output closed, too)
        if save is not None and session.hands:
            try:
                save.write(session)
            except SaveError as exc:    # (the folder removed, the disk full): the sheet all the same
                save_error = exc
    if session.hands or stopped is None:
        print(session.render(width))
    if stopped is not None and save_error is not None:    # (said before what stopped the session)
        print(f"error: {save_error}", file=sys.stderr)
    if isinstance(stopped, KeyboardInterrupt):
        said, status = ("terminated", 143) if isinstance(stopped, Terminated) else ("interrupted", 130)
        # as match says it: the sheet above holds the hands finished
        after = f" after {len(session.hands)} of {args.hands} hands" if session.hands else ""
        print(f"{said}{after}", file=sys.stderr)
        return status
    if stopped is not None:
        raise stopped
    if save_error is not None:
        raise save_error
    return 0

