"""Plain-text views of a hand for people: hands by suit, auction, tricks, score."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Callable, Iterable

from .cards import Card, Suit, hand_points
from .seats import SEATS, Seat, Side
from .scoring import BRIGHTS
from .state import HandState

if TYPE_CHECKING:
    from .session import Session


def count_text(n: float, noun: str) -> str:
    """``1 trick``, ``2 tricks``, ``1,000 boards``, ``0.5 tables``: a count and its
    noun, plural but for one."""
    number = f"{int(n):,}" if float(n).is_integer() else f"{n:g}"
    return f"{number} {noun}" if n == 1 else f"{number} {noun}s"


GLUE = "\u00a0"
"""A space :func:`fit_lines` never breaks a line at (it prints as a plain space)."""


def glued(text: str) -> str:
    """``text`` as one piece for :func:`fit_lines`: carried to the next line
    whole, where it does not fit (``tricks NS 0, EW 1``, not ``tricks NS`` then
    ``0, EW 1``)."""
    return text.replace(" ", GLUE)


def fit_lines(text: str, width: int | None) -> str:
    """``text`` with each line longer than ``width`` characters carried on, indented,
    on the next (``None``: no limit).  Lines break only at spaces, and not at those
    of a :func:`glued` piece: a word, a file's path or a name with a hyphen stays
    whole (one longer than ``width`` runs past it)."""
    if width is not None:
        text = "\n".join(part for line in text.split("\n")
                          for part in (textwrap.wrap(line, width, subsequent_indent="    ",
                                                     break_long_words=False, break_on_hyphens=False)
                                       if len(line) > width else [line]))
    return text.replace(GLUE, " ")


def holding_lines(cards: Iterable[Card], *, names: bool = False, language: str = "en",
                   width: int | None = None) -> list[str]:
    """One line per suit, Bright Animals first, highest card first.  Given a
    ``width``, a suit longer than that goes on over more lines, each card
    (with its name) whole, under the suit's first card."""
    cards = list(cards)
    lines = []
    for suit in (Suit.ANIMALS, Suit.RIBBONS, Suit.PLAINS):
        held = sorted((c for c in cards if c.suit is suit), key=lambda c: -c.index)
        items = [f"{c.code} ({c.label(language)})" if names else c.code for c in held] or ["—"]
        line = f"{suit.short[0]}  {items[0]}"
        for item in items[1:]:
            if width is not None and len(line) + 1 + len(item) > width:
                lines.append(line)
                line = "   " + item
            else:
                line += " " + item
        lines.append(line)
    return lines


def render_deal(state: HandState, *, names: bool = False, width: int | None = None) -> str:
    """All four hands of the deal, with the 8 undealt cards; given a ``width``, no
    line longer (a suit goes on under its first card, as in :func:`holding_lines`)."""
    out = [f"Dealer {state.dealer.full_name}"]
    for seat in SEATS:
        cards = state.deal.hands[seat]
        out.append(f"{seat.full_name} (honor count {hand_points(cards)})")   # Chapter 10, not the bots' points
        out += ["  " + line for line in holding_lines(cards, names=names,
                                                       width=None if width is None else width - 2)]
    out.append("Undealt: " + " ".join(c.code for c in state.deal.undealt))
    return fit_lines("\n".join(out), width)


def describe_contract(state: HandState) -> str:
    """``Contract 4 Bright Animals by North``."""
    assert state.contract is not None
    return f"Contract {state.contract.bid.english} by {state.contract.declarer.full_name}"


NARROW_AUCTION = 29
"""The width below which the auction's grid closes up (``West  North East  South``)."""


def render_auction(state: HandState, *, awaited: bool = False, width: int | None = None) -> str:
    """The auction as a grid, West to South, starting with the dealer's column;
    with ``awaited``, ``?`` marks the call awaited while the auction lasts.  Given
    a ``width`` under :data:`NARROW_AUCTION`, the columns close up so that a row
    still fits a line (every call is at most four characters, a seat's name five)."""
    cell, gap = (6, "  ") if width is None or width >= NARROW_AUCTION else (5, " ")
    header = gap.join(f"{s.full_name:<{cell}}" for s in (Seat.W, Seat.N, Seat.E, Seat.S)).rstrip()
    cells: list[str] = ["" for _ in range((state.dealer - Seat.W) % 4)]
    cells += [ev.call.text for ev in state.calls]
    if awaited and state.phase.value == "auction":
        cells.append("?")   # the call awaited (a row of blanks alone reads as a fault)
    rows = [header]
    for i in range(0, len(cells), 4):
        rows.append(gap.join(f"{c:<{cell}}" for c in cells[i:i + 4]).rstrip())
    if state.contract:
        rows.append(describe_contract(state))
    elif state.phase.value == "passed out":
        rows.append("Passed out")
    return "\n".join(rows)


