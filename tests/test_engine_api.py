"""The engine's Python API as a program outside the package calls it.

Seats, sides and denominations are taken as records write them ("N", "EW", "NT");
an argument the engine cannot use is refused at once with the package's own error,
naming it, and the hand it was given to is left as it was. (A review wrote programs
against docs/rules-engine.md and met ``ValueError: 'N' is not a valid Seat``,
``AttributeError`` from a dict given as options, a hand left unable to end its
auction, and deals that differed for ``7`` and ``numpy.int64(7)``.)
"""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from flowerbridge import notation, records
from flowerbridge.bots.base import RandomBot, play_hand
from flowerbridge.bots.bidding import explain_call
from flowerbridge.calls import Denomination, parse_call
from flowerbridge.cards import parse_card, parse_cards
from flowerbridge.contract import Contract
from flowerbridge.dealing import Deal
from flowerbridge.errors import (BotError, CallSyntaxError, CardCodeError, DealError, FlowerBridgeError,
                                 OptionError, RecordError)
from flowerbridge.options import RuleOptions
from flowerbridge.scoring import bright_bonus, contract_points, honor_points, score_contract
from flowerbridge.seats import Seat, Side
from flowerbridge.session import Session
from flowerbridge.state import HandState


def test_seats_and_sides_are_taken_as_records_write_them():
    assert [Seat("N"), Seat("e"), Seat("south"), Seat(" West ")] == [Seat.N, Seat.E, Seat.S, Seat.W]
    assert [Side("NS"), Side("ew")] == [Side.NS, Side.EW]
    hand = HandState(Deal.from_seed(3), dealer="E")
    assert hand.dealer is Seat.E and hand.turn is Seat.E
    assert hand.can_call("1A", seat="E") and not hand.can_call("1A", seat="N")
    hand.call("1A", seat="E")
    assert hand.remaining("N") == hand.remaining(Seat.N) == hand.deal.hands[Seat.N]
    assert hand.observation("S").seat is Seat.S
    assert Session(first_dealer="W").next_dealer is Seat.W
    done = play_hand(HandState(Deal.from_seed(3)), [RandomBot(2)] * 4)     # four bots in seat order
    ns, ew = done.captured("NS"), done.captured("EW")
    assert len(done.tricks) == 13 and len(ns) + len(ew) == 52       # (a hand played out)
    assert (ns, ew) == (done.captured(Side.NS), done.captured(Side.EW))
    with pytest.raises(FlowerBridgeError, match="^unknown side 5"):
        done.captured(5)


@pytest.mark.parametrize("make, named", [
    (lambda: Seat(7), "unknown seat 7"),
    (lambda: Seat("X"), "unknown seat 'X'"),
    (lambda: Seat(None), "unknown seat None"),
    (lambda: Seat("NS"), "unknown seat 'NS'"),
    (lambda: Side("N"), "unknown side 'N'"),
    (lambda: Side(2), "unknown side 2"),
    (lambda: HandState(Deal.from_seed(1)).remaining(7), "unknown seat 7"),
    (lambda: Denomination("Z"), "unknown denomination 'Z'"),
    # an IntEnum looks a value up by ==: 1.0 and True were East, 0.0 North-South
    (lambda: Seat(1.0), "unknown seat 1.0"),
    (lambda: Seat(True), "unknown seat True"),
    (lambda: Side(0.0), "unknown side 0.0"),
    (lambda: HandState(Deal.from_seed(1), dealer=2.0), "unknown seat 2.0"),
    (lambda: HandState(Deal.from_seed(1)).take_back("X"), "unknown seat 'X'"),
    (lambda: Deal.from_seed(1).hand(5), "unknown seat 5"),
    # (None or a record's dict as the deal failed inside with AttributeError)
    (lambda: HandState(None), "deal must be a Deal, not NoneType"),
    (lambda: HandState(Deal.from_seed(1).to_dict()), "deal must be a Deal, not dict"),
])
def test_an_unknown_seat_side_or_denomination_is_the_packages_error_naming_it(make, named):
    with pytest.raises(FlowerBridgeError) as refused:
        make()
    assert str(refused.value).startswith(named)


