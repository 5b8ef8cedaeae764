"""JSON hand records and session records (FORMATS.md, flowerbridge.records, Session)."""

from __future__ import annotations

import io
import json
import sys

import pytest

from flowerbridge import (PASS, CallSyntaxError, CardCodeError, Deal, DealError, FlowerBridgeError, HandState,
                          IllegalPlayError, OptionError, PhaseError, RecordError, RuleOptions, Seat, Side, parse_call,
                          parse_card, records)
from flowerbridge._load import load_any
from flowerbridge.notation import dumps_all
from flowerbridge.records import HandRecord, replay, to_dict
from flowerbridge.session import Session


def test_formats_record_fields(ch16_record):
    data = to_dict(replay(ch16_record))
    assert list(data) == ["dealer", "hands", "undealt", "auction", "play", "options"]
    assert data["hands"]["S"] == ch16_record["hands"]["S"]  # highest first, as written
    assert data["undealt"] == "11B 8B 8B 3B 3B 1B 1B 1Pa".split()
    assert data["options"] == {"undertrick_penalty": 50, "declarer": "final-bidder"}
    assert data["auction"] == ch16_record["auction"] and data["play"] == ch16_record["play"]


def test_formats_record_round_trips_byte_for_byte_with_unknown_keys_kept(ch16_record):
    text = records.dumps(HandRecord.from_dict({**ch16_record, "event": "club", "board": 3}))
    record = records.loads(text)
    assert record.extra == {"event": "club", "board": 3}
    assert records.dumps(record) == text
    buffer = io.StringIO()
    records.dump(records.load(io.StringIO(text)), buffer)
    assert buffer.getvalue() == text + "\n"


def test_formats_unknown_keys_inside_hands_are_kept_never_an_error(ch16_record):
    # Only N, E, S and W name seats: a player's name under "north" or "s" is a note.
    notes = {"comment": "from the club's dealer", "seen_by": ["N"], "north": "Alice", "s": "Bo",
             "South": ["12B"]}
    hands = {**ch16_record["hands"], **notes}
    text = records.dumps(HandRecord.from_dict({**ch16_record, "hands": hands}))
    record = records.loads(text)
    assert record.hands_extra == notes
    assert json.loads(text)["hands"]["comment"] == "from the club's dealer"
    assert records.dumps(record) == text
    assert replay({**ch16_record, "hands": hands}).deal == replay(ch16_record).deal


def test_formats_undealt_is_optional(ch16_record):
    assert "undealt" not in ch16_record
    assert len(replay(ch16_record).deal.undealt) == 8


def test_formats_undealt_when_present_is_the_8_cards(ch16_record):
    with pytest.raises(RecordError, match=r"^undealt must be an array of strings$"):
        replay({**ch16_record, "undealt": "11B 8B 8B 3B 3B 1B 1B 1Pa"})
    with pytest.raises(FlowerBridgeError, match=r"undealt must be exactly the 8 cards"):
        replay({**ch16_record, "undealt": ["12B"] * 8})


def test_formats_undealt_is_an_array_of_card_code_strings_every_entry(ch16_record):
    undealt = ["11B", "8B", "8B", "3B", "3B", "1B", "1B", 7]
    with pytest.raises(RecordError, match=r"^undealt must be an array of strings$"):
        replay({**ch16_record, "undealt": undealt})


@pytest.mark.parametrize("key", ["undealt", "auction", "play", "options"])
def test_formats_an_optional_key_given_as_null_is_absent(ch16_record, key):
    # JSON writers often give an absent field as null: "undealt": null (optional, FORMATS),
    # "options": null (absent options take the defaults), "auction" and "play" of a hand
    # not yet bid or played. It was "undealt must be an array of strings".
    if key in ("auction", "play"):
        ch16_record["play"] = []
    nulled = {**ch16_record, key: None}
    absent = {k: v for k, v in ch16_record.items() if k != key}
    assert to_dict(replay(nulled)) == to_dict(replay(absent))
    assert to_dict(records.loads(json.dumps(nulled)).state) == to_dict(replay(absent))


def test_formats_a_passed_out_hand_with_play_null_is_read():
    deal = Deal.from_seed(2)
    data = {**to_dict(HandState(deal, Seat.E)), "auction": ["Pass"] * 4, "play": None}
    state = replay(data)
    assert state.is_over and state.contract is None and not state.plays


@pytest.mark.parametrize("option", ["undertrick_penalty", "declarer", "honor_bright"])
def test_formats_an_option_given_as_null_takes_its_default(ch16_record, option):
    # absent options take the defaults (FORMATS); null was "option undertrick_penalty: null
    # is not a non-negative whole number"
    state = replay({**ch16_record, "options": {option: None, "game_points": 200}})
    assert state.options == RuleOptions(game_points=200)
    assert RuleOptions.from_dict({option: None}) == RuleOptions()


