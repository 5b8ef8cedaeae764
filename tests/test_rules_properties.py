"""Rules that hold for every hand, checked over random legal hands (hypothesis).

Each hand is dealt and played by seeded random legal actions (the
``random_hand`` fixture); the checks below re-derive what the rules say
independently of the engine and compare.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flowerbridge import (BIDS, CARDS, DECK, PASS, CallMade, CardPlayed, Deal, FlowerBridgeError, HandState, Phase,
                          RuleOptions, Seat, Side, notation, records)
from rules_support import independent_score

SEEDS = st.integers(min_value=0, max_value=2**32)
VARIANT = RuleOptions(declarer="first-named", undertrick_penalty=100,
                      contract_points=((10, 10), (20, 20), (30, 30), (50, 20)),
                      overtrick_points=(10, 20, 30, 40), honor_ribbon=(3, 3), honor_animal=(2, 2),
                      honor_bright=(5, 1), five_bright_bonus=10, ten_bright_bonus=40, game_points=80)
OPTIONS = st.sampled_from([RuleOptions(), RuleOptions.strict(), VARIANT])
PROPERTY = settings(max_examples=100, deadline=None)


def action_of(event):
    return event.call if isinstance(event, CallMade) else event.card


def steps(state: HandState):
    """A fresh replay of ``state`` yielding the state before each action and after the last."""
    replay = HandState(state.deal, state.dealer, state.options)
    yield replay, None
    for event in state.history:
        replay.apply(action_of(event))
        yield replay, event


# ----------------------------------------------------------------- conservation

@PROPERTY
@given(seed=SEEDS)
def test_ch3_ch6_sixty_cards_conserved_at_every_step(random_hand, seed):
    for state, _ in steps(random_hand(seed)):
        held = Counter(c for s in Seat for c in state.remaining(s))
        played = Counter(p.card for p in state.plays)
        assert held + played + Counter(state.deal.undealt) == Counter(DECK)
        assert sum(len(state.remaining(s)) for s in Seat) == 52 - len(state.plays)


@PROPERTY
@given(seed=SEEDS)
def test_ch9_a_played_hand_has_thirteen_tricks_of_four(random_hand, seed):
    state = random_hand(seed)
    if state.phase is Phase.PASSED_OUT:
        assert state.tricks == () and [c.call for c in state.calls] == [PASS] * 4
        return
    assert len(state.tricks) == 13 and all(len(t.plays) == 4 for t in state.tricks)
    assert sum(state.tricks_won) == 13
    # Each seat played exactly its 13 cards, one to every trick.
    for seat in Seat:
        assert Counter(p.card for p in state.plays if p.seat is seat) == Counter(state.deal.hands[seat])
        assert all(sum(1 for s, _ in t.plays if s is seat) == 1 for t in state.tricks)


# --------------------------------------------------------------------- R11, R12

def r12_winner(plays, trump):
    """The first card of the highest rank among trumps if any, else of the suit led."""
    led = plays[0][1].suit
    suit = trump if any(card.suit is trump for _, card in plays) else led
    contenders = [(seat, card) for seat, card in plays if card.suit is suit]
    top = max(card.rank for _, card in contenders)
    return next(seat for seat, card in contenders if card.rank == top)


@PROPERTY
@given(seed=SEEDS)
def test_ruling_r12_each_trick_won_by_the_first_highest_trump_else_of_the_suit_led(random_hand, seed):
    state = random_hand(seed)
    trump = state.contract.trump if state.contract else None
    leader = state.contract.opening_leader if state.contract else None
    for trick in state.tricks:
        assert trick.leader is leader and trick.plays[0][0] is leader
        assert [s for s, _ in trick.plays] == [leader.next(i) for i in range(4)]
        assert trick.winner is r12_winner(trick.plays, trump)
        leader = trick.winner


@PROPERTY
@given(seed=SEEDS)
def test_ruling_r11_legal_cards_follow_suit_when_able(random_hand, seed):
    for state, _ in steps(random_hand(seed)):
        if state.phase is not Phase.PLAY:
            continue
        hand = state.remaining(state.turn)
        led = state.current_trick[0][1].suit if state.current_trick else None
        follow = [c for c in hand if c.suit is led]
        assert set(state.legal_cards()) == set(follow or hand)


# ---------------------------------------------------------- the action triple

@PROPERTY
@given(seed=SEEDS, data=st.data())
def test_verify_can_and_legal_actions_agree_and_illegal_actions_change_nothing(random_hand, snapshot,
                                                                              seed, data):
    # steps() keeps one state object, so copy each step: the draws then reach
    # every point of the auction and the play, not only the end of the hand.
    history = [(state.copy(), event) for state, event in steps(random_hand(seed))]
    state, _ = history[data.draw(st.integers(0, len(history) - 1), label="step")]
    legal = state.legal_actions()
    candidates = [PASS, *BIDS] if state.phase is Phase.AUCTION else list(CARDS)
    for action in candidates:
        can = state.can_call(action) if state.phase is Phase.AUCTION else state.can_play(action)
        assert can == (action in legal)
    before = snapshot(state)
    illegal = [a for a in candidates if a not in legal] + [PASS, CARDS[0], "13B", "8NT"]
    for action in illegal:
        if action in legal:
            continue
        try:
            state.apply(action)
        except FlowerBridgeError:
            pass
        else:  # pragma: no cover - reported as a failure below
            raise AssertionError(f"illegal {action} was accepted")
        assert snapshot(state) == before
    # An action by a seat that is not the actor is refused too: every other seat, the
    # dummy's own included (its cards are declarer's to play, Ch. 9)
    if state.actor is not None:
        for wrong in (seat for seat in Seat if seat is not state.actor):
            for action in legal[:3]:
                try:
                    state.apply(action, wrong)
                except FlowerBridgeError:
                    pass
                else:  # pragma: no cover
                    raise AssertionError(f"{wrong} acted out of turn")
        assert snapshot(state) == before


# ------------------------------------------------------------------------ undo

@PROPERTY
@given(seed=SEEDS)
def test_undo_all_returns_to_the_fresh_deal(random_hand, snapshot, seed):
    state = random_hand(seed).copy()
    fresh = HandState(state.deal, state.dealer, state.options)
    while state.history:
        state.undo()
    assert snapshot(state) == snapshot(fresh)


@PROPERTY
@given(seed=SEEDS, data=st.data())
def test_undo_then_redo_gives_the_same_state(random_hand, snapshot, seed, data):
    original = random_hand(seed)
    # Count the cut back from the end: hypothesis favours small integers, and
    # counted from the start most cuts fell in the auction, rarely after a ruff.
    cut = len(original.history) - data.draw(st.integers(0, len(original.history) - 1),
                                            label="actions before the end")
    state = HandState(original.deal, original.dealer, original.options)
    for event in original.history[:cut]:
        state.apply(action_of(event))
    before = snapshot(state)
    back = data.draw(st.integers(1, cut), label="undo")
    undone = [state.undo() for _ in range(back)]
    for event in reversed(undone):
        state.apply(action_of(event))
    assert snapshot(state) == before


@PROPERTY
@given(seed=SEEDS, data=st.data())
def test_take_back_returns_to_just_before_the_seats_last_action_of_the_hand(random_hand, snapshot, seed, data):
    """Taking back (the terminal's undo, the browser's Take back): a seat's last call or
    card of its choosing (a dummy's card is its declarer's), and everything after it."""
    original = random_hand(seed)
    cut = len(original.history) - data.draw(st.integers(0, len(original.history) - 1),
                                            label="actions before the end")
    seat = data.draw(st.sampled_from(list(Seat)), label="seat")
    state = HandState(original.deal, original.dealer, original.options)
    before: dict[int, object] = {}
    for event in original.history[:cut]:
        before[len(state.history)] = snapshot(state)
        state.apply(action_of(event))
    contract = state.contract
    chooser = lambda e: contract.declarer if isinstance(e, CardPlayed) and e.seat is contract.dummy \
        else e.seat     # noqa: E731
    mine = [i for i, e in enumerate(state.history) if chooser(e) is seat]
    made = list(state.history)
    undone = state.take_back(seat)
    if not mine:
        assert undone == [] and list(state.history) == made
        return
    assert undone == made[mine[-1]:]
    assert snapshot(state) == before[mine[-1]]


# ---------------------------------------------------------------- observations

CARD_FIELDS = ("hand", "plays", "tricks", "current_trick", "dummy", "legal", "all_hands", "undealt")
OBSERVATION_KEYS = {"seat", "dealer", "phase", "options", "auction", "contract", "turn", "actor",
                    "tricks_won", "undealt_count", *CARD_FIELDS}


CODES = frozenset(c.code for c in CARDS)


def card_codes(value) -> Counter:
    """The card codes found anywhere in a JSON value, as a multiset."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and item in CODES:
            found.append(item)
    return Counter(found)


