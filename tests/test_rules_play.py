"""The play: Chapters 5, 8 and 9, RULINGS R10–R12, and the action API of HandState."""

from __future__ import annotations

from collections import Counter

import pytest

from flowerbridge import (DECK, Card, CardCodeError, Deal, HandState, IllegalCallError,
                          IllegalPlayError, Phase, PhaseError, Seat, Suit, parse_card, parse_cards)
from flowerbridge.state import beats, trick_winner


def deal_with(holdings: dict[str, str], *, void: dict[str, str] | None = None,
              undealt: str = "") -> Deal:
    """A deal giving each seat the cards named, filled up to 13 with the lowest
    cards left (never from the suits in ``void``, letters ``P R A``); the cards
    in ``undealt`` and whatever is left over are not dealt."""
    pool = Counter(DECK) - Counter(parse_cards(undealt))
    for codes in holdings.values():
        pool -= Counter(parse_cards(codes))
    hands = {}
    for seat in "NESW":
        hand = parse_cards(holdings.get(seat, ""))
        barred = {Suit("PRA".index(letter)) for letter in (void or {}).get(seat, "")}
        for card in sorted(pool.elements(), key=lambda c: c.index):
            if len(hand) == 13:
                break
            if card.suit not in barred and pool[card] > 0:
                hand.append(card)
                pool[card] -= 1
        hands[seat] = hand
    return Deal.from_hands(hands)


def contract(deal: Deal, calls: str, dealer: Seat) -> HandState:
    state = HandState(deal, dealer)
    for call in calls.split():
        state.call(call)
    return state


def play(state: HandState, cards: str) -> None:
    for card in cards.split():
        state.play(card)


# --------------------------------------------------------- Chapter 5, R12

@pytest.mark.parametrize("bid", ["1NT", "1A", "1R"])
def test_ch5_west_11b_north_other_11b_north_does_not_win(bid):
    # South declares, so West leads: West 11B, North (dummy) the other 11B.
    deal = deal_with({"W": "11B", "N": "11B", "E": "2A", "S": "5A"}, undealt="12B 12B")
    state = contract(deal, f"{bid} Pass Pass Pass", Seat.S)
    play(state, "11B 11B 2A 5A")
    assert state.tricks[0].winner is Seat.W


def test_ch9_identical_card_does_not_win_in_trumps_either():
    # Ribbons led; North and East both void ruff with the November Bright: North's came first.
    deal = deal_with({"W": "1R", "N": "11B", "E": "11B", "S": "2R"},
                     void={"N": "R", "E": "R"}, undealt="12B 12B")
    state = contract(deal, "1A Pass Pass Pass", Seat.S)
    play(state, "1R 11B 11B 2R")
    assert state.tricks[0].winner is Seat.N


def test_ch9_identical_card_rule_holds_whoever_plays_the_cards():
    # Declarer's side plays the first copy, a defender the twin: the first still wins.
    deal = deal_with({"W": "1R", "N": "12B", "E": "12B", "S": "2R"}, void={"N": "R", "E": "R"})
    state = contract(deal, "1A Pass Pass Pass", Seat.S)
    play(state, "1R 12B 12B 2R")
    assert state.tricks[0].winner is Seat.N
    # And defenders first, declarer's side second.
    deal = deal_with({"W": "9P", "N": "9P", "E": "1Pa", "S": "1Pa"}, undealt="10P 10P 11P 11P")
    state = contract(deal, "1NT Pass Pass Pass", Seat.S)
    play(state, "9P 9P 1Pa 1Pa")
    assert state.tricks[0].winner is Seat.W


def test_ruling_r12_a_twin_never_beats_the_earlier_copy_not_even_after_an_undo():
    # Tying is not beating (Ch. 5, Ch. 9, R12): the later copy never displaces the earlier,
    # in trumps as in any suit.
    assert not beats(parse_card("12B"), parse_card("12B"), Suit.ANIMALS)
    assert not beats(parse_card("9P"), parse_card("9P"), None)
    assert trick_winner(parse_cards("1R 11B 11B 2R"), Suit.ANIMALS) == 1
    assert trick_winner(parse_cards("9P 9P 1Pa 1Pa"), None) == 0
    # Undo recomputes the unfinished trick's winner: North's 11B ruff, not East's twin.
    deal = deal_with({"W": "1R", "N": "11B", "E": "11B", "S": "2R"},
                     void={"N": "R", "E": "R"}, undealt="12B 12B")
    state = contract(deal, "1A Pass Pass Pass", Seat.S)
    play(state, "1R 11B 11B 2R")
    state.undo()
    state.play("2R")
    assert state.tricks[0].winner is Seat.N
    assert state.turn is Seat.N and state.tricks_won == (1, 0)


