"""Scoring, games and sessions: Chapters 11–16, RULINGS R13–R19."""

from __future__ import annotations

import re

from collections import Counter

import pytest

from flowerbridge import (DECK, Contract, Deal, Denomination, FlowerBridgeError, HandState, OptionError, Phase, PhaseError,
                          RecordError, RuleOptions, Seat, Side, parse_cards)
from flowerbridge.records import replay
from flowerbridge.scoring import bright_bonus, contract_points, honor_points, score_contract
from flowerbridge.session import Session

NS, EW = Side.NS, Side.EW
P, R, A, NT = Denomination.P, Denomination.R, Denomination.A, Denomination.NT


def made_exactly(level: int, denomination: Denomination, *, over: int = 0,
                 options: RuleOptions | None = None):
    """Score of ``level denomination`` by South taking level + 6 + ``over`` tricks, no honors."""
    taken = level + 6 + over
    return score_contract(Contract(level, denomination, Seat.S), (taken, 13 - taken), ([], []),
                          options)


# ------------------------------------------------------------- Chapter 11, R13

CONTRACT_TABLE = [
    # Plain: 20 a level.
    (1, P, 20), (2, P, 40), (3, P, 60), (4, P, 80), (5, P, 100), (6, P, 120), (7, P, 140),
    # Ribbon: 30 a level.
    (1, R, 30), (2, R, 60), (3, R, 90), (4, R, 120), (5, R, 150), (6, R, 180), (7, R, 210),
    # Bright Animal: 30 a level.
    (1, A, 30), (2, A, 60), (3, A, 90), (4, A, 120), (5, A, 150), (6, A, 180), (7, A, 210),
    # No Trump: 40 for the first level, 30 for each further.
    (1, NT, 40), (2, NT, 70), (3, NT, 100), (4, NT, 130), (5, NT, 160), (6, NT, 190), (7, NT, 220),
]


@pytest.mark.parametrize("level, denomination, points", CONTRACT_TABLE)
def test_ch11_ruling_r13_contract_table(level, denomination, points):
    assert contract_points(level, denomination) == points
    score = made_exactly(level, denomination)
    assert score.below(NS) == points and score.above(NS) == 0
    assert score.below(EW) == score.above(EW) == 0
    assert score.made and score.result == 0


@pytest.mark.parametrize("over", [1, 3, 6])     # (6: a 1-level contract taking all 13 tricks)
@pytest.mark.parametrize("denomination, each", [(P, 20), (R, 30), (A, 30), (NT, 30)])
def test_ch11_ruling_r14_overtricks_above_the_line(denomination, each, over):
    score = made_exactly(1, denomination, over=over)
    assert score.above(NS) == over * each
    assert score.below(NS) == contract_points(1, denomination)  # overtricks never below
    assert score.result == over


def test_ch12_a_hands_total_is_above_plus_below_the_line():
    # 3NT by South, 10 tricks: 100 below the line (Ch. 11), one overtrick 30 above (R14).
    score = made_exactly(3, NT, over=1)
    assert score.below(NS) == 100 and score.above(NS) == 30
    assert score.total(NS) == 130 and score.total(EW) == 0


def test_ch12_breakdown_puts_the_contract_below_the_line_and_overtricks_above():
    score = made_exactly(3, NT, over=1)
    assert [(i["side"], i["line"], i["points"], i["label"], i["rule"]) for i in score.to_dict()["breakdown"]] == [
        ("NS", "below", 100, "3 No Trump made", "R13"), ("NS", "above", 30, "1 overtrick × 30", "R14")]


def test_ch11_contract_fails_with_one_trick_short():
    score = score_contract(Contract(4, A, Seat.S), (9, 4), ([], []))
    assert score.made is False and score.result == -1 and score.below(NS) == 0


def test_ruling_r8_a_passed_out_hand_scores_no_tricks_and_no_points():
    # Nothing is played or scored (R8), whatever tricks or cards are passed in.
    score = score_contract(None, (7, 6), (parse_cards("12B 12B"), parse_cards("1R")))
    assert score.tricks == (0, 0) and score.items == ()
    assert score.made is None and score.result is None
    assert score.total(NS) == score.total(EW) == 0


# ------------------------------------------------------------------------ R15

def test_ruling_r15_default_50_per_undertrick_to_the_defenders():
    score = score_contract(Contract(4, A, Seat.S), (7, 6), ([], []))
    assert score.above(EW) == 150 and score.below(EW) == 0
    assert score.above(NS) == score.below(NS) == 0


def test_ruling_r15_strict_rulebook_no_penalty():
    score = score_contract(Contract(4, A, Seat.S), (7, 6), ([], []), RuleOptions.strict())
    assert score.above(EW) == 0 and score.items == ()
    assert RuleOptions.strict().undertrick_penalty == 0


# ------------------------------------------------------------ Chapter 13, R16

@pytest.mark.parametrize("codes, points", [
    ("11B", 4), ("11B 11B", 6),      # Bright: first copy 4, second 2
    ("7A", 2), ("7A 7A", 3),         # Animal: 2 and 1
    ("7R", 1), ("7R 7R", 2),         # Ribbon: 1 and 1
    ("11P 11P", 0),                  # Plains earn nothing
])
def test_ch13_honor_bonus_examples(codes, points):
    assert honor_points(parse_cards(codes)) == points


def test_ruling_r16_one_copy_each_side_each_scores_the_first_copy():
    score = score_contract(Contract(1, NT, Seat.N), (7, 6),
                           (parse_cards("11B 7A 7R"), parse_cards("11B 7A 7R")))
    assert score.honors(NS) == score.honors(EW) == 4 + 2 + 1