def test_formats_a_required_key_given_as_null_is_named(ch16_record):
    with pytest.raises(RecordError, match=r"^dealer must be one of N, E, S, W, not null$"):
        replay({**ch16_record, "dealer": None})
    with pytest.raises(RecordError, match=r"^hands must be an object with keys N, E, S, W "
                                          r"\(each seat's array of card codes\), not null$"):
        replay({**ch16_record, "hands": None})
    # cards played need the auction that made their contract, null or absent
    with pytest.raises(RecordError, match=r"^auction is null, but the record plays cards"):
        replay({**ch16_record, "auction": None})


def test_session_record_null_for_an_optional_key_is_absent(ch16_record):
    session = Session(RuleOptions(undertrick_penalty=30), first_dealer=Seat.S)
    data = json.loads(json.dumps(session.to_dict()))
    # a hand's "options": null takes the session's, as a hand without options does
    hand = {**ch16_record, "options": None, "undealt": None}
    read = Session.from_dict({**data, "max_games": None, "hands": [hand]})
    assert read.hands[0].options == RuleOptions(undertrick_penalty=30)
    read = Session.from_dict({**data, "options": None, "first_dealer": None, "hands": [ch16_record]})
    assert read.options == RuleOptions() and read.first_dealer is Seat.S


def test_formats_auction_is_required_once_cards_are_played(ch16_record):
    # auction: the calls in order. A record of cards played and no auction is not read as
    # an empty one (which blamed the first card: "played before the auction has ended")
    no_auction = {k: v for k, v in ch16_record.items() if k != "auction"}
    with pytest.raises(RecordError, match=r"^missing key 'auction'$"):
        replay(no_auction)
    with pytest.raises(RecordError, match=r"^missing key 'auction'$"):
        replay({**no_auction, "play": "11R"})
    # a hand just dealt may leave out both, or write an empty play
    dealt = {"dealer": "S", "hands": ch16_record["hands"]}
    assert replay(dealt).history == () and replay({**dealt, "play": []}).history == ()


@pytest.mark.parametrize("text, dropped", [
    ('"event": "\\ud800"', "event"),
    ('"notes": {"by": ["Al", "x\\udfff"]}', "notes"),
    ('"source file": "\\udc00"', "source file"),
    ('"\\ud83d": 1', "\ud83d"),
    ('"x": 1e999', "x"),                                  # beyond any float: an infinity
    ('"x": ' + "1" * 4301, "x"),                          # more digits than Python converts
    ('"notes": {"by": 1, "by": 2}', "notes"),             # a name given twice
    ('"x": 1, "x": 2', "x"),
])
def test_formats_an_unknown_key_that_cannot_be_kept_as_written_is_ignored_never_an_error(ch16_record, text,
                                                                                         dropped):
    # FORMATS.md: unknown keys are kept, or ignored -- never an error. One whose value could
    # not be written back as read (a lone surrogate is no Unicode character, records.dump
    # raised UnicodeEncodeError; 1e999 came back as Infinity, no JSON) was refused instead.
    record = json.dumps(ch16_record)[:-1] + ', "event2": "kept", ' + text + "}"
    read = records.loads(record)
    assert read.extra == {"event2": "kept"} and dropped not in read.extra
    assert to_dict(read.state) == to_dict(replay(ch16_record))
    assert json.loads(records.dumps(read))["event2"] == "kept"
    [hand] = load_any(record, "hand.json")
    assert to_dict(hand) == to_dict(replay(ch16_record))
    # among the hands and the options, as at the top
    hands = json.dumps(ch16_record).replace('"hands": {', '"hands": {' + text + ", ", 1)
    assert records.loads(hands).hands_extra == {}
    options = json.dumps({**ch16_record, "options": {}}).replace('"options": {', '"options": {' + text, 1)
    assert records.loads(options).options_extra == {}
    # a pair of surrogates is one character, and kept
    pair = json.dumps(ch16_record)[:-1] + ', "event": "\\ud83c\\udf38"}'
    assert records.loads(pair).extra == {"event": "\U0001f338"}
    records.dump(records.loads(pair), io.StringIO())


def test_formats_an_unknown_key_ignored_under_no_digit_limit_leaves_the_other_numbers_alone(ch16_record,
                                                                                           monkeypatch):
    # sys.set_int_max_str_digits(0) (no limit): every integer was taken as one too long to
    # keep, and the record's other unknown keys were dropped with the one at fault
    monkeypatch.setattr(sys, "get_int_max_str_digits", lambda: 0)
    record = json.dumps(ch16_record)[:-1] + ', "board": 7, "x": 1e999}'
    assert records.loads(record).extra == {"board": 7}