# ----------------------------------------------------------- Chapter 8, R10

def test_ch8_opening_leader_is_declarers_left():
    state = contract(Deal.from_seed(1), "1A Pass 3A Pass 4A Pass Pass Pass", Seat.S)
    assert state.contract.declarer is Seat.S
    assert state.contract.opening_leader is Seat.W
    assert state.turn is Seat.W and state.actor is Seat.W and state.leader is Seat.W


def test_ch8_dummy_hidden_before_the_opening_lead():
    state = contract(Deal.from_seed(1), "1A Pass 3A Pass 4A Pass Pass Pass", Seat.S)
    for seat in Seat:
        obs = state.observation(seat)
        assert obs.dummy is None and obs.to_dict()["dummy"] is None
        assert obs.all_hands is None and obs.undealt is None
    state.play(state.legal_cards()[0])
    north = state.remaining(Seat.N)
    for seat in Seat:
        assert state.observation(seat).dummy == north


def test_ch8_declarer_chooses_dummys_cards():
    state = contract(Deal.from_seed(1), "1A Pass 3A Pass 4A Pass Pass Pass", Seat.S)
    state.play(state.legal_cards()[0], Seat.W)
    assert state.turn is Seat.N and state.actor is Seat.S
    assert state.observation(Seat.N).legal == ()
    assert state.observation(Seat.S).legal == tuple(state.legal_cards())
    card = state.legal_cards()[0]
    with pytest.raises(IllegalPlayError, match=r"out of turn: S plays the next card \(from dummy, N\)"):
        state.verify_play(card, Seat.N)
    assert not state.can_play(card, Seat.N)
    event = state.play(card, Seat.S)
    assert event.seat is Seat.N  # the card came from the dummy's hand


def test_ch8_to_play_is_the_hand_a_card_comes_from_the_dummy_on_its_turn():
    # No card comes from any hand during the auction; in the play, on the dummy's turn
    # the card comes from the dummy (North) while declarer (South) chooses it.
    state = contract(Deal.from_seed(1), "1A Pass 3A Pass 4A Pass Pass", Seat.S)
    assert state.phase is Phase.AUCTION and state.to_play is None and state.actor is Seat.E
    state.call("Pass")
    assert state.to_play is Seat.W and state.actor is Seat.W
    state.play(state.legal_cards()[0])
    assert state.to_play is Seat.N and state.actor is Seat.S


def test_ch8_a_refused_card_from_dummy_names_the_dummy_whatever_was_wrong_with_it():
    """Declarer sends the dummy's cards: a card not held, a revoke and a code that
    is no card are each refused as the dummy's play (they named declarer for the last)."""
    state = contract(Deal.from_seed(1), "1A Pass 3A Pass 4A Pass Pass Pass", Seat.S)
    state.play(state.legal_cards()[0], Seat.W)
    with pytest.raises(CardCodeError, match=r"^play 2 \(N\): unknown card code"):
        state.play("13B", Seat.S)
    with pytest.raises(CardCodeError, match=r"^play 2 \(N\): unknown card code"):
        state.play("13B")
    not_held = next(c for c in DECK if c not in state.remaining(Seat.N))
    with pytest.raises(IllegalPlayError, match=rf"^play 2 \(N\): {not_held.code} is not in N's hand"):
        state.play(not_held, Seat.S)
    # an out-of-turn sender is named as it was: the card was never the dummy's play
    with pytest.raises(CardCodeError, match=r"^play 2 \(E\): unknown card code"):
        state.play("13B", Seat.E)


def test_ch8_no_card_before_the_auction_ends():
    state = contract(Deal.from_seed(1), "1A Pass", Seat.S)
    with pytest.raises(PhaseError, match="played before the auction has ended"):
        state.play("12B")
    # a card sent by a seat (at a table) names that seat, not the one whose call it is
    with pytest.raises(PhaseError, match=r"^play 1 \(E\): 12B played before the auction has ended"):
        state.play("12B", Seat.E)
    with pytest.raises(CardCodeError, match=r"^play 1 \(W\): "):
        state.play("12Z", Seat.W)


# ----------------------------------------------------------- Chapter 9, R11

def test_ch9_must_follow_suit_when_able():
    deal = deal_with({"W": "1R", "N": "2R 5A"})
    state = contract(deal, "1A Pass Pass Pass", Seat.S)
    state.play("1R")
    assert all(c.suit is Suit.RIBBONS for c in state.legal_cards())
    with pytest.raises(IllegalPlayError, match=r"play 2 \(N\): must follow Ribbons, holds .*2R.* \[R11\]"):
        state.verify_play("5A")