def test_ruling_r16_honors_go_to_both_sides_made_or_not():
    score = score_contract(Contract(7, NT, Seat.N), (3, 10),
                           (parse_cards("12B 12B"), parse_cards("1R")))
    assert score.made is False
    assert score.honors(NS) == 6 and score.honors(EW) == 1
    assert score.above(EW) == 1 + 10 * 50  # down ten


def test_ruling_r16_honors_worth_at_most_65():
    assert honor_points(DECK) == 65


def test_ch3_scoring_refuses_a_card_captured_more_often_than_the_deck_holds_it():
    # three copies of a Bright scored as two; a side each holding both copies scored both
    with pytest.raises(FlowerBridgeError, match=r"^captured cards: 12B 3 times, where the deck holds it twice"):
        honor_points([*DECK, *parse_cards("12B")])
    with pytest.raises(FlowerBridgeError, match=r"^captured cards of both sides: 12B 4 times"):
        score_contract(Contract(2, A, Seat.N), (8, 5), (parse_cards("12B 12B"), parse_cards("12B 12B")))


@pytest.mark.parametrize("call, message", [
    (lambda: honor_points(None), "captured cards must be cards or card codes, not None"),
    (lambda: bright_bonus(5), "captured cards must be cards or card codes, not 5"),
    (lambda: honor_points(["12B", 5]), "captured cards: 5 is not a card or a card code"),
    (lambda: score_contract(Contract(2, A, Seat.N), (8, 5), None),
     r"captured must be two lists of cards \(NS's, EW's\), not None"),
    (lambda: score_contract("2A", (8, 5), ([], [])), "contract must be a Contract"),
    (lambda: score_contract(Contract(2, A, Seat.N), (8, 5), ([], [None])),
     "EW's captured cards: None is not a card or a card code"),
])
def test_ch11_scoring_functions_refuse_what_is_not_a_contract_or_cards_by_name(call, message):
    # Python's TypeError and AttributeError came out of them
    with pytest.raises(FlowerBridgeError, match="^" + message):
        call()


def test_ch13_captured_cards_may_be_any_two_iterables_of_cards():
    import numpy as np
    ns, ew = parse_cards("12B 12B"), parse_cards("3B 8B")
    scores = [score_contract(Contract(2, A, Seat.N), (8, 5), captured)
              for captured in ((ns, ew), [iter(ns), iter(ew)], np.array([ns, ew], dtype=object))]
    assert {(s.honors(NS), s.honors(EW)) for s in scores} == {(6, 8)}


def test_ch12_honors_are_above_the_line():
    score = score_contract(Contract(2, A, Seat.N), (8, 5), (parse_cards("12B 12B 11B"), []))
    assert score.below(NS) == 60 and score.above(NS) == 10


# ----------------------------------------------------------- Chapters 14–15, R17

@pytest.mark.parametrize("codes, bonus", [
    ("1B 3B 8B 11B 12B", 25),                # ✅ January, March, August, November, December
    ("1B 3B 8B 11B 12B 12B 7A", 25),          # ✅ one copy of each Bright (and more)
    ("1B 1B 3B 8B 11B", 0),                   # ❌ January, January, March, August, November
    ("1B 3B 8B 11B", 0),                      # ❌ four different Brights only
    ("1B 1B 3B 3B 8B 8B 11B 11B 12B 12B", 75),  # ✅ Ten Bright, ❌ no Five Bright with it
])
def test_ch14_ch15_bright_bonus_examples(codes, bonus):
    assert bright_bonus(parse_cards(codes)) == bonus


@pytest.mark.parametrize("missing", ["1B", "3B", "8B", "11B", "12B"])
def test_ch14_no_five_bright_bonus_without_each_of_the_five_brights(missing):
    # every Bright twice but the one missing (nine cards): each of the five is needed
    held = [code for code in ("1B", "3B", "8B", "11B", "12B") for _ in range(2) if code != missing]
    assert bright_bonus(parse_cards(" ".join(held))) == 0
    assert bright_bonus(parse_cards(" ".join([*held, missing]))) == 25


def test_ch15_ten_bright_replaces_five_bright_in_the_score():
    tens = parse_cards("1B 1B 3B 3B 8B 8B 11B 11B 12B 12B")
    score = score_contract(Contract(1, NT, Seat.N), (7, 6), (tens, []))
    assert score.bright_bonus(NS) == 75
    assert [i.label for i in score.items if i.rule == "R17"] == ["Ten Bright Bonus"]
    assert score.honors(NS) == 30


def test_ruling_r17_both_sides_can_earn_the_five_bright_bonus():
    fives = parse_cards("1B 3B 8B 11B 12B")
    score = score_contract(Contract(1, NT, Seat.N), (7, 6), (fives, fives))
    assert score.bright_bonus(NS) == score.bright_bonus(EW) == 25
    assert score.honors(NS) == score.honors(EW) == 20


# --------------------------------------------------- whole hands, played out

def play_greedy(state: HandState) -> HandState:
    """Everyone plays their highest legal card, trumps above the rest."""
    trump = state.contract.trump
    while not state.is_over:
        state.play(max(state.legal_cards(), key=lambda c: (c.suit is trump, c.rank)))
    return state


def ns_declares(deal: Deal, dealer: Seat, bid: str, options: RuleOptions | None = None) -> HandState:
    """North or South bids ``bid`` at its first turn and everyone else passes."""
    state = HandState(deal, dealer, options)
    if dealer.side is EW:
        state.call("Pass")
    for call in [bid, "Pass", "Pass", "Pass"]:
        state.call(call)
    return state


