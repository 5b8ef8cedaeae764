"""``flowerbridge play``: a person plays a session at the terminal with three bots.

Everything the person sees comes from their own observation of the hand; the
bots' calls come with what they show under the bidding system. Input is read
line by line from standard input, so a session can be scripted:
``q`` or the end of input ends the session.
"""

from __future__ import annotations

import io
import re
import shlex
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from .._signals import Terminated, terminated_as_a_stop
from ..calls import Call, parse_call
from ..cards import CARDS, Kind, hand_points, parse_card
from ..dealing import Deal, json_seed
from ..errors import BotError, CallSyntaxError, CardCodeError, FlowerBridgeError, json_shown, quoted, shown
from ..options import RuleOptions
from ..render import count_text, describe_contract, fit_lines, glued, holding_lines, render_auction, render_deal, \
    render_score
from ..seats import Seat
from ..state import CallMade, CardPlayed, HandState, Phase
from . import UsageError, add_rule_options, one_line, options_line, output_width, parse_seed, read_text, \
    rule_option_changes, seat as seat_type, terminal_width, whole_number
from ._save import UNFINISHED, SaveError, SessionFile, add_save_options, session_file
from ._seeded import dealt_from_seed, saved_seed, saved_unfinished
from .deal import MAX_BOARD
from .demo import MAX_HANDS
from .rules import PAGE, render_rules

if TYPE_CHECKING:
    from ..session import Session


# Columns a prompt leaves for the answer typed after it, at least (a call, a card, a command).
PROMPT_ROOM = 12


def register(subparsers) -> None:
    p = subparsers.add_parser("play", help="play a session at the terminal against bots",
                              description="Play Flower Bridge with three bots: you bid and play "
                                          "one seat (and the dummy when you declare). Type a call "
                                          "(1A, 3NT, Pass) or a card code (11B, 1Pa); '?' lists "
                                          "what is legal; 'hint' asks a bot what it would do; "
                                          "'undo' takes back your last call or card; 'claim' "
                                          "claims every trick left; 'tricks' lists the tricks "
                                          "played; 'score' shows the scoresheet; 'rules' prints "
                                          "the rules in brief; 'help' says what to type; 'q' quits.")
    p.add_argument("--seat", type=seat_type,
                   help="your seat, N, E, S or W (default S; with --resume, the saved session's)")
    p.add_argument("--seed", help="seed for the deals and the bots (default 'play')")
    p.add_argument("--bots", help="bot level or module:attribute (default basic; with --resume, the "
                                  "saved session's)")
    p.add_argument("--board", type=whole_number(1, MAX_BOARD),
                   help=f"the board of the seed the session starts at, 1 to {MAX_BOARD:,} (default 1): "
                        "board K and its dealer as deal --seed S --board K deals it (the bots' hands of "
                        "demo's board K, say), then K+1, ...")
    p.add_argument("--hands", type=whole_number(1, MAX_HANDS),
                   help=f"stop after this many hands, 1 to {MAX_HANDS:,} (default: until you quit)")
    add_rule_options(p)
    add_save_options(p, "write the session to FILE as a JSON session record after every call and "
                        "card, with the hand being played as it stands (flowerbridge show reads it)")
    p.add_argument("--resume", metavar="FILE",
                   help="go on with the session play --save wrote to FILE from where it was left (the "
                        "hand it was playing, or its next board): its seed, rule options and length, your "
                        "seat and the bots' level as they were; FILE is written again as play goes on")
    p.set_defaults(func=run)


# what a resumed session keeps as it was saved: the options that would change it are refused
KEPT_ON_RESUME = (("seed", "its seed"), ("board", "its boards"), ("hands", "its length"),
                  ("undertrick_penalty", "its rule options"), ("declarer", "its rule options"),
                  ("save", "its file (it is written to FILE again)"),
                  ("overwrite", "its file (it is written to FILE again)"))


# `help` or `h` at a prompt: what `?` lists, then these (a line a topic, each wrapped at the
# terminal's width as a whole: lines broken for 80 columns were broken again on a narrower one)
HELP_CALL = ("Type a call: a bid such as 1A or 3NT (3n for short), or Pass (p).\n"
             "? lists the legal calls; hint asks a bot what it would call; undo (u) takes back "
             "your last call and the bots' after it; score shows the scoresheet; rules prints "
             "the rules in brief; help or h shows this; q ends the session.\n"
             "The bots' calls count points by rank, not the honor count: the four highest ranks "
             "of each suit 4, 3, 2, 1 (in Animals 12B 4, 11B 3, 8B 2, 3B 1), about 13 in a hand.")
HELP_CARD = ("Type a card code such as 11B or 1Pa (in any case; 1P where one January Plain may be played).\n"
             "? lists the legal cards; hint asks a bot what it would play; undo (u) takes back "
             "your last card or call and what the bots did after it; tricks lists the tricks "
             "played, card by card; score shows the scoresheet; claim says your side takes every "
             "trick left (accepted when no defence can stop it and it needs no guess where the "
             "cards you cannot see lie); rules prints the rules in brief; help or h shows this; "
             "q ends the session.")