def test_a_seat_given_by_its_letter_or_number_is_that_seat_everywhere():
    # take_back compared the seat with `is`: "E" (or 1) matched nothing and took nothing
    # back, silently; Deal.hand("N") was a TypeError
    hand = HandState(Deal.from_seed(7, 1))
    for call in ["1A", "Pass", "3A", "Pass", "4A", "Pass", "Pass", "Pass"]:
        hand.call(call)
    hand.play(hand.legal_cards()[0])
    by_seat = hand.copy().take_back(Seat.E)
    assert len(by_seat) == 1 and by_seat[0].seat is Seat.E
    assert hand.copy().take_back("E") == hand.copy().take_back(1) == by_seat
    assert hand.deal.hand("N") == hand.deal.hand(0) == hand.deal.hand(Seat.N) == hand.deal.hands[0]


def test_a_deals_hands_are_keyed_by_seat_letters_and_any_other_key_is_named():
    # another key was dropped unread; "north" and "n" were taken for a missing seat
    hands = Deal.from_seed(2).to_dict()["hands"]
    assert Deal.from_hands({Seat[k]: v for k, v in hands.items()}) == Deal.from_hands(hands) == Deal.from_seed(2)
    for given, named in [({**hands, "X": ["12B"]}, "hands: unknown seat 'X': the keys are N, E, S and W"),
                         ({("north" if k == "N" else k): v for k, v in hands.items()}, "hands: unknown seat 'north'"),
                         ({**hands, Seat.N: hands["N"]}, "hands: seat N given twice"),
                         ([hands["N"]] * 4, "hands: a mapping of seats to cards, not an array")]:
        with pytest.raises(DealError) as refused:
            Deal.from_hands(given)
        assert str(refused.value).startswith(named)


def test_records_write_a_hand_record_as_its_hand_and_read_an_open_file_of_either_kind(tmp_path):
    # to_dict took only a HandState (AttributeError for a HandRecord, which dumps writes);
    # load("h.json") was AttributeError: 'str' object has no attribute 'read'
    text = records.dumps(HandState(Deal.from_seed(4)))
    kept = records.loads(text.replace('"dealer"', '"event": "club night",\n  "dealer"'))
    assert records.to_dict(kept) == json.loads(records.dumps(kept))
    assert records.to_dict(kept)["event"] == "club night"
    (tmp_path / "h.json").write_text(text, encoding="utf-8")
    with open(tmp_path / "h.json", "rb") as binary:
        assert records.to_dict(records.load(binary)) == json.loads(text)
    with pytest.raises(RecordError, match="^load reads an open file, not str \\(a file's name: open it first"):
        records.load(str(tmp_path / "h.json"))
    with pytest.raises(RecordError, match="^a hand record to write is a HandRecord or a HandState, not dict"):
        records.to_dict(json.loads(text))


def test_options_that_are_not_rule_options_are_refused_at_once_and_change_nothing():
    # A dict as options was kept, and failed with AttributeError at the auction's end,
    # after the fourth call was recorded: the hand took a fifth call and never ended.
    deal = Deal.from_seed(1)
    with pytest.raises(OptionError, match="options must be RuleOptions, not dict"):
        HandState(deal, options={"declarer": "first-named"})
    with pytest.raises(OptionError, match="not dict"):
        Session(options={"undertrick_penalty": 0})
    text = records.dumps(records.HandRecord(HandState(deal)))
    with pytest.raises(OptionError, match="not str"):
        records.loads(text, options="strict")
    with pytest.raises(OptionError, match="not dict"):
        score_contract(Contract(1, "P", "N"), (7, 6), ([], []), {"undertrick_penalty": 0})
    # RuleOptions themselves are taken, and the hand ends its auction as the rules say
    hand = HandState(deal, options=RuleOptions(declarer="first-named"))
    for call in ["1A", "Pass", "Pass", "Pass"]:
        hand.call(call)
    assert hand.phase.name == "PLAY" and len(hand.calls) == 4


def test_a_deals_seed_is_a_whole_number_or_a_string_and_numpys_numbers_deal_as_pythons():
    assert Deal.from_seed(np.int64(7), np.int32(2)) == Deal.from_seed(7, 2)
    assert Deal.from_seed("7") != Deal.from_seed(7)     # a string is its own seed, as documented
    assert Deal.from_seed(7, 2) != Deal.from_seed(7, 3)
    for seed, board, named in [(7.0, 0, "seed must be a whole number or a string, not 7.0"),
                               (None, 0, "seed must be a whole number or a string, not None"),
                               (True, 0, "seed must be a whole number or a string, not True"),
                               ([7], 0, "seed must be a whole number or a string, not [7]"),
                               (7, "1", "board must be a whole number, not '1'"),
                               (7, 1.0, "board must be a whole number, not 1.0")]:
        with pytest.raises(DealError) as refused:
            Deal.from_seed(seed, board)
        assert str(refused.value).startswith(named)