# North-South hold every trump left in play (Brights 3 and 1, all Animals) and the
# top Plains; East-West hold the Ribbons and low Plains. The December, November and
# August Brights and the January Ribbons are undealt: 65 - 20 = 45 honor points in play.
TRUMP_DEAL = Deal.from_hands({
    "N": "3B 3B 1B 1B 8A 8A 7A 7A 6A 6A 5A 5A 2A",
    "S": "2A 11P 11P 10P 10P 9P 9P 6P 6P 5P 5P 4P 4P",
    "E": "11R 11R 10R 10R 9R 9R 7R 7R 6R 6R 5R 5R 4R",
    "W": "4R 3R 3R 2R 2R 3P 3P 2P 2P 1Pb 1Pb 1Pa 1Pa",
})
# North-South hold the four or five top cards of every suit, both copies: they win every trick at No Trump.
TOP_DEAL = Deal.from_hands({
    "N": "12B 12B 11B 11B 8B 8B 3B 3B 1B 11R 11R 10R 10R",
    "S": "9R 9R 7R 7R 6R 11P 11P 10P 10P 9P 9P 6P 6P",
    "E": "1B 8A 8A 7A 7A 6A 6A 5A 5R 5R 4R 4R 3R",
    "W": "5A 2A 2A 3R 2R 2R 1R 1R 5P 5P 4P 4P 3P",
})


def test_ch12_example_1_four_bright_animals_made_is_game():
    session = Session()
    score = session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "4A")))
    assert score.made and score.below(NS) == 120
    assert session.games[0].winner is NS and session.games_won == (1, 0)


def test_scores_are_read_by_side_and_the_sides_plain_numbers_read_alike():
    # Side is an IntEnum: 0 and 1 are NS and EW; any other side is an error, never a silent 0.
    session = Session()
    score = session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "2A")))
    for side in (NS, EW):
        assert (score.below(int(side)), score.above(int(side)), score.honors(int(side))) == \
               (score.below(side), score.above(side), score.honors(side))
        assert session.total(int(side)) == session.total(side)
        assert session.games[0].total(int(side)) == session.games[0].total(side)
    assert score.above(0) == score.above(NS) > 0
    with pytest.raises(ValueError):
        score.total(2)
    with pytest.raises(ValueError):
        session.total(-1)


def test_ch12_example_2_three_no_trump_made_is_game():
    session = Session()
    score = session.add(play_greedy(ns_declares(TOP_DEAL, session.next_dealer, "3NT")))
    assert score.made and score.below(NS) == 100
    assert session.games[0].winner is NS


def test_ch12_example_3_two_animals_with_45_honors_is_not_game():
    session = Session()
    score = session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "2A")))
    assert score.tricks == (13, 0)
    assert score.below(NS) == 60 and score.honors(NS) == 45
    assert score.above(NS) == 5 * 30 + 45
    assert session.games[0].winner is None and session.games_won == (0, 0)


def test_ruling_r16_r17_a_side_capturing_every_honor_scores_65_and_ten_brights():
    deal = Deal.from_hands({
        "N": "12B 12B 11B 11B 8B 8B 3B 3B 1B 1B 8A 8A 7A",
        "S": "7A 6A 6A 5A 5A 2A 2A 11P 11P 10P 10P 9P 9P",
        "E": "11R 11R 10R 10R 9R 9R 7R 7R 6R 6R 5R 5R 4R",
        "W": "4R 3R 3R 2R 2R 1R 1R 6P 6P 5P 5P 4P 4P",
    })
    score = play_greedy(ns_declares(deal, Seat.N, "7A")).score()
    assert score.tricks == (13, 0) and score.below(NS) == 210
    assert score.honors(NS) == 65 and score.bright_bonus(NS) == 75
    assert score.honors(EW) == 0


# ------------------------------------------------------------------ Chapter 16

def test_ch16_example_hand_holdings_match_the_text(ch16_record):
    for seat, (brights, animals, ribbons, plains) in (("S", (2, 3, 4, 4)), ("N", (1, 3, 4, 5))):
        kinds = Counter(c.kind.name for c in parse_cards(ch16_record["hands"][seat]))
        assert (kinds["BRIGHT"], kinds["ANIMAL"], kinds["RIBBON"], kinds["PLAIN"]) == \
            (brights, animals, ribbons, plains)


def test_ch16_example_hand_scored(ch16_record):
    state = replay(ch16_record)
    assert [c.call.text for c in state.calls] == ["1A", "Pass", "3A", "Pass", "4A", "Pass", "Pass", "Pass"]
    assert str(state.contract) == "4A by S" and state.contract.tricks_required == 10
    assert state.plays[0].seat is Seat.W and state.plays[0].card.suit.name == "RIBBONS"
    score = state.score()
    assert score.tricks == (11, 2) and score.result == 1
    assert score.below(NS) == 120
    overtricks = [i.points for i in score.items if i.rule == "R14"]
    assert overtricks == [30]
    # East-West took tricks 1 and 13: 11R 6R 6R 10R and 10P 11P 5P 1R.
    assert score.honors(EW) == 1 + (1 + 1) + 1 + 1
    # North-South captured both copies of 12B (6), one 11B (4), both copies of every
    # Animal (5 x 3), both of 9R 7R 5R 4R 3R 2R (6 x 2) and one of 11R 10R 1R (3).
    assert score.honors(NS) == 6 + 4 + 15 + 12 + 3 == 40
    assert score.above(NS) == 30 + 40 and score.above(EW) == 5
    assert score.bright_bonus(NS) == score.bright_bonus(EW) == 0
    session = Session(first_dealer=Seat.S)
    session.add(state)
    assert session.games[0].winner is NS


# ----------------------------------------------------------------- R18, R19

