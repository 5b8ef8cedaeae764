"""The deal and the auction: Chapters 6–7, RULINGS R5–R9."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from flowerbridge import (BID, BIDS, DECK, PASS, Call, CallSyntaxError, CardCodeError, Deal, DealError, Denomination,
                          HandState, IllegalCallError, Phase, PhaseError, RuleOptions, Seat, Side,
                          parse_call)
from flowerbridge.session import Session

# `flowerbridge deal --seed 1`, as printed on 2026-11-30: pins the seeded shuffle
# across machines and versions (the hands of a seed must never change).
SEED_1 = {
    "N": "12B 6A 11R 11R 9R 6R 6R 5R 11P 10P 3P 1Pb 1Pa",
    "E": "3B 1B 7A 5A 2A 5R 3R 10P 9P 4P 4P 2P 1Pb",
    "S": "8B 8B 3B 8A 6A 2A 10R 9R 4R 1R 9P 5P 5P",
    "W": "12B 11B 11B 1B 7A 5A 7R 4R 2R 1R 11P 6P 1Pa",
}
SEED_1_UNDEALT = "8A 10R 7R 3R 2R 6P 3P 2P"


def auction(calls: str, dealer: Seat = Seat.N, options: RuleOptions | None = None) -> HandState:
    state = HandState(Deal.from_seed(1), dealer, options)
    for call in calls.split():
        state.call(call)
    return state


# ------------------------------------------------------------ Chapter 6, R6

def test_ch6_seeded_deal_is_pinned_for_seed_1():
    deal = Deal.from_seed(1)
    assert {s.name: " ".join(c.code for c in deal.hands[s]) for s in Seat} == SEED_1
    assert " ".join(c.code for c in deal.undealt) == SEED_1_UNDEALT


def test_ch6_seeded_deal_is_reproducible_and_boards_differ():
    assert Deal.from_seed("club", 3) == Deal.from_seed("club", 3)
    assert Deal.from_seed("club", 3) != Deal.from_seed("club", 4)
    assert Deal.from_seed(1) != Deal.from_seed(2)
    # boards count from 0 in the API (the lab's), from 1 on the command line: a board
    # below 0 is refused (it was dealt)
    with pytest.raises(DealError, match=r"^board must be 0 or more, not -5$"):
        Deal.from_seed("club", -5)


@pytest.mark.parametrize("seed", [0, 1, "x", 2**70])
def test_ch6_thirteen_cards_each_and_eight_undealt_from_the_60(seed):
    deal = Deal.from_seed(seed)
    assert [len(h) for h in deal.hands] == [13, 13, 13, 13]
    assert len(deal.undealt) == 8
    assert Counter(c for h in deal.hands for c in h) + Counter(deal.undealt) == Counter(DECK)


def test_ch6_both_copies_of_a_card_may_be_undealt():
    # Seed 1 with both December Brights (N's and W's) swapped for undealt Plains.
    hands = {s.name: SEED_1[s.name].split() for s in Seat}
    hands["N"][hands["N"].index("12B")] = "3P"
    hands["W"][hands["W"].index("12B")] = "2P"
    deal = Deal.from_hands(hands)
    assert Counter(c.code for c in deal.undealt)["12B"] == 2


def test_ch6_a_card_dealt_three_times_is_rejected():
    hands = {s.name: SEED_1[s.name].split() for s in Seat}
    hands["E"][0] = "11B"  # W already holds both 11B
    with pytest.raises(DealError, match="11B is dealt 3 times"):
        Deal.from_hands(hands)


def test_ch6_wrong_card_count_is_rejected():
    hands = {s.name: SEED_1[s.name].split() for s in Seat}
    hands["S"].pop()
    with pytest.raises(DealError, match="hand S has 12 cards"):
        Deal.from_hands(hands)


def test_ch6_a_deal_keeps_its_own_cards_whatever_it_was_given():
    # Deal(lists) kept the caller's lists: swapping two cards in them afterwards
    # changed a hand under way (its copy and its record then refused its plays)
    dealt = Deal.from_seed(1)
    hands = [list(reversed(hand)) for hand in dealt.hands]
    deal = Deal(hands, [c.code for c in dealt.undealt])
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    assert deal == dealt and deal.hands == dealt.hands       # (highest first, as from_seed deals)
    assert all(type(hand) is tuple for hand in deal.hands) and type(deal.undealt) is tuple
    assert Deal([SEED_1[s.name] for s in Seat], SEED_1_UNDEALT) == dealt


@pytest.mark.parametrize("hands, undealt, error, says", [
    (5, SEED_1_UNDEALT, DealError, "hands: a list of cards, not a number"),
    ([SEED_1[s.name].split() for s in Seat][:3], SEED_1_UNDEALT, DealError, "a deal has 4 hands, not 3"),
    ([[1] * 13] + [SEED_1[s] for s in "ESW"], SEED_1_UNDEALT, CardCodeError, "hands.N: a card is a code"),
    ([SEED_1[s.name] for s in Seat], ["8A", "10X"], CardCodeError, "undealt: "),
    # an object is no list of cards, though its keys might be card codes
    ([SEED_1[s.name] for s in Seat], dict.fromkeys(SEED_1_UNDEALT.split()), DealError,
     "undealt: a list of cards, not an object"),
    ([dict.fromkeys(SEED_1[s.name].split()) for s in Seat], SEED_1_UNDEALT, DealError,
     "hands.N: a list of cards, not an object"),
])
def test_ch6_a_deal_made_of_other_than_cards_is_refused_naming_where(hands, undealt, error, says):
    with pytest.raises(error, match=re.escape(says)):
        Deal(hands, undealt)


def test_ruling_r6_given_undealt_must_be_the_other_eight():
    with pytest.raises(DealError, match="undealt must be exactly"):
        Deal.from_hands(SEED_1, "8A 10R 7R 3R 2R 6P 3P 3P")
    assert Deal.from_hands(SEED_1, SEED_1_UNDEALT) == Deal.from_seed(1)


# ------------------------------------------------------------ Chapter 7, R7

@pytest.mark.parametrize("bid, tricks", [("1P", 7), ("2R", 8), ("3A", 9), ("4A", 10),
                                         ("5P", 11), ("6NT", 12), ("7NT", 13)])
def test_ch7_bid_table_required_tricks(bid, tricks):
    assert parse_call(bid).tricks_required == tricks


@pytest.mark.parametrize("higher, lower", [("1R", "1P"), ("1A", "1R"), ("1NT", "1A"),
                                           ("2A", "2R"), ("3NT", "3A"), ("2P", "1NT"), ("7P", "6NT")])
def test_ch7_bid_ranking(higher, lower):
    assert parse_call(higher) > parse_call(lower)


def test_ch7_bid_order_a_bid_ties_itself_and_every_comparison_agrees():
    # A new bid must top the previous one: the same bid is not higher (Ch. 7).
    two_a = parse_call("2A")
    assert not two_a > parse_call("2A") and not two_a < parse_call("2A")
    assert two_a >= parse_call("2A") and two_a <= parse_call("2A")
    for lower, higher in (("1P", "1R"), ("2NT", "3P"), ("2R", "2A")):
        low, high = parse_call(lower), parse_call(higher)
        assert low < high and low <= high and high > low and high >= low
        assert not (high < low or high <= low or low > high or low >= high)
    # with anything but a call, Python's own TypeError, as for cards (it was an AttributeError)
    import operator
    for other in (1, "2A", None):
        for compare in (operator.lt, operator.gt, operator.le, operator.ge):
            with pytest.raises(TypeError, match="not supported between instances of 'Call'"):
                compare(two_a, other)


def test_ch7_a_bid_names_a_denomination_and_a_pass_none():
    assert [b.strain for b in BIDS[:4]] == list(Denomination)
    assert PASS.is_pass and PASS.denomination is None
    with pytest.raises(ValueError, match="a pass has no denomination"):
        _ = PASS.strain


def test_ch4_denomination_order():
    assert Denomination.P < Denomination.R < Denomination.A < Denomination.NT
    assert [b.text for b in BIDS[:5]] == ["1P", "1R", "1A", "1NT", "2P"]
    assert len(BIDS) == 28 and BID[7][Denomination.NT] is BIDS[-1]


@pytest.mark.parametrize("text, canonical", [("pass", "Pass"), ("PASS", "Pass"), ("3nt", "3NT"),
                                             ("1p", "1P"), ("7a", "7A")])
def test_formats_calls_case_insensitive(text, canonical):
    assert parse_call(text).text == canonical


@pytest.mark.parametrize("text", ["8P", "0NT", "X", "Double", "1S", "", "3N", "3 NT", " 1P", "Pass ",
                                  "1A\n", "pass\n"])
def test_ruling_r7_no_double_and_no_other_call(text):
    with pytest.raises(CallSyntaxError):
        parse_call(text)


def test_ch7_a_call_made_by_hand_is_the_one_read_from_text():
    # Call(8, NT) was accepted: bid in an auction, it made a contract of 14 tricks
    # whose text raised KeyError; and Call(1, P) was not the 1P legal_calls() lists
    assert Call(1, Denomination.P) is parse_call("1P")
    assert Call(7, Denomination.NT) is BID[7][Denomination.NT]
    assert Call(0, None) is PASS
    assert Call(1, Denomination.P) in HandState(Deal.from_seed(1), Seat.N).legal_calls()


@pytest.mark.parametrize("level, denomination, says", [
    (8, Denomination.NT, "level is 1 to 7, not 8"), (0, Denomination.P, "level is 1 to 7, not 0"),
    (True, Denomination.P, "not True"), ("3", Denomination.A, "not '3'"),
    (2, 1, "denomination is a Denomination"), (2, "NT", "denomination is a Denomination"),
    (3, None, "a pass is Call(0, None)")])
def test_ruling_r7_a_call_made_by_hand_outside_the_bids_is_refused(level, denomination, says):
    state = HandState(Deal.from_seed(1), Seat.N)
    with pytest.raises(CallSyntaxError, match=re.escape(says)):
        state.call(Call(level, denomination))
    assert state.calls == ()


def test_ch7_dealer_calls_first_then_clockwise():
    state = auction("", dealer=Seat.E)
    assert state.turn is Seat.E
    seats = [state.call(c).seat for c in ["Pass", "1P", "Pass", "2R"]]
    assert seats == [Seat.E, Seat.S, Seat.W, Seat.N]


def test_ch7_calls_are_numbered_from_one_in_the_order_made():
    state = auction("1A Pass")
    assert [(c.number, c.seat, c.call.text) for c in state.calls] == [(1, Seat.N, "1A"), (2, Seat.E, "Pass")]


def test_ruling_r7_insufficient_bid_is_illegal():
    state = auction("1A")
    assert not state.can_call("1R")
    assert not state.can_call("1A")  # the same bid does not outrank itself
    with pytest.raises(IllegalCallError, match=r"call 2 \(E\): insufficient bid 1R: it must outrank 1A"):
        state.verify_call("1R")
    assert state.can_call("1NT") and state.can_call("2P")


def test_ruling_r7_legal_calls_are_pass_and_every_higher_bid():
    state = auction("2R")
    assert state.legal_calls() == [PASS, *BIDS[BID[2][Denomination.R].order + 1:]]


def test_ruling_r7_a_player_who_passed_may_bid_later():
    state = auction("Pass 1P Pass Pass")
    assert state.turn is Seat.N and state.phase is Phase.AUCTION
    state.call("2P")
    assert state.calls[-1].seat is Seat.N


def test_ruling_r7_call_out_of_turn_is_illegal():
    state = auction("1P")
    with pytest.raises(IllegalCallError, match="out of turn"):
        state.call("Pass", Seat.W)
    assert state.can_call("Pass", Seat.E)


# ---------------------------------------------------------------- R8, R9

def test_ch7_three_passes_after_a_bid_end_the_auction():
    state = auction("1P Pass Pass")
    assert state.phase is Phase.AUCTION
    state.call("Pass")
    assert state.phase is Phase.PLAY and state.contract.code == "1P"
    assert state.legal_calls() == []


def test_ruling_r8_a_call_after_the_auction_ended_names_position_and_seat():
    state = auction("1P Pass Pass Pass")
    with pytest.raises(PhaseError, match=r"call 5 \(N\): Pass comes after the auction has ended"):
        state.call("Pass")
    # a call sent by a seat (at a table) names that seat
    with pytest.raises(PhaseError, match=r"call 5 \(W\): Pass comes after the auction has ended"):
        state.call("Pass", Seat.W)


def test_ch7_a_malformed_call_names_the_seat_that_sent_it():
    state = auction("1P")
    with pytest.raises(CallSyntaxError, match=r"^call 2 \(E\): unknown call"):
        state.call("1Z")
    with pytest.raises(CallSyntaxError, match=r"^call 2 \(W\): unknown call"):
        state.call("1Z", Seat.W)


def test_ruling_r8_four_passes_pass_the_hand_out():
    state = auction("Pass Pass Pass Pass")
    assert state.phase is Phase.PASSED_OUT
    assert state.contract is None and state.is_over
    assert state.legal_actions() == [] and state.turn is None
    score = state.score()
    assert score.contract is None and score.items == ()
    assert score.to_dict()["contract"] is None and score.to_dict()["below"] == {"NS": 0, "EW": 0}


def test_ruling_r8_no_card_is_played_in_a_passed_out_hand():
    state = auction("Pass Pass Pass Pass")
    with pytest.raises(PhaseError, match=r"12B played in a passed-out hand") as refused:
        state.play("12B")
    assert refused.value.rule == "R8"
    assert state.plays == () and state.phase is Phase.PASSED_OUT


@pytest.mark.parametrize("action, says", [
    ("Pass", "call 5 (N): Pass comes after the auction has ended"),
    ("1P", "call 5 (N): 1P comes after the auction has ended"),
    ("1Pa", "play 1 (N): 1Pa played in a passed-out hand"),
    ("1Px", "play 1 (N): '1Px' played in a passed-out hand")])
def test_ruling_r8_an_action_after_a_passed_out_auction_is_refused_as_what_it_is(action, says):
    # apply() took every action after the auction for a card: "Pass" was refused
    # as an unknown card code
    state = auction("Pass Pass Pass Pass")
    with pytest.raises(PhaseError, match=re.escape(says)) as refused:
        state.apply(action)
    assert refused.value.rule == "R8"
    assert len(state.calls) == 4 and state.plays == () and state.phase is Phase.PASSED_OUT


def test_ch7_highest_bidder_who_named_the_strain_first_declares():
    state = auction("1A Pass 3A Pass 4A Pass Pass Pass", dealer=Seat.S)
    assert state.contract.declarer is Seat.S and state.contract.side is Side.NS


def test_ruling_r9_default_final_bidder_declares():
    # North names Ribbons first, South makes the final bid in Ribbons.
    state = auction("1R Pass 2R Pass Pass Pass")
    assert state.contract.declarer is Seat.S


def test_ruling_r9_first_named_option_gives_contract_bridges_rule():
    state = auction("1R Pass 2R Pass Pass Pass", options=RuleOptions(declarer="first-named"))
    assert state.contract.declarer is Seat.N
    assert state.contract.opening_leader is Seat.E


def test_ruling_r9_first_named_counts_only_the_declaring_sides_bids():
    # East names Plains first (1P), but the contract is North-South's: of the
    # declaring side South named Plains first (2P), North made the final bid (3P).
    state = auction("Pass 1P 2P Pass 3P Pass Pass Pass", options=RuleOptions(declarer="first-named"))
    assert state.contract.code == "3P" and state.contract.declarer is Seat.S
    assert state.contract.opening_leader is Seat.W
    assert auction("Pass 1P 2P Pass 3P Pass Pass Pass").contract.declarer is Seat.N


def test_ruling_r9_first_named_is_the_first_of_the_side_to_name_the_final_denomination():
    # North bid first for North-South, but Plains; South named Ribbons first, and North
    # made the final bid in them (a first-named that took the side's first bidder passed)
    state = auction("1P Pass 1R Pass 2R Pass Pass Pass", options=RuleOptions(declarer="first-named"))
    assert state.contract.code == "2R" and state.contract.declarer is Seat.S
    assert auction("1P Pass 1R Pass 2R Pass Pass Pass").contract.declarer is Seat.N


# --------------------------------------------------------------------- R5

def test_ruling_r5_seats_and_partners():
    assert [s.lho for s in Seat] == [Seat.E, Seat.S, Seat.W, Seat.N]
    assert Seat.N.partner is Seat.S and Seat.E.partner is Seat.W
    assert Seat.N.side is Seat.S.side is Side.NS and Seat.E.side is Seat.W.side is Side.EW


def test_ruling_r5_dealer_rotates_after_every_hand_passed_out_included():
    session = Session(first_dealer=Seat.W)
    dealers = []
    for board in range(1, 6):
        state = session.new_hand(Deal.from_seed(1, board))
        dealers.append(state.dealer)
        for _ in range(4):
            state.call("Pass")
        session.add(state)
    assert dealers == [Seat.W, Seat.N, Seat.E, Seat.S, Seat.W]
    assert session.next_dealer is Seat.N


def test_ruling_r5_session_refuses_a_hand_with_the_wrong_dealer():
    from flowerbridge import RecordError
    session = Session()
    state = auction("Pass Pass Pass Pass", dealer=Seat.E)
    with pytest.raises(RecordError, match="dealer must be N"):
        session.add(state)


@pytest.mark.parametrize("text", ["X", "XX", "x", "double", "Dbl", "Redouble", "rdbl", "x x"])
def test_ruling_r7_a_double_or_redouble_is_told_there_is_none(text):
    # a Bridge player's X read "unknown call 'X': expected Pass or a bid ..." as if mistyped
    with pytest.raises(CallSyntaxError, match=f"^unknown call {re.escape(repr(text))}: Flower Bridge has no Double "
                                              r"or Redouble \(the rulebook has none\): the calls are Pass and the bids, "
                                              r"such as 1P, 3A, 7NT$"):
        parse_call(text)


@pytest.mark.parametrize("text, hint", [
    ("3n", "write 3NT"), ("3 NT", "write it without spaces, 3NT"), ("p", "write Pass"),
    ("11B", "11B is a card: the auction takes Pass or a bid such as 1P, 3A, 7NT"),
    ("8P", r"a bid is a level, 1 to 7, then P, R, A or NT \(1P, 3A, 7NT\)"),
    ("1S", r"the denominations are P \(Plains\), R \(Ribbons\), A \(Bright Animals\) and NT"),
    ("1Z", r"expected Pass or a bid such as 1P, 3A, 7NT"),
    # characters outside ASCII (said only "expected Pass or a bid"): full-width ones, which
    # have an ASCII form, and a Cyrillic Р that only looks like one, named as typed
    ("１ＮＴ", "write it in ASCII letters and digits, 1NT"), ("Ｐａｓｓ", "write it in ASCII letters and digits, Pass"),
    ("1Р", r"'Р' \(CYRILLIC CAPITAL LETTER ER\) is not one of the ASCII letters and digits a call is written in"),
])
def test_ch7_an_unknown_call_near_a_call_says_what_it_is_near(text, hint):
    with pytest.raises(CallSyntaxError, match=f"^unknown call {re.escape(repr(text))}: {hint}$"):
        parse_call(text)


@pytest.mark.parametrize("text", ["1" * 4301 + "P", "1" * 4301, "q" * 100_000])
def test_ch7_an_unknown_call_of_any_length_is_one_short_error(text):
    # 4,301 digits raised ValueError from int() (a traceback in play, score and show), and
    # a line pasted by mistake was echoed back whole in the error
    with pytest.raises(CallSyntaxError) as error:
        parse_call(text)
    said = str(error.value)
    assert said.startswith(f"unknown call {text[:30]!r}... ({len(text):,} characters): "), said[:200]
    assert len(said) < 200