DUMMY_HELP = ("You are dummy: your partner plays your cards. Enter shows the next trick, a the rest of "
              "the hand, tricks the tricks played, score the scoresheet, rules the rules in brief; "
              "q ends the session.")


class Quit(Exception):
    """The person asked to stop (``q``, ``quit`` or the end of input)."""


NAMES_FROM = 60
"""The terminal width (characters a line) from which a hand is shown with its cards' names."""


def hint_level(bots: str) -> str:
    """The bot that gives the person hints: the one the table plays with, but
    for random bots, whose choice would be no advice (then the basic bot)."""
    return "basic" if bots == "random" else bots


def run(args) -> int:
    from ..bots import bot_seed, load_bot

    setup = resumed_session(args) if args.resume is not None else new_session(args)
    session, seed, first_board, seat, level = setup.session, setup.seed, setup.first_board, setup.seat, setup.level
    save, resumed = setup.save, setup.resumed
    # the bots of a resumed session are seeded afresh from its next board: the deals are
    # those of the session unbroken, the bots' choices not
    salt: tuple[object, ...] = ("board", first_board + len(session.hands)) if args.resume is not None else ()
    # in the saved record too, so that --resume seats the person and the bots as they were
    session.extra.update(seat=seat.name, bots=level)
    bots = {s: load_bot(level, seed=bot_seed(seed, s.name, *salt)) for s in Seat if s is not seat}
    # seeded apart from the bots at the table: asking for a hint changes none of their choices
    hinter = load_bot(hint_level(level), seed=bot_seed(seed, seat.name, "hint", *salt))
    if isinstance(sys.stdin, io.TextIOWrapper):
        # a byte that is not UTF-8 (a terminal in another encoding) is bad input like any
        # other, answered at the prompt, not a UnicodeDecodeError's traceback
        sys.stdin.reconfigure(errors="replace")
    table = Table(seat, bots, sys.stdin, sys.stdout, save, hinter)
    if args.resume is not None:
        table.say(f"Resuming the session in {args.resume}: {count_text(len(session.hands), 'hand')} "
                  f"played; you are {seat.full_name}, with {level} bots.")
        table.say(session.render(terminal_width()))     # (its rule options under the title)
    elif session.options.changes():     # said before the first call: they change what a bid risks
        table.say(options_line(session.options))

    status = 0
    try:
        with terminated_as_a_stop():    # SIGTERM (kill PID) ends it as Ctrl-C does, status 143
            while not session.is_over:
                if first_board + len(session.hands) > MAX_BOARD:   # (as deal --board takes them)
                    table.say(f"Board {MAX_BOARD:,} was the last its seed deals: the session ends.")
                    break
                table.play_hand(session, seed, first_board, resumed)
                resumed = None
    except (Quit, KeyboardInterrupt) as stop:
        if isinstance(stop, KeyboardInterrupt):     # Ctrl-C: off the prompt's line first
            table.say()
            status = 143 if isinstance(stop, Terminated) else 130
        table.say("Session ended.")
        if table.unfinished is not None and save is not None:
            table.say(_what_was_saved(table, save, resumed=args.resume is not None))
        if session.hands and not table.sheet_shown:
            table.say(session.render(terminal_width()))
    except BotError:    # a bot failed or broke a rule: the hands finished still count
        if session.hands:
            table.say("\nSession ended: a bot failed (the error says how).")
            if not table.sheet_shown:
                table.say(session.render(terminal_width()))
        raise
    if table.save_error is not None:   # the last write failed: the file lacks hands (said above)
        print(f"error: {one_line(table.save_error)}", file=sys.stderr)
        return status or 2
    return status


@dataclass
class PlaySetup:
    """What a session of ``play`` is played with: new (:func:`new_session`) or resumed
    (:func:`resumed_session`)."""

    session: Session
    seed: int | str
    first_board: int    # the board of the seed the session's first hand is
    seat: Seat          # the person's
    level: str          # the bots'
    save: SessionFile | None    # where the session is written, if anywhere
    resumed: HandState | None = None    # the hand a resumed session was playing, as it was left


def new_session(args) -> PlaySetup:
    """The session the options ask for."""
    from ..session import Session

    seed = parse_seed(args.seed if args.seed is not None else "play")
    save = session_file(args)   # a path that cannot be written is refused before any hand
    seat, level = _first(args.seat, Seat.S), _first(args.bots, "basic")
    first_board = _first(args.board, 1)
    if args.hands is not None and first_board + args.hands - 1 > MAX_BOARD:
        raise UsageError(f"--board {first_board:,} --hands {args.hands:,}: the session would go past "
                         f"board {MAX_BOARD:,}, the last its seed deals")
    # board K is dealt by the seat K - 1 after North, as in a session from board 1
    session = Session(RuleOptions().with_(**rule_option_changes(args)), max_hands=args.hands,
                      first_dealer=Seat.N.next(first_board - 1))
    session.extra["seed"] = json_seed(seed)    # in the saved record: the same seed deals the same boards again
    if first_board != 1:
        session.extra["first_board"] = first_board
    return PlaySetup(session, seed, first_board, seat, level, save)