@PROPERTY
@given(seed=SEEDS)
def test_ruling_r6_r10_observations_never_hold_a_hidden_card(random_hand, seed):
    for state, _ in steps(random_hand(seed)):
        over = state.is_over
        played = Counter(p.card.code for p in state.plays)
        dummy = state.contract.dummy if state.contract else None
        faced = state.contract is not None and bool(state.plays)
        for seat in Seat:
            obs = state.observation(seat)
            data = obs.to_dict()
            assert set(data) <= OBSERVATION_KEYS, "a new observation field must be checked here"
            own = Counter(c.code for c in state.remaining(seat))
            dummy_cards = Counter(c.code for c in state.remaining(dummy)) if faced else Counter()
            assert card_codes(data["hand"]) == own
            assert obs.hand == state.remaining(seat)
            assert card_codes(data["plays"]) == played
            assert card_codes(data["tricks"]) + card_codes(data["current_trick"]) == played
            if faced:
                assert card_codes(data["dummy"]) == dummy_cards and obs.dummy == state.remaining(dummy)
            else:
                assert data["dummy"] is None and obs.dummy is None
            if state.actor is not seat:
                assert data["legal"] == [] and obs.legal == ()
            elif state.phase is Phase.PLAY:
                mine = own if state.turn is seat else dummy_cards
                assert set(card_codes(data["legal"])) <= set(mine)
            if over:
                assert obs.all_hands == state.deal.hands and obs.undealt == state.deal.undealt
            else:
                assert "all_hands" not in data and "undealt" not in data
                assert obs.all_hands is None and obs.undealt is None


