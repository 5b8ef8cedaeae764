"""``flowerbridge score`` against FORMATS.md: output, flags and every bad-input class."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


CH16_SCORE = {
    "contract": "4A", "declarer": "S",
    "tricks": {"NS": 11, "EW": 2},
    "below": {"NS": 120, "EW": 0},
    "above": {"NS": 70, "EW": 5},
    "honors": {"NS": 40, "EW": 5},
    "bright_bonus": {"NS": 0, "EW": 0},
}


def run_score(cli, tmp_path: Path, record, *flags: str) -> tuple[int, str, str]:
    """Run ``flowerbridge score`` on ``record`` (a dict, or raw text) written to a file."""
    path = tmp_path / "hand.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record), encoding="utf-8")
    return cli("score", str(path), *flags)


def score_of(cli, tmp_path, record, *flags) -> dict:
    status, out, err = run_score(cli, tmp_path, record, *flags)
    assert (status, err) == (0, "")
    assert out.count("\n") == 1  # one JSON object on one line
    return json.loads(out)


# ------------------------------------------------------------------ output

def test_formats_score_of_the_ch16_example(cli, tmp_path, ch16_record):
    data = score_of(cli, tmp_path, ch16_record)
    assert {k: data[k] for k in CH16_SCORE} == CH16_SCORE


def test_formats_above_is_overtricks_penalties_honors_and_bonus(cli, tmp_path, ch16_record):
    data = score_of(cli, tmp_path, ch16_record)
    for side in ("NS", "EW"):
        overtricks_and_penalties = sum(i["points"] for i in data["breakdown"]
                                       if i["side"] == side and i["rule"] in ("R14", "R15"))
        assert data["above"][side] == (overtricks_and_penalties + data["honors"][side]
                                       + data["bright_bonus"][side])


def test_formats_passed_out_hand_prints_nulls_and_zeros(cli, tmp_path, ch16_record):
    ch16_record.update(auction=["Pass"] * 4, play=[])
    data = score_of(cli, tmp_path, ch16_record)
    assert data["contract"] is None and data["declarer"] is None
    assert data["result"] is None       # (README: no contract, no result; 0 would read as made exactly)
    for key in ("tricks", "below", "above", "honors", "bright_bonus"):
        assert data[key] == {"NS": 0, "EW": 0}


def test_formats_unknown_keys_are_ignored(cli, tmp_path, ch16_record):
    ch16_record.update(event="Club night", board=3, notes={"any": ["thing"]})
    assert {k: v for k, v in score_of(cli, tmp_path, ch16_record).items()
            if k in CH16_SCORE} == CH16_SCORE


def test_formats_undealt_when_present_is_checked(cli, assert_cli_error, tmp_path, ch16_record):
    ch16_record["undealt"] = "11B 8B 8B 3B 3B 1B 1B 1Pa".split()
    assert score_of(cli, tmp_path, ch16_record)["below"]["NS"] == 120
    ch16_record["undealt"][0] = "12B"
    assert_cli_error(run_score(cli, tmp_path, ch16_record), r"undealt must be exactly")


def test_formats_codes_and_calls_are_case_insensitive(cli, tmp_path, ch16_record):
    ch16_record["hands"] = {s: [c.lower() for c in cards] for s, cards in ch16_record["hands"].items()}
    ch16_record["auction"] = [c.lower() for c in ch16_record["auction"]]
    ch16_record["play"] = [c.lower() for c in ch16_record["play"]]
    assert score_of(cli, tmp_path, ch16_record)["contract"] == "4A"


def test_formats_standard_input_with_a_dash(cli, monkeypatch, ch16_record):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(ch16_record)))
    status, out, err = cli("score", "-")
    assert (status, err) == (0, "") and json.loads(out)["above"] == CH16_SCORE["above"]


# ------------------------------------------------------------------- flags

def failed_7a(record: dict) -> dict:
    # The same cards and play, but South bid on to 7A: 11 tricks, two down.
    record["auction"] = "1A Pass 3A Pass 7A Pass Pass Pass".split()
    return record


def test_ruling_r15_default_penalty_from_the_record(cli, tmp_path, ch16_record):
    data = score_of(cli, tmp_path, failed_7a(ch16_record))
    assert data["below"] == {"NS": 0, "EW": 0}
    assert data["above"] == {"NS": 40, "EW": 2 * 50 + 5}


@pytest.mark.parametrize("penalty, above_ew", [("0", 5), ("30", 65)])
def test_flag_undertrick_penalty_overrides_the_record(cli, tmp_path,
                                                      ch16_record, penalty, above_ew):
    record = failed_7a(ch16_record)
    record["options"] = {"undertrick_penalty": 50}
    data = score_of(cli, tmp_path, record, "--undertrick-penalty", penalty)
    assert data["above"]["EW"] == above_ew


@pytest.mark.parametrize("flag, bad", [("--undertrick-penalty", {"undertrick_penalty": "fifty"}),
                                       ("--declarer", {"declarer": "the loudest"})])
def test_flag_overrides_a_records_bad_option_value(cli, tmp_path, ch16_record, flag, bad):
    # FORMATS.md: the flags override the record's options, so the value overridden
    # is not read: the record scores (without the flag it is refused, naming the option)
    record = failed_7a(ch16_record)
    record["options"] = bad
    value = "0" if flag == "--undertrick-penalty" else "final-bidder"
    data = score_of(cli, tmp_path, record, flag, value)
    assert data["contract"] == "7A" and data["declarer"] == "S"
    status, _, err = run_score(cli, tmp_path, record)
    assert status == 2 and re.match(rf"error: \S+hand\.json: option {flag[2:].replace('-', '_')}", err)


def test_record_options_are_used(cli, tmp_path, ch16_record):
    record = failed_7a(ch16_record)
    record["options"] = {"undertrick_penalty": 0, "unknown_option": True}
    assert score_of(cli, tmp_path, record)["above"]["EW"] == 5


def first_named_record(record: dict) -> dict:
    # North names Bright Animals first, South makes the final bid: the first-named
    # rule makes North declarer, so East leads (a card from West's hand would be illegal).
    from flowerbridge.options import RuleOptions
    from flowerbridge.records import replay, to_dict
    record["auction"] = "Pass Pass 1A Pass 4A Pass Pass Pass".split()
    record["play"] = []
    state = replay(record, options=RuleOptions(declarer="first-named"))
    while not state.is_over:
        state.play(state.legal_cards()[-1])
    return {**to_dict(state), "options": {}}


def test_flag_declarer_first_named(cli, assert_cli_error, tmp_path, ch16_record):
    record = first_named_record(ch16_record)
    data = score_of(cli, tmp_path, record, "--declarer", "first-named")
    assert data["contract"] == "4A" and data["declarer"] == "N"
    # The record read under the default rule (South declares, West leads) is refused.
    assert_cli_error(run_score(cli, tmp_path, record), r"^error: play 1 \(W\): ")
    record["options"] = {"declarer": "first-named"}
    assert score_of(cli, tmp_path, record)["declarer"] == "N"
    # The override is what does not fit, and the error says so.
    assert_cli_error(run_score(cli, tmp_path, record, "--declarer", "final-bidder"),
                     r"error: \S+hand\.json: --declarer final-bidder does not fit this record, played with declarer "
                     r"first-named \(the opening lead moves with the declarer\): play 1 \(W\): [^[]*$")


@pytest.mark.parametrize("flags", [("--undertrick-penalty", "-5"), ("--undertrick-penalty", "x"),
                                   ("--undertrick-penalty", "5_0"), ("--undertrick-penalty", "+5"),
                                   ("--undertrick-penalty", " 5"), ("--undertrick-penalty", "\u0665"),
                                   ("--declarer", "dealer")])
def test_bad_flag_values_are_one_error_line(cli, assert_cli_error, tmp_path, ch16_record, flags):
    assert_cli_error(run_score(cli, tmp_path, ch16_record, *flags), r"error: .*score")


def test_flag_undertrick_penalty_out_of_range_names_the_option_whose_help_gives_the_range(
        cli, assert_cli_error, tmp_path, ch16_record, capsys):
    # (the record's own option error, "option undertrick_penalty: ... is more than 1,000,000", named no flag)
    for value in ("99999999999999999999", "1000001"):
        assert_cli_error(run_score(cli, tmp_path, ch16_record, "--undertrick-penalty", value),
                         rf"^error: flowerbridge score: argument --undertrick-penalty: '{value}': "
                         r"give a whole number from 0 to 1,000,000$")
    assert score_of(cli, tmp_path, failed_7a(ch16_record), "--undertrick-penalty", "1000000")["above"]["EW"] == 2_000_005
    with pytest.raises(SystemExit):
        cli("score", "--help")
    assert "0 to 1,000,000" in " ".join(capsys.readouterr().out.split())


# ----------------------------------------------------------- bad input classes

def test_formats_error_malformed_json(cli, assert_cli_error, tmp_path, ch16_record):
    text = json.dumps(ch16_record)[:-1]
    assert_cli_error(run_score(cli, tmp_path, text), r"malformed JSON at line 1 column \d+")


def test_formats_error_a_record_cut_short_in_a_string_says_the_string_is_never_closed(
        cli, assert_cli_error, tmp_path, ch16_record):
    # it said "Unterminated string starting at", a sentence cut short itself
    text = json.dumps(ch16_record)
    cut = text.index('"auction"') + 3
    assert_cli_error(run_score(cli, tmp_path, text[:cut]),
                     rf"malformed JSON at line 1 column {cut - 2}: a string starts here and is never "
                     r"closed \(a file cut short\?\)$")


@pytest.mark.parametrize("command", ["score", "show", "solve"])
def test_malformed_json_error_names_its_file(cli, assert_cli_error, tmp_path, monkeypatch, command):
    path = tmp_path / "broken.json"
    path.write_text('{"dealer": "N",\n "hands": {,}}', encoding="utf-8")
    assert_cli_error(cli(command, str(path)),
                     rf"^error: {re.escape(str(path))}: malformed JSON at line 2 column 12: ")
    monkeypatch.setattr("sys.stdin", io.StringIO(path.read_text(encoding="utf-8")))
    assert_cli_error(cli(command, "-"), r"^error: standard input: malformed JSON at line 2 column 12: ")


@pytest.mark.parametrize("command", ["score", "show", "solve"])
def test_a_records_errors_name_its_file_as_malformed_jsons_do(cli, assert_cli_error, tmp_path, monkeypatch,
                                                                 ch16_record, command):
    # they were "error: missing key 'dealer'", "error: option undertrick_penalty: ...", no file named
    path = tmp_path / "h.json"
    named = re.escape(str(path))
    path.write_text("{}", encoding="utf-8")
    assert_cli_error(cli(command, str(path)), rf"^error: {named}: missing key 'dealer'$")
    monkeypatch.setattr("sys.stdin", io.StringIO("{}"))
    assert_cli_error(cli(command, "-"), r"^error: standard input: missing key 'dealer'$")
    path.write_text(json.dumps({**ch16_record, "options": {"undertrick_penalty": 2000000}}), encoding="utf-8")
    assert_cli_error(cli(command, str(path)),
                     rf"^error: {named}: option undertrick_penalty: 2000000 is more than 1,000,000$")
    ch16_record["play"][1] = "9P"
    path.write_text(json.dumps(ch16_record), encoding="utf-8")
    # (score writes a call's or card's place as FORMATS.md's example does, its file unnamed)
    placed = "" if command == "score" else f"{named}, "
    assert_cli_error(cli(command, str(path)), rf"^error: {placed}play 2 \(N\): must follow Ribbons")


def test_formats_error_unknown_code(cli, assert_cli_error, tmp_path, ch16_record):
    ch16_record["hands"]["N"][0] = "13B"
    assert_cli_error(run_score(cli, tmp_path, ch16_record), r"hands\.N: unknown card code '13B'")


def test_formats_error_unknown_code_in_play_names_position_and_seat(cli, assert_cli_error,
                                                                    tmp_path, ch16_record):
    ch16_record["play"][0] = "4A"
    assert_cli_error(run_score(cli, tmp_path, ch16_record),
                         r"play 1 \(W\): unknown card code '4A'")


def test_formats_error_wrong_card_count(cli, assert_cli_error, tmp_path, ch16_record):
    ch16_record["hands"]["E"].pop()
    assert_cli_error(run_score(cli, tmp_path, ch16_record), r"hand E has 12 cards, must have 13")


def test_formats_error_card_dealt_three_times(cli, assert_cli_error, tmp_path, ch16_record):
    ch16_record["hands"]["E"][0] = "12B"  # South holds both copies
    assert_cli_error(run_score(cli, tmp_path, ch16_record),
                         r"card 12B is dealt 3 times; the deck holds it twice")


def _with_undealt(record: dict) -> dict:
    """The record with its ``undealt`` list: the 8 cards of the deck its hands leave."""
    from collections import Counter

    from flowerbridge import DECK
    dealt = Counter(code for hand in record["hands"].values() for code in hand)
    record["undealt"] = sorted((Counter(card.code for card in DECK) - dealt).elements())
    assert len(record["undealt"]) == 8
    return record


def test_formats_error_wrong_card_count_with_undealt_present(cli, assert_cli_error, tmp_path, ch16_record):
    # Every wrong count was tried without "undealt": the deal's own check of 13 a hand,
    # which a record giving it goes through, was never tested (removing it passed the suite)
    record = _with_undealt(ch16_record)
    record["hands"]["N"].append(record["hands"]["E"].pop())     # 14, 12, 13, 13, and the right 8
    assert_cli_error(run_score(cli, tmp_path, record), r"hand N has 14 cards, must have 13")


def test_formats_error_card_dealt_three_times_with_undealt_present(cli, assert_cli_error, tmp_path, ch16_record):
    record = _with_undealt(ch16_record)
    record["hands"]["E"][0] = "12B"  # South holds both copies; undealt as it was
    assert_cli_error(run_score(cli, tmp_path, record), r"card 12B is dealt 3 times; the deck holds it twice")


def test_formats_error_insufficient_bid(cli, assert_cli_error, tmp_path, ch16_record):
    ch16_record["auction"][2] = "1R"
    assert_cli_error(run_score(cli, tmp_path, ch16_record),
                         r"^error: auction 3 \(N\): insufficient bid 1R: it must outrank 1A$")


def test_formats_error_call_after_the_auction_ended(cli, assert_cli_error, tmp_path, ch16_record):
    ch16_record["auction"].append("Pass")
    assert_cli_error(run_score(cli, tmp_path, ch16_record),
                         r"^error: auction 9 \(S\): Pass comes after the auction has ended")


def test_formats_error_card_not_in_the_players_hand(cli, assert_cli_error, tmp_path, ch16_record):
    ch16_record["play"][0] = "12B"
    assert_cli_error(run_score(cli, tmp_path, ch16_record),
                         r"play 1 \(W\): 12B is not in W's hand")


def test_formats_error_revoke(cli, assert_cli_error, tmp_path, ch16_record):
    ch16_record["play"][1] = "9P"  # North holds Ribbons when West leads 11R
    assert_cli_error(run_score(cli, tmp_path, ch16_record),
                         r"^error: play 2 \(N\): must follow Ribbons, holds 9R 7R 7R 6R$")


def test_formats_error_hand_not_yet_finished(cli, assert_cli_error, tmp_path, ch16_record):
    # (the file was named in every record error but this one)
    ch16_record["play"].pop()
    assert_cli_error(run_score(cli, tmp_path, ch16_record),
                     r"^error: \S+hand\.json: the hand is not finished: 51 of 52 cards played \[Ch\. 11\]$")
    ch16_record.update(auction=["1A", "Pass"], play=[])
    assert_cli_error(run_score(cli, tmp_path, ch16_record), r"not finished")


def test_formats_error_a_played_record_without_its_auction(cli, assert_cli_error, tmp_path, ch16_record):
    # auction is the calls in order: without it the record is refused for that, not read as
    # an empty auction that blamed the first card ("play 1 (S): 11R played before ...")
    del ch16_record["auction"]
    assert_cli_error(run_score(cli, tmp_path, ch16_record), r"^error: \S+hand\.json: missing key 'auction'$")


@pytest.mark.parametrize("key", ["undealt", "options"])
def test_formats_optional_key_null_is_absent(cli, tmp_path, ch16_record, key):
    # "undealt": null was "error: undealt must be an array of strings"
    ch16_record[key] = None
    assert {k: v for k, v in score_of(cli, tmp_path, ch16_record).items() if k in CH16_SCORE} == CH16_SCORE


def test_formats_passed_out_hand_with_play_null_prints_nulls(cli, tmp_path, ch16_record):
    # "play": null on a passed-out hand was "error: play must be an array of strings"
    ch16_record.update(auction=["Pass"] * 4, play=None)
    assert score_of(cli, tmp_path, ch16_record)["contract"] is None


def test_formats_option_null_takes_the_default(cli, tmp_path, ch16_record):
    # was "error: option undertrick_penalty: null is not a non-negative whole number"
    ch16_record["options"] = {"undertrick_penalty": None, "declarer": None}
    assert {k: v for k, v in score_of(cli, tmp_path, ch16_record).items() if k in CH16_SCORE} == CH16_SCORE
    assert score_of(cli, tmp_path, failed_7a(ch16_record), "--undertrick-penalty", "30")["above"]["EW"] == 65


def test_formats_error_required_key_null_is_named(cli, assert_cli_error, tmp_path, ch16_record):
    ch16_record["hands"] = None
    assert_cli_error(run_score(cli, tmp_path, ch16_record), r"^error: \S+hand\.json: hands must be an object .*, not null$")


@pytest.mark.parametrize("record, pattern", [
    ("[]", r"a hand record is a JSON object"),
    ('{"hands": {}}', r"missing key 'dealer'"),
    ('{"dealer": "X", "hands": {}}', r"dealer 'X' is not one of N, E, S, W"),
    ('{"dealer": "N", "hands": {"N": "12B"}}', r"hands\.N: must be an array"),
    ('{"dealer": "N", "hands": {"N": [], "E": [], "S": []}}', r"missing seat W"),
    ("", r"hand\.json is empty: no hand record in it"),   # was "malformed JSON at line 1 column 1"
])
def test_formats_error_malformed_records(cli, assert_cli_error, tmp_path, record, pattern):
    assert_cli_error(run_score(cli, tmp_path, record), pattern)


def test_formats_error_lower_case_seat_keys_say_seats_are_upper_case(cli, assert_cli_error, tmp_path,
                                                                     ch16_record):
    # it was "error: hands: missing seat N"
    ch16_record["hands"] = {seat.lower(): cards for seat, cards in ch16_record["hands"].items()}
    assert_cli_error(run_score(cli, tmp_path, ch16_record),
                     r"^error: \S+hand\.json: hands: missing seat N \(a seat's key is exactly N, E, S or W, in upper case: "
                     r"'n' was not taken as a seat\)$")


def test_a_session_record_is_named_as_one_and_what_score_takes_is_said(cli, assert_cli_error, tmp_path,
                                                                        ch16_record, monkeypatch):
    # (it was "error: missing key 'dealer'")
    session = {"format": "flowerbridge-session", "hands": [ch16_record]}
    assert_cli_error(run_score(cli, tmp_path, session),
                     r"^error: \S+hand\.json is a session record: score takes one hand record, one of its "
                     r"'hands' \(show reads sessions\)$")
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"hands": [ch16_record]})))
    assert_cli_error(cli("score", "-"), r"^error: standard input is a session record: ")
    assert score_of(cli, tmp_path, session["hands"][0])["contract"] == "4A"     # one of its hands scores


def test_a_hand_record_whose_hands_is_a_list_of_seats_gets_the_hand_records_error(cli, assert_cli_error,
                                                                                 tmp_path, ch16_record):
    # hands given as a list holding the object of seats: a damaged hand record (it has a
    # dealer, an auction, a play), not a session. It was "... is a session record: score
    # takes one hand record, one of its 'hands' (show reads sessions)"
    ch16_record["hands"] = [ch16_record["hands"]]
    assert_cli_error(run_score(cli, tmp_path, ch16_record),
                     r"^error: \S+hand\.json: hands must be an object with keys N, E, S, W \(each seat's array of "
                     r"card codes\), not an array$")
    # a list of objects of seats and no other key: still no session (none of its hands is a record)
    assert_cli_error(run_score(cli, tmp_path, {"hands": ch16_record["hands"]}),
                     r"^error: \S+hand\.json: missing key 'dealer'$")


def test_a_record_in_the_text_notation_is_named_as_such(cli, assert_cli_error, tmp_path, ch16_record):
    # (it was "error: malformed JSON at line 1 column 2 of x.fbn: Expecting value")
    from flowerbridge import notation
    from flowerbridge.records import replay

    path = tmp_path / "x.fbn"
    path.write_text("\n" + notation.dumps(replay(ch16_record)), encoding="utf-8")
    assert_cli_error(cli("score", str(path)), r"^error: \S+x\.fbn is in the text notation: score takes a "
                                              r"JSON hand record \(show reads the notation\)$")
    assert_cli_error(run_score(cli, tmp_path, "[1, 2]"), r"a hand record is a JSON object, not an array")


def test_missing_file_is_one_error_line(cli, assert_cli_error, tmp_path):
    assert_cli_error(cli("score", str(tmp_path / "absent.json")), r"absent\.json: No such file")


def test_formats_error_stays_one_line_for_a_file_named_with_a_newline(cli, assert_cli_error,
                                                                      tmp_path):
    assert_cli_error(cli("score", str(tmp_path / "no\nsuch.json")), r"no\\nsuch\.json: No such file")
    assert_cli_error(cli("score", str(tmp_path / "no\u2028such\x85.json")),
                     r"no\\u2028such\\x85\.json: No such file")
    broken = tmp_path / "bad\tname\n.json"
    broken.write_text("{", encoding="utf-8")
    assert_cli_error(cli("score", str(broken)), r"^error: .*bad\\tname\\n\.json: malformed JSON at line 1 column 2: Expecting")


# ------------------------------------------------------------- entry point

def test_installed_entry_point_scores_and_fails_cleanly(tmp_path, ch16_record):
    exe = Path(sys.executable).with_name("flowerbridge")
    if not exe.exists():  # pragma: no cover - the project is installed in the venv
        pytest.skip("flowerbridge entry point not installed next to this Python")
    good = subprocess.run([str(exe), "score", "-"], input=json.dumps(ch16_record),
                          capture_output=True, text=True, timeout=60)
    assert good.returncode == 0 and good.stderr == ""
    assert {k: v for k, v in json.loads(good.stdout).items() if k in CH16_SCORE} == CH16_SCORE
    ch16_record["play"][1] = "9P"
    bad = subprocess.run([str(exe), "score", "-"], input=json.dumps(ch16_record),
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("error: play 2 (N): must follow Ribbons")
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_formats_error_file_that_is_not_utf8_text(cli, assert_cli_error, tmp_path):
    path = tmp_path / "hand.json"
    path.write_bytes(b'\xff\xfe{"dealer": "N"}')
    assert_cli_error(cli("score", str(path)), r"hand\.json: not UTF-8 text")


@pytest.mark.parametrize("encoding", ["utf-16-be", "utf-16-le", "utf-32-le"])
@pytest.mark.parametrize("command", ["score", "show", "solve"])
def test_formats_error_utf16_or_utf32_without_a_byte_order_mark_is_not_utf8_text(
        cli, assert_cli_error, tmp_path, ch16_record, encoding, command):
    # it decodes as UTF-8 (NUL is a character there): score said "Expecting value", show
    # took it for the notation and echoed the whole record back as \x00{\x00"...
    path = tmp_path / "hand.json"
    path.write_bytes(json.dumps(ch16_record).encode(encoding))
    assert_cli_error(cli(command, str(path)),
                     r"hand\.json: not UTF-8 text \(character \d is NUL, as in UTF-16 or UTF-32 text: "
                     r"save it as UTF-8\)$")


@pytest.mark.parametrize("encoding, name", [("utf-16", "UTF-16"), ("utf-32", "UTF-32")])
@pytest.mark.parametrize("command", ["score", "show", "solve"])
def test_formats_error_utf16_or_utf32_with_a_byte_order_mark_is_named(
        cli, assert_cli_error, tmp_path, ch16_record, encoding, name, command):
    # (Windows' Notepad saves "Unicode" so): it said "not UTF-8 text (byte 0: invalid start byte)"
    path = tmp_path / "hand.json"
    path.write_bytes(json.dumps(ch16_record).encode(encoding))      # (Python's codec writes the mark)
    assert_cli_error(cli(command, str(path)),
                     rf"hand\.json: not UTF-8 text \({name} text, by its byte-order mark: save it as UTF-8\)$")


def test_formats_error_standard_input_that_is_not_utf8_text(cli, assert_cli_error, monkeypatch,
                                                            ch16_record):
    # as a file is: the bytes are read and refused, not read as stand-in characters
    text = json.dumps(ch16_record)[:-1] + ', "note": "caf'
    stdin = io.TextIOWrapper(io.BytesIO(text.encode() + b'\xe9"}'), encoding="utf-8",
                             errors="surrogateescape")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert_cli_error(cli("score", "-"), r"standard input: not UTF-8 text \(byte \d+")


def test_formats_error_malformed_json_on_standard_input_is_placed_as_in_a_file(cli, assert_cli_error, monkeypatch,
                                                                             tmp_path, ch16_record):
    # with CR line ends (an old Mac editor's), standard input said "line 1 column 856"
    # where the file said line 75: the file's line ends were read as LF, standard input's not
    text = json.dumps(ch16_record, indent=1).replace("\n", "\r").replace('"dealer"', '"dealer" "')
    path = tmp_path / "cr.json"
    path.write_bytes(text.encode())
    status, _, from_file = cli("score", str(path))
    where = re.search(r"malformed JSON at line (\d+) column (\d+)", from_file)
    assert status == 2 and where and int(where[1]) > 1, from_file
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert_cli_error(cli("score", "-"), rf"standard input: malformed JSON at line {where[1]} column {where[2]}")


def test_formats_standard_input_read_as_bytes_keeps_utf8_and_drops_a_byte_order_mark(
        cli, monkeypatch, ch16_record):
    text = json.dumps({**ch16_record, "note": "花札 – 화투"}, ensure_ascii=False)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xef\xbb\xbf" + text.encode())))
    status, out, err = cli("score", "-")
    assert (status, err) == (0, "") and json.loads(out)["contract"] == "4A"


@pytest.mark.parametrize("where", ["auction", "play"])
def test_formats_error_a_call_or_card_of_thousands_of_digits_is_one_error_line(cli, assert_cli_error, tmp_path,
                                                                                ch16_record, where):
    # int() refused its 4,301 digits with a ValueError: a traceback, exit 1
    record = json.loads(json.dumps(ch16_record))
    record[where][0] = "1" * 4301 + ("P" if where == "auction" else "B")
    assert_cli_error(run_score(cli, tmp_path, json.dumps(record)),
                     r"\.\.\. \(4,302 characters\): a (bid is a level|code is a month)")


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_formats_error_nan_and_infinity_are_not_json(cli, assert_cli_error, tmp_path, ch16_record, value):
    # Python's reader takes them; JSON has no such values, even under a key the format ignores
    text = json.dumps(ch16_record)[:-1] + f', "board": {value}}}'
    column = len(text) - len(value)     # (the record on one line, the value last)
    assert_cli_error(run_score(cli, tmp_path, text),
                     rf"\S+hand\.json: malformed JSON at line 1 column {column}: {value} is not a JSON value")


@pytest.mark.parametrize("text, name, where", [
    ('{"dealer": "N", "dealer": "S"}', "dealer", "line 1 column 17"),
    ('{"dealer": "N",\n "options": {"declarer": "first-named", "declarer": "final-bidder"}}', "declarer",
     "line 2 column 41"),
    # the same name in two objects, and a string that looks like a name, are no repeat
    ('{"a": {"a": 1, "b": ["\\"b\\":"]}, "c": [{"d": 1}, {"d": 2}],\n  "b": 1, "a": 2}', "a",
     "line 2 column 11"),
])
def test_formats_error_a_name_given_twice_in_one_object(cli, assert_cli_error, tmp_path, text, name, where):
    # one of the two values would be dropped unseen: the record is refused instead, saying
    # where the second one is (FORMATS.md: what is wrong and where)
    assert_cli_error(run_score(cli, tmp_path, text),
                     rf"cannot be kept as written at {where}: the name '{name}' appears twice in one object")


def test_formats_a_utf8_byte_order_mark_is_accepted(cli, tmp_path, ch16_record):
    path = tmp_path / "hand.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(ch16_record).encode())
    status, out, _ = cli("score", str(path))
    assert status == 0 and json.loads(out)["contract"] == "4A"


def test_formats_a_byte_order_mark_on_standard_input_is_accepted(cli, monkeypatch, ch16_record):
    monkeypatch.setattr(sys, "stdin", io.StringIO("\ufeff" + json.dumps(ch16_record)))
    status, out, err = cli("score", "-")
    assert (status, err) == (0, "") and json.loads(out)["contract"] == "4A"


def test_formats_error_number_too_long_to_read(cli, assert_cli_error, tmp_path, ch16_record):
    # Python will not convert an integer of more than 4,300 digits: one error
    # line, not a traceback.
    digits = "9" * 5000
    head = json.dumps({**ch16_record, "note": "9" * 5000})[:-1] + ",\n "
    text = head + f'"options": {{"undertrick_penalty": {digits}}}}}'
    column = len(text) - len(digits) - text.rfind("\n") - 2
    assert_cli_error(run_score(cli, tmp_path, text),        # where it is, too (FORMATS.md)
                     rf"\S+hand\.json: unreadable JSON at line 2 column {column}: a number has more "
                     r"than \d+ digits")


@pytest.mark.parametrize("value", ["9" * 5000, "1e999", '"\\ud800"', '{"a": 1, "a": 2}'])
def test_formats_unknown_key_that_cannot_be_kept_is_ignored_never_an_error(cli, tmp_path, ch16_record, value):
    # FORMATS.md: unknown keys are ignored, never an error -- those whose values Python
    # cannot keep as written (a number of more than 4,300 digits, one beyond any float, a
    # lone surrogate, a name given twice) were an error
    expected = run_score(cli, tmp_path, json.dumps(ch16_record))
    assert expected[0] == 0
    for text in (json.dumps(ch16_record)[:-1] + f', "board": {value}}}',
                 json.dumps({**ch16_record, "options": {}}).replace('"options": {', f'"options": {{"board": {value}', 1)):
        assert '"board"' in text and run_score(cli, tmp_path, text) == expected


def test_formats_error_json_nested_too_deeply(cli, assert_cli_error, tmp_path):
    assert_cli_error(run_score(cli, tmp_path, "[" * 100_000 + "]" * 100_000),
                         r"nested too deeply")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.floats(allow_nan=False)
    | st.sampled_from(["12B", "1pa", "Pass", "3NT", "N", "north", "", "13B", "8P"]) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from("NESW") | st.text(max_size=3),
                                                                inner, max_size=4),
    max_leaves=8)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_formats_any_damaged_record_gives_a_score_or_one_error_line(cli, assert_cli_error,
                                                                    tmp_path, ch16_record, data):
    """Never a traceback: damage one place of a good record, any way at all."""
    record = json.loads(json.dumps(ch16_record))
    key = data.draw(st.sampled_from(["dealer", "hands", "auction", "play", "undealt", "options"]))
    value = record.get(key)
    if isinstance(value, (list, dict)) and value and data.draw(st.booleans()):
        index = data.draw(st.sampled_from(sorted(value) if isinstance(value, dict) else range(len(value))))
        value[index] = data.draw(JSON_VALUES)
    else:
        record[key] = data.draw(JSON_VALUES)
    status, out, err = run_score(cli, tmp_path, record)
    if status == 0:
        assert err == "" and set(CH16_SCORE) <= set(json.loads(out))
    else:
        assert_cli_error((status, out, err), r"^error: ")


@pytest.mark.parametrize("change, where", [
    (lambda r: r["play"].__setitem__(1, "9P"), ("play", "2", "N")),             # a revoke
    (lambda r: r["play"].__setitem__(0, "12B"), ("play", "1", "W")),            # not in the hand
    (lambda r: r["play"].__setitem__(0, "4A"), ("play", "1", "W")),             # no such card
    (lambda r: r["auction"].__setitem__(2, "1R"), ("auction", "3", "N")),       # insufficient
    (lambda r: r["auction"].append("Pass"), ("auction", "9", "S")),             # after the end
])
def test_formats_error_of_a_call_or_card_reads_as_its_example_does(cli, tmp_path, ch16_record, change, where):
    # FORMATS.md: "its 1-based position in `auction` or `play` and the seat (e.g. `error: play 14
    # (E): must follow Ribbons, holds 9R`)". A program reading that form matched none of score's
    # lines: they began with the file's name, and a call's place was "call 3"
    change(ch16_record)
    done = run_score(cli, tmp_path, ch16_record)
    assert done[0] == 2 and done[1] == ""
    found = re.fullmatch(r"error: (play|auction) (\d+) \(([NESW])\): \S.*\n", done[2])
    assert found and found.groups() == where, done[2]
    # and it ends as the example does, with what is wrong: not with the rule in brackets
    assert not re.search(r"\[(R\d+|Ch\. \d+)\]\n$", done[2]), done[2]


@pytest.mark.parametrize("extra", [{"five_bright_bonus": 1000}, {"contract_points": [[1, 1]] * 4},
                                   {"honor_bright": [0, 0]}, {"game_points": 0}, {"honor_ribbon": "x"},
                                   {"foo": 1}])
def test_formats_unknown_option_keys_are_ignored_and_the_hand_scored_by_the_rules(cli, tmp_path, ch16_record,
                                                                                   extra):
    # FORMATS.md: options carry undertrick_penalty and declarer; unknown keys are "ignored —
    # never an error". The lab's scale keys were read: five_bright_bonus 1000 scored 1,000,
    # game_points 0 was refused
    by_the_rules = score_of(cli, tmp_path, ch16_record)
    ch16_record["options"] = {"undertrick_penalty": 50, "declarer": "final-bidder", **extra}
    status, out, err = run_score(cli, tmp_path, ch16_record)
    assert status == 0 and json.loads(out) == by_the_rules
    # a lab variant's key set aside is named on standard error, a key of no meaning is not
    (key,) = extra
    if key == "foo":
        assert err == ""
    else:
        assert err.startswith("note: ") and err.count("\n") == 1 and f"({key})" in err and "--variant" in err


def test_formats_score_variant_applies_the_record_rule_variants_as_the_server_does(cli, tmp_path, ch16_record):
    # A server table of a variant writes its scales into each hand's record: score scored such a
    # record by the rules (as FORMATS.md has it) while the server, show and the engine scored it
    # by the variant, with no word why they differed. --variant scores as they do.
    from flowerbridge.options import RuleOptions
    from flowerbridge.records import HandRecord

    variant = {"five_bright_bonus": 100, "ten_bright_bonus": 300, "honor_bright": [10, 5],
               "contract_points": [[25, 25], [35, 35], [35, 35], [50, 35]], "overtrick_points": [5, 5, 5, 5]}
    by_the_rules = score_of(cli, tmp_path, ch16_record)
    ch16_record["options"] = {"undertrick_penalty": 50, **variant}
    engine = HandRecord.from_dict(ch16_record, options=RuleOptions.from_dict(ch16_record["options"]))
    scored = score_of(cli, tmp_path, ch16_record, "--variant")
    assert scored == engine.state.score().to_dict() != by_the_rules
    # a value the variant cannot take is then an error, and the record's file is named
    ch16_record["options"]["game_points"] = 0
    status, out, err = run_score(cli, tmp_path, ch16_record, "--variant")
    assert (status, out) == (2, "") and re.fullmatch(r"error: .*hand\.json: option game_points: .*\n", err)


def test_formats_show_leaves_aside_a_rule_variant_out_of_range_with_a_note(cli, tmp_path, ch16_record):
    # FORMATS.md: a key of options other than the contract's two is unknown, never an error.
    # show applies the lab's variants where they are valid, and refused a record holding one
    # that is not ("game_points": 0, "honor_bright": 5), in a hand record or a session.
    def show(record):
        (tmp_path / "r.json").write_text(json.dumps(record))
        return cli("show", str(tmp_path / "r.json"))

    plain = show(ch16_record)
    assert plain[0] == 0
    bad = {"game_points": 0, "honor_bright": 5}
    status, out, err = show({**ch16_record, "options": {"undertrick_penalty": 50, **bad}})
    assert (status, out) == (0, plain[1])
    assert re.fullmatch(r"note: \S+r\.json's options hold rule variants it cannot take, left aside \(the "
                        r"rulebook's values in their place\): option game_points: must be at least 1; "
                        r"option honor_bright: .*\n", err) or re.fullmatch(
        r"note: .*option honor_bright: .*; option game_points: must be at least 1\n", err), err
    # a valid variant beside it is still applied, as the server scored it
    status, out, err = show({**ch16_record, "options": {"honor_bright": [10, 5], "game_points": 0}})
    assert status == 0 and out == show({**ch16_record, "options": {"honor_bright": [10, 5]}})[1] != plain[1]
    # in a session, the session's options and its hands' alike
    session = {"format": "flowerbridge-session", "first_dealer": "S", "options": {"game_points": 0},
               "hands": [{**ch16_record, "options": {"game_points": 0}}]}
    status, out, err = show(session)
    assert status == 0 and ch16_record["play"][-1] in out
    assert err.endswith("): option game_points: must be at least 1; hand 1: option game_points: must be at "
                        "least 1\n"), err      # the session's own options, then its hand's
    # and in the server's answer for a session, as it comes (its session record under "session")
    assert show({"session": session, "scoresheet": {}}) == (status, out, err)
    # the contract's own options are judged as they are
    assert show({**ch16_record, "options": {"undertrick_penalty": -5, "game_points": 0}})[0] == 2


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32), penalty=st.sampled_from([None, 0, 50, 120]))
def test_formats_score_prints_what_an_independent_scorer_makes_of_random_records(cli, tmp_path, random_hand,
                                                                                 seed, penalty):
    """Every key of FORMATS.md's object for random finished hands, recomputed from the tricks:
    only the Chapter 16 record, which has no bright bonus, checked score's `above` and
    `bright_bonus` (leaving the bonus out of `above` passed the rest of the suite)."""
    from flowerbridge import RuleOptions, Side, records
    from rules_support import independent_score

    options = RuleOptions() if penalty is None else RuleOptions(undertrick_penalty=penalty)
    state = random_hand(seed, options=options)
    flags = () if penalty is None else ("--undertrick-penalty", str(penalty))
    record = json.loads(records.dumps(state))
    record.pop("options", None)      # the flag alone says the penalty
    printed = score_of(cli, tmp_path, record, *flags)
    expected = independent_score(state)
    sides = {"NS": Side.NS, "EW": Side.EW}
    assert printed["contract"] == (state.contract.code if state.contract else None)
    assert printed["declarer"] == (state.contract.declarer.name if state.contract else None)
    assert printed["tricks"] == {"NS": state.tricks_won[0], "EW": state.tricks_won[1]}
    for key, mine in (("below", "below"), ("above", "above"), ("honors", "honors"), ("bright_bonus", "bright")):
        assert printed[key] == {name: expected[mine][side] for name, side in sides.items()}, key