def test_a_contract_is_checked_when_made_and_takes_its_parts_as_records_write_them():
    contract = Contract(4, "A", "S")
    assert contract == Contract(4, Denomination.A, Seat.S)
    assert (contract.dummy, contract.opening_leader, str(contract)) == (Seat.N, Seat.W, "4A by S")
    assert pickle.loads(pickle.dumps(contract)) == contract
    assert str(contract._replace(level=5)) == "5A by S" and contract._replace(denomination="NT").code == "4NT"
    assert Contract(np.int64(3), "NT", "N") == Contract(3, "NT", "N")
    with pytest.raises(FlowerBridgeError, match="level is from 1 to 7, not 9"):
        contract._replace(level=9)      # (NamedTuple's _make skipped the checks)
    for args, error, named in [((8, "A", "S"), FlowerBridgeError, "a contract's level is from 1 to 7, not 8"),
                               ((0, "A", "S"), FlowerBridgeError, "a contract's level is from 1 to 7, not 0"),
                               ((True, "A", "S"), FlowerBridgeError, "a contract's level is from 1 to 7, not True"),
                               ((4, 5, "S"), CallSyntaxError, "unknown denomination 5"),
                               ((4, "A", "X"), FlowerBridgeError, "unknown seat 'X'")]:
        with pytest.raises(error) as refused:
            Contract(*args)
        assert str(refused.value).startswith(named)


def test_ch13_ch14_scoring_helpers_take_card_codes_and_refuse_impossible_values():
    assert honor_points(["11B", "11B"]) == 6 and honor_points(["7A", "7A", "7R", "7R"]) == 5
    assert honor_points("11B 11B") == 6 and bright_bonus("1B 3B 8B 11B 12B") == 25
    assert bright_bonus(["1B", "3B", "8B", "11B", "12B"]) == 25
    assert contract_points(3, "NT") == contract_points(3, Denomination.NT) == 100
    with pytest.raises(FlowerBridgeError, match="level is from 1 to 7, not 0"):
        contract_points(0, Denomination.NT)
    with pytest.raises(FlowerBridgeError, match="level is from 1 to 7, not 9"):
        contract_points(9, Denomination.NT)
    with pytest.raises(FlowerBridgeError, match=r"adding up to 13 at most, not \(14, 3\)"):
        score_contract(Contract(4, "A", "S"), (14, 3), ([], []))
    with pytest.raises(FlowerBridgeError, match=r"not \(5, -1\)"):
        score_contract(Contract(4, "A", "S"), (5, -1), ([], []))
    numpy_tricks = score_contract(Contract(4, "A", "S"), (np.int64(10), np.int64(3)), ([], []))
    assert numpy_tricks.total(Side.NS) == 120 and type(numpy_tricks.tricks[0]) is int    # (JSON-ready)
    assert score_contract(Contract(4, "A", "S"), np.array([10, 3]), ([], [])).total(Side.NS) == 120


def test_a_card_compared_with_what_is_no_card_is_pythons_type_error_and_names_take_a_known_language():
    card = parse_card("11B")
    with pytest.raises(TypeError, match="'<' not supported between instances of 'Card' and 'int'"):
        card < 5    # noqa: B015 -- the comparison is what is tested
    # a str has an .index (a method): '<' between 'int' and 'builtin_function_or_method'
    for other in ("abc", [1]):
        with pytest.raises(TypeError, match=f"'>=' not supported between instances of 'Card' and '{type(other).__name__}'"):
            card >= other    # noqa: B015
    assert sorted([parse_card("3P"), parse_card("11B"), parse_card("1Pb")]) == [
        parse_card("1Pb"), parse_card("3P"), parse_card("11B")]
    assert [card.label(language) for language in ("en", "ja", "ko")] == [card.name, card.name_ja, card.name_ko]
    with pytest.raises(FlowerBridgeError, match=r"^unknown language 'fr': expected en, ja or ko$"):
        card.label("fr")