@pytest.mark.parametrize("record, said", [
    (lambda r: json.dumps(r).replace('"dealer"', '"dealer": "S", "dealer"', 1),
     r" at line 1 column \d+: the name 'dealer' appears twice in one object"),
    (lambda r: json.dumps({**r, "options": {}}).replace('"options": {', '"options": {"undertrick_penalty": 1e999', 1),
     r": the number 1e999 is too large to keep"),
    (lambda r: json.dumps(r).replace('"dealer": "S"', '"dealer": "\\ud800"', 1),
     r": the value of dealer holds a lone surrogate"),
    # deep in the record, its place named in full; one in the text itself (a str given to
    # loads, not decoded from a file) as well as its \u escape
    (lambda r: json.dumps(r).replace('"play": ["', '"play": ["\\uDBFF', 1),
     r": the value of play\[0\] holds a lone surrogate \\udbff"),
    (lambda r: json.dumps(r).replace('"play": ["', '"play": ["\udc00', 1),
     r": the value of play\[0\] holds a lone surrogate \\udc00"),
    (lambda r: json.dumps({"hands": [r]})[:-1] + ', "x": 1e999}',
     r": the number 1e999 is too large to keep"),       # a session's keys: no hand record's
])
def test_formats_a_record_field_that_cannot_be_kept_as_written_is_still_refused(ch16_record, record, said):
    text = record(ch16_record)
    with pytest.raises(RecordError, match=r"^JSON that cannot be kept as written" + said):
        load_any(text)
    if '"dealer"' in text:
        with pytest.raises(RecordError, match=r"^JSON that cannot be kept as written" + said):
            records.loads(text)


def test_formats_a_record_in_any_phase_can_be_written_and_read(ch16_record):
    for cut in (0, 3, 8, 9, 30):
        calls, plays = ch16_record["auction"][:cut], ch16_record["play"][:max(0, cut - 8)]
        state = replay({**ch16_record, "auction": calls, "play": plays})
        assert to_dict(records.loads(records.dumps(state)).state) == to_dict(state)


def test_formats_first_illegal_action_is_reported_with_position_and_seat(ch16_record):
    ch16_record["play"][13] = ch16_record["play"][14]
    with pytest.raises(IllegalPlayError, match=r"^play 14 \(W\): "):
        replay(ch16_record)


def test_records_options_argument_overrides_the_record(ch16_record):
    ch16_record["options"] = {"undertrick_penalty": 10}
    assert replay(ch16_record).options.undertrick_penalty == 10
    assert replay(ch16_record, options=RuleOptions()).options.undertrick_penalty == 50


def test_records_an_option_written_as_a_whole_fraction_is_that_number(ch16_record):
    """JSON has one number type: 50.0 is 50 (a JSON writer may well write it so)."""
    ch16_record["options"] = {"undertrick_penalty": 10.0, "honor_bright": [4.0, 2]}
    options = replay(ch16_record).options
    assert options.undertrick_penalty == 10 and type(options.undertrick_penalty) is int
    assert options.honor_bright == (4, 2)
    ch16_record["options"] = {"undertrick_penalty": 10.5}
    with pytest.raises(FlowerBridgeError, match=r"undertrick_penalty: 10.5 is not a non-negative whole"):
        replay(ch16_record)


@pytest.mark.parametrize("data, pattern", [
    ({"dealer": "N", "hands": [], "auction": []}, r"hands must be an object"),
    ({"dealer": 1, "hands": {}}, r"dealer must be one of"),
])
def test_records_malformed_structures(data, pattern):
    with pytest.raises(RecordError, match=pattern):
        replay(data)


def test_records_a_hands_object_without_a_seat_names_the_missing_seat():
    with pytest.raises(FlowerBridgeError, match=r"hands: missing seat N"):
        replay({"dealer": "N", "hands": {"Q": []}})


def test_formats_a_hand_record_without_hands_is_named():
    with pytest.raises(RecordError, match=r"^missing key 'hands'$"):
        replay({"dealer": "N"})


def test_formats_hands_missing_only_north_names_north_and_nothing_else(ch16_record):
    # E, S and W are there: none of them is taken for North
    hands = {seat: cards for seat, cards in ch16_record["hands"].items() if seat != "N"}
    with pytest.raises(DealError, match=r"^hands: missing seat N$"):
        replay({**ch16_record, "hands": hands})


@pytest.mark.parametrize("key", ["n", "North", "north"])
def test_formats_seat_keys_are_upper_case_and_a_lower_case_one_is_said_not_taken(ch16_record, key):
    # FORMATS: seats are N E S W. It was "hands: missing seat N", though the record has an "n"
    hands = {(key if seat == "N" else seat): cards for seat, cards in ch16_record["hands"].items()}
    with pytest.raises(FlowerBridgeError, match=rf"^hands: missing seat N \(a seat's key is exactly N, E, S "
                                                rf"or W, in upper case: '{key}' was not taken as a seat\)$"):
        replay({**ch16_record, "hands": hands})
    # beside the seat itself, such a key is an unknown key, kept (never an error)
    record = HandRecord.from_dict({**ch16_record, "hands": {**ch16_record["hands"], key: "a note"}})
    assert record.hands_extra == {key: "a note"}


@pytest.mark.parametrize("key", ["auction", "play"])
def test_records_auction_and_play_are_arrays_of_strings(ch16_record, key):
    ch16_record[key] = " ".join(ch16_record[key])
    with pytest.raises(RecordError, match=f"{key} must be an array of strings"):
        replay(ch16_record)