def test_ch9_any_card_when_void_in_the_suit_led():
    deal = deal_with({"W": "1R"}, void={"N": "R"})
    state = contract(deal, "1A Pass Pass Pass", Seat.S)
    state.play("1R")
    assert set(state.legal_cards()) == set(state.remaining(Seat.N))


def test_ch9_card_not_in_hand_is_illegal():
    state = contract(Deal.from_seed(1), "1A Pass 3A Pass 4A Pass Pass Pass", Seat.S)
    with pytest.raises(IllegalPlayError, match=r"play 1 \(W\): 8B is not in W's hand"):
        state.play("8B")
    with pytest.raises(CardCodeError, match=r"play 1 \(W\): unknown card code"):
        state.play("13B")


def test_ch9_trump_beats_every_non_trump():
    # Plains contract: a low Plain ruff beats the top Bright Animal led.
    deal = deal_with({"W": "12B", "N": "1Pa", "E": "2A", "S": "5A"},
                     void={"N": "A"}, undealt="12B")
    state = contract(deal, "1P Pass Pass Pass", Seat.S)
    play(state, "12B 1Pa 2A 5A")
    assert state.tricks[0].winner is Seat.N


def test_ch9_highest_trump_wins():
    deal = deal_with({"W": "1R", "N": "2A", "E": "8A", "S": "2R"}, void={"N": "R", "E": "R"})
    state = contract(deal, "1A Pass Pass Pass", Seat.S)
    play(state, "1R 2A 8A 2R")
    assert state.tricks[0].winner is Seat.E


def test_ch9_no_trump_highest_card_of_the_suit_led_wins():
    deal = deal_with({"W": "1R", "N": "12B", "E": "2R", "S": "3R"}, void={"N": "R"})
    state = contract(deal, "1NT Pass Pass Pass", Seat.S)
    play(state, "1R 12B 2R 3R")
    assert state.tricks[0].winner is Seat.S


def test_ch9_winner_of_each_trick_leads_the_next():
    deal = deal_with({"W": "1R", "N": "12B", "E": "2R", "S": "3R"}, void={"N": "R"})
    state = contract(deal, "1NT Pass Pass Pass", Seat.S)
    play(state, "1R 12B 2R 3R")
    assert state.turn is Seat.S and state.leader is Seat.S
    assert state.tricks_won == (1, 0)


def test_ch9_thirteen_tricks_finish_the_hand(random_hand):
    state = random_hand(1)
    assert state.phase is Phase.FINISHED and len(state.tricks) == 13
    with pytest.raises(PhaseError, match="after the hand is over"):
        state.verify_play("12B")
    assert state.legal_actions() == [] and state.turn is None and state.actor is None


# ------------------------------------------------------- the action triple

def test_verify_can_act_agree_on_a_legal_and_an_illegal_call(snapshot):
    state = contract(Deal.from_seed(1), "2R", Seat.N)
    assert state.verify_call("2A").text == "2A" and state.can_call("2A")
    before = snapshot(state)
    assert not state.can_call("1NT")
    with pytest.raises(IllegalCallError):
        state.call("1NT")
    assert snapshot(state) == before


def test_legal_actions_are_calls_in_the_auction_and_distinct_cards_in_the_play():
    state = contract(Deal.from_seed(1), "", Seat.N)
    assert state.legal_actions() == state.legal_calls()
    for call in "1A Pass Pass Pass".split():
        state.call(call)
    legal = state.legal_actions()
    assert legal == state.legal_cards()
    assert all(isinstance(c, Card) for c in legal)
    assert len(legal) == len(set(legal)) == len(set(state.remaining(Seat.E)))


def test_apply_makes_a_call_or_plays_a_card():
    state = contract(Deal.from_seed(1), "", Seat.N)
    for call in "1A Pass Pass Pass".split():
        state.apply(call)
    event = state.apply(state.legal_cards()[0], Seat.E)
    assert event.number == 1 and event.seat is Seat.E and event.trick == 1


def test_undo_at_the_deal_is_an_error():
    with pytest.raises(PhaseError, match="nothing to undo"):
        HandState(Deal.from_seed(1)).undo()


def test_undo_reopens_a_finished_auction_and_a_finished_trick():
    state = contract(Deal.from_seed(1), "1A Pass Pass Pass", Seat.N)
    first = [state.play(state.legal_cards()[0]).card for _ in range(4)]
    assert len(state.tricks) == 1
    state.undo()
    assert state.tricks == () and len(state.current_trick) == 3
    for _ in range(3):
        state.undo()
    assert state.phase is Phase.PLAY and state.turn is Seat.E
    state.undo()
    assert state.phase is Phase.AUCTION and state.contract is None and state.turn is Seat.W
    assert first[0] in state.remaining(Seat.E)