# ---------------------------------------------------------------------- records

@PROPERTY
@given(seed=SEEDS, options=OPTIONS, data=st.data())
def test_records_round_trip_json_and_text_notation(random_hand, snapshot, seed, options,
                                                    data):
    full = random_hand(seed, options=options)
    cut = data.draw(st.integers(0, len(full.history)), label="actions")
    state = HandState(full.deal, full.dealer, full.options)
    for event in full.history[:cut]:
        state.apply(action_of(event))
    as_json = records.dumps(state)
    assert snapshot(records.loads(as_json).state) == snapshot(state)
    text = notation.dumps(state)
    again = notation.loads(text)
    assert snapshot(again.state) == snapshot(state)
    assert notation.dumps(again) == text
    assert records.dumps(notation.loads(text)) == as_json


# ---------------------------------------------------------------------- scoring

@PROPERTY
@given(seed=SEEDS, options=OPTIONS)
def test_ch11_to_ch15_scores_agree_with_an_independent_recomputation(random_hand, seed, options):
    state = random_hand(seed, options=options)
    score = state.score()
    expected = independent_score(state)
    for s in (Side.NS, Side.EW):
        assert score.below(s) == expected["below"][s]
        assert score.above(s) == expected["above"][s]
        assert score.honors(s) == expected["honors"][s]
        if state.options == RuleOptions():
            assert score.honors(s) <= 65  # R16
        assert score.bright_bonus(s) == expected["bright"][s]
    data = score.to_dict()
    assert data["tricks"] == {"NS": state.tricks_won[0], "EW": state.tricks_won[1]}
    assert data["contract"] == (state.contract.code if state.contract else None)