# ----------------------------------------------------------------- sessions

def test_session_record_round_trips_and_replays_every_hand(random_hand):
    session = Session(RuleOptions.strict(), first_dealer=Seat.E, max_hands=6)
    seed = 0
    while not session.is_over:
        state = random_hand(seed, options=session.options)
        seed += 1
        if state.dealer is session.next_dealer:
            session.add(state)
    data = session.to_dict()
    assert data["format"] == "flowerbridge-session" and len(data["hands"]) == 6
    again = Session.from_dict(json.loads(json.dumps(data)))
    assert again.to_dict() == data
    assert again.scoresheet() == session.scoresheet()
    assert again.render() == session.render()


@pytest.mark.parametrize("text, message", [
    (b'{"a": 1, "a": 2}', "at line 1 column 10: the name 'a' appears twice"),
    (b"[NaN]", "at line 1 column 2: NaN is not a JSON value"),
    (b"\xff{}", "not JSON: byte 0 is not UTF-8 text"),
    # the name the reader refused, where objects close inside out: not the first repeat in the text
    (b'{"a": 1, "a": 2, "b": {"c": 1, "c": 2}}', "at line 1 column 32: the name 'c' appears twice"),
    # a long fraction is a float of any length: the integer after it is the one refused
    ("[0." + "1" * 5000 + ", " + "2" * 5000 + "]", "at line 1 column 5006: a number has more than"),
    (bytearray(b"1" * 5000), "at line 1 column 1: a number has more than"),
    (7, "JSON is text, not int"),
    (None, "JSON is text, not NoneType"),
])
def test_formats_json_given_as_bytes_or_not_text_is_a_record_error_naming_it(text, message):
    # parse_json took bytes, but found where a fault was by reading them as text: a
    # TypeError, and bytes that are not UTF-8 were said to hold a number too long
    with pytest.raises(RecordError, match=message):
        records.parse_json(text)
    if isinstance(text, (bytes, bytearray)):
        with pytest.raises(RecordError, match=message):
            records.loads(text)


@pytest.mark.parametrize("encode", [lambda t: b"\xef\xbb\xbf" + t.encode(), lambda t: t.encode("utf-16"),
                                    lambda t: t.encode("utf-32-le")], ids=["utf-8-bom", "utf-16", "utf-32"])
def test_formats_json_given_as_bytes_is_read_in_the_encoding_json_readers_detect(ch16_record, encode):
    # bytes were read as UTF-8 alone (a BOM, UTF-16 and UTF-32 refused), where json.loads,
    # and these functions before, took them
    assert to_dict(records.loads(encode(json.dumps(ch16_record))).state) == to_dict(replay(ch16_record))


def test_formats_a_session_record_of_another_format_is_refused_not_rewritten_as_ours(ch16_record):
    # read as a session from its keys, it was written back as "flowerbridge-session"
    with pytest.raises(RecordError, match="format 'flowerbridge-session-v9' is not a session record's "
                                          "\\('flowerbridge-session'\\)"):
        Session.from_dict({"format": "flowerbridge-session-v9", "first_dealer": "S", "hands": [ch16_record]})
    assert Session.from_dict({"first_dealer": "S", "hands": [ch16_record]}).to_dict()["format"] == \
        "flowerbridge-session"


def test_formats_unknown_keys_inside_options_are_kept_by_hand_and_session_records(ch16_record):
    # FORMATS.md: unknown keys are kept when the project reads and writes a record. Those
    # inside "options" were dropped (the options were written back from RuleOptions alone),
    # so a session resumed by `play --resume` lost them from every hand.
    options = {"undertrick_penalty": 0, "declarer": "final-bidder", "x_opt": "keep", "club": {"rule": 7}}
    text = records.dumps(HandRecord.from_dict({**ch16_record, "options": options}))
    record = records.loads(text)
    assert record.options_extra == {"x_opt": "keep", "club": {"rule": 7}}
    assert json.loads(text)["options"] == options
    assert records.dumps(record) == text
    assert record.state.options.undertrick_penalty == 0     # the known ones still read
    data = {"format": "flowerbridge-session", "options": {"undertrick_penalty": 0, "venue_rule": 1},
            "hands": [{**ch16_record, "options": options}]}
    written = Session.from_dict(json.loads(json.dumps(data))).to_dict()
    assert written["options"] == {"undertrick_penalty": 0, "declarer": "final-bidder", "venue_rule": 1}
    assert written["hands"][0]["options"] == options
    assert Session.from_dict(json.loads(json.dumps(written))).to_dict() == written


