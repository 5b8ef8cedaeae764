"""Plain-text views of a hand for people: hands by suit, auction, tricks, score."""

from __future__ import annotations

import textwrap
from typing import Iterable

from .cards import Card, Suit, hand_points
from .seats import SEATS, Seat, Side
from .state import HandState


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