def test_random_hands_cover_every_denomination_and_passed_out(random_hand):
    contracts = [random_hand(seed).contract for seed in range(60)]
    assert {c.denomination.name if c else "out" for c in contracts} == {"P", "R", "A", "NT", "out"}


# --------------------------------------------------------------- sessions (R5, R18, R19)

@PROPERTY
@given(seed=SEEDS, first=st.sampled_from(list(Seat)), length=st.integers(1, 14), options=OPTIONS)
def test_ruling_r5_r18_r19_a_random_session_rotates_the_deal_and_keeps_its_games_and_totals(
        play_out, seed, first, length, options):
    """Over random sessions: hand k is dealt by the first dealer's k-1-th left-hand
    neighbour, passed-out hands included (R5); a game goes to the side whose points below
    the line since the last game reach the game's points, and they start again from 0
    (R18); points above the line are never reset, and the side ahead is the one of more
    points in all (R19). Recomputed from each hand's own score."""
    from flowerbridge import Deal
    from flowerbridge.session import Session

    rng = random.Random(seed)
    session = Session(options, first_dealer=first, max_hands=length)
    while not session.is_over:
        session.add(play_out(session.new_hand(Deal.from_seed(seed, len(session.hands) + 1)), rng))
    assert len(session.hands) == length
    below, winners, totals = [0, 0], [], [0, 0]
    for k, (hand, score) in enumerate(zip(session.hands, session.scores), start=1):
        assert hand.dealer is first.next(k - 1)     # R5
        for s in (Side.NS, Side.EW):
            below[s] += score.below(s)
            totals[s] += score.below(s) + score.above(s)
        won = [s for s in (Side.NS, Side.EW) if below[s] >= options.game_points]
        if won:                                     # R18 (one hand's points go to one side below)
            winners.append(won[0])
            below = [0, 0]
    assert [g.winner for g in session.games if g.winner is not None] == winners
    assert session.games_won == (winners.count(Side.NS), winners.count(Side.EW))
    assert [session.games[-1].total(s) for s in (Side.NS, Side.EW)] == below
    assert [session.total(s) for s in (Side.NS, Side.EW)] == totals
    ahead = None if totals[0] == totals[1] else Side(totals.index(max(totals)))
    assert session.leader is ahead                   # R19
    # its record read back is the same session: the record, the sheet as data and as text
    again = Session.from_dict(session.to_dict())
    assert again.to_dict() == session.to_dict() and again.scoresheet() == session.scoresheet()
    assert again.render() == session.render()


@PROPERTY
@given(seed=SEEDS)
def test_ruling_r12_trick_winner_agrees_with_every_played_trick(random_hand, seed):
    """The engine's own ``trick_winner`` (which undo and the bots use) names the winner of
    each trick as the play did, and the first-highest rule recomputed does too."""
    from flowerbridge.state import trick_winner

    state = random_hand(seed)
    if state.contract is None:
        return
    trump = state.contract.denomination.trump
    for trick in state.tricks:
        index = trick_winner([card for _, card in trick.plays], trump)
        assert trick.plays[index][0] is trick.winner is r12_winner(trick.plays, trump)