def test_formats_a_session_records_unknown_keys_and_its_hands_are_kept(ch16_record):
    # FORMATS.md: unknown keys are kept when a record is read and written. A session's hand
    # that carried "Event" lost it (Session kept the HandStates alone), and so did the session
    hand = {**ch16_record, "Event": "Club night", "board": 16,
            "hands": {**ch16_record["hands"], "note": "as dealt"}}
    data = {"format": "flowerbridge-session", "first_dealer": "S", "venue": {"city": "Seoul"},
            "hands": [hand]}
    session = Session.from_dict(json.loads(json.dumps(data)))
    assert session.extra == {"venue": {"city": "Seoul"}}
    written = session.to_dict()
    assert written["venue"] == {"city": "Seoul"}
    assert written["hands"] == [HandRecord.from_dict(hand).to_dict()]
    assert written["hands"][0]["Event"] == "Club night" and written["hands"][0]["hands"]["note"] == "as dealt"
    assert Session.from_dict(json.loads(json.dumps(written))).to_dict() == written
    [record] = session.hand_records()
    assert record.extra == {"Event": "Club night", "board": 16} and record.hands_extra == {"note": "as dealt"}
    assert to_dict(record.state) == to_dict(replay(ch16_record))
    # show reads them with the session's hands (show --notation writes them as tags)
    from flowerbridge._load import load_records
    assert [(r.extra, r.hands_extra) for r in load_records(json.dumps(data))] == [(record.extra, record.hands_extra)]
    # a hand entered by add() carries none, and a session made anew none of its own
    fresh = Session(first_dealer=Seat.S)
    fresh.add(replay(ch16_record))
    assert fresh.extra == {} and fresh.hand_records()[0].extra == {}
    assert fresh.to_dict()["hands"] == [to_dict(replay(ch16_record))]


def test_ruling_r18_a_hand_on_the_scoresheet_stays_as_it_was_entered(ch16_record):
    # The session keeps its own copy: the caller's HandState may go on changing.
    session = Session(first_dealer=Seat.S)
    state = replay(ch16_record)
    session.add(state)
    sheet, data = session.scoresheet(), session.to_dict()
    state.undo()
    assert session.scoresheet() == sheet and session.to_dict() == data
    assert Session.from_dict(json.loads(json.dumps(data))).to_dict() == data


def test_session_record_with_a_bad_hand_names_the_hand_once(ch16_record):
    # The session's first dealer is North; the Chapter 16 hand was dealt by South.
    data = {**Session().to_dict(), "first_dealer": "N", "hands": [ch16_record]}
    with pytest.raises(RecordError, match=r"^hand 1: dealer must be N \(the deal rotates clockwise\), not S"):
        Session.from_dict(data)


def test_session_record_with_an_unfinished_hand_names_the_hand(ch16_record):
    # hand 1 passed out by East, hand 2 the Chapter 16 hand (dealt by South) three cards short
    passed = {**ch16_record, "dealer": "E", "auction": ["Pass"] * 4, "play": []}
    short = {**ch16_record, "play": ch16_record["play"][:-3]}
    data = {**Session().to_dict(), "first_dealer": "E", "hands": [passed, short]}
    with pytest.raises(FlowerBridgeError, match=r"^hand 2: the hand is not finished: 49 of 52 cards played"):
        Session.from_dict(data)


def test_ruling_r19_session_record_longer_than_its_length_names_the_hand_and_the_limit(ch16_record):
    hand = {**ch16_record, "auction": ["Pass"] * 4, "play": []}
    hands = [{**hand, "dealer": seat} for seat in "SWNE"]
    data = {**Session().to_dict(), "first_dealer": "S", "max_hands": 3, "hands": hands}
    with pytest.raises(RecordError, match=r"^hand 4: the session is over \(it was set to 3 hands\) \[R19\]"):
        Session.from_dict(data)
    # and of one hand, in the singular
    data = {**data, "max_hands": 1, "hands": hands[:2]}
    with pytest.raises(RecordError, match=r"^hand 2: the session is over \(it was set to 1 hand\) \[R19\]"):
        Session.from_dict(data)


def test_session_record_with_a_hand_under_other_rule_options_is_refused(ch16_record):
    # a session is played under one set of rule options (R15 here): a hand
    # scored under another would put mixed scores on one sheet
    other = {**ch16_record, "options": {"undertrick_penalty": 0}}
    data = {**Session().to_dict(), "first_dealer": "S", "hands": [other]}
    with pytest.raises(RecordError, match=r"^hand 1: played under other rule options"):
        Session.from_dict(data)


@pytest.mark.parametrize(("change", "message"), [
    ({"first_dealer": "X"}, r"^first_dealer 'X' is not one of N, E, S, W$"),
    ({"first_dealer": 3}, r"^first_dealer must be one of N, E, S, W, not a number$"),
    ({"first_dealer": "north"}, r"^first_dealer 'north' is not one of N, E, S, W$"),
    ({"hands": {"1": {}}}, r"^a session record needs 'hands', an array of hand records$"),
    ({"max_hands": "6"}, r"^max_hands must be a whole number or null$"),
    ({"max_games": True}, r"^max_games must be a whole number or null$"),
])
def test_session_record_fields_of_the_wrong_kind_are_named(change, message):
    data = {**Session().to_dict(), **change}
    with pytest.raises(RecordError, match=message):
        Session.from_dict(data)