def test_ruling_r18_game_draws_a_new_line_above_never_reset():
    session = Session()
    for _ in range(3):  # 60, 60: game; then 60 in the new game
        session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "2A")))
    first, second = session.games[0], session.games[1]
    assert first.winner is NS and first.total(NS) == 120
    assert second.total(NS) == 60 and second.winner is None
    assert session.above_total(NS) == 3 * (150 + 45)
    assert session.below_total(NS) == 180
    sheet = session.scoresheet()
    assert sheet["totals"]["NS"] == {"above": 585, "below": 180, "total": 765, "games": 1}
    assert "game 1 to NORTH-SOUTH" in session.render()
    # the game's line as wide as the sheet's rules of "=" (it ran 2 characters past them)
    rules = [line for line in session.render().splitlines() if "game 1 to" in line or line.startswith("==")]
    [line] = [line for line in rules if "game 1 to" in line]
    assert len({len(line) for line in rules}) == 1 and line.startswith("-" * 20 + " game"), rules


def test_ruling_r18_r19_an_east_west_game_counts_one_game_to_east_west():
    # TOP_DEAL turned a seat clockwise: East and West hold North-South's top cards, and
    # East makes 3NT (100 below, Ch. 11): game to East-West, and a one-game session is over.
    turned = {"N": TOP_DEAL.hands[Seat.W], "E": TOP_DEAL.hands[Seat.N],
              "S": TOP_DEAL.hands[Seat.E], "W": TOP_DEAL.hands[Seat.S]}
    session = Session(max_games=1)
    state = HandState(Deal.from_hands(turned), session.next_dealer)
    for call in ("Pass", "3NT", "Pass", "Pass", "Pass"):     # North deals; East declares 3NT
        state.call(call)
    score = session.add(play_greedy(state))
    assert score.made and score.below(EW) == 100
    assert session.games[0].winner is EW and session.games_won == (0, 1)
    assert session.is_over and session.scoresheet()["totals"]["EW"]["games"] == 1


def test_ruling_r19_a_session_of_two_games_ends_when_each_side_has_won_one():
    # the session ends after max_games games in all, whichever side won them
    session = Session(max_games=2)
    state = HandState(TOP_DEAL, session.next_dealer)      # North deals and makes 3NT
    for call in ("3NT", "Pass", "Pass", "Pass"):
        state.call(call)
    session.add(play_greedy(state))
    assert session.games_won == (1, 0) and not session.is_over
    turned = {"N": TOP_DEAL.hands[Seat.W], "E": TOP_DEAL.hands[Seat.N],
              "S": TOP_DEAL.hands[Seat.E], "W": TOP_DEAL.hands[Seat.S]}
    state = HandState(Deal.from_hands(turned), session.next_dealer)   # East deals and makes 3NT
    for call in ("3NT", "Pass", "Pass", "Pass"):
        state.call(call)
    session.add(play_greedy(state))
    assert session.games_won == (1, 1) and session.is_over
    with pytest.raises(FlowerBridgeError, match=r"the session is over \(it was set to 2 games\)"):
        session.new_hand(TOP_DEAL)


def test_ruling_r18_game_threshold_is_an_option_a_variant_can_move():
    session = Session(RuleOptions(game_points=200))
    session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "4A")))
    assert session.games_won == (0, 0)


def test_ruling_r18_a_sessions_hand_records_are_copies_to_replay_at_will():
    # hand_records() gave the session's own hands: an undo on one made the record
    # disagree with the scoresheet, and the record could no longer be read back
    session = Session()
    session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "4A")))
    record = session.to_dict()
    [copy] = session.hand_records()
    copy.state.undo()
    assert copy.state.phase is Phase.PLAY
    assert session.hands[0].is_over and session.to_dict() == record
    assert Session.from_dict(session.to_dict()).scoresheet() == session.scoresheet()


def test_ruling_r19_session_ends_after_a_number_of_hands():
    session = Session(max_hands=2)
    for _ in range(2):
        state = session.new_hand(TRUMP_DEAL)
        for _ in range(4):
            state.call("Pass")
        session.add(state)
    assert session.is_over and session.leader is None
    with pytest.raises(RecordError, match="the session is over"):
        session.new_hand(TRUMP_DEAL)


def test_ruling_r19_session_ends_after_a_number_of_games_side_ahead_on_total():
    session = Session(max_games=1)
    session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "2A")))
    assert not session.is_over
    session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "5A")))
    assert session.is_over and session.games_won == (1, 0)
    assert session.leader is NS


def test_ruling_r19_the_side_ahead_is_ahead_on_total_points_not_games_or_below_the_line():
    # North-South win the game and lead below the line; East-West's penalties
    # above it put them ahead on total points, which is what R19 counts
    options = RuleOptions(undertrick_penalty=500)
    session = Session(options, max_games=1)
    session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "7NT", options)))
    session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "5A", options)))
    assert session.is_over and session.games_won == (1, 0)
    assert session.below_total(NS) > session.below_total(EW)
    assert session.total(EW) > session.total(NS) and session.leader is EW
    assert session.scoresheet()["leader"] == "EW"
    assert (f"\nThe session is over: EAST-WEST won, {session.total(EW)} points to {session.total(NS)}\n"
            in session.render())


def test_ruling_r19_a_finished_sessions_sheet_says_who_won_or_a_tie():
    # The text sheet said "EAST-WEST ahead" of a session that was over, where the web
    # client says who won; a session over at level totals is a tie.
    session = Session(max_hands=2)
    session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "2A")))
    assert not session.is_over and "— NORTH-SOUTH ahead" in session.render()
    session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "2A")))
    # on a line of its own (after the totals, it would run past 80 columns)
    won = f"\nThe session is over: NORTH-SOUTH won, {session.total(NS)} points to {session.total(EW)}\n"
    assert session.is_over and won in session.render()      # (with the points, as the turn line)
    assert won in session.render(width=40).replace("\n    ", " ")    # (carried on, indented)
    level = Session(max_hands=1)
    passed = HandState(TRUMP_DEAL, level.next_dealer)
    for _ in range(4):
        passed.call("Pass")
    level.add(passed)
    assert level.is_over and level.leader is None
    assert "\nThe session is over: a tie, 0 points each\n" in level.render(record=False)