def _what_was_saved(table, save, *, resumed: bool) -> str:
    """What a session stopped mid-hand says of its unfinished board and the file."""
    resume = f"play --resume {shlex.quote(save.path)}"
    if table.save_error is not None:    # (said as it failed, and in the error line below)
        return f"Board {table.unfinished} is not saved as it stands: the last write failed."
    if table.unfinished_saved:
        return f"Board {table.unfinished} is saved as it stands in {save.path}: {resume} goes on from there."
    if save.written or resumed:     # the file holds the hands before it
        return (f"Board {table.unfinished} had no call yet, so {save.path} holds the hands "
                f"before it: {resume} deals it next.")
    # (a file there before is as it was)
    return f"Nothing was played, so nothing was saved: {save.path} was not written."


def resumed_session(args) -> PlaySetup:
    """What ``--resume FILE`` goes on with: the session, its seed and first board, the
    person's seat, the bots' level, the file it is written to again and the hand it was
    playing as it was left (or None); or a UsageError naming what is wrong (another option
    that would change the session, FILE not a file that can be written, unreadable, no
    session record, naming no seed, hands not dealt from it, over, an unfinished hand that
    is not its next board as play deals it, or played by another seat than ``--seat``)."""
    from ..bots import BOT_LEVELS
    from .._load import load_records_and_session

    path = args.resume
    if path == "-":
        raise UsageError("--resume -: give the session's file (standard input is where you type)")
    for option, kept in KEPT_ON_RESUME:
        value = getattr(args, option)
        if value is not None and value is not False:    # (0, the strict penalty, is given too)
            raise UsageError(f"--{option.replace('_', '-')} with --resume: a resumed session keeps {kept} "
                             "as it was saved")
    # before it is read: a FIFO (which a read would wait on) or a directory is refused here
    save = SessionFile(path, overwrite=True, option="--resume", read=True)
    _, session = load_records_and_session(read_text(path, "a session record"), path)
    if session is None:
        raise UsageError(f"{path} holds a hand record, not a session: --resume goes on with a "
                         "session that play --save wrote")
    seed = saved_seed(session)
    if seed is None and "seed" in session.extra:
        raise UsageError(f"{path}: its seed is {json_shown(session.extra['seed'])}, not a seed --seed "
                         "takes (a whole number or a word): a session is resumed from the boards its seed "
                         "deals, as play --save writes it")
    if seed is None:
        raise UsageError(f'{path} names no seed ("seed"): a session is resumed from the boards its seed '
                         "deals, and play --save writes it")
    first = session.extra.get("first_board", 1)
    if isinstance(first, bool) or not isinstance(first, int) or not 1 <= first <= MAX_BOARD:
        raise UsageError(f"{path}: its first_board is {json_shown(first)}, not a board from 1 to {MAX_BOARD:,}")
    if session.first_dealer is not Seat.N.next(first - 1):
        raise UsageError(f"{path}: its first dealer is {session.first_dealer.full_name}: play deals board "
                         f"{first} from {Seat.N.next(first - 1).full_name}, and only a session dealt as play "
                         "deals it is resumed")
    for number, state in enumerate(session.hands, 1):
        board = first + number - 1
        if not dealt_from_seed(state, seed, board):
            raise UsageError(f"{path}: hand {number} is not board {board} of its seed {shown(seed)}: only a "
                             "session dealt from its seed, as play deals it, is resumed")
    if session.max_hands is not None and session.max_hands > MAX_HANDS:
        raise UsageError(f"{path}: max_hands {session.max_hands:,}: play takes 1 to {MAX_HANDS:,} hands")
    if session.is_over:
        raise UsageError(f"{path}: the session is over ({count_text(len(session.hands), 'hand')} "
                         "played): nothing to resume")
    if first + len(session.hands) > MAX_BOARD:
        raise UsageError(f"{path}: its last hand is board {MAX_BOARD:,}, the last its seed deals: nothing "
                         "to resume")
    saved_seat = seat_type(_saved(session, path, "seat", list("NESW"), "S"))
    seat = args.seat if args.seat is not None else saved_seat
    # (a level by name only: a module:attribute in a file would be code the file runs)
    level = args.bots if args.bots is not None else _saved(session, path, "bots", list(BOT_LEVELS), "basic")
    resumed = _unfinished_hand(session, seed, first + len(session.hands), path)
    # (taken out of what the session keeps: each write says afresh which hand, if any, is unfinished)
    session.extra.pop(UNFINISHED, None)
    if resumed is not None:
        if seat is not saved_seat:
            raise UsageError(f"--seat {seat.name} with --resume: board {first + len(session.hands)} was left "
                             f"unfinished with you as {saved_seat.full_name}, and is finished from that seat "
                             f"(resume without --seat; a later --resume may change it)")
    return PlaySetup(session, seed, first, seat, level, save, resumed)