def test_session_record_must_be_an_object():
    with pytest.raises(RecordError, match="^a session record is a JSON object$"):
        Session.from_dict([])  # type: ignore[arg-type]


def test_session_record_without_first_dealer_starts_with_its_first_hands_dealer(ch16_record):
    data = {k: v for k, v in Session().to_dict().items() if k != "first_dealer"}
    session = Session.from_dict({**data, "hands": [ch16_record]})  # the Chapter 16 hand: dealt by S
    assert session.first_dealer is Seat.S and session.next_dealer is Seat.W


def test_session_record_without_first_dealer_names_its_first_hands_bad_dealer(ch16_record):
    # the session's first dealer is taken from hand 1: a bad one is hand 1's error, and the
    # message names that hand's dealer, not a first_dealer key the record does not have
    data = {k: v for k, v in Session().to_dict().items() if k != "first_dealer"}
    for dealer, message in (([1], r"^hand 1: dealer must be one of N, E, S, W, not an array$"),
                            ("Q", r"^hand 1: dealer 'Q' is not one of N, E, S, W$")):
        with pytest.raises(RecordError, match=message):
            Session.from_dict({**data, "hands": [{**ch16_record, "dealer": dealer}]})
    with pytest.raises(RecordError, match=r"^hand 1: missing key 'dealer'$"):
        Session.from_dict({"hands": [{k: v for k, v in ch16_record.items() if k != "dealer"}]})


@pytest.mark.parametrize("dealer", ["w", "West", " W ", " west\n", "WEST"])
def test_formats_a_dealer_is_exactly_one_of_the_seat_letters(ch16_record, dealer):
    # FORMATS: seats are N E S W, as the keys of hands are ("n" there is no seat);
    # "dealer": " west\n" was read as West
    with pytest.raises(RecordError, match=r"^dealer .* is not one of N, E, S, W$"):
        replay({**ch16_record, "dealer": dealer})


def test_formats_an_entry_of_auction_or_play_that_is_no_string_is_named_by_position_and_seat(ch16_record):
    # "auction must be an array of strings" did not say which entry
    auction, second = list(ch16_record["auction"]), Seat[ch16_record["dealer"]].lho
    with pytest.raises(CallSyntaxError, match=rf'^call 2 \({second.name}\): a call is a string such as "1P" or '
                                              r'"Pass", not a number$'):
        replay({**ch16_record, "auction": [auction[0], 7, *auction[2:]], "play": []})
    play = list(ch16_record["play"])
    leader = replay({**ch16_record, "play": []}).turn
    with pytest.raises(CardCodeError, match=rf'^play 1 \({leader.name}\): a card is a code such as "12B", '
                                            r"not null$"):
        replay({**ch16_record, "play": [None, *play[1:]]})
    with pytest.raises(RecordError, match=r"^play must be an array of strings$"):
        replay({**ch16_record, "play": "12B"})


def test_r8_an_entry_after_the_auction_ended_that_is_no_string_names_the_next_caller(ch16_record):
    # the seat named was the opening leader's (the one whose turn it is once the auction is
    # over), not the seat that would call next, as a string there is named
    auction = ch16_record["auction"]
    after = Seat[ch16_record["dealer"]]
    for _ in auction:
        after = after.lho
    assert after is not replay({**ch16_record, "play": []}).turn      # (the two differ here)
    with pytest.raises(PhaseError, match=rf"^call {len(auction) + 1} \({after.name}\): Pass comes after "):
        replay({**ch16_record, "auction": [*auction, "Pass"], "play": []})
    with pytest.raises(CallSyntaxError, match=rf"^call {len(auction) + 1} \({after.name}\): a call is a string "):
        replay({**ch16_record, "auction": [*auction, 5], "play": []})


def test_a_call_or_card_that_is_no_string_is_refused_by_the_engine_as_by_the_record():
    hand = HandState(Deal.from_seed(7, 1), dealer=Seat.N)
    with pytest.raises(CallSyntaxError, match=r'^call 1 \(N\): a call is a string such as "1P" or "Pass", not an array$'):
        hand.call(["1A"])
    assert parse_call("pass") == PASS
    with pytest.raises(CardCodeError, match=r'^a card is a code such as "12B", not a number$'):
        parse_card(12)
    assert hand.calls == ()


def test_formats_a_large_number_in_an_unknown_key_is_kept_as_written(ch16_record):
    # (one beyond any float is ignored: see the test above)
    kept = records.loads(json.dumps(ch16_record)[:-1] + ', "x": 1.5e300}')
    assert records.loads(records.dumps(kept)).to_dict()["x"] == 1.5e300