def test_ruling_r15_r9_the_text_sheet_names_the_rule_options_it_was_scored_under():
    # Under the strict R15 a failed contract leaves no entry: the sheet did not say why.
    assert "Rule options" not in Session().render()
    strict = Session(RuleOptions(undertrick_penalty=0, declarer="first-named", game_points=60))
    lines = strict.render().splitlines()
    assert lines[3] == ("Rule options: no undertrick penalty (R15, the rulebook as written); the first of "
                        "the declaring side to name the final denomination declares (R9); game at 60 "
                        "below the line")
    assert lines[4].startswith("=") and lines[5] == "ABOVE THE LINE"


def test_ruling_r18_both_sides_start_the_next_game_at_zero_below_the_line():
    # East-West's part score of the first game does not carry into the second
    session = Session()
    east = HandState(TRUMP_DEAL, session.next_dealer)
    for call in ("Pass", "2R", "Pass", "Pass", "Pass"):     # North deals; East declares 2R
        east.call(call)
    session.add(play_greedy(east))
    session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "5A")))
    first, second = session.games
    assert first.winner is NS and [(s, p) for _, s, p in first.below] == [(EW, 60), (NS, 150)]
    assert second.below == [] and second.total(NS) == second.total(EW) == 0
    session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "2A")))
    assert [(s, p) for _, s, p in session.games[1].below] == [(NS, 60)]
    assert session.scoresheet()["games"][1]["below"] == [{"hand": 3, "side": "NS", "points": 60, "contract": "2A"}]


def test_ruling_r19_scoresheet_names_north_south_as_winner_and_leader():
    # Side.NS is 0: the scoresheet must not mistake it for "no side".
    session = Session()
    session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "4A")))
    sheet = session.scoresheet()
    assert sheet["games"][0]["winner"] == "NS"
    assert sheet["leader"] == "NS"
    assert "NORTH-SOUTH ahead" in session.render()


def test_ch11_unfinished_hand_cannot_be_scored():
    state = ns_declares(TRUMP_DEAL, Seat.N, "2A")
    with pytest.raises(PhaseError, match="not finished: 0 of 52 cards played"):
        state.score()


def test_appendix_b_scoresheet_of_the_ch16_hand(ch16_record):
    session = Session(first_dealer=Seat.S)
    session.add(replay(ch16_record))
    sheet = session.scoresheet()
    record = sheet["last_hand"]
    assert (record["dealer"], record["contract"], record["declarer"]) == ("S", "4A", "S")
    assert record["tricks"] == {"NS": 11, "EW": 2}
    assert record["honors"]["NS"] == {"January Bright": 0, "March Bright": 0, "August Bright": 0,
                                      "November Bright": 1, "December Bright": 2}
    assert set(record["honors"]["EW"].values()) == {0}
    assert record["five_bright"] == record["ten_bright"] == {"NS": False, "EW": False}
    assert [(e["side"], e["points"]) for e in sheet["above"]] == [("NS", 30), ("NS", 40), ("EW", 5)]
    # the boxes are the Brights; honor points count every honor captured (Ch. 13)
    assert record["honor_points"] == {"NS": 40, "EW": 5}
    # (each entry below the line names the contract that scored it)
    assert sheet["games"][0]["below"] == [{"hand": 1, "side": "NS", "points": 120, "contract": "4A"}]
    text = session.render()
    assert "120  4A (hand 1)" in text
    for line in ("ABOVE THE LINE", "BELOW THE LINE", "GAME WINNER", "HAND RECORD",
                 "DECEMBER BRIGHT     ■1 ■2     □1 □2", "NOVEMBER BRIGHT     ■1 □2     □1 □2",
                 f"{'HONOR POINTS':<20}{40:<10}5", "FIVE BRIGHT BONUS (+25)", "TEN BRIGHT BONUS (+75)",
                 # (under the Brights' boxes alone, the points' caption named every honor, not the boxes)
                 "(the boxes are the Brights captured; honor points\n count every honor: Brights, "
                 "Animals, Ribbons)"):
        assert line in text
    # each side's above- and below-the-line totals (R19)
    above, below = text.split("BELOW THE LINE")
    assert f"{'—— 70':<34}   —— 5" in above
    assert f"{'—— 120':<34}   —— 0" in below.split("GAME WINNER")[0]


def test_rule_options_a_value_nested_past_a_list_of_pairs_is_refused_cleanly():
    # However deep the nesting (here far past Python's recursion limit), one
    # OptionError naming the option, never a RecursionError.
    deep = 1
    for _ in range(5000):
        deep = [deep]
    for value in ([[[[1, 1]]]], deep):
        with pytest.raises(OptionError, match="option honor_bright: .* is not a non-negative whole number list"):
            RuleOptions(honor_bright=value)


@pytest.mark.parametrize("value, shown", [(True, "true"), (float("nan"), "NaN"),
                                          ({"a": 1}, '{"a": 1}'), ("50", "'50'")])
def test_rule_options_a_bad_value_is_shown_as_json_spells_it(value, shown):
    # options come from JSON: the error showed Python's True, nan and {'a': 1} (a null is
    # the option left out: its default)
    with pytest.raises(OptionError, match=rf"^option undertrick_penalty: {re.escape(shown)} is not"):
        RuleOptions.from_dict({"undertrick_penalty": value})
    with pytest.raises(OptionError, match=r"^options must be an object, not an array$"):
        RuleOptions.from_dict([1])