def test_copy_is_independent():
    state = contract(Deal.from_seed(1), "1A Pass Pass Pass", Seat.N)
    other = state.copy()
    other.play(other.legal_cards()[0])
    assert state.plays == () and len(other.plays) == 1


def test_ch9_must_follow_suit_when_able_a_card_object_too(snapshot):
    # The Card object path of play() (no seat, no code to parse) checks R11 as well.
    deal = deal_with({"W": "1R", "N": "2R 5A"})
    state = contract(deal, "1A Pass Pass Pass", Seat.S)
    state.play("1R")
    before = snapshot(state)
    with pytest.raises(IllegalPlayError, match=r"must follow Ribbons"):
        state.play(parse_card("5A"))
    assert snapshot(state) == before
    assert not state.can_play(parse_card("5A"))


def test_ch9_card_not_in_hand_is_illegal_a_card_object_too(snapshot):
    deal = deal_with({"W": "1R", "N": "2R 5A"}, undealt="12B")
    state = contract(deal, "1A Pass Pass Pass", Seat.S)
    for card in ("12B", "2R"):  # undealt; in North's hand, not West's
        before = snapshot(state)
        with pytest.raises(IllegalPlayError, match="is not in W's hand"):
            state.play(parse_card(card))
        assert snapshot(state) == before
    state.play("1R")
    before = snapshot(state)
    with pytest.raises(IllegalPlayError, match="is not in N's hand"):
        state.play(parse_card("1R"))
    assert snapshot(state) == before


def test_ch9_a_card_played_again_says_at_which_trick_it_was_played(snapshot):
    # (it said only "1R is not in W's hand", as of a card never held)
    deal = deal_with({"W": "1R 1R 4R", "N": "2R 5R 6R", "E": "3R 7R 4R", "S": "9R 10R 11R"})
    state = contract(deal, "1A Pass Pass Pass", Seat.S)
    play(state, "1R 2R 3R 9R 10R 1R 5R 7R 11R")         # West's two 1R, at tricks 1 and 2
    with pytest.raises(IllegalPlayError, match=r"^play 10 \(W\): 2R is not in W's hand \[Ch\. 9\]$"):
        state.play("2R")                                    # (one never held: no more said)
    before = snapshot(state)
    with pytest.raises(IllegalPlayError, match=r"^play 10 \(W\): 1R is not in W's hand \(played at tricks 1 and 2\)"):
        state.play("1R")
    assert snapshot(state) == before


def test_ch9_undoing_and_replaying_the_last_card_of_a_ruffed_trick_keeps_the_ruff_winning():
    # Animals trumps: West leads 1R, North ruffs with 2A, East and South follow
    # with higher Ribbons. Undo recomputes the trick's winner from its first three
    # cards (R12): the ruff, not East's 2R, must still be winning.
    deal = deal_with({"W": "1R", "N": "2A", "E": "2R", "S": "3R"}, void={"N": "R"})
    state = contract(deal, "1A Pass Pass Pass", Seat.S)
    play(state, "1R 2A 2R 3R")
    assert state.tricks[0].winner is Seat.N
    state.undo()
    assert state.tricks == () and state.turn is Seat.S
    state.play("3R")
    assert state.tricks[0].winner is Seat.N
    assert state.turn is Seat.N and state.tricks_won == (1, 0)


def test_ch8_declarer_sending_the_wrong_one_of_their_two_hands_is_told_whose_turn_it_is(snapshot):
    # (a card of declarer's own on dummy's turn read "11B is not in N's hand", as if it
    # had been played from nowhere)
    deal = deal_with({"W": "1R 2R", "N": "3R 5A", "E": "4R 6A", "S": "5R 7A"}, undealt="12B")
    state = contract(deal, "1A Pass Pass Pass", Seat.S)       # South declares, North is dummy
    state.play("1R")                                           # West leads: dummy's turn
    before = snapshot(state)
    with pytest.raises(IllegalPlayError,
                       match=r"^play 2 \(N\): 5R is not in N's hand \(dummy's turn: 5R is declarer S's own card\)"):
        state.play("5R", Seat.S)
    assert snapshot(state) == before
    state.play("3R", Seat.S)
    state.play("4R")                                           # East: declarer's own turn
    with pytest.raises(IllegalPlayError,
                       match=r"^play 4 \(S\): 5A is not in S's hand \(declarer's own turn: 5A is in dummy N's hand\)"):
        state.play("5A", Seat.S)
    with pytest.raises(IllegalPlayError, match=r"^play 4 \(S\): 12B is not in S's hand \[Ch\. 9\]$"):
        state.play("12B", Seat.S)                              # nobody's: no more said