def test_formats_a_hand_record_whose_hands_is_an_array_is_no_session(ch16_record):
    # hands: an object of seats. Written as an array of four holdings, the record is still a
    # hand record (a session's hands are hand records, objects), and its error is the hand's
    arrays = {**ch16_record, "hands": [ch16_record["hands"][s] for s in "NESW"]}
    with pytest.raises(RecordError, match=r"^hands must be an object with keys N, E, S, W "
                                          r"\(each seat's array of card codes\), not an array$"):
        load_any(json.dumps(arrays))
    with pytest.raises(RecordError, match=r"^hands must be an object with keys N, E, S, W "):
        load_any(json.dumps({**ch16_record, "hands": []}))
    # a session says so, or holds hand records
    for session in ({"format": "flowerbridge-session", "hands": [ch16_record]}, {"hands": [ch16_record]}):
        assert [to_dict(s) for s in load_any(json.dumps(session))] == [to_dict(replay(ch16_record))]
    with pytest.raises(RecordError, match=r"^hand 2: a hand record is a JSON object, not an array$"):
        load_any(json.dumps({"hands": [ch16_record, []]}))
    # a hand record is one whatever unknown keys it carries, a "format" that names a session too
    tagged = {**ch16_record, "format": "flowerbridge-session"}
    assert [to_dict(s) for s in load_any(json.dumps(tagged))] == [to_dict(replay(ch16_record))]


@pytest.mark.parametrize("data, session", [
    ({"format": "flowerbridge-session", "hands": []}, True),
    ({"hands": [{"dealer": "N"}]}, True),                        # its hands are hand records
    ({"hands": [], "max_hands": 4}, True),                       # a session's own key
    ({"hands": [{"N": []}], "first_dealer": "N"}, True),
    ({"dealer": "S", "hands": [{"N": [], "E": [], "S": [], "W": []}]}, False),  # a hand's own key
    ({"auction": [], "hands": [{"dealer": "N"}]}, False),
    ({"hands": [{"N": [], "E": [], "S": [], "W": []}]}, False),  # no entry is a hand record
    ({"hands": {"N": []}, "format": "flowerbridge-session"}, False),
])
def test_session_record_is_told_by_its_format_or_its_own_keys(data, session):
    from flowerbridge.session import is_session_record

    assert is_session_record(data) is session


def test_formats_a_hand_record_whose_hands_is_a_list_of_seats_is_no_session(ch16_record):
    # (load_any read it as a session: "hand 1: missing key 'dealer'")
    damaged = {**ch16_record, "hands": [ch16_record["hands"]]}
    with pytest.raises(RecordError, match=r"^hands must be an object with keys N, E, S, W .*, not an array$"):
        load_any(json.dumps(damaged))


def test_load_any_reads_json_hands_json_sessions_and_text(random_hand, ch16_record):
    state = replay(ch16_record)
    assert [to_dict(s) for s in load_any(json.dumps(ch16_record))] == [to_dict(state)]
    hands = [random_hand(seed) for seed in (3, 4)]
    assert [to_dict(s) for s in load_any(dumps_all(hands))] == [to_dict(h) for h in hands]
    session = Session(first_dealer=state.dealer)
    session.add(state)
    assert [to_dict(s) for s in load_any(json.dumps(session.to_dict()))] == [to_dict(state)]
    with pytest.raises(RecordError, match="a hand record is a JSON object"):
        load_any("[1, 2]")


@pytest.mark.parametrize("text, pattern", [
    ("[Event Flower]\n", r"^noquote\.fbn, line 1: malformed tag '\[Event Flower\]': expected \[Name \"value\"\]$"),
    ("[Event]\n", r"^noquote\.fbn, line 1: malformed tag '\[Event\]'"),
    ("  [Event 'x']\n[Dealer \"S\"]\n", r"^noquote\.fbn, line 1: malformed tag \"\[Event 'x'\]\""),
    ("[ Dealer]", r"^noquote\.fbn, line 1: malformed tag '\[ Dealer\]'"),
    ("[nullable]", r"^noquote\.fbn, line 1: malformed tag"),
])
def test_load_any_a_malformed_tag_on_the_first_line_is_the_notations_error(text, pattern):
    # "[Event Flower]" on line 1 was "malformed JSON at line 1 column 2 of noquote.fbn: Expecting
    # value", on line 3 "line 3: malformed tag": "[" and a letter open the notation, never JSON
    with pytest.raises(RecordError, match=pattern):
        load_any(text, "noquote.fbn")


@pytest.mark.parametrize("text, pattern", [
    ("[true]", "a hand record is a JSON object, not an array"),
    ("[ null, 1]", "a hand record is a JSON object, not an array"),
    ("[\n  false\n]", "a hand record is a JSON object, not an array"),
    ("[]", "a hand record is a JSON object, not an array"),
    ("[-1]", "a hand record is a JSON object, not an array"),
    ("[NaN]", r"x\.json: malformed JSON at line 1 column 2: NaN is not a JSON value"),
    ("[truth", r"malformed tag '\[truth'"),
])
def test_load_any_json_arrays_of_literals_are_still_json(text, pattern):
    with pytest.raises(RecordError, match=pattern):
        load_any(text, "x.json")