@pytest.mark.parametrize("field", ["undertrick_penalty", "five_bright_bonus", "ten_bright_bonus", "game_points"])
def test_rule_options_a_number_option_given_as_a_list_is_refused(field):
    # (accepted, it failed only when a hand was scored: a table that could never score)
    for value in ([1], [[1]], (1,)):
        with pytest.raises(OptionError, match=f"option {field}: .* is not a non-negative whole number$"):
            RuleOptions.from_dict({field: value})


@pytest.mark.parametrize("field, value", [("undertrick_penalty", 10**18), ("five_bright_bonus", 2**63 - 1),
                                          ("honor_bright", [[4, 2], [4, 1_000_001]])])
def test_rule_options_values_are_bounded_so_sums_stay_exact(field, value):
    # (the lab sums scores over millions of hands in 64-bit columns)
    with pytest.raises(OptionError, match=f"option {field}: .* is more than 1,000,000"):
        RuleOptions(**{field: value})
    assert RuleOptions(undertrick_penalty=1_000_000).undertrick_penalty == 1_000_000


def test_rule_options_a_whole_number_written_as_a_float_is_kept_as_a_whole_number():
    # RuleOptions(undertrick_penalty=50.0) kept 50.0, and its scores came out as 100.0
    options = RuleOptions(undertrick_penalty=50.0, game_points=100.0, overtrick_points=[20.0, 30, 30, 30])
    assert options == RuleOptions()
    assert type(options.undertrick_penalty) is int and type(options.overtrick_points[0]) is int
    state = ns_declares(TRUMP_DEAL, Seat.N, "7NT", options)
    score = play_greedy(state).score()
    assert not score.made and all(type(item.points) is int for item in score.items)


def test_ruling_r19_text_scoresheet_keeps_east_west_in_line_beside_a_long_entry():
    session = Session()
    session.above += [(1, Side.NS, 100, "1 Bright Animal down 2 × 50"), (1, Side.EW, 5, "honors"),
                      (1, Side.NS, 9, "honors")]
    lines = session.render().splitlines()
    header = next(line for line in lines if line.startswith("NORTH-SOUTH"))
    row = next(line for line in lines if "down 2" in line)
    assert row.index("  5  honors (hand 1)") == header.index("EAST-WEST")
    # the points right-aligned: what they are for starts in one column (9 and 100 did not)
    assert lines[lines.index(row) + 1] == "  9  honors (hand 1)"


@pytest.mark.parametrize("width", [72, 75, 78])
def test_ruling_r19_text_scoresheet_puts_a_long_east_west_entry_under_its_own_side(width):
    # (at 72-85 columns North-South's column was sized to its own entries alone: a longer
    # East-West one ran past the width, and its wrapped end sat under NORTH-SOUTH)
    session = Session()
    session.above += [(1, Side.NS, 21, "honors"), (2, Side.EW, 100, "6 Bright Animals down 2 × 50")]
    lines = session.render(width).splitlines()
    assert all(len(line) <= width for line in lines), [line for line in lines if len(line) > width]
    ew = lines.index("EAST-WEST")                          # one side under the other
    assert lines.index("NORTH-SOUTH") < lines.index("   21  honors (hand 1)") < ew
    assert lines[ew + 1] == "  100  6 Bright Animals down 2 × 50 (hand 2)"
    wide = session.render(width + 20).splitlines()         # wide enough: beside each other again
    assert any(line.startswith(" 21  honors (hand 1)") and line.endswith("100  6 Bright Animals down 2 × 50 "
                                                                      "(hand 2)") for line in wide)


def test_ruling_r17_a_ten_bright_bonus_below_the_five_is_refused_for_new_play():
    # Ten replaces Five (never both): a smaller Ten would make all ten Brights worth
    # less than five of them. Equal (or both 0) is a choice a designer may make.
    with pytest.raises(OptionError, match=r"^option ten_bright_bonus: 0 is less than five_bright_bonus \(25\)"):
        RuleOptions(ten_bright_bonus=0).sensible()
    with pytest.raises(OptionError, match="option ten_bright_bonus: 75 is less than five_bright_bonus"):
        RuleOptions.from_dict({"five_bright_bonus": 100}).sensible()
    assert RuleOptions(five_bright_bonus=0, ten_bright_bonus=0).sensible().ten_bright_bonus == 0
    assert RuleOptions(ten_bright_bonus=25).sensible().ten_bright_bonus == 25


def test_ruling_r18_contract_points_that_could_never_win_a_game_are_refused_for_new_play():
    with pytest.raises(OptionError, match="option contract_points: every contract would score 0 below the line"):
        RuleOptions(contract_points=[[0, 0]] * 4).sensible()
    # one denomination worth points is enough: games come from it (and part-scores add up, R18)
    assert RuleOptions(contract_points=[[0, 0], [0, 0], [0, 0], [0, 10]]).sensible().contract_points[3] == (0, 10)


def test_a_record_made_under_options_refused_for_new_play_is_still_read_and_scored(ch16_record):
    # earlier versions took them: the records (and stored tables) they made stay readable
    record = {**ch16_record, "options": {**ch16_record.get("options", {}), "ten_bright_bonus": 0,
                                         "contract_points": [[0, 0]] * 4}}
    state = replay(record)
    assert state.options.ten_bright_bonus == 0 and state.options.contract_points == ((0, 0),) * 4
    score = state.score()
    assert score.made and score.below(NS) == score.below(EW) == 0     # no contract points at all