@PROPERTY
@given(seed=SEEDS)
def test_ruling_r7_r8_legal_calls_and_the_auctions_end_match_an_independent_model(random_hand, seed):
    """At every call of random auctions: the legal calls are Pass and the bids above the last
    one, in the order of BIDS (R7: no Double or Redouble); the dealer calls first and the turn
    goes clockwise; the auction ends at the third pass after a bid, or the fourth with none,
    which passes the hand out (R8)."""
    state = random_hand(seed)
    replay = HandState(state.deal, state.dealer)
    highest, passes, turn = None, 0, state.dealer
    for event in state.calls:
        assert event.seat is turn and replay.phase is Phase.AUCTION
        expected = [PASS, *(bid for bid in BIDS if highest is None or bid.order > highest.order)]
        assert list(replay.legal_actions()) == expected
        replay.apply(event.call)
        turn = turn.lho
        if event.call.is_bid:
            highest, passes = event.call, 0
        else:
            passes += 1
    assert passes == (4 if highest is None else 3) and replay.phase is not Phase.AUCTION
    assert (state.phase is Phase.PASSED_OUT) == (highest is None)
    if highest is not None:
        assert state.contract.code == highest.text


def _action(event):
    return event.call if isinstance(event, CallMade) else event.card


def _turned(deal: Deal, k: int) -> Deal:
    """``deal`` with each hand moved ``k`` seats clockwise (North's to East for k = 1)."""
    return Deal.from_hands({Seat((i + k) % 4).name: [c.code for c in deal.hands[i]] for i in range(4)})


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), k=st.integers(1, 3),
       options=st.sampled_from([RuleOptions(), RuleOptions(declarer="first-named")]))
def test_r5_r9_r11_r12_the_rules_are_the_same_at_every_seat(random_hand, seed, k, options):
    # Every hand turned k seats round the table, its dealer too, plays the same calls and
    # cards from the turned seats: the declarer (under either R9), every trick's winner
    # and the score turn with it (the sides swap when k is odd).
    hand = random_hand(seed, options=options)
    turned = HandState(_turned(hand.deal, k), Seat((hand.dealer + k) % 4), options)
    for event in hand.history:
        assert turned.apply(_action(event)).seat == Seat((event.seat + k) % 4)
    assert turned.phase == hand.phase
    if hand.contract is None:
        return
    assert turned.contract.declarer == Seat((hand.contract.declarer + k) % 4)
    assert [t.winner for t in turned.tricks] == [Seat((t.winner + k) % 4) for t in hand.tricks]
    before, after = hand.score(), turned.score()
    for side in Side:
        other = Side(int(side) ^ (k % 2))
        assert (before.below(side), before.above(side), before.honors(side), before.bright_bonus(side)) == \
            (after.below(other), after.above(other), after.honors(other), after.bright_bonus(other))


# ----------------------------------------------------------- deals (Ch. 3, Ch. 6)

@PROPERTY
@given(order=st.permutations(range(60)), swap=st.one_of(st.none(), st.tuples(st.integers(0, 51), st.integers(0, 29))))
def test_ch3_ch6_a_deal_is_taken_exactly_when_no_card_is_dealt_more_than_twice(order, swap):
    # Any 52 of the 60 cards, 13 to a hand, make a deal whose undealt cards are the other 8;
    # one card changed for another card's copy is refused exactly where a third copy results.
    cards = [DECK[i] for i in order]
    dealt = cards[:52]
    if swap is not None:
        place, card = swap
        dealt[place] = CARDS[card]
    hands = {seat.name: [c.code for c in dealt[13 * i:13 * (i + 1)]] for i, seat in enumerate(Seat)}
    copies = Counter(c.index for c in dealt)
    if max(copies.values()) > 2:
        with pytest.raises(FlowerBridgeError):
            Deal.from_hands(hands)
        return
    deal = Deal.from_hands(hands)
    assert Counter(c.index for hand in deal.hands for c in hand) + Counter(c.index for c in deal.undealt) \
        == Counter(c.index for c in DECK)
    assert len(deal.undealt) == 8