@pytest.mark.parametrize("call, error, named", [
    (lambda: parse_cards(None), CardCodeError, "cards are a string of codes or a sequence of cards, not None"),
    (lambda: records.loads(None), RecordError, "a JSON hand record is text, not NoneType"),
    (lambda: records.dumps("x"), RecordError, "a hand record to write is a HandRecord or a HandState, not str"),
    (lambda: notation.loads(None), RecordError, "a hand in the text notation is a string, not NoneType"),
    (lambda: notation.dumps(None), RecordError, "a hand record to write is a HandRecord or a HandState, not NoneType"),
    (lambda: Session(max_hands="3"), RecordError, "a session's length in hands is a whole number, not '3'"),
    (lambda: Session(max_games=2.5), RecordError, "a session's length in games is a whole number, not 2.5"),
    (lambda: explain_call([("N", "1P")], 1), FlowerBridgeError,
     "no call 1 in an auction of 1 (the first is 0, the last -1)"),
    (lambda: score_contract(Contract(1, "P", "N"), 7, ([], [])), FlowerBridgeError,
     "tricks must be two whole numbers (NS, EW) adding up to 13 at most, not 7"),
    (lambda: play_hand(HandState(Deal.from_seed(1)), None), BotError,
     "bots: a mapping of each seat to its bot, four bots in seat order (N, E, S, W) or a function "
     "of the seat, not NoneType"),
])
def test_a_bad_argument_to_records_sessions_and_explanations_is_the_packages_error_naming_it(call, error, named):
    # each was a TypeError or AttributeError from inside the package, or (2.5 hands) taken
    # and then refused when the session's own record was read back
    with pytest.raises(error) as refused:
        call()
    assert str(refused.value) == named


def test_records_and_explanations_take_what_records_write():
    assert notation.format_holding(["12B", "9R"]) == notation.format_holding(parse_cards("12B 9R")) == "12B / 9R / -"
    hand = HandState(Deal.from_seed(2))
    assert records.loads(records.dumps(hand).encode()).state.deal == hand.deal
    assert explain_call([("N", "1P")], 0) == explain_call([(Seat.N, parse_call("1P"))], 0)
    assert explain_call([("N", "1P"), ("E", "Pass")], -2) == explain_call([("N", "1P")], 0)
    assert explain_call([("N", "1P")], 0).startswith("opening: 5+ Plains")


def test_a_hands_history_calls_and_tricks_change_only_through_the_rules():
    # They were the engine's own lists: a caller could append a call or drop a trick
    # behind the rules' back (state.calls.append(...)), leaving the hand inconsistent.
    state = HandState(Deal.from_seed(7, 1), dealer=Seat.N)
    for call in ["1A", "Pass", "Pass", "Pass"]:
        state.call(call)
    state.play(state.legal_cards()[0])
    views = state.history, state.calls, state.tricks
    assert [len(v) for v in views] == [5, 4, 0] and all(isinstance(v, tuple) for v in views)
    for view in views:
        with pytest.raises(AttributeError):
            view.append(view[0] if view else None)     # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        state.history = ()      # type: ignore[misc]
    while not state.is_over:
        state.play(state.legal_cards()[0])
    assert len(state.tricks) == 13 and len(views[2]) == 0     # a view is of its moment
    state.undo()
    assert len(state.tricks) == 12 and len(state.history) == 4 + 51


def test_a_hands_deal_dealer_options_phase_and_contract_change_only_through_the_rules():
    # they were writable: after `hand.contract = None` a card was still played, and
    # `hand.phase = Phase.FINISHED` scored a hand never bid nor played
    from flowerbridge.options import RuleOptions
    from flowerbridge.state import Phase

    hand = HandState(Deal.from_seed(1, 1), Seat.N)
    for call in ("1A", "Pass", "Pass", "Pass"):
        hand.call(call)
    before = hand.copy()
    for name, value in (("deal", Deal.from_seed(2, 1)), ("dealer", Seat.S), ("options", RuleOptions.strict()),
                        ("phase", Phase.FINISHED), ("contract", None)):
        with pytest.raises(AttributeError):
            setattr(hand, name, value)
    assert (hand.deal, hand.dealer, hand.options, hand.phase, hand.contract) == (
        before.deal, before.dealer, before.options, Phase.PLAY, before.contract)
    assert hand.contract is not None and hand.contract.code == "1A"