@pytest.mark.parametrize("text, where, what", [
    ('{"dealer": "N\x01"}', "line 1 column 14", r"control character U\+0001 inside a string \(write it as "
                                                  r"\\u0001\)"),
    ('{"dealer": "N",\n "x": "\tNaN"}', "line 2 column 8", r"control character U\+0009 inside a string \(write it as "
                                                         r"\\t\)"),
    ('{"dealer": "NaN \\" Infinity",\n "x": [1,  -Infinity]}', "line 2 column 12", "-Infinity is not a JSON value"),
])
def test_formats_json_error_says_where_and_names_what_is_wrong(text, where, what):
    # a control character in a string was "Invalid control character at", cut off; NaN
    # and Infinity had no line or column, unlike every other JSON error
    with pytest.raises(RecordError, match=rf"^x\.json: malformed JSON at {where}: {what}$"):
        load_any(text, "x.json")


@pytest.mark.parametrize("text", ["[" * 100_000, "[" * 100_000 + "]" * 100_000,
                                  '{"dealer": "N", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"],
                         ids=["open", "closed", "under-an-unknown-key"])
def test_formats_json_nested_too_deeply_is_a_record_error_naming_the_file(text):
    # records.loads raised RecursionError (no FlowerBridgeError), and show said "the input is
    # nested too deeply to read", naming no file
    with pytest.raises(RecordError, match=r"^deep\.json: unreadable JSON: arrays or objects nested "
                                          r"too deeply \(deeper than Python's JSON reader goes\)$"):
        load_any(text, "deep.json")
    with pytest.raises(RecordError, match=r"^unreadable JSON: arrays or objects nested too deeply"):
        records.loads(text)


@pytest.mark.parametrize("depth", [5, 600, 5000])
def test_formats_an_option_nested_deeper_than_any_option_is_an_option_error(depth):
    # a list ~500 deep in "options" raised RecursionError from the whole-number pass
    value: object = [50]
    for _ in range(depth):
        value = [value]
    with pytest.raises(OptionError, match=r"^option honor_bright: .* is not a non-negative whole number list$"):
        RuleOptions.from_dict({"honor_bright": value})
    assert RuleOptions.from_dict({"honor_bright": [4.0, 2.0]}).honor_bright == (4, 2)


def test_session_record_hands_without_options_are_played_under_the_sessions():
    # R15 set to 0 for the session; its hands, written without options, take it:
    # North-South's 7NT fails with no penalty to East-West.
    options = RuleOptions(undertrick_penalty=0)
    deal = Deal.from_hands({
        "N": "3B 3B 1B 1B 8A 8A 7A 7A 6A 6A 5A 5A 2A",
        "S": "2A 11P 11P 10P 10P 9P 9P 6P 6P 5P 5P 4P 4P",
        "E": "11R 11R 10R 10R 9R 9R 7R 7R 6R 6R 5R 5R 4R",
        "W": "4R 3R 3R 2R 2R 3P 3P 2P 2P 1Pb 1Pb 1Pa 1Pa",
    })
    state = HandState(deal, Seat.N, options)
    for call in ("7NT", "Pass", "Pass", "Pass"):
        state.call(call)
    while not state.is_over:
        state.play(state.legal_cards()[0])
    assert state.score().result < 0
    data = json.loads(json.dumps(Session(options).to_dict()))
    hand = json.loads(records.dumps(state))
    del hand["options"]
    session = Session.from_dict({**data, "hands": [hand]})
    assert session.hands[0].options == options
    assert not [i for i in session.scores[0].items if i.rule == "R15" and i.points]
    assert session.above_total(Side.EW) == session.scores[0].honors(Side.EW)



LONG = "x" * 200_000


def test_json_record_an_error_quotes_a_long_dealer_cut_short(ch16_record):
    # the dealer's whole value was echoed: an error line of 200,000 characters
    with pytest.raises(FlowerBridgeError, match=r"dealer 'x{30}'\.\.\. \(200,000 characters\) is not one "
                                                r"of N, E, S, W") as refused:
        HandRecord.from_dict({**ch16_record, "dealer": LONG})
    assert len(str(refused.value)) < 200


@pytest.mark.parametrize("change, said", [
    ({"format": LONG}, r"format 'x{30}'\.\.\. \(200,000 characters\) is not a session record's"),
    ({"first_dealer": LONG}, r"first_dealer 'x{30}'\.\.\. \(200,000 characters\) is not one of"),
])
def test_session_record_an_error_quotes_a_long_value_cut_short(change, said):
    with pytest.raises(FlowerBridgeError, match=said) as refused:
        Session.from_dict({**Session().to_dict(), **change})
    assert len(str(refused.value)) < 200


@pytest.mark.parametrize("length, said", [
    (LONG, r"'x{30}'\.\.\. \(200,000 characters\)"),
    ([1] * 100_000, r"\[1, 1, 1, 1, 1, 1, 1, 1, 1, 1,\.\.\. \(300,000 characters\)")])
def test_session_a_length_that_is_no_whole_number_is_quoted_cut_short(length, said):
    with pytest.raises(FlowerBridgeError, match=r"a session's length in hands is a whole number, not " + said):
        Session(max_hands=length)