def _unfinished_hand(session, seed, board: int, path: str):
    """The hand a saved session was playing (its ``"unfinished"``), replayed through the
    engine, or None; a UsageError unless it is the session's next hand, board ``board`` of ``seed``."""

    state = saved_unfinished(session, path)
    if state is None:
        return None
    if not dealt_from_seed(state, seed, board):
        raise UsageError(f"{path}: its unfinished hand is not board {board} of its seed {shown(seed)}: only "
                         "a session dealt from its seed, as play deals it, is resumed")
    try:
        session.verify_next(state)      # (its dealer is the board's: its rule options)
    except FlowerBridgeError as exc:
        raise UsageError(f"{path}: its unfinished hand (board {board}): {exc}") from None
    return state


def _saved(session, path: str, key: str, allowed: list[str], default: str) -> str:
    """What a saved session says of ``key`` (the seat, the bots' level): one of ``allowed``,
    ``default`` where it says nothing, else a UsageError naming it."""

    value = session.extra.get(key, default)
    if value not in allowed:
        raise UsageError(f"{path}: its {key} is {json_shown(value)}, not one of {', '.join(allowed)}"
                         + (" (a bot of your own is given with --bots)" if key == "bots" else ""))
    return value


def _first(*values):
    """The first of ``values`` that is not None."""
    return next(value for value in values if value is not None)


def shorthand_call(text: str) -> str:
    """The call the person's shorthand stands for (``p``, ``3n``, ``3 nt``), or what
    they typed as typed, when it is no call (its error then names it so)."""

    call = "".join(text.split())
    if call.lower() == "p":
        call = "Pass"
    elif len(call) == 2 and call[0] in "1234567" and call[1] in "nN":
        call += "T"
    try:
        return parse_call(call).text
    except CallSyntaxError:
        return text


def shorthand_card(text: str, legal) -> str:
    """The card the person's shorthand stands for: a code typed with spaces (``3 b``, as
    ``3 nt`` is taken for a call), or ``1p`` where the one January Plain among the legal
    cards is meant; else what they typed, as typed."""

    compact = "".join(text.split()).upper()
    codes = {card.code.upper(): card.code for card in CARDS}
    if compact in codes:
        return codes[compact]
    januaries = {card.code for card in legal if card.code.startswith("1P")}
    if compact == "1P" and len(januaries) == 1:
        return januaries.pop()
    return text


def own_call(call: str, explanation: str) -> str:
    """The person's own call and what it shows partner under the system (the
    explanation describes the call, not the hand: ``opening: 5+ Plains, ...``
    is what 1P shows, whatever was held)."""
    if explanation.startswith("not part of the system"):
        return f"You call {call}: {explanation}, so it shows partner nothing in particular"
    name, _, shown = explanation.partition(": ")
    return f"You call {call} ({name}): it shows {shown}" if shown else f"You call {call} ({name})"


def _terminal() -> bool:
    """Whether the person types at a terminal; if so, readline edits their lines."""
    if sys.stdin is None or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    try:
        import readline  # noqa: F401  (importing it is what gives input() line editing)
    except ImportError:     # a Python built without it: plain input() still works
        pass
    return True