def render_tricks(state: HandState) -> str:
    """One line a trick: its cards, seat by seat, and who won it. Each seat's card and
    "won by N" are :func:`glued` pieces, so that :func:`fit_lines` breaks a line that is
    too long between them, not inside one."""
    def cards(plays) -> str:
        return "  ".join(glued(f"{seat.name} {card.code}") + " " * (3 - len(card.code)) for seat, card in plays)

    lines = [f"{t.number:>2}. {cards(t.plays)}   {glued(f'won by {t.winner.name}')}" for t in state.tricks]
    if state.current_trick:
        lines.append(f"{len(state.tricks) + 1:>2}. {cards(state.current_trick)}   {glued('(in progress)')}")
    return "\n".join(lines)


def render_score(state: HandState) -> str:
    score = state.score()
    if score.contract is None:
        return "Passed out: no score."
    # in the words the browser's review uses: "made exactly", "made with 1 overtrick", "down 2"
    result = score.result or 0
    outcome = (f"down {-result}" if result < 0 else "made exactly" if not result
               else f"made with {count_text(result, 'overtrick')}")
    lines = [f"{score.contract}: {count_text(score.tricks[score.contract.side], 'trick')}, {outcome}"]
    for item in score.items:
        lines.append(f"  {item.side.name} {item.points:>4} {'below' if item.below else 'above'}"
                     f"  {item.label} ({item.rule})")
    for side in (Side.NS, Side.EW):
        lines.append(f"{side.name}: {score.below(side)} below, {score.above(side)} above")
    return "\n".join(lines)


def render_unfinished(state: HandState) -> str:
    """What a hand not yet over lacks: ``Play not finished: 20 of 52 cards played, ...``."""
    assert state.turn is not None
    if state.phase.value == "auction":
        made = f"{count_text(len(state.calls), 'call')} made" if state.calls else "no call yet"
        return f"Auction not finished: {made}, {state.turn.full_name} to call; no score"
    dummy = " (dummy)" if state.contract is not None and state.turn is state.contract.dummy else ""
    return (f"Play not finished: {len(state.plays)} of 52 cards played, {state.turn.full_name}{dummy} "
            f"to play; no score")


def render_hand(state: HandState, *, names: bool = False, width: int | None = None) -> str:
    """Everything about a hand: deal, auction, tricks with winners, score; for a
    hand not yet over, what there is and what it lacks (no score). Given a
    ``width``, no line is longer."""
    parts = [render_deal(state, names=names, width=width), "",
             render_auction(state, awaited=True, width=width)]
    if state.tricks or state.current_trick:
        parts += ["", render_tricks(state)]
    if not state.is_over:
        parts += ["", render_unfinished(state)]
    elif state.contract is not None:    # (a passed-out hand's auction ends "Passed out")
        parts += ["", render_score(state)]
    return fit_lines("\n".join(parts), width)


# ------------------------------------------------------------ the scoresheet


def _below_text(session: Session, number: int, points: int, width: int) -> str:
    """An entry below the line, its contract named: ``" 60  2A (hand 3)"``."""
    return f"{points:>{width}}  {session.contract_code(number)} (hand {number})"