def test_ruling_r18_games_are_numbered_one_two_three():
    session = Session()
    for _ in range(3):  # 5A made: 150 below, a game every hand
        session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "5A")))
    sheet = session.scoresheet()
    assert [g["number"] for g in sheet["games"]] == [1, 2, 3, 4]
    assert [g["winner"] for g in sheet["games"]] == ["NS", "NS", "NS", None]
    assert [g.number for g in session.games] == [1, 2, 3, 4]
    text = session.render()
    for number in (1, 2, 3):
        assert text.count(f"game {number} to NORTH-SOUTH") == 1
    assert "game 4 to" not in text


def test_ruling_r17_scoresheet_ticks_ten_bright_alone_never_five_as_well():
    # North-South capture both copies of every Bright: the Ten Bright Bonus replaces the Five.
    deal = Deal.from_hands({
        "N": "12B 12B 11B 11B 8B 8B 3B 3B 1B 1B 8A 8A 7A",
        "S": "7A 6A 6A 5A 5A 2A 2A 11P 11P 10P 10P 9P 9P",
        "E": "11R 11R 10R 10R 9R 9R 7R 7R 6R 6R 5R 5R 4R",
        "W": "4R 3R 3R 2R 2R 1R 1R 6P 6P 5P 5P 4P 4P",
    })
    session = Session()
    session.add(play_greedy(ns_declares(deal, session.next_dealer, "7A")))
    record = session.scoresheet()["last_hand"]
    assert record["ten_bright"] == {"NS": True, "EW": False}
    assert record["five_bright"] == {"NS": False, "EW": False}
    text = session.render()
    assert "\nFIVE BRIGHT BONUS (+25)  NS □  EW □\n" in text
    assert "\nTEN BRIGHT BONUS (+75)   NS ■  EW □\n" in text


def test_appendix_b_hand_record_is_the_last_hands():
    # North deals a hand that is passed out (R8), East the next (R5): South declares 2A.
    session = Session()
    passed = session.new_hand(TRUMP_DEAL)
    for _ in range(4):
        passed.call("Pass")
    session.add(passed)
    session.add(play_greedy(ns_declares(TRUMP_DEAL, session.next_dealer, "2A")))
    record = session.scoresheet()["last_hand"]
    assert (record["hand"], record["dealer"], record["contract"], record["declarer"]) == (2, "E", "2A", "S")


def test_ruling_r17_scoresheet_ticks_five_bright_for_one_copy_of_each_bright():
    # North holds one copy of every Bright and all the other trumps; the second copies
    # are undealt, so North-South win Five Bright (R17) and Ten Bright is out of reach.
    deal = Deal.from_hands({
        "N": "12B 11B 8B 3B 1B 8A 8A 7A 7A 6A 6A 5A 5A",
        "S": "2A 2A 11P 11P 10P 10P 9P 9P 6P 6P 5P 5P 4P",
        "E": "11R 11R 10R 10R 9R 9R 7R 7R 6R 6R 5R 5R 4R",
        "W": "4R 3R 3R 2R 2R 4P 3P 3P 2P 2P 1Pb 1Pb 1Pa",
    })
    session = Session()
    score = session.add(play_greedy(ns_declares(deal, session.next_dealer, "7A")))
    assert score.bright_bonus(NS) == 25 and score.bright_bonus(EW) == 0
    record = session.scoresheet()["last_hand"]
    assert record["five_bright"] == {"NS": True, "EW": False}
    assert record["ten_bright"] == {"NS": False, "EW": False}
    # the honor row is the honors alone (Ch. 13, R16): the bonus is its own item (R17)
    assert record["honor_points"] == {"NS": score.honors(NS), "EW": score.honors(EW)}


def test_ruling_r17_scoresheet_ticks_five_bright_earned_where_a_variant_pays_nothing_for_it():
    # the box says what was captured (one copy of every Bright), not whether a bonus was paid
    deal = Deal.from_hands({
        "N": "12B 11B 8B 3B 1B 8A 8A 7A 7A 6A 6A 5A 5A",
        "S": "2A 2A 11P 11P 10P 10P 9P 9P 6P 6P 5P 5P 4P",
        "E": "11R 11R 10R 10R 9R 9R 7R 7R 6R 6R 5R 5R 4R",
        "W": "4R 3R 3R 2R 2R 4P 3P 3P 2P 2P 1Pb 1Pb 1Pa",
    })
    session = Session(RuleOptions(five_bright_bonus=0))
    score = session.add(play_greedy(ns_declares(deal, session.next_dealer, "7A", session.options)))
    assert score.bright_bonus(NS) == 0
    record = session.scoresheet()["last_hand"]
    assert record["five_bright"] == {"NS": True, "EW": False}
    assert record["ten_bright"] == {"NS": False, "EW": False}
    assert "\nFIVE BRIGHT BONUS (+0)  NS ■  EW □\n" in session.render()


@pytest.mark.parametrize("length", ["max_hands", "max_games"])
def test_ruling_r19_a_session_of_zero_hands_or_games_is_refused(length):
    with pytest.raises(RecordError, match="must be at least 1"):
        Session(**{length: 0})
    with pytest.raises(RecordError, match="must be at least 1"):
        Session(**{length: -1})
    assert getattr(Session(**{length: 1}), length) == 1


def test_appendix_b_honor_rows_run_january_march_august_november_december(ch16_record):
    months = ["January", "March", "August", "November", "December"]
    session = Session(first_dealer=Seat.S)
    session.add(replay(ch16_record))
    record = session.scoresheet()["last_hand"]
    for side in ("NS", "EW"):
        assert list(record["honors"][side]) == [f"{m} Bright" for m in months]
    rows = [line[:20].strip() for line in session.render().splitlines()
            if line.split()[:1] and line.split()[0] in {m.upper() for m in months}]
    assert rows == [f"{m.upper()} BRIGHT" for m in months]


