"""How the terminal shows hands and tricks (``flowerbridge deal``, ``show``, ``play``): every
card whole, lines no longer than the terminal, a void shown, the trick in progress numbered."""

from __future__ import annotations

import random
import re

import pytest

from flowerbridge import CARDS, Deal, HandState, Seat, Suit
from flowerbridge.render import fit_lines, holding_lines, render_deal, render_hand, render_tricks


def _named(card) -> str:
    return f"{card.code} ({card.label('en')})"


@pytest.mark.parametrize("width", [30, 45, 60, 80, 120])
def test_render_deal_at_a_width_keeps_every_card_and_its_name_on_one_line(width):
    state = HandState(Deal.from_seed(7), Seat.N)
    lines = render_deal(state, names=True, width=width).splitlines()
    assert all(len(line) <= width for line in lines)
    for seat in Seat:
        for card in state.deal.hands[seat]:
            assert any(_named(card) in line for line in lines), (width, card)


def test_format_holding_breaks_only_a_suit_longer_than_the_width():
    cards = Deal.from_seed(7).hands[Seat.N]
    whole = holding_lines(cards, names=True)
    for suit_line in whole:
        at_width = holding_lines(cards, names=True, width=len(suit_line))
        assert suit_line in at_width                       # exactly the width: one line
        shorter = holding_lines(cards, names=True, width=len(suit_line) - 1)
        if suit_line.count("(") > 1:
            assert suit_line not in shorter                # one character less: goes on below


def test_format_holding_shows_a_void_suit_as_a_dash():
    no_animals = [c for c in CARDS if c.suit is not Suit.ANIMALS][:13]
    assert holding_lines(no_animals)[0] == "A  —"


def test_render_tricks_numbers_the_trick_in_progress_after_the_last_one_played():
    state = HandState(Deal.from_seed(7), Seat.N)
    for call in ("1NT", "Pass", "Pass", "Pass"):
        state.call(call)
    rng = random.Random(1)
    for _ in range(5 * 4 + 1):
        state.play(rng.choice(state.legal_cards()))
    lines = fit_lines(render_tricks(state), None).splitlines()
    assert [int(re.match(r" *(\d+)\.", line).group(1)) for line in lines] == [1, 2, 3, 4, 5, 6]
    assert lines[-1].endswith("(in progress)") and "won by" in lines[-2]


def test_render_hand_at_a_narrow_width_breaks_a_trick_line_between_its_cards_and_who_won_it():
    # at 40 columns "won by" ended one line and "E" began the next
    state = HandState(Deal.from_seed(7), Seat.N)
    for call in ("1NT", "Pass", "Pass", "Pass"):
        state.call(call)
    rng = random.Random(1)
    for _ in range(13 * 4):
        state.play(rng.choice(state.legal_cards()))
    for width in (30, 40, 50):
        shown = render_hand(state, width=width)
        lines = [line.strip() for line in shown.splitlines()]
        tricks = [line for line in lines if "won by" in line]
        assert len(tricks) == 13, width
        assert all(re.search(r"won by [NESW]$", line) for line in tricks), width
        # every card stays beside its seat
        assert not any(re.search(r"(^|  )[NESW]$", line) for line in lines), width
        assert "\u00a0" not in shown