class Table:
    """One person's seat at the table: prints what they may see, reads what they do."""

    def __init__(self, seat, bots, stdin: TextIO, stdout: TextIO, save=None, hinter=None) -> None:
        self.seat = seat
        self.save = save            # the SessionFile of --save, written after every call and card
        self.bots = bots
        self.hinter = hinter        # the bot asked by `hint`, with the person's own view (None: no hints)
        self.hinted: tuple[Any, str] | None = None     # the last hint: (the person's view then, what was said)
        self.claimed = False        # a claim was played out: its tricks are said with their cards
        self.taken_back = False     # an undo brought back the person's turn: the contract is said again
        self.contract_just_said = False     # a hand taken up again ended its auction with it
        self.stdin = stdin
        self.stdout = stdout
        self.sheet_shown = False    # the scoresheet is on screen as it stands
        self.save_error: str | None = None   # why the last write of --save failed
        self.unfinished: int | None = None   # the board being played, until it is over
        self.unfinished_saved = False        # the file holds that board as it stands
        self.session = None         # the session being played (its scoresheet, for `score`)

    def say(self, text: str = "") -> None:
        """A line or block to show: a line longer than the terminal is wide goes on,
        indented, on the next (the hands and the scoresheet are laid out to fit it
        already; written to a file or a pipe, lines are left whole, as demo's are)."""
        print(fit_lines(text, output_width()), file=self.stdout, flush=True)

    def ask(self, prompt: str) -> str:
        if self.stdin is sys.stdin and self.stdout is sys.stdout and _terminal():
            # at a terminal, input() with readline: the arrow keys edit the line
            # and go back through what was typed before
            try:
                line = input(prompt) + "\n"
            except EOFError:
                line = ""
        else:
            self.stdout.write(prompt)
            self.stdout.flush()
            # standard input closed (`<&-`): Python's sys.stdin is None, read as its end
            line = self.stdin.readline() if self.stdin is not None else ""
        if not line:
            self.say()
            raise Quit
        text = line.strip().lstrip("\ufeff").strip()   # (a file of moves may begin with a byte-order mark)
        if text.lower() in ("q", "quit", "exit"):
            raise Quit
        return text

    def play_hand(self, session, seed, first_board: int = 1, resumed=None) -> None:
        """Deal the session's next hand (or go on with ``resumed``, the hand a resumed
        session was playing), play it out and score it."""
        number = self.unfinished = first_board + len(session.hands)     # the board
        self.session = session
        state = resumed if resumed is not None else session.new_hand(Deal.from_seed(seed, number))
        self.unfinished_saved = resumed is not None
        self.sheet_shown = False
        watch = True    # as dummy, the person is asked to go on after each trick
        # board K of the seed is what `flowerbridge deal --seed S --board K` deals; a session
        # begun past board 1 says which hand it is, as the scoresheet numbers its entries
        hand = len(session.hands) + 1
        on_sheet = f"; hand {hand} on the scoresheet" if hand != number else ""
        self.say(f"\n=== Board {number} (seed {seed!r}{on_sheet}): dealer {state.dealer.full_name}; you are "
                 f"{self.seat.full_name} ===")
        if resumed is not None:
            self.say_resumed(state)
        while not state.is_over:
            actor = state.actor
            phase_before = state.phase
            tricks_before = len(state.tricks)
            made = (len(state.calls), len(state.plays))
            if actor is self.seat:
                self.human_turn(state)
            else:
                self.bot_turn(state, actor)
            if (len(state.calls), len(state.plays)) != made:   # (not a hint, nor a claim refused)
                self.save_progress(session, state)
            if phase_before is Phase.AUCTION and state.phase is not Phase.AUCTION:
                self.say(render_auction(state, width=output_width()))
            # the dummy, face up once the opening lead is made (the person's own
            # turn, if it comes next, shows it anyway)
            if len(state.plays) == 1 and state.actor is not self.seat:
                self.show_holding(f"Dummy ({state.contract.dummy.full_name})",
                                  state.remaining(state.contract.dummy))
            if len(state.tricks) > tricks_before:
                self.say_tricks(state, tricks_before)
                if watch and state.contract.dummy is self.seat and not state.is_over:
                    watch = self.watch_as_dummy(state)
        self.finish_hand(session, state, number)

    def bot_turn(self, state, actor: Seat) -> None:
        """The bot at ``actor`` calls or plays, and the person is told what it did."""
        from ..bots.base import ask

        decision = ask(self.bots[actor], actor, state.observation(actor))
        try:
            event = state.apply(decision.action, actor)
        except FlowerBridgeError as exc:    # the rules refuse it: the bot's fault, said so
            what = "call" if isinstance(decision.action, Call) else "card"
            raise BotError(f"the bot at {actor.full_name} chose an illegal {what}: {exc}") from exc
        self.report_bot(state, event, decision)

    def finish_hand(self, session, state, number: int) -> None:
        """Score the hand played as board ``number``, save the session, show it all and wait
        for the person to go on."""
        session.add(state)
        self.unfinished, self.unfinished_saved = None, False
        if self.save is not None:   # before anything is asked: quitting then loses nothing
            try:
                self.save.write(session)
                self.save_error = None
            except SaveError as exc:    # (the folder removed, the disk full): the game goes on
                self.save_error = str(exc)
        # the hand is over: every card may be seen, the 8 undealt too
        self.say("\n" + render_deal(state, names=False))
        self.say(render_score(state))
        self.say(session.render(terminal_width()))
        if self.save_error is not None:
            then = ("play goes on, and saving is tried again at the next call or card" if not session.is_over
                    else "the file does not hold this hand")
            self.say(f"Warning: not saved: {self.save_error}. The hand is on the scoresheet; {then}.")
        elif self.save is not None:
            self.say(f"Saved to {self.save.path}.")
        self.sheet_shown = True
        # Enter goes on, q quits (in ask); anything else: asked again. Not asked after the
        # seed's last board (run() then ends the session), nor when the session is over
        while not session.is_over and number < MAX_BOARD:
            text = self.ask("Press Enter for the next hand (q to quit): ")
            if not text:
                break
            if not self.look(state, text):
                self.say("Enter starts the next hand; score shows the scoresheet, tricks the tricks of "
                         "the hand just played, rules the rules; q ends the session.")

    def save_progress(self, session, state) -> None:
        """Write the session with the hand being played as it stands (after each call and
        card, an undo's and a claim's too): killed or quit, play loses nothing."""
        if self.save is None:
            return

        try:
            self.save.write(session, unfinished=state)
        except SaveError as exc:    # said once, as writes begin to fail; tried again at each action
            if self.save_error is None:
                self.say(f"Warning: not saved: {exc}. Play goes on, and saving is tried again after "
                         "each call and card.")
            self.save_error = str(exc)
        else:
            self.save_error = None
            self.unfinished_saved = True

    def say_resumed(self, state) -> None:
        """Where a hand taken up again stands: what was made, the auction once it is over,
        the tricks played and the dummy."""
        cards = f" and {count_text(len(state.plays), 'card')}" if state.plays else ""
        self.say(f"Taken up where it was left: {count_text(len(state.calls), 'call')}{cards} made.")
        if state.contract is not None or state.is_over:
            self.say(render_auction(state, width=output_width()))
            # (the turn's own line said it again, the next line: "Contract 3 Bright Animals by
            # South" then "Contract 3 Bright Animals by South; tricks NS 0, EW 0")
            self.contract_just_said = not state.tricks
        if state.tricks:
            self.say_tricks(state, 0, with_cards=True)
        if state.plays and not state.is_over and state.actor is not self.seat:
            self.show_holding(f"Dummy ({state.contract.dummy.full_name})", state.remaining(state.contract.dummy))

    def say_tricks(self, state, since: int, *, with_cards: bool = False) -> None:
        """Each trick completed since the first ``since``: who won it, and the
        tricks each side has then. Those of a claim played out, and ``with_cards``
        those of a hand taken up again, are said with their cards, which nobody
        has seen played here."""
        ns = sum(1 for t in state.tricks[:since] if t.winner in (Seat.N, Seat.S))
        ew = since - ns
        with_cards, self.claimed = with_cards or self.claimed, False
        for trick in state.tricks[since:]:
            card = next(c for s, c in trick.plays if s is trick.winner)
            ns, ew = (ns + 1, ew) if trick.winner in (Seat.N, Seat.S) else (ns, ew + 1)
            cards = " (" + ", ".join(f"{s.name} {c.code}" for s, c in trick.plays) + ")" if with_cards else ""
            self.say(f"Trick {trick.number}{cards} won by {trick.winner.full_name} with {card.code}; "
                     + glued(f"tricks NS {ns}, EW {ew}"))

    def watch_as_dummy(self, state) -> bool:
        """Between tricks, when the person is dummy and the bots play every card:
        wait for them, so that the hand does not scroll past. Whether to wait
        again after the next trick."""
        while True:
            text = self.ask("Enter for the next trick, a for the rest of the hand (q to quit): ").lower()
            if text in ("", "a"):
                return text == ""
            if self.look(state, text):
                continue
            if text in ("undo", "u", "hint", "claim"):
                # (the word, not what was typed: "nothing to u" was said)
                what = "undo" if text == "u" else text
                self.say(f"You are dummy: your partner plays your cards, so there is nothing to {what} "
                         "(undo, hint and claim wait for your next turn, in the next hand).")
                continue
            self.say(DUMMY_HELP)

    def report_bot(self, state, event, decision) -> None:
        """Tell the person what a bot did, with what its call shows."""
        if isinstance(event, CallMade):
            why = f"  ({decision.explanation})" if decision.explanation else ""
            self.say(f"{event.seat.full_name} calls {event.call.text}{why}")
        else:
            who = event.seat.full_name + (" (dummy)" if state.contract and event.seat is state.contract.dummy else "")
            self.say(f"{who} plays {event.card.code} {event.card.name}")

    def show_holding(self, title: str, cards) -> None:

        self.say(f"{title}:")
        # a suit's cards with their names can run past the terminal's width, and go on under
        # it; on a narrow terminal that pushed the trick in progress off the screen (at 40
        # columns, 22 lines from it to the prompt against 12 at 80): the codes alone there
        width = terminal_width()
        for line in holding_lines(cards, names=width >= NAMES_FROM, width=width - 2):
            self.say("  " + line)

    def human_turn(self, state) -> None:
        """Show the person their view and read a legal call or card."""
        obs = state.observation(self.seat)
        prompt = self.show_turn(state, obs)
        while True:
            text = self.ask(prompt)
            if text and self.answer(state, obs, text):     # (Enter alone: ask again)
                return

    def show_turn(self, state, obs) -> str:
        """Show what the person needs at their turn; return the prompt asking for it."""
        from ..bots.bidding import HandFacts

        taken_back, self.taken_back = self.taken_back, False
        contract_just_said, self.contract_just_said = self.contract_just_said, False
        if state.phase is Phase.AUCTION:
            self.say(render_auction(state, awaited=True, width=output_width()))
            self.show_holding("Your hand", obs.hand)
            # the bots' explanations speak of points by rank, not of Ch. 10's honor count
            self.say(f"Honor count {hand_points(obs.hand)} (Ch. 10); "
                     + glued(f"{HandFacts.of(obs.hand).points} points by the bots' count (4-3-2-1 by rank)"))
            bids = [a.text for a in obs.legal if a.is_bid]
            example = ", ".join([*bids[:1], "Pass"])
            prompt = f"Your call (e.g. {example}; p passes; ? lists legal calls): "
            short = "Your call (? lists legal calls): "
        else:
            hand_seat = state.turn
            # the contract stays in view: the line that named it has long scrolled away
            # (but for the opening lead, where the auction just ended with it)
            if (state.plays or taken_back) and not contract_just_said:
                ns, ew = obs.tricks_won
                self.say(f"{describe_contract(state)}; " + glued(f"tricks NS {ns}, EW {ew}"))
            if state.current_trick:
                self.say("Trick so far: " + "  ".join(f"{s.name} {c.code}" for s, c in state.current_trick))
            self.show_holding("Your hand", obs.hand)
            # the dummy stays face up from the opening lead to the end of the hand
            dummy = state.contract.dummy
            if obs.dummy is not None and dummy is not self.seat:
                self.show_holding(f"Dummy ({dummy.full_name})", obs.dummy)
            whose = "your hand" if hand_seat is self.seat else f"dummy ({hand_seat.full_name})"
            prompt = f"Card from {whose} (e.g. {obs.legal[0].code}; ? lists legal cards): "
            short = f"Card from {whose} (? lists): "
        # A prompt that leaves no room for the answer is cut at its start by a terminal's
        # line editing (TERM=dumb at 40 columns showed "<B; ? lists legal cards): ", not
        # whose card was asked for): a narrow terminal gets the short one.
        return short if len(prompt) + PROMPT_ROOM > terminal_width() else prompt

    def answer(self, state, obs, text: str) -> bool:
        """Act on what the person typed at their turn: True once the turn is over."""
        auction = state.phase is Phase.AUCTION
        if text.lower() in ("undo", "u"):
            taken = self.take_back(state)
            if taken is None:
                self.say("Nothing to take back: you have made no call or card yet this hand.")
                return False
            self.say(taken)
            return True     # play_hand goes on from the position before it: the person's turn again
        if text.lower() == "claim":
            if auction:
                self.say("A claim is made in the play, at your turn: it says you take every trick left.")
                return False
            return self.claim(state)
        if text.lower() == "hint":
            self.say(self.hint(state))
            return False
        if self.look(state, text):
            return False
        asks_help = text.lower() in ("help", "h")
        if auction and not asks_help:     # the usual shorthands at the table: p, 3n, 3 nt
            text = shorthand_call(text)
        elif not asks_help:     # and a card as "3 b", or "1p" where one January Plain is legal
            text = shorthand_card(text, obs.legal)
        if text == "?" or asks_help:
            self.say("Legal: " + " ".join(getattr(a, "code", None) or a.text for a in obs.legal))
            if asks_help:
                self.say(HELP_CALL if auction else HELP_CARD)
            return False
        wrong = None if auction else self.wrong_hand(state, obs, text)
        if wrong is not None:
            self.say(f"Not allowed: {wrong}")
            return False
        try:
            event = state.apply(text, self.seat)
        except FlowerBridgeError as exc:
            # without the record's position ("call 3 (S)", "play 14 (S)"): the
            # person at their turn knows which call or card they typed; but the
            # dummy's hand is named, as "it is dummy's turn" names it
            dummy = f"dummy ({exc.seat.full_name}): " if isinstance(exc.seat, Seat) \
                and exc.seat is not self.seat else ""
            self.say(f"Not allowed: {dummy}{exc.detail}" + (f" [{exc.rule}]" if exc.rule else ""))
            return False
        if isinstance(event, CallMade):
            from ..bots.bidding import explain_call

            calls = [(e.seat, e.call) for e in state.calls]
            self.say(own_call(event.call.text, explain_call(calls, len(calls) - 1)))
        else:
            self.say(f"You play {event.card.code} {event.card.name}"
                     + ("" if event.seat is self.seat else " from dummy"))
        return True

    def look(self, state, text: str) -> bool:
        """The looks asked for at any prompt — score, tricks, rules — answered; whether
        ``text`` was one. (At the dummy's and the next hand's prompts they were refused,
        though the help lists them.)"""
        text = text.lower()
        if text == "score":     # the scoresheet of the hands finished
            if self.session is not None and self.session.hands:
                self.say(self.session.render(terminal_width()))
            else:
                self.say("No hand has been scored yet this session.")
        elif text == "tricks":    # a look back (docs/rules.md, *Finished tricks*)
            if state.tricks:
                self.say_tricks(state, 0, with_cards=True)
            else:
                self.say("No trick was played this hand." if state.is_over
                         else "No trick has been played yet this hand.")
        elif text == "rules":     # (as `flowerbridge rules` prints them)
            self.say(render_rules(PAGE.read_text(encoding="utf-8"), output_width()))
            if state.options.changes():     # the rules above give the defaults
                self.say(options_line(state.options, "This session's rule options"))
        else:
            return False
        return True

    def take_back(self, state) -> str | None:
        """Undo the person's last call or card this hand (a card of the dummy's
        they played as declarer included) and everything the bots did after it;
        what was taken back, in order, or None when there is nothing of theirs."""
        dummy = state.contract.dummy if state.contract is not None else None
        undone = state.take_back(self.seat)
        if not undone:
            return None
        said = [e.card.code if isinstance(e, CardPlayed) else e.call.text for e in undone]
        whose = "your" if undone[0].seat is self.seat else f"dummy's ({undone[0].seat.full_name})"
        after = ", ".join(f"{e.seat.full_name}{' (dummy)' if e.seat is dummy and isinstance(e, CardPlayed) else ''}"
                          f" {what}" for e, what in zip(undone[1:], said[1:]))
        self.taken_back = True
        return f"Taken back: {whose} {said[0]}" + (f", then {after}." if after else ".")

    def claim(self, state) -> bool:
        """The person claims every trick left (the one in progress included) for
        their side, judged by :func:`flowerbridge.claims.judge_claim`: no defence
        may take a trick, nor may the claim need a guess where the unseen cards
        lie. Accepted, the cards are played out (the record holds every card).
        Whether it was accepted."""
        from ..claims import REFUSED, judge_claim

        left = 13 - len(state.tricks)
        line = judge_claim(state)
        if line is None:
            self.say(f"Claim not accepted: {REFUSED}. Play on.")
            return False
        self.say(f"You claim {'the last trick' if left == 1 else f'the {left} tricks left'}; "
                 "accepted, and the cards are played out:")
        for _, card in line:
            state.apply(card, state.actor)
        self.claimed = True
        return True

    def hint(self, state) -> str:
        """What the hint bot would call or play at the person's turn, and why; it
        sees only what the person sees (their observation)."""
        from ..bots.base import ask

        if self.hinter is None:
            return "No hints at this table."
        # asked again at the same turn: the same answer. Known by all the person sees (their
        # hand and what was done), not by what was done alone: every hand the person deals
        # starts with nothing done, and that was a hand four boards back's hint
        turn = state.observation(self.seat)
        if self.hinted is not None and self.hinted[0] == turn:
            return self.hinted[1]
        try:
            decision = ask(self.hinter, self.seat, turn)
        except BotError as exc:     # a bot loaded by path may fail: the game goes on
            return f"No hint: {exc}"
        action = decision.action
        what = action.text if isinstance(action, Call) else f"{action.code} {action.name}"
        said = f"Hint: {what}" + (f"  ({decision.explanation})" if decision.explanation else "")
        self.hinted = (turn, said)
        return said

    def wrong_hand(self, state, obs, text: str) -> str | None:
        """Why a card the person typed comes from the wrong one of the hands they
        see, their own or the dummy (the engine would say only that it is not in
        the hand to play from); None when it is not that."""
        turn, dummy = state.turn, state.contract.dummy
        hand = state.remaining(turn)
        whose = "your hand" if turn is self.seat else f"dummy's hand ({turn.full_name})"
        try:
            card = parse_card(text)
        except CardCodeError:
            # a call where a card is asked for: Pass and No Trump are no card codes, and nor
            # are some suit bids (1A: January has no Animal; those that are cards are cards,
            # and 1P is January's two Plains, said below)
            if re.fullmatch(r"\s*(p|pass|[1-7]\s*(nt?|[ra])|[2-7]\s*p)\s*", text, re.IGNORECASE):
                return (f"the auction is over: now each turn is a card (e.g. {obs.legal[0].code}; "
                        "? lists the legal cards)")
            # January's Plains are two cards: which the hand holds, where it holds one
            januaries = sorted({c.code for c in hand if c.month == 1 and c.kind is Kind.PLAIN})
            if "".join(text.split()).upper() == "1P" and januaries:
                held = " and ".join(januaries) if len(januaries) > 1 else f"only {januaries[0]}"
                return (f"unknown card code {quoted(text.strip())}: January has two Plains, 1Pa and 1Pb; "
                        f"{whose} holds {held}")
            return None
        if card in hand:
            return None
        if obs.dummy is not None and dummy is not self.seat:
            if turn is dummy and card in obs.hand:     # declarer, at the dummy's turn
                return f"it is dummy's turn ({dummy.full_name}): {card.code} is in your own hand, not dummy's"
            if turn is self.seat and card in obs.dummy:
                if self.seat is state.contract.declarer:
                    return f"it is your own turn, not dummy's: {card.code} is in dummy's hand ({dummy.full_name})"
                return f"{card.code} is in dummy's hand ({dummy.full_name}), not yours"
        # (the engine's words name the hand by its letter: "8B is not in N's hand"); a
        # card of the same month and kind there is said (1Pa typed for 1Pb)
        twins = sorted({c.code for c in hand if c.month == card.month and c.kind is card.kind})
        return f"{card.code} is not in {whose}" + (f" (it holds {' and '.join(twins)})" if twins else "")