def render_scoresheet(session: Session, width: int | None = None, *, record: bool = True) -> str:
    """A session's scoresheet as text, laid out like Appendix B: North-South's
    entries beside East-West's, or, where that is wider than ``width``
    characters (a narrow terminal), one side's under the other's. Without
    ``record``, the sheet ends at the totals (no record of the last hand)."""
    rule = "=" * min(49, width or 49)
    # the points right-aligned, so that what they are for starts in one column
    pw = max([1] + [len(str(p)) for _, _, p, _ in session.above]
             + [len(str(p)) for game in session.games for _, _, p in game.below])
    above = [(s, f"{p:>{pw}}  {lab} (hand {n})") for n, s, p, lab in session.above]
    below = [(s, _below_text(session, n, p, pw)) for game in session.games for n, s, p in game.below]
    # North-South's column is as wide as its longest entry, so East-West's stays in line
    w = max([34] + [len(text) for side, text in above + below if side is Side.NS])
    # and East-West's must fit beside it: a longer entry of theirs, wrapped, went on
    # under North-South's column, reading as theirs
    e = max([len("EAST-WEST")] + [len(text) for side, text in above + below if side is Side.EW])
    beside = width is None or 2 * w + 3 <= width and w + 3 + e <= width
    header = f"{'NORTH-SOUTH':<{w}}   EAST-WEST" if beside else None

    def entries(items: list[tuple[Side, str]], total: Callable[[Side], int] | None) -> list[str]:
        totals = (f"—— {total(Side.NS)}", f"—— {total(Side.EW)}") if total else None
        if beside:
            return _scoresheet_columns(items, w) + ([f"{totals[0]:<{w}}   {totals[1]}"] if totals else [])
        if not items and total:    # the session's totals alone: one line
            return [f"—— NORTH-SOUTH {total(Side.NS)}, EAST-WEST {total(Side.EW)}"]
        out = []
        for i, side in enumerate((Side.NS, Side.EW)):
            mine = [text for s, text in items if s is side]
            if mine or totals:
                out += [side.label, *("  " + text for text in mine)]
                out += ["  " + totals[i]] if totals else []
        return out

    lines = [rule, "FLOWER BRIDGE".center(len(rule)).rstrip(), rule]
    # rule options other than the defaults, which the entries follow (a penalty of 0
    # leaves a failed contract no entry: the sheet says why)
    changes = session.options.changes()
    if changes:
        lines += [f"Rule options: {'; '.join(changes)}", rule]
    lines += ["ABOVE THE LINE", *([header] if header else [])]
    lines += entries(above, session.above_total)
    lines += [rule, "BELOW THE LINE", *([header] if header else [])]
    for game in session.games:
        if not game.below and game.winner is None and game is session.games[-1] and len(session.games) > 1:
            continue
        lines += entries([(s, _below_text(session, n, p, pw)) for n, s, p in game.below], None)
        if game.winner is not None:
            # as wide as the rules of "=" (it ran 2 characters past them, North-South's)
            label = f" game {game.number} to {game.winner.label} "
            left = 20 if beside else 4
            lines.append(f"{'-' * left}{label}{'-' * max(0, len(rule) - left - len(label))}".rstrip())
    # each side's below-the-line total over the session (R19)
    lines += entries([], session.below_total)
    lines += [rule, "GAME WINNER"]
    ns, ew = session.games_won
    lines.append(f"NORTH-SOUTH {ns} game{'s' if ns != 1 else ''}, EAST-WEST {ew} game{'s' if ew != 1 else ''}")
    totals = f"Totals: NORTH-SOUTH {session.total(Side.NS)}, EAST-WEST {session.total(Side.EW)}"
    standing = f"{session.leader.label} ahead" if session.leader is not None else "level"
    if session.is_over:    # its result (R19), as the web client says it, on a line of its own
        # (with the points, as the turn line says it: "won" alone, under a totals line)
        if session.leader is not None:
            won, lost = session.total(session.leader), session.total(session.leader.other)
            lines += [totals, f"The session is over: {session.leader.label} won, {won} points to {lost}"]
        else:
            lines += [totals, f"The session is over: a tie, {session.total(Side.NS)} points each"]
    else:
        lines += [f"{totals} — {standing}"] if beside else [totals, standing]
    last = session.scoresheet()["last_hand"] if record else None
    if last is not None:
        lines += [rule, "HAND RECORD", f"Hand      {last['hand']}",
                  f"Dealer    {Seat[last['dealer']].full_name}",
                  f"Contract  {last['contract'] or 'passed out'}",
                  f"Declarer  {Seat[last['declarer']].full_name if last['declarer'] else '—'}",
                  f"Tricks    NS {last['tricks']['NS']}  EW {last['tricks']['EW']}",
                  rule, f"{'HONORS':<20}{'NS':<10}EW"]
        for b in BRIGHTS:
            boxes = []
            for side in ("NS", "EW"):
                n = last["honors"][side][b.name]
                boxes.append(" ".join(("■" if n >= k else "□") + str(k) for k in (1, 2)))
            lines.append(f"{b.name.upper():<20}{boxes[0]:<10}{boxes[1]}")
        lines.append(f"{'HONOR POINTS':<20}{last['honor_points']['NS']:<10}"
                     f"{last['honor_points']['EW']}")
        # (as the browser's caption says it: under the Brights alone, "every honor captured"
        # read to a new player as if Animals and Ribbons scored nothing)
        lines += ["(the boxes are the Brights captured; honor points",
                  " count every honor: Brights, Animals, Ribbons)"]
        lines.append("-" * len(rule))
        bonuses = [(key, f"{label} (+{pts})") for key, label, pts in (
            ("five_bright", "FIVE BRIGHT BONUS", session.options.five_bright_bonus),
            ("ten_bright", "TEN BRIGHT BONUS", session.options.ten_bright_bonus))]
        # the labels padded alike, so that the two rows' marks stand in line
        label_width = max(len(label) for _, label in bonuses)
        for key, label in bonuses:
            marks = "  ".join(f"{side} {'■' if last[key][side] else '□'}" for side in ("NS", "EW"))
            lines.append(f"{label:<{label_width}}  {marks}")
        lines.append("Ten Bright Bonus replaces Five Bright Bonus.")
    lines.append(rule)
    # what is still too long goes on, indented, on the next line
    return fit_lines("\n".join(lines), width)


def _scoresheet_columns(entries: Iterable[tuple[Side, str]], width: int) -> list[str]:
    entries = list(entries)
    ns = [t for s, t in entries if s is Side.NS]
    ew = [t for s, t in entries if s is Side.EW]
    rows = []
    for i in range(max(len(ns), len(ew))):
        left = ns[i] if i < len(ns) else ""
        right = ew[i] if i < len(ew) else ""
        rows.append(f"{left:<{width}}   {right}".rstrip())
    return rows