@pytest.mark.parametrize("value, shown", [(1e300, "1e+300"), (2.0 ** 60, "1.152921504606847e+18"),
                                          ([[1e300, 20], [30, 30], [30, 30], [40, 30]],
                                           "[[1e+300, 20], [30, 30], [30, 30], [40, 30]]")])
def test_rule_options_a_huge_whole_fraction_is_refused_as_it_was_written(value, shown):
    # (1e300 was turned into its 301 digits before the range check: the error showed
    # "100000000000000005250476025520442024870…", a number nobody wrote)
    field = "contract_points" if isinstance(value, list) else "undertrick_penalty"
    with pytest.raises(OptionError) as err:
        RuleOptions.from_dict({field: value})
    assert str(err.value).startswith(f"option {field}: {shown[:39]}") and "more than 1,000,000" in str(err.value)
    assert RuleOptions.from_dict({"undertrick_penalty": 60.0}).undertrick_penalty == 60     # JSON's 60.0


def test_options_stored_past_the_bound_read_as_they_are_and_changed_with_new_values_checked():
    # a table stored before option values were bounded (docs/rules-engine.md)
    stored = RuleOptions.stored({"undertrick_penalty": 5_000_000, "five_bright_bonus": 2_000_000,
                                 "ten_bright_bonus": 3_000_000})
    assert stored.undertrick_penalty == 5_000_000
    with pytest.raises(OptionError, match="more than 1,000,000"):
        RuleOptions.from_dict(stored.to_dict())       # a record is still held to the bound
    changed = stored.with_(game_points=200)
    assert (changed.undertrick_penalty, changed.game_points) == (5_000_000, 200)
    with pytest.raises(OptionError, match="option game_points: 2000000 is more than 1,000,000"):
        stored.with_(game_points=2_000_000)
    assert stored.with_(undertrick_penalty=5_000_000) == stored    # its own value, given again
    # a name no option has is the package's error, naming it (it was Python's TypeError)
    with pytest.raises(OptionError, match="^unknown option 'bogus': expected one of declarer, undertrick_penalty, "):
        stored.with_(bogus=1)
    with pytest.raises(OptionError, match="more than 1,000,000"):
        RuleOptions(undertrick_penalty=5_000_000)                  # the bound is back after
    with pytest.raises(OptionError, match="option undertrick_penalty: -1 is not"):
        RuleOptions.stored({"undertrick_penalty": -1})  # every other check holds
    assert RuleOptions.from_dict({"undertrick_penalty": 7}).undertrick_penalty == 7


def test_rule_options_changes_name_every_option_that_differs_from_the_rulings_defaults():
    # what the players are told of a table's or a session's options (R9, R15, the scales)
    assert RuleOptions().changes() == []
    assert RuleOptions(undertrick_penalty=100).changes() == ["100 points a trick down to the defenders (R15)"]
    assert RuleOptions(game_points=4400, ten_bright_bonus=1500).changes() == [     # (grouped as elsewhere)
        "Ten Bright Bonus 1,500", "game at 4,400 below the line"]
    changed = RuleOptions(declarer="first-named", undertrick_penalty=0,
                          contract_points=((35, 35), (30, 30), (30, 30), (40, 30)),
                          overtrick_points=(10, 30, 30, 30), honor_ribbon=(2, 1), honor_animal=(3, 1),
                          honor_bright=(5, 3), five_bright_bonus=30, ten_bright_bonus=90, game_points=60)
    assert changed.changes() == [
        "no undertrick penalty (R15, the rulebook as written)",
        "the first of the declaring side to name the final denomination declares (R9)",
        "contract points a level (the first, each further one): Plains 35/35, Ribbons 30/30, "
        "Bright Animals 30/30, No Trump 40/30",
        "overtricks: Plains 10, Ribbons 30, Bright Animals 30, No Trump 30",
        "a Ribbon captured scores 2, both copies 2 + 1", "an Animal captured scores 3, both copies 3 + 1",
        "a Bright captured scores 5, both copies 5 + 3", "Five Bright Bonus 30", "Ten Bright Bonus 90",
        "game at 60 below the line"]
    # one phrase a field: no field left unsaid
    assert len(changed.changes()) == len(RuleOptions.field_names())


def test_ch12_session_names_each_hands_contract_below_the_line_and_none_for_a_passed_out_hand():
    session = Session()
    passed = session.new_hand(Deal.from_seed(3, 1))
    for _ in range(4):
        passed.call("Pass")
    session.add(passed)
    played = session.new_hand(Deal.from_seed(3, 2))
    for call in ("1NT", "Pass", "Pass", "Pass"):
        played.call(call)
    while not played.is_over:
        played.play(played.legal_cards()[0])
    session.add(played)
    assert session.contract_code(2) == "1NT"
    with pytest.raises(FlowerBridgeError, match="^hand 1 was passed out: it scored nothing below the line$"):
        session.contract_code(1)
    for number in (0, -1, 3, True):     # (0 and -1 read hands from the end)
        with pytest.raises(FlowerBridgeError, match=f"^the session has no hand {number!r}: its hands are 1 to 2$"):
            session.contract_code(number)
    with pytest.raises(FlowerBridgeError, match="^the session has no hand 1: it has no hand yet$"):
        Session().contract_code(1)
    # the scoresheet names it by each entry below the line
    below = [entry["contract"] for game in session.scoresheet()["games"] for entry in game["below"]]
    made = played.tricks_won[played.contract.side] >= played.contract.tricks_required
    assert below == (["1NT"] if made else [])
