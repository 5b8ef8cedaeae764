"""``flowerbridge deal``, ``show`` and ``demo``, run in-process."""

from __future__ import annotations

import errno
import io
import json
import os
import re
import stat
import sys
import time
from pathlib import Path

import pytest

from flowerbridge import Deal, notation, records
from flowerbridge.records import replay

# `flowerbridge deal --seed 1` as printed on 2026-11-30 (its header "honor count" since 2026-12-03,
# "points" before, which the bots use for another count): board 0 of seed 1, the command's
# default then. The cards must never change.
DEAL_SEED_1_BOARD_0 = """\
Dealer North
North (honor count 12)
  A  12B 6A
  R  11R 11R 9R 6R 6R 5R
  P  11P 10P 3P 1Pb 1Pa
East (honor count 16)
  A  3B 1B 7A 5A 2A
  R  5R 3R
  P  10P 9P 4P 4P 2P 1Pb
South (honor count 22)
  A  8B 8B 3B 8A 6A 2A
  R  10R 9R 4R 1R
  P  9P 5P 5P
West (honor count 24)
  A  12B 11B 11B 1B 7A 5A
  R  7R 4R 2R 1R
  P  11P 6P 1Pa
Undealt: 8A 10R 7R 3R 2R 6P 3P 2P
"""


# -------------------------------------------------------------------- deal

# `flowerbridge deal --seed 1` since boards are numbered from 1, as play and demo number them.
DEAL_SEED_1 = """\
Dealer North
North (honor count 15)
  A  11B 3B
  R  11R 9R 7R 6R 4R 2R 1R
  P  10P 5P 4P 3P
East (honor count 10)
  A  3B 7A 6A
  R  11R 3R
  P  11P 11P 10P 9P 6P 6P 2P 2P
South (honor count 16)
  A  12B 8A 5A 2A
  R  10R 9R 5R 4R 3R 1R
  P  9P 4P 1Pb
West (honor count 23)
  A  12B 11B 1B 1B 6A
  R  10R 7R 6R 5R 2R
  P  5P 3P 1Pa
Undealt: 8B 8B 8A 7A 5A 2A 1Pb 1Pa
"""


def test_cli_deal_seed_1_is_pinned(cli):
    from flowerbridge import HandState, Seat
    from flowerbridge.render import render_deal

    assert cli("deal", "--seed", "1") == (0, DEAL_SEED_1, "")
    assert cli("deal", "--seed", "1", "--board", "1") == (0, DEAL_SEED_1, "")
    assert render_deal(HandState(Deal.from_seed(1, 0), Seat.N)) + "\n" == DEAL_SEED_1_BOARD_0


def test_cli_deal_board_k_is_the_kth_hand_of_demo_with_its_dealer(cli, tmp_path):
    # `deal --seed S --board K` shows the hand headed "Board K (seed S)" by demo
    path = tmp_path / "s.json"
    assert cli("demo", "--seed", "club", "--hands", "6", "--save", str(path))[0] == 0
    hands = json.loads(path.read_text(encoding="utf-8"))["hands"]
    for board, hand in enumerate(hands, 1):
        status, out, err = cli("deal", "--seed", "club", "--board", str(board), "--json")
        assert (status, err) == (0, "")
        dealt = json.loads(out)
        assert [dealt[k] for k in ("dealer", "hands", "undealt")] == [hand[k] for k in ("dealer", "hands", "undealt")]
        assert dealt["dealer"] == "NESW"[(board - 1) % 4]


def test_cli_deal_json_is_a_hand_record_of_the_same_deal(cli, tmp_path):
    status, out, err = cli("deal", "--seed", "1", "--board", "2", "--dealer", "W", "--json")
    assert (status, err) == (0, "")
    record = records.loads(out)
    state = record.state
    assert state.deal == Deal.from_seed(1, 2) and state.dealer.name == "W" and state.history == ()
    # it names the seed and board it was dealt from, and show heads the hand with them
    assert record.extra == {"Seed": 1, "Board": 2}
    (tmp_path / "d.json").write_text(out)
    assert cli("show", str(tmp_path / "d.json"))[1].startswith("Seed: 1; Board: 2\nDealer West\n")
    words = records.loads(cli("deal", "--seed", "club night", "--json")[1])
    assert words.extra == {"Seed": "club night", "Board": 1}


def test_cli_deal_accepts_words_as_seeds(cli):
    first = cli("deal", "--seed", "club night")
    assert first[0] == 0 and first == cli("deal", "--seed", "club night")
    assert first != cli("deal", "--seed", "club day")


@pytest.mark.parametrize("command", ["deal", "match", "lab"])
def test_cli_seed_only_ascii_digits_make_a_number(cli, command, tmp_path):
    # "²" and "--5" are digits to str.isdigit, not to int(): seeds of their own,
    # never a traceback; "7" and "007" are the number 7.
    from flowerbridge.cli import parse_seed
    assert (parse_seed("7"), parse_seed("007"), parse_seed("-3")) == (7, 7, -3)
    assert (parse_seed("²"), parse_seed("--5"), parse_seed("1e3")) == ("²", "--5", "1e3")
    extra = {"deal": [], "match": ["--ns", "random", "--ew", "random", "--boards", "1"],
             "lab": ["deals", "--n", "1", "--quiet", "--out", str(tmp_path / "out")]}[command]
    status, out, err = cli(command, "--seed=²", *extra)
    assert (status, err) == (0, "") and out


@pytest.mark.parametrize("argv, option", [(["deal", "--seed", "1", "--dealer", "Q"], "deal: argument --dealer"),
                                          (["play", "--seat", "Q"], "play: argument --seat")])
def test_cli_a_bad_seat_is_one_error_line_naming_its_option(cli, assert_cli_error, argv, option):
    assert_cli_error(cli(*argv), rf"^error: flowerbridge {option}: unknown seat 'Q': expected N, E, S or W$")


# -------------------------------------------------------------------- show

def test_cli_show_text_and_json_records_alike(cli, tmp_path, ch16_record):
    state = replay(ch16_record)
    (tmp_path / "hand.json").write_text(json.dumps(ch16_record))
    (tmp_path / "hand.fbn").write_text(notation.dumps(state))
    status, shown, err = cli("show", str(tmp_path / "hand.json"))
    assert (status, err) == (0, "")
    assert cli("show", str(tmp_path / "hand.fbn")) == (0, shown, "")
    for expected in ("Dealer South", "Contract 4 Bright Animals by South",
                     " 1. W 11R  N 6R   E 6R   S 10R   won by W",
                     "4A by S: 11 tricks, made with 1 overtrick", "NS: 120 below, 70 above"):
        assert expected in shown


def test_cli_show_several_text_hands_and_standard_input(cli, monkeypatch, random_hand):
    hands = [random_hand(seed) for seed in (1, 2, 3)]
    monkeypatch.setattr(sys, "stdin", io.StringIO(notation.dumps_all(hands)))
    status, out, err = cli("show", "-")
    assert (status, err) == (0, "") and out.count("Dealer ") == 3


def test_cli_show_a_dealt_hand_says_the_auction_is_not_finished(cli, tmp_path):
    # `deal --json > h.json; show h.json` printed the auction's header and nothing after it
    status, dealt, _ = cli("deal", "--seed", "7", "--json")
    (tmp_path / "h.json").write_text(dealt)
    status, out, err = cli("show", str(tmp_path / "h.json"))
    assert (status, err) == (0, "")
    assert out.endswith("West    North   East    South\n        ?\n\n"
                        "Auction not finished: no call yet, North to call; no score\n\n")
    record = json.loads(dealt)
    record["auction"] = ["Pass", "1A", "Pass"]
    (tmp_path / "h.json").write_text(json.dumps(record))
    out = cli("show", str(tmp_path / "h.json"))[1]
    assert "        Pass    1A      Pass\n?\n\nAuction not finished: 3 calls made, West to call; no score\n" in out


@pytest.mark.parametrize("cards, says", [(20, "20 of 52 cards played, South to play"),
                                         (0, "0 of 52 cards played, West to play"),
                                         (1, "1 of 52 cards played, North (dummy) to play")])
def test_cli_show_a_hand_part_played_shows_its_tricks_and_what_is_missing(cli, tmp_path, ch16_record, cards, says):
    ch16_record["play"] = ch16_record["play"][:cards]
    (tmp_path / "h.json").write_text(json.dumps(ch16_record))
    status, out, err = cli("show", str(tmp_path / "h.json"))
    assert (status, err) == (0, "")
    assert out.endswith(f"\nPlay not finished: {says}; no score\n\n")
    assert "Contract 4 Bright Animals by South" in out and "below" not in out     # no score
    assert out.count(" won by ") == cards // 4 and ("(in progress)" in out) == (cards % 4 != 0)


def test_cli_show_a_passed_out_hand_says_so_once(cli, tmp_path, random_hand):
    state = random_hand(8)      # four passes
    (tmp_path / "h.json").write_text(records.dumps(state))
    status, out, _ = cli("show", str(tmp_path / "h.json"))
    assert status == 0 and out.endswith("\nPassed out\n\n") and out.count("Passed out") == 1


def test_cli_show_names(cli, tmp_path, ch16_record):
    (tmp_path / "hand.json").write_text(json.dumps(ch16_record))
    status, out, _ = cli("show", "--names", str(tmp_path / "hand.json"))
    assert status == 0 and "12B (December Bright)" in out


def test_notation_show_notation_writes_a_json_record_in_the_notation_that_reads_back(cli, tmp_path, ch16_record):
    # no command wrote the notation; show --notation does, and show reads it back
    ch16_record["Event"] = "Club night"
    (tmp_path / "h.json").write_text(json.dumps(ch16_record))
    status, out, err = cli("show", "--notation", str(tmp_path / "h.json"))
    assert (status, err) == (0, "")
    record = notation.loads(out)
    assert records.to_dict(record.state) == records.to_dict(replay(ch16_record))
    assert record.extra == {"Event": "Club night"} and out.startswith('[Event "Club night"]\n')
    (tmp_path / "h.fbn").write_text(out)
    assert cli("show", "--notation", str(tmp_path / "h.fbn")) == (0, out, "")     # canonical
    assert cli("show", str(tmp_path / "h.fbn")) == cli("show", str(tmp_path / "h.json"))


def test_notation_show_notation_writes_a_session_hand_by_hand(cli, tmp_path, random_hand):
    from flowerbridge.session import Session

    hands = [random_hand(seed) for seed in (3, 4)]
    session = Session(first_dealer=hands[0].dealer)
    session.add(hands[0])
    (tmp_path / "s.json").write_text(json.dumps(session.to_dict()))
    status, out, err = cli("show", "--notation", str(tmp_path / "s.json"))
    # hand K of a session is its board K (a session dealt from no seed)
    assert (status, err) == (0, "") and out == '[Board "1"]\n' + notation.dumps(hands[0])
    text = notation.dumps_all(hands)
    (tmp_path / "two.fbn").write_text(text)
    assert cli("show", "--notation", str(tmp_path / "two.fbn")) == (0, text, "")


def test_notation_show_notation_writes_a_session_hands_unknown_keys_as_tags(cli, tmp_path, ch16_record):
    # the same hand as a hand record kept its "Event"; as a session's hand it lost it
    session = {"format": "flowerbridge-session", "Event": "the session's", "hands": [{**ch16_record, "Event": "x"}]}
    (tmp_path / "s.json").write_text(json.dumps(session))
    (tmp_path / "h.json").write_text(json.dumps({**ch16_record, "Event": "x"}))
    status, out, err = cli("show", "--notation", str(tmp_path / "s.json"))
    assert (status, err) == (0, "") and out.startswith('[Event "x"]\n[Board "1"]\n[Dealer "S"]\n')
    # (a hand record alone is no session's: it names the board it names, none here)
    assert cli("show", "--notation", str(tmp_path / "h.json")) == (0, out.replace('[Board "1"]\n', ""), "")


def test_notation_show_notation_names_a_seeded_sessions_hands_as_deal_deals_them(cli, tmp_path):
    # hand K of `demo --seed S` (and `play --board B`: B + K - 1) is `deal --seed S --board K`;
    # a hand that names its board keeps it
    path = tmp_path / "s.json"
    assert cli("demo", "--seed", "club", "--hands", "2", "--save", str(path))[0] == 0
    status, out, err = cli("show", "--notation", str(path))
    assert (status, err) == (0, "")
    hands = notation.loads_all(out)
    for board, record in enumerate(hands, 1):
        dealt = cli("deal", "--seed", "club", "--board", str(board), "--notation")[1]
        assert notation.dumps(record).startswith(dealt.removesuffix('[Auction "%s"]\n' % record.state.dealer.name))
    saved = json.loads(path.read_text(encoding="utf-8"))
    saved["first_board"] = 2     # not what the hands were dealt as: hand K is board K of the session
    saved["hands"][1]["Board"] = "12"
    path.write_text(json.dumps(saved))
    out = cli("show", "--notation", str(path))[1]
    assert [(r.extra.get("Seed"), r.extra["Board"]) for r in notation.loads_all(out)] == [(None, "1"), (None, "12")]
    # a Board the notation would not write gives way (it was left out, and the hand named no board)
    for bad in ("abc", 0, True, None, 1234567890):
        saved["hands"][1]["Board"] = bad
        path.write_text(json.dumps(saved))
        out = cli("show", "--notation", str(path))[1]
        assert [r.extra["Board"] for r in notation.loads_all(out)] == ["1", "2"], bad
    # and a JSON record's lower-case "board" names the board only where it is one
    del saved["hands"][1]["Board"]
    for board, named in ((7, None), (0, "2"), ("abc", "2")):
        saved["hands"][1]["board"] = board
        path.write_text(json.dumps(saved))
        out = cli("show", "--notation", str(path))[1]
        assert notation.loads_all(out)[1].extra.get("Board") == named, board


def test_notation_deal_notation_is_the_record_deal_json_gives_and_show_reads_it(cli, tmp_path):
    status, out, err = cli("deal", "--seed", "1", "--board", "2", "--dealer", "W", "--notation")
    assert (status, err) == (0, "")
    assert out.startswith('[Seed "1"]\n[Board "2"]\n[Dealer "W"]\n[Deal "N:') and out.endswith('[Auction "W"]\n')
    from_json = records.loads(cli("deal", "--seed", "1", "--board", "2", "--dealer", "W", "--json")[1])
    assert records.to_dict(notation.loads(out).state) == records.to_dict(from_json.state)
    (tmp_path / "d.fbn").write_text(out)
    assert cli("show", "--notation", str(tmp_path / "d.fbn")) == (0, out, "")


def test_cli_notation_options_are_named_where_they_do_not_fit(cli, assert_cli_error, tmp_path, ch16_record,
                                                              capsys):
    assert_cli_error(cli("deal", "--seed", "1", "--json", "--notation"),
                     r"^error: flowerbridge deal: argument --notation: not allowed with argument --json$")
    (tmp_path / "h.json").write_text(json.dumps(ch16_record))
    assert_cli_error(cli("show", "--notation", "--names", str(tmp_path / "h.json")),
                     r"^error: --names is for the hands shown for people: --notation writes the record")
    for command in ("show", "deal"):
        with pytest.raises(SystemExit):
            cli(command, "--help")
        out = capsys.readouterr().out
        assert "--notation" in out and "text notation" in out


def test_cli_show_a_hand_shown_for_people_says_what_show_reads(cli, assert_cli_error, tmp_path):
    # `deal --seed 1 > d.txt; show d.txt` was "error: line 1: 'Dealer North' is neither a tag ..."
    (tmp_path / "d.txt").write_text(cli("deal", "--seed", "1")[1])
    assert_cli_error(cli("show", str(tmp_path / "d.txt")),
                     r"^error: \S+d\.txt is a hand as deal or show print it for people, not a hand record: "
                     r"show reads what deal --json or deal --notation writes$")


@pytest.mark.parametrize("command, reads", [("score", "score takes what deal --json writes"),
                                            ("solve", "solve takes what deal --json writes")])
def test_cli_score_and_solve_say_what_a_hand_shown_for_people_is_as_show_does(cli, assert_cli_error, tmp_path,
                                                                          command, reads):
    # `deal --seed 1 > d.txt; score d.txt` was "malformed JSON at line 1 column 1 ..."
    (tmp_path / "d.txt").write_text(cli("deal", "--seed", "1")[1])
    assert_cli_error(cli(command, str(tmp_path / "d.txt")),
                     rf"^error: \S+d\.txt is a hand as deal or show print it for people, not a hand record: "
                     rf"{reads}$")


@pytest.mark.parametrize("text, what", [("null", "null"), ('"x"', "a string"), ("7", "a number"),
                                        ("true", "a boolean")])
def test_cli_show_a_json_value_that_is_no_object_is_named_as_score_names_it(cli, assert_cli_error, tmp_path,
                                                                             text, what):
    # it was read as the text notation: "'null' is neither a tag nor part of an Auction or Play section"
    (tmp_path / "v.json").write_text(text + "\n")
    for command in ("show", "score"):
        assert_cli_error(cli(command, str(tmp_path / "v.json")),
                         rf"^error: \S+v\.json: a hand record is a JSON object, not {what}$")


def test_cli_show_bad_text_record_names_the_line(cli, assert_cli_error, tmp_path, ch16_record):
    text = notation.dumps(replay(ch16_record)).replace("11R 6R 6R 10R", "11R 9P 6R 10R")
    (tmp_path / "bad.fbn").write_text(text)
    assert_cli_error(cli("show", str(tmp_path / "bad.fbn")),
                     r"^error: \S*bad\.fbn, line 11, play 2 \(N\): must follow Ribbons")


@pytest.mark.parametrize("text, pattern", [
    ("[Event Flower]\n", r"^error: \S*bad\.fbn, line 1: malformed tag '\[Event Flower\]'"),
    ('[Event "x"]\n[Site "y"]\n\n[Date "2026.11.30"]\n',
     r"^error: \S*bad\.fbn, hand at lines 1-2: missing tag Dealer$"),
    ("ch16 with Options 100,000 deep",
     r"^error: \S*bad\.fbn, line 4, tag Options: option honor_bright: .* nested too deeply"),
], ids=["malformed-tag", "missing-tag", "options-too-deep"])
def test_cli_show_a_text_records_errors_name_the_file_as_json_errors_do(cli, assert_cli_error, tmp_path,
                                                                         monkeypatch, ch16_record, text, pattern):
    # a JSON record's said "malformed JSON at line 1 column 2 of bad.json", a notation's only "line 1: ..."
    if text.startswith("ch16"):
        text = notation.dumps(replay(ch16_record)).replace('[Options "', '[Options "honor_bright=' + "[" * 100_000)
    (tmp_path / "bad.fbn").write_text(text)
    assert_cli_error(cli("show", str(tmp_path / "bad.fbn")), pattern)
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    assert_cli_error(cli("show", "-"), pattern.replace(r"\S*bad\.fbn", "standard input"))


# -------------------------------------------------------------------- demo

def test_cli_demo_plays_a_reproducible_session(cli):
    status, out, err = cli("demo", "--seed", "t", "--hands", "2", "--quiet")
    assert (status, err) == (0, "")
    assert "FLOWER BRIDGE" in out and "ABOVE THE LINE" in out and "HAND RECORD" in out
    assert "Hand      2" in out
    assert cli("demo", "--seed", "t", "--hands", "2", "--quiet") == (0, out, "")


def test_cli_demo_prints_each_hand_unless_quiet(cli):
    status, out, _ = cli("demo", "--seed", "t", "--hands", "2")
    assert status == 0 and "Board 1 (seed 't'), dealer North" in out and "Board 2 (seed 't'), dealer East" in out
    assert "Board" not in cli("demo", "--seed", "t", "--hands", "2", "--quiet")[1]


def test_cli_demo_heads_each_hand_with_its_board_and_seed(cli):
    # what `deal --seed S --board K` is asked for to see the hand again
    status, out, _ = cli("demo", "--seed", "club night", "--hands", "3")
    assert status == 0
    assert re.findall(r"^Board .*$", out, re.M) == ["Board 1 (seed 'club night'), dealer North",
                                                    "Board 2 (seed 'club night'), dealer East",
                                                    "Board 3 (seed 'club night'), dealer South"]


def test_cli_demo_save_writes_the_session_record_that_show_reads(cli, tmp_path):
    from flowerbridge.session import Session, is_session_record

    path = tmp_path / "s.json"
    status, out, err = cli("demo", "--seed", "t", "--hands", "3", "--save", str(path))
    assert (status, err) == (0, "")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert is_session_record(data)
    session = Session.from_dict(data)
    assert len(session.hands) == 3 and session.render() in out      # the sheet demo printed
    assert os.listdir(tmp_path) == ["s.json"]       # written by way of a temporary file, gone
    status, shown, err = cli("show", str(path))
    assert (status, err) == (0, "") and shown.count("Dealer ") == 3


@pytest.mark.parametrize("where, pattern", [
    ("missing/s.json", r"--save \S+missing/s\.json: cannot write there: No such file or directory$"),
    (".", r"--save \S+: is a directory, not a file$"), ("-", r"--save -: give a file name")])
def test_cli_demo_save_where_it_cannot_be_written_is_refused_before_any_hand(cli, assert_cli_error, tmp_path,
                                                                             where, pattern):
    path = "-" if where == "-" else str(tmp_path / where)
    assert_cli_error(cli("demo", "--hands", "1", "--save", path), pattern)   # (no stdout: no hand printed)


def test_cli_demo_save_through_a_symlink_writes_the_file_it_leads_to(cli, tmp_path):
    # (the link was replaced by a regular file holding the session, the file it led to left as it was)
    target = tmp_path / "keep" / "tgt.json"
    target.parent.mkdir()
    target.write_text("an old session\n", encoding="utf-8")
    link = tmp_path / "lnk.json"
    link.symlink_to(target)
    status, out, err = cli("demo", "--seed", "t", "--hands", "2", "--save", str(link), "--overwrite")
    assert (status, err) == (0, "")
    assert link.is_symlink() and os.readlink(link) == str(target)       # still the same link
    assert len(json.loads(target.read_text(encoding="utf-8"))["hands"]) == 2
    assert sorted(os.listdir(tmp_path)) == ["keep", "lnk.json"]
    assert os.listdir(target.parent) == ["tgt.json"]    # the temporary file was beside the target, and is gone


def test_cli_demo_save_overwrite_keeps_the_files_permissions(cli, tmp_path):
    # (the session replaced a private 0600 file with a new one of 0666 less the umask)
    saved = tmp_path / "private.json"
    saved.write_text("an old session\n", encoding="utf-8")
    saved.chmod(0o600)
    status, out, err = cli("demo", "--seed", "t", "--hands", "1", "--save", str(saved), "--overwrite")
    assert (status, err) == (0, "")
    assert len(json.loads(saved.read_text(encoding="utf-8"))["hands"]) == 1
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600


def test_cli_demo_save_takes_a_file_name_as_long_as_the_folder_takes(cli, tmp_path):
    # the temporary file beside it, .NAME.XXXXXXXX.tmp, is 14 bytes longer: a name
    # of 242 to 255 bytes, which the folder takes, was refused "File name too long"
    saved = tmp_path / ("a" * 250 + ".json")
    status, out, err = cli("demo", "--seed", "t", "--hands", "1", "--save", str(saved))
    assert (status, err) == (0, "")
    assert len(json.loads(saved.read_text(encoding="utf-8"))["hands"]) == 1
    assert os.listdir(tmp_path) == [saved.name]        # and its shortened temporary file is gone


@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]])
def test_cli_demo_save_through_a_symlink_to_a_directory_names_where_it_leads(cli, assert_cli_error, tmp_path,
                                                                            overwrite):
    folder = tmp_path / "other"
    folder.mkdir()
    link = tmp_path / "sublink"
    link.symlink_to(folder)
    assert_cli_error(cli("demo", "--hands", "1", "--save", str(link), *overwrite),
                     rf"--save {re.escape(str(link))}: leads to {re.escape(str(folder))}, which "
                     r"is a directory, not a file$")      # (no stdout: no hand played)
    assert link.is_symlink() and folder.is_dir() and os.listdir(folder) == []
    assert sorted(os.listdir(tmp_path)) == ["other", "sublink"]


@pytest.mark.parametrize("through_a_link", [False, True])
@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]])
def test_cli_demo_save_to_a_fifo_is_refused_before_any_hand_and_leaves_it_be(cli, assert_cli_error, tmp_path,
                                                                             overwrite, through_a_link):
    # (with --overwrite a FIFO or a device was replaced by a regular file: as root,
    # `--save /dev/full --overwrite` destroyed /dev/full)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    named = fifo
    if through_a_link:
        named = tmp_path / "lnk.json"
        named.symlink_to(fifo)
    leads = f"leads to {re.escape(str(fifo))}, which " if through_a_link else ""
    assert_cli_error(cli("demo", "--hands", "1", "--save", str(named), *overwrite),
                     rf"--save {re.escape(str(named))}: {leads}is not a regular file \(a FIFO\): "
                     r"choose a file name$")      # (no stdout: no hand played)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and (not through_a_link or named.is_symlink())
    assert sorted(os.listdir(tmp_path)) == sorted(["pipe"] + (["lnk.json"] if through_a_link else []))


def test_cli_demo_save_to_its_own_standard_output_is_refused(tmp_path):
    # (`demo --save /dev/stdout --overwrite > out.txt` replaced out.txt by the session record,
    # the demo's own output going on into the file that replaced it had unlinked)
    import subprocess

    path = tmp_path / "out.txt"
    with open(path, "w", encoding="utf-8") as fh:
        done = subprocess.run([sys.executable, "-m", "flowerbridge", "demo", "--hands", "1", "--save", str(path),
                               "--overwrite"], stdout=fh, stderr=subprocess.PIPE, text=True, check=False)
    assert done.returncode == 2
    assert done.stderr == f"error: --save {path}: is the command's standard output: choose a file name\n"
    assert path.read_text(encoding="utf-8") == ""       # nothing played, nothing saved
    assert os.listdir(tmp_path) == ["out.txt"]


def test_cli_demo_says_a_passed_out_hand_is_passed_out_once(cli):
    status, out, _ = cli("demo", "--hands", "2")      # board 1 of seed 'demo' is passed out
    hand = out.split("Board 1 (seed 'demo')", 1)[1].split("Board 2", 1)[0]
    assert status == 0 and hand.endswith("\nPassed out\n\n") and hand.count("Passed out") == 1


def test_cli_demo_scoresheet_bright_bonus_rows_keep_their_marks_in_line(cli):
    from flowerbridge import Deal, RuleOptions
    from flowerbridge.session import Session

    def bonus_rows(sheet: str) -> list[str]:
        return [line for line in sheet.splitlines() if "BRIGHT BONUS" in line]

    out = cli("demo", "--hands", "1", "--quiet")[1]
    assert bonus_rows(out) == ["FIVE BRIGHT BONUS (+25)  NS □  EW □", "TEN BRIGHT BONUS (+75)   NS □  EW □"]
    # a variant's bonuses of other widths (a lab's rule options) line up as well
    session = Session(RuleOptions(five_bright_bonus=5, ten_bright_bonus=1000))
    state = session.new_hand(Deal.from_seed(1, 1))
    for _ in range(4):
        state.call("Pass")
    session.add(state)
    rows = bonus_rows(session.render())
    assert rows[0].index(" NS ") == rows[1].index(" NS ") == len("TEN BRIGHT BONUS (+1000) "), rows


def test_cli_demo_unknown_bot_is_one_error_line(cli, assert_cli_error):
    assert_cli_error(cli("demo", "--bots", "nope"), r"unknown bot 'nope'")


def test_cli_demo_a_bot_that_raises_is_one_error_line(cli, assert_cli_error):
    assert_cli_error(cli("demo", "--bots", "tests.test_bots:FailingBot"),
                     r"the bot at \w+ failed: RuntimeError: kaboom")


def test_cli_demo_reads_its_seed_as_deal_does(cli):
    # a seed in digits is that number, as for deal, match, play and lab: 7 and 007 alike
    status, out, _ = cli("demo", "--seed", "7", "--hands", "2")
    assert status == 0 and "Board 2 (seed 7), dealer East" in out
    assert cli("demo", "--seed", "007", "--hands", "2") == (0, out, "")
    assert cli("demo", "--seed", "7x", "--hands", "2")[1] != out


def test_cli_demo_takes_the_rule_options_score_has(cli):
    # seed 3: a contract of 2R fails by six tricks; seed 11: 2R is played by West, whose
    # partner East named Ribbons first, and so declares it under first-named (R9)
    status, out, _ = cli("demo", "--seed", "3", "--hands", "4")
    assert status == 0 and "2 Ribbons down 6 × 50 (R15)" in out
    status, out, _ = cli("demo", "--seed", "3", "--hands", "4", "--undertrick-penalty", "30")
    assert status == 0 and "2 Ribbons down 6 × 30 (R15)" in out
    status, out, _ = cli("demo", "--seed", "11", "--hands", "4")
    assert status == 0 and "Contract 2 Ribbons by West\n" in out and "Ribbons by East\n" not in out
    status, out, _ = cli("demo", "--seed", "11", "--hands", "4", "--declarer", "first-named")
    assert status == 0 and "Contract 2 Ribbons by East\n" in out


def test_formats_show_a_hand_record_whose_hands_is_an_array_gets_the_hand_records_error(
        cli, assert_cli_error, tmp_path, ch16_record):
    # hands is an object with keys N, E, S, W: an array of holdings is the hand record's error,
    # as score says, not a session's ("hand 1: a hand record is a JSON object, not an array")
    ch16_record["hands"] = [ch16_record["hands"][seat] for seat in "NESW"]
    (tmp_path / "arr.json").write_text(json.dumps(ch16_record))
    for command in ("show", "score"):
        assert_cli_error(cli(command, str(tmp_path / "arr.json")),
                         r"^error: \S+arr\.json: hands must be an object with keys N, E, S, W \(each seat's array of "
                         r"card codes\), not an array$")


def test_cli_show_a_session_without_first_dealer_names_its_first_hands_dealer(cli, assert_cli_error,
                                                                              monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"hands":[{"dealer":[1]}]}'))
    assert_cli_error(cli("show", "-"), r"^error: standard input: hand 1: dealer must be one of N, E, S, W, "
                                          r"not an array$")


def test_cli_show_a_session_of_no_hands_is_an_error(cli, assert_cli_error, tmp_path):
    (tmp_path / "s.json").write_text(json.dumps({"format": "flowerbridge-session", "hands": []}))
    assert_cli_error(cli("show", str(tmp_path / "s.json")), r"s\.json holds a session of no hands")


def test_cli_show_an_empty_file_is_an_error(cli, assert_cli_error, tmp_path):
    (tmp_path / "empty.json").write_text("  \n")
    assert_cli_error(cli("show", str(tmp_path / "empty.json")), r"error: \S+empty\.json is empty: no hand record")


@pytest.mark.parametrize("command", ["score", "show", "solve"])
def test_cli_empty_input_is_said_alike_by_every_command_that_reads_a_record(cli, assert_cli_error, monkeypatch,
                                                                            tmp_path, command):
    # score and solve said "malformed JSON at line 1 column 1 of standard input: Expecting value"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    assert_cli_error(cli(command, "-"), r"^error: standard input is empty: no hand record in it$")
    (tmp_path / "empty.json").write_bytes(b" \n\xef\xbb\xbf\n")
    assert_cli_error(cli(command, str(tmp_path / "empty.json")), r"^error: \S+empty\.json is empty: no hand record in it$")


class _FailsToRead(io.BytesIO):
    def read(self, size=-1):
        raise OSError(errno.EIO, os.strerror(errno.EIO))


@pytest.mark.parametrize("command", ["score", "show", "solve"])
def test_cli_input_that_fails_to_read_once_open_is_named(cli, assert_cli_error, monkeypatch, command):
    # a read failing once the file was open (EIO) said "error: Input/output error", no file named
    if os.path.exists("/proc/self/mem"):        # (Linux: reading its first page fails so)
        assert_cli_error(cli(command, "/proc/self/mem"), r"^error: /proc/self/mem: Input/output error$")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(_FailsToRead()))
    assert_cli_error(cli(command, "-"), r"^error: standard input: Input/output error$")


class _Terminal(io.BytesIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("argv, what", [(["score", "-"], "a hand record"), (["show", "-"], "a hand record"),
                                        (["solve", "--table", "-"], "a hand record"),
                                        (["solve", "--bridge-file", "-"], "Bridge deals (one PBN deal a line)")])
def test_cli_standard_input_at_a_terminal_is_said_to_be_read(cli, monkeypatch, ch16_record, argv, what):
    # (nothing piped in, the command waited without a word)
    text = "N:AKQ2.JT9.876.543 JT9.876.543.AKQ2 876.543.AKQ2.JT9 543.AKQ2.JT9.876\n" \
        if "--bridge-file" in argv else json.dumps(ch16_record)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(_Terminal(text.encode())))
    status, out, err = cli(*argv)
    assert status == 0 and out
    assert err == f"reading {what} from standard input (end with Ctrl-D)\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))     # piped in: no word
    assert cli(*argv)[::2] == (0, "")


@pytest.mark.parametrize("content", [b"\xef\xbb\xbf\xef\xbb\xbf", b"\xef\xbb\xbf \n\xef\xbb\xbf\n",
                                     b"\n\xef\xbb\xbf"])
def test_cli_show_a_file_of_byte_order_marks_only_is_empty(cli, assert_cli_error, tmp_path, content):
    # it said "f.fbn holds a session of no hands: nothing to show"
    (tmp_path / "f.fbn").write_bytes(content)
    assert_cli_error(cli("show", str(tmp_path / "f.fbn")), r"^error: \S+f\.fbn is empty: no hand record in it$")


@pytest.mark.parametrize("value", ["0", "100000", "-5"])
def test_cli_solve_memory_bound_out_of_range_is_one_error_line(cli, assert_cli_error, tmp_path,
                                                              ch16_record, value):
    (tmp_path / "h.json").write_text(json.dumps(ch16_record))
    assert_cli_error(cli("solve", "--memory-mb", value, str(tmp_path / "h.json")),
                     r"--memory-mb must be between 1 and 65,536")


@pytest.mark.parametrize("value", ["inf", "nan", "0.5", "1e3", " 5_0", "\u0661\u0660\u0660", ""])
def test_cli_solve_memory_bound_is_a_whole_number_in_digits(cli, assert_cli_error, tmp_path, ch16_record,
                                                            value):
    # it was read as a float: 1e3, 1.5, " 5_0" and Arabic-Indic digits were taken where
    # every other number option refuses them, and "" was "invalid float value: ''"
    (tmp_path / "h.json").write_text(json.dumps(ch16_record))
    assert_cli_error(cli("solve", "--memory-mb", value, str(tmp_path / "h.json")),
                     r"argument --memory-mb: .* is not a whole number in digits 0-9")


@pytest.mark.parametrize("argv", [["lab", "--n", "5_0"], ["lab", "--n", "+5"], ["lab", "--workers", " 2"],
                                  ["lab", "--workers", "2 "], ["solve", "--workers", "2\n", "-"],
                                  ["lab", "--chunk-size", "1e3"], ["lab", "--dd-n", "\u0665"],
                                  ["solve", "--workers", "2_0", "-"]])
def test_cli_whole_numbers_are_written_in_digits_only(cli, assert_cli_error, argv):
    # Python's int() takes '5_0', '+5', ' 2' and other scripts' digits: the commands do not
    assert_cli_error(cli(*argv), r"error: flowerbridge \w+: argument --[\w-]+: .* is not a whole number in digits 0-9")


@pytest.mark.parametrize("argv", [["nonsense"], ["deal"], ["show"]])
def test_cli_usage_errors_are_one_line(cli, assert_cli_error, argv):
    assert_cli_error(cli(*argv), r"error: flowerbridge")


def test_cli_no_command_is_a_usage_error_with_the_commands_on_standard_error(cli):
    # (it printed them on standard output and exited 0, as though something had been done)
    status, out, err = cli()
    assert (status, out) == (2, "")
    assert err.startswith("usage: flowerbridge ") and "score" in err and "solve" in err


@pytest.mark.parametrize("argv, said", [(["play", "extra"], "flowerbridge play: unrecognized arguments: extra"),
                                        (["deal", "--seed", "1", "--nope"], "flowerbridge deal: unknown option --nope"),
                                        (["--nope"], "flowerbridge: unknown option --nope")])
def test_cli_unrecognized_arguments_name_the_subcommand_they_were_given_to(cli, assert_cli_error, argv, said):
    assert_cli_error(cli(*argv), rf"^error: {re.escape(said)}$")


@pytest.mark.parametrize("argv, said", [
    # it said "the following arguments are required: --seed" (or --ns), naming no misspelling
    (["deal", "--se", "7"], "deal: unknown option --se (did you mean --seed?)"),
    (["deal", "--sed", "7"], "deal: unknown option --sed (did you mean --seed?)"),
    (["match", "--n", "basic", "--ew", "random"], "match: unknown option --n (did you mean --ns?)"),
    # "unrecognized arguments: --undertrick h.json": the 5 was taken for FILE
    (["score", "--undertrick", "5", "h.json"], "score: unknown option --undertrick (did you mean --undertrick-penalty?)"),
    # the start of a long name is too short beside it to be similar: "unknown option --under"
    (["score", "--under", "5", "h.json"], "score: unknown option --under (did you mean --undertrick-penalty?)"),
    # (--seed, as near, was left out: the first two of three alone)
    (["play", "--se", "N"], "play: unknown option --se (did you mean --save, --seat or --seed?)"),
    (["deal", "--seed=7", "--jsn=1"], "deal: unknown option --jsn (did you mean --json?)"),
    (["deal", "--seed", "-3", "--bord", "2"], "deal: unknown option --bord (did you mean --board?)"),
    (["deal", "--zz", "--se", "7"], "deal: unknown options --zz and --se (did you mean --seed?)"),
    (["deal", "--seed", "7", "-x"], "deal: unknown option -x"),
    (["--seed", "7", "deal"], "flowerbridge: unknown option --seed"),
    # the subcommand's words are its parser's to judge: not the top level's unknown options
    (["--vers", "deal", "--se", "7"], "flowerbridge: unknown option --vers (did you mean --version?)"),
])
def test_cli_a_misspelt_option_is_named_first_with_the_closest_options(cli, assert_cli_error, argv, said):
    prog = "" if said.startswith("flowerbridge") else "flowerbridge "
    assert_cli_error(cli(*argv), rf"^error: {re.escape(prog + said)}$")


@pytest.mark.parametrize("argv, said", [
    # `deal --seed 1 --seed 2` dealt seed 2 and said nothing of the 1
    (["deal", "--seed", "1", "--seed", "2"], "deal: --seed is given more than once: give it once"),
    (["deal", "--seed=1", "--json", "--seed", "1"], "deal: --seed is given more than once: give it once"),
    (["deal", "--json", "--seed", "1", "--json"], "deal: --json is given more than once: give it once"),
    (["score", "--undertrick-penalty", "0", "--undertrick-penalty=50", "h.json"],
     "score: --undertrick-penalty is given more than once: give it once"),
])
def test_cli_an_option_of_one_value_given_twice_is_refused(cli, assert_cli_error, argv, said):
    assert_cli_error(cli(*argv), rf"^error: flowerbridge {re.escape(said)}$")


@pytest.mark.parametrize("argv, option", [
    # argparse took the joined `--` for the end of the options: the option got an empty
    # list, unchecked, and a traceback followed (AttributeError, TypeError; exit 1)
    (["deal", "--seed=--"], "--seed"),
    (["deal", "--seed", "1", "--dealer=--"], "--dealer"),
    (["match", "--ns", "random", "--ew", "random", "--boards=--"], "--boards"),
    (["match", "--ns=--", "--ew", "random"], "--ns"),
    (["demo", "--save=--"], "--save"),
    (["score", "--declarer=--", "h.json"], "--declarer"),
    (["lab", "variants", "--n", "2", "--variant=--"], "--variant"),      # (one that adds up)
])
def test_cli_an_option_given_two_dashes_as_its_value_is_one_error_line(cli, assert_cli_error, argv, option):
    assert_cli_error(cli(*argv), rf"argument {re.escape(option)}: '--' is no value: give one")


def test_cli_an_option_that_adds_up_may_be_given_again(cli, tmp_path):
    # --variant names one more rule set each time
    status, out, err = cli("lab", "variants", "--n", "2", "--workers", "1", "--quiet", "--out", str(tmp_path / "v"),
                           "--variant", 'a={"undertrick_penalty": 0}', "--variant", 'b={"undertrick_penalty": 100}')
    assert (status, err) == (0, "")
    rows = (tmp_path / "v" / "variants.csv").read_text(encoding="utf-8").splitlines()
    column = rows[0].split(",").index("variant")
    assert {row.split(",")[column] for row in rows[1:]} == {"default", "a", "b"}


@pytest.mark.parametrize("argv, said", [
    # a negative number is a value, `--` ends the options, and what follows an option
    # that takes a value is that value: argparse's own message stands
    (["deal", "--seed", "7", "--board", "-3"], "deal: argument --board: '-3': give a whole number"),
    (["deal", "--", "--se"], "deal: the following arguments are required: --seed"),
    (["deal", "--seed", "--jsn"], "deal: argument --seed: expected one argument"),
    (["deal", "--seed", "7", "-5"], "deal: unrecognized arguments: -5"),
])
def test_cli_what_is_no_option_is_not_named_an_unknown_one(cli, assert_cli_error, argv, said):
    assert_cli_error(cli(*argv), rf"^error: flowerbridge {re.escape(said)}")


@pytest.mark.parametrize("argv, pattern", [
    (["match", "--ns", "basic", "--ew", "basic", "--samples", "0"], r"--samples: '0': give a whole number from 1 to 10,000"),
    (["match", "--ns", "basic", "--ew", "basic", "--samples", "100000000"], r"--samples: '100000000'"),
    (["match", "--ns", "basic", "--ew", "basic", "--boards", "-3"], r"--boards: '-3': give a whole number from 1 to 100,000"),
    (["demo", "--hands", "99999999999999999999"], r"--hands: '99999999999999999999': give a whole number from 1 to 10,000"),
    (["demo", "--hands", "٣"], r"--hands: '٣'"),
    (["deal", "--seed", "7", "--board", "0"], r"--board: '0': give a whole number from 1 to 999,999,999"),
    (["deal", "--seed", "7", "--board", "1000000000"], r"--board: '1000000000': give a whole number from 1 to 999,999,999"),
])
def test_cli_numbers_out_of_their_range_are_one_error_line(cli, assert_cli_error, argv, pattern):
    assert_cli_error(cli(*argv), pattern)


def test_cli_match_report_writes_one_board_and_one_imp_in_the_singular(cli):
    from dataclasses import replace

    from flowerbridge.bots.match import run_match
    from flowerbridge.cli.match import render_match

    status, out, _ = cli("match", "--ns", "random", "--ew", "random", "--boards", "1")
    assert status == 0 and "random (A) v random (B), 1 board, seed 'match'\n" in out
    assert ", 2 boards, " in cli("match", "--ns", "random", "--ew", "random", "--boards", "2")[1]
    result = run_match("random", "random", 1, "match")
    result.results[0] = replace(result.results[0], imps=-1)
    assert "total -1 IMP\n" in render_match(result)


def test_cli_show_a_one_trick_result_says_1_trick(cli, tmp_path, random_hand):
    state = random_hand(11)     # 2NT by North, which takes one trick
    (tmp_path / "h.json").write_text(records.dumps(state))
    status, out, _ = cli("show", str(tmp_path / "h.json"))
    assert status == 0 and "2NT by N: 1 trick, down 7\n" in out


def test_cli_match_samples_without_a_sampling_bot_is_refused(cli, assert_cli_error):
    assert_cli_error(cli("match", "--ns", "basic", "--ew", "random", "--samples", "5"),
                     r"--samples is for pimc .*: basic and random do not sample")
    # a module:attribute bot whose factory takes no samples option would ignore it too
    assert_cli_error(cli("match", "--ns", "basic", "--ew", "flowerbridge.bots.basic:BasicBot",
                         "--boards", "1", "--samples", "5"),
                     r"--samples is for pimc .*flowerbridge.bots.basic:BasicBot do not sample")
    status, out, _ = cli("match", "--ns", "flowerbridge.bots.pimc:PimcBot", "--ew", "random",
                         "--boards", "1", "--samples", "2")
    assert status == 0 and "IMPs" in out


@pytest.mark.parametrize("argv", [["deal", "--seed", "9"],
                                  ["match", "--ns", "basic", "--ew", "random", "--boards", "2"],
                                  ["demo", "--hands", "1", "--quiet"]])
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_cli_output_in_a_locale_without_unicode_falls_back_to_plain_characters(argv, encoding):
    # a void's dash, a bot's point range, the times sign and the scoresheet's
    # boxes: written plainly, not a UnicodeEncodeError part-way through
    import os
    import subprocess

    done = subprocess.run([sys.executable, "-m", "flowerbridge.cli", *argv], capture_output=True,
                          env={**os.environ, "PYTHONIOENCODING": encoding}, timeout=300)
    assert done.returncode == 0, done.stderr.decode(encoding, "replace")
    assert b"Traceback" not in done.stderr and done.stdout.decode(encoding)
    # each character the encoding lacks has its plain stand-in ("-" for a dash, "." for
    # a box): none is written escaped, as a seed in Hangul is ("\u2014" is no dash)
    assert b"\\u" not in done.stdout and b"\\x" not in done.stdout, done.stdout.decode(encoding)


def _in_encoding(encoding: str, *argv: str, stdin: bytes | None = None):
    import os
    import subprocess

    return subprocess.run([sys.executable, "-m", "flowerbridge.cli", *argv], capture_output=True, input=stdin,
                          env={**os.environ, "PYTHONIOENCODING": encoding}, timeout=300)


def test_cli_text_for_people_in_an_ascii_locale_escapes_what_it_cannot_hold_and_loses_none():
    # the seed in Hangul was printed "'???'": no --seed could deal the hand again
    done = _in_encoding("ascii", "demo", "--seed", "\ud55c", "--hands", "1")
    assert done.returncode == 0 and b"Board 1 (seed '\\ud55c'), dealer North" in done.stdout


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_notation_is_refused_where_the_output_cannot_hold_it_not_written_with_stand_ins(encoding, ch16_record):
    # show --notation wrote [Event "??? - test"]: read back, another record
    record = json.dumps({**ch16_record, "event": "\ud55c\uad6d\uc5b4 \u2014 test"}).encode()
    done = _in_encoding(encoding, "show", "--notation", "-", stdin=record)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode(encoding) == (
        f"error: the output's encoding, {encoding.replace('latin-1', 'iso8859-1')}, cannot hold '\\ud55c' of what would be written (the "
        "notation is read back as written): set a UTF-8 locale, or PYTHONIOENCODING=utf-8\n")
    done = _in_encoding(encoding, "deal", "--seed", "\ud55c", "--notation")    # (the seed is its tag Seed)
    assert done.returncode == 2 and done.stdout == b"" and "cannot hold '\\ud55c'" in done.stderr.decode(encoding)
    done = _in_encoding(encoding, "deal", "--seed", "club", "--notation")
    assert done.returncode == 0 and done.stdout.startswith(b'[Seed "club"]\n[Board "1"]\n[Dealer "N"]')
    done = _in_encoding("utf-8", "show", "--notation", "-", stdin=record)
    assert done.returncode == 0 and '[event "\ud55c\uad6d\uc5b4 \u2014 test"]' in done.stdout.decode()


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
def test_notation_is_refused_where_the_output_would_write_it_in_other_bytes_than_utf8(encoding, ch16_record):
    # written in Latin-1 (Windows' cp1252 where the output is a file), show then refused to
    # read it back: "not UTF-8 text (byte 8: invalid continuation byte)"
    record = json.dumps({**ch16_record, "event": "Caf\u00e9"}).encode()
    done = _in_encoding(encoding, "show", "--notation", "-", stdin=record)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode(encoding) == (
        f"error: the output's encoding, {encoding.replace('latin-1', 'iso8859-1')}, would write '\\xe9' as "
        "other bytes than UTF-8, in which the notation is read back: set a UTF-8 locale, or PYTHONIOENCODING=utf-8\n")
    plain = json.dumps({**ch16_record, "event": "Cafe"}).encode()      # all ASCII: the same bytes
    done = _in_encoding(encoding, "show", "--notation", "-", stdin=plain)
    assert done.returncode == 0 and b'[event "Cafe"]' in done.stdout



def test_notation_written_in_utf8_with_a_byte_order_mark_is_read_back(tmp_path, ch16_record):
    # (PYTHONIOENCODING=utf-8-sig was refused, every character named as "other bytes")
    record = json.dumps({**ch16_record, "event": "Caf\u00e9"}).encode()
    done = _in_encoding("utf-8-sig", "show", "--notation", "-", stdin=record)
    assert done.returncode == 0 and done.stdout.startswith(b"\xef\xbb\xbf["), done.stderr
    (tmp_path / "h.fbn").write_bytes(done.stdout)
    again = _in_encoding("utf-8", "show", "--notation", str(tmp_path / "h.fbn"))
    assert again.returncode == 0 and again.stdout == done.stdout[3:]


def test_cli_solve_a_finished_hand_has_no_card_to_value_and_says_table_does(cli, assert_cli_error, tmp_path,
                                                                            ch16_record):
    (tmp_path / "h.json").write_text(json.dumps(ch16_record))   # all 52 cards played
    assert_cli_error(cli("solve", str(tmp_path / "h.json")),       # (it named no file)
                     rf"^error: {re.escape(str(tmp_path / 'h.json'))}: the play is over: no card left "
                     r"to solve \(--table gives the deal's DD table\)")
    status, out, _ = cli("solve", "--table", str(tmp_path / "h.json"))
    assert status == 0 and set(json.loads(out)["table"]) == {"P", "R", "A", "NT"}


def test_formats_solve_reads_the_contracts_options_alone_as_score_does(cli, tmp_path, ch16_record):
    # A variant's scoring scales change no trick, and FORMATS.md makes every other key of
    # "options" unknown, never an error: solve refused a record holding "game_points": 0.
    position = {**ch16_record, "play": ch16_record["play"][:44]}
    (tmp_path / "plain.json").write_text(json.dumps(position))
    status, plain, err = cli("solve", str(tmp_path / "plain.json"))
    assert (status, err) == (0, "") and json.loads(plain)["cards"]
    for variant in ({"game_points": 0}, {"honor_bright": 5, "five_bright_bonus": -1}, {"game_points": 50}):
        (tmp_path / "v.json").write_text(json.dumps({**position, "options": {"declarer": "final-bidder", **variant}}))
        assert cli("solve", str(tmp_path / "v.json")) == (0, plain, ""), variant


@pytest.mark.parametrize("command", ["score", "solve"])
def test_formats_score_and_solve_name_a_session_or_notation_file_as_such(cli, assert_cli_error, tmp_path,
                                                                       ch16_record, command):
    # solve said "error: missing key 'dealer'" for a session and "malformed JSON at line 1
    # column 2" for the notation, where score named them: both tell them apart alike now
    (tmp_path / "s.json").write_text(json.dumps({"format": "flowerbridge-session", "hands": [ch16_record]}))
    (tmp_path / "h.fbn").write_text(notation.dumps(replay(ch16_record)))
    assert_cli_error(cli(command, str(tmp_path / "s.json")),
                     rf"^error: \S+s\.json is a session record: {command} takes one hand record, one of its "
                     r"'hands' \(show reads sessions\)$")
    assert_cli_error(cli(command, str(tmp_path / "h.fbn")),
                     rf"^error: \S+h\.fbn is in the text notation: {command} takes a JSON hand record "
                     r"\(show reads the notation\)$")


def test_solve_and_score_point_a_play_save_file_to_the_hand_it_holds(cli, assert_cli_error, tmp_path,
                                                                     ch16_record):
    # play --save writes the hand being played under "unfinished", which solve takes: it was
    # pointed to the session's 'hands', an empty list before the first hand is over
    position = {**ch16_record, "play": ch16_record["play"][:20]}
    (tmp_path / "u.json").write_text(json.dumps(position))
    for hands, some in (([], ""), ([ch16_record], r"one of its 'hands' \(jq '\.hands\[0\]'\) or ")):
        session = {"format": "flowerbridge-session", "hands": hands, "unfinished": position}
        (tmp_path / "s.json").write_text(json.dumps(session))
        assert_cli_error(cli("solve", str(tmp_path / "s.json")),
                         rf"^error: \S+s\.json is a session record: solve takes one hand record, {some}the hand "
                         r"it was playing, its 'unfinished' \(jq \.unfinished\) \(show reads sessions\)$")
    status, out, err = cli("solve", str(tmp_path / "u.json"))     # which solve solves, as jq gives it
    assert (status, err) == (0, "") and json.loads(out)["cards"]
    # score takes finished hands only: a session with none says so
    (tmp_path / "s.json").write_text(json.dumps({"format": "flowerbridge-session", "hands": [],
                                                  "unfinished": position}))
    assert_cli_error(cli("score", str(tmp_path / "s.json")),
                     r"^error: \S+s\.json is a session record: score takes one hand record, and it holds no "
                     r"finished hand yet \(show reads sessions\)$")


def test_cli_solve_without_its_compiled_core_is_one_error_line(tmp_path):
    # an install whose core is missing (a packaging review removed the .so): solve printed
    # ModuleNotFoundError's traceback, where lab and match name the solver in one line
    import subprocess

    blocked = (
        "import importlib.abc, sys\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'flowerbridge.solver._core':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from flowerbridge.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n")
    for args in (["--table", "-"], ["--bridge-file", "-"]):
        done = subprocess.run([sys.executable, "-c", blocked, "solve", *args], input="", capture_output=True,
                              text=True, timeout=60)
        assert (done.returncode, done.stdout) == (2, ""), done.stderr
        assert re.fullmatch(r"error: the double-dummy solver is not available: its compiled core could not be "
                            r"loaded \(No module named 'flowerbridge\.solver\._core'\); install the package "
                            r"again\n", done.stderr), done.stderr


def test_cli_solve_table_is_for_a_hand_record_not_a_bridge_file(cli, assert_cli_error, tmp_path):
    (tmp_path / "d.pbn").write_text("N:AKQ2.JT9.876.543 JT9.876.543.AKQ2 876.543.AKQ2.JT9 543.AKQ2.JT9.876\n")
    assert_cli_error(cli("solve", "--table", "--bridge-file", str(tmp_path / "d.pbn")),
                     r"--table is for FILE: --bridge-file always prints each deal's DD table")


def test_cli_solve_bridge_file_prints_each_table_as_solved_and_an_interrupt_keeps_them(
        cli, tmp_path, monkeypatch):
    # Ctrl-C while the third deal is being solved: the first two deals' lines are out.
    from flowerbridge.solver import core

    deals = ["N:AKQJ63.AQ3.A7.KJ .T8742.T9863.A64 85.KJ6.KQ2.T9872 T9742.95.J54.Q53",
             "N:AT987.Q9.A73.854 QJ32.743.62.AKT9 654.JT865.J94.72 K.AK2.KQT85.QJ63",
             "N:A84.Q42.K53.QT92 K62.AJ6.J4.AK653 J9753.T97.A986.J QT.K853.QT72.874"]
    (tmp_path / "d.pbn").write_text("\n".join(deals) + "\n")
    solved = core.DoubleDummy.dd_table
    calls = []

    def interrupted_on_the_third(self, hands):
        calls.append(hands)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return solved(self, hands)

    monkeypatch.setattr(core.DoubleDummy, "dd_table", interrupted_on_the_third)
    status, out, err = cli("solve", "--workers", "1", "--bridge-file", str(tmp_path / "d.pbn"))
    assert status == 130 and err == "interrupted\n"
    lines = out.splitlines()
    assert len(lines) == 2 and all(set(json.loads(line)) == {"C", "D", "H", "S", "NT"} for line in lines)


def test_cli_solve_input_too_large_to_read_is_no_memory_mb_hint(cli, assert_cli_error, tmp_path,
                                                                 monkeypatch):
    # `(ulimit -v 1500000; flowerbridge solve /dev/zero)`: the input ran out, not the tables
    import flowerbridge.cli as cli_module

    def too_large(path, *what):
        raise MemoryError

    monkeypatch.setattr(cli_module, "read_text", too_large)
    for argv in (["solve", str(tmp_path / "h.json")], ["solve", "--bridge-file", str(tmp_path / "d.pbn")]):
        status, _, err = cli(*argv)
        assert "--memory-mb" not in err
        name = re.escape(argv[-1].rpartition("/")[2])
        assert_cli_error((status, "", err), rf"{name}: out of memory reading it: too large an input$")


@pytest.mark.parametrize("argv", [["score", "\ud800.json"], ["show", "h\ud800.json"],
                                  ["demo", "--seed", "1", "--hands", "1", "--save", "{tmp}/\ud800.json"],
                                  ["lab", "deals", "--n", "1", "--workers", "1", "--out", "{tmp}/lab\ud800"]])
def test_cli_a_name_that_cannot_be_encoded_is_one_error_line(cli, assert_cli_error, tmp_path, argv):
    # main() called in-process with a lone surrogate in a file name (a shell's arguments
    # never hold one) raised UnicodeEncodeError from open() or os.path
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert_cli_error(cli(*argv), r"\\ud800.*' cannot be encoded in utf-8 \(surrogates not allowed\)$")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("options", [["--table", "--memory-mb", "2"], ["--table", "--workers", "1", "--memory-mb", "1"],
                                     ["--memory-mb", "1"]], ids=["table-shared", "table-one-thread", "card-values"])
def test_cli_solve_interrupted_in_process_leaves_no_search_running(cli, tmp_path, options):
    # main() given argv (a program calling the command line): Ctrl-C returned 130 while the
    # search went on, on a thread of its own, to its end (minutes for these tables). The
    # search now stops with the command: no thread of it is left.
    import signal
    import threading

    from flowerbridge import HandState, Seat

    record = records.to_dict(HandState(Deal.from_seed(0), Seat.N))     # (the lab's deal 0 of seed 0)
    if "--table" not in options:
        record["auction"] = ["3NT", "Pass", "Pass", "Pass"]
    (tmp_path / "h.json").write_text(json.dumps(record))
    before = set(threading.enumerate())
    timer = threading.Timer(1.0, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer.start()
    try:
        status, out, err = cli("solve", *options, str(tmp_path / "h.json"))
        kept = signal.getsignal(signal.SIGINT)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert (status, out, err) == (130, "", "interrupted\n")
    assert set(threading.enumerate()) <= before
    assert kept is signal.default_int_handler      # (a program's own handlers are left as they were)


def test_cli_run_as_the_process_takes_no_second_ctrl_c_once_it_is_ending(monkeypatch, tmp_path, capsys):
    # The search takes Ctrl-C at once, so a second press (or SIGTERM) came while the command
    # was ending: it cut "interrupted" short with a traceback from the except clause, or
    # the exit's wait. Run as the process (main() without argv), a command that has taken a
    # stop takes no other.
    import signal
    import threading

    from flowerbridge import HandState, Seat
    from flowerbridge.cli import main

    (tmp_path / "h.json").write_text(json.dumps(records.to_dict(HandState(Deal.from_seed(0), Seat.N))))
    monkeypatch.setattr(sys, "argv", ["flowerbridge", "solve", "--table", "--memory-mb", "2", str(tmp_path / "h.json")])
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
    timer.start()
    try:
        assert main() == 130
        assert capsys.readouterr().err == "interrupted\n"
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN and signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        timer.cancel()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used, from Linux's /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_one_stop_takes_the_first_ctrl_c_and_sets_the_next_ones_aside():
    # `solve` pressed twice within a few ms: the second Ctrl-C came while the first was
    # unwinding, before the command's except clause could set it aside, and a traceback
    # followed "interrupted" (seen in CI under load). The handler sets them aside itself.
    import signal

    from flowerbridge._signals import one_stop

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        with pytest.raises(KeyboardInterrupt):
            with one_stop():
                handler = signal.getsignal(signal.SIGINT)
                os.kill(os.getpid(), signal.SIGINT)
                for _ in range(1000):       # until the handler has run
                    pass
        # a second already pending when the first ran: taken, and nothing raised
        assert handler(signal.SIGINT, None) is None
        assert signal.getsignal(signal.SIGINT) == signal.getsignal(signal.SIGTERM) == signal.SIG_IGN
        os.kill(os.getpid(), signal.SIGINT)     # set aside: nothing raised
        # without a stop, the handlers before come back
        signal.signal(signal.SIGINT, signal.default_int_handler)
        with one_stop():
            assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        for signum, previous in before.items():
            signal.signal(signum, previous)


DROPPED_IN_A_FINALIZER = """
import signal, sys, time, weakref
from contextlib import nullcontext
from flowerbridge._signals import one_stop, stops_not_dropped, terminated_as_a_stop

signum = getattr(signal, sys.argv[1])
# (Python takes Ctrl-C only where it was not ignored when it started: a run in the
# background, `nohup ... &`, starts with it ignored)
signal.signal(signal.SIGINT, signal.default_int_handler)

class Thing:
    pass

def finalised(ref):
    signal.raise_signal(signum)     # the stop lands inside the weak reference's callback
    for _ in range(1000):           # (taken here: Python drops it, "Exception ignored")
        pass

def failed(ref):
    raise ValueError("not a stop")

with stops_not_dropped() if sys.argv[2] == "kept" else nullcontext(), terminated_as_a_stop(), \
        one_stop() if sys.argv[3] == "one" else nullcontext():
    thing, other = Thing(), Thing()
    refs = weakref.ref(thing, finalised), weakref.ref(other, failed)
    try:
        del other               # another error: said as Python says it
        del thing
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            time.sleep(0.01)
        print("went on")
    except KeyboardInterrupt as stop:
        print("stopped by", type(stop).__name__)
"""


@pytest.mark.parametrize("signum, stop, handler", [
    ("SIGINT", "KeyboardInterrupt", "python"), ("SIGTERM", "Terminated", "python"),
    ("SIGINT", "KeyboardInterrupt", "one")])     # (one_stop: its handler sets the next ones aside)
def test_a_stop_that_python_drops_in_a_finalizer_is_sent_again(signum, stop, handler, tmp_path):
    # `serve` pressed Ctrl-C as it started (CI, under load) served on: the KeyboardInterrupt
    # was raised inside a garbage-collector callback of SQLAlchemy's, which Python cannot
    # unwind from, so it printed "Exception ignored in ..." and went on
    import subprocess

    script = tmp_path / "dropped.py"
    script.write_text(DROPPED_IN_A_FINALIZER)
    ran = {how: subprocess.run([sys.executable, str(script), signum, how, handler], capture_output=True,
                               text=True, timeout=60)
           for how in ("kept", "plain")}
    assert ran["plain"].stdout == "went on\n"        # (what Python does alone)
    assert ran["kept"].stdout == f"stopped by {stop}\n", ran["kept"].stderr
    assert ran["kept"].returncode == 0
    # the stop is not said as dropped; another error is, as before
    assert stop not in ran["kept"].stderr and "ValueError: not a stop" in ran["kept"].stderr


def test_a_stop_dropped_as_a_command_ends_is_not_sent_after_it():
    # in a process that runs on (a test calling the command line), a stop sent again after
    # the command had returned stopped whatever came next
    import subprocess

    script = """
import signal, time, weakref
from flowerbridge._signals import stops_not_dropped

class Thing:
    pass

def finalised(ref):
    signal.raise_signal(signal.SIGINT)
    for _ in range(1000):
        pass

signal.signal(signal.SIGINT, signal.default_int_handler)     # (as in the script above)
try:
    with stops_not_dropped():
        thing = Thing()
        ref = weakref.ref(thing, finalised)
        del thing               # dropped, and the command ends at once
    time.sleep(0.5)
    print("went on")
except KeyboardInterrupt:
    print("stopped after the command")
"""
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert ran.stdout == "went on\n", ran.stderr


@pytest.mark.parametrize("stop, said, status", [(KeyboardInterrupt, "interrupted", 130),
                                                 ("Terminated", "terminated", 143)])
def test_cli_a_stop_that_lands_inside_a_lock_still_ends_the_command_as_that_stop(cli, monkeypatch, stop, said,
                                                                                 status):
    # A Ctrl-C taken inside threading.Condition.wait, after the wait let its lock go and
    # before it took it back (CI, under load: `solve --table` pressed twice at once),
    # became "RuntimeError: release unlocked lock" as the wait's `with` ended, and that
    # error's traceback, exit status 1, ended the command
    import threading

    from flowerbridge._signals import Terminated
    from flowerbridge.cli import solve

    stop = Terminated if stop == "Terminated" else stop

    def stopped_inside_a_lock(args) -> int:
        lock = threading.Lock()
        try:
            raise stop()
        finally:
            lock.release()      # (the lock the stop kept the wait from taking back)

    monkeypatch.setattr(solve, "run", stopped_inside_a_lock)
    assert cli("solve", "-") == (status, "", f"{said}\n")


def test_cli_lab_a_stop_that_lands_inside_a_lock_says_what_the_run_kept(cli, monkeypatch, tmp_path):
    # (the lab waits on its workers' futures, a Condition's wait: a stop there said
    # "interrupted" without the lab's own line of what was saved)
    import threading

    from flowerbridge.cli import lab

    def stopped_inside_a_lock(*args) -> None:
        lock = threading.Lock()
        try:
            raise KeyboardInterrupt
        finally:
            lock.release()

    monkeypatch.setattr(lab, "_run", stopped_inside_a_lock)
    assert cli("lab", "deals", "--n", "4", "--out", str(tmp_path / "run")) == (
        130, "", "interrupted before any chunk was finished: nothing was saved\n")


def test_cli_an_error_a_command_raises_in_place_of_a_stop_is_its_own(cli, monkeypatch):
    # (raised on purpose, `from`: the command says what it says, not "interrupted")
    from flowerbridge.cli import solve
    from flowerbridge.errors import FlowerBridgeError

    def replaces_the_stop(args) -> int:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise FlowerBridgeError("the search was stopped before its first result") from None

    monkeypatch.setattr(solve, "run", replaces_the_stop)
    assert cli("solve", "-") == (2, "", "error: the search was stopped before its first result\n")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")
@pytest.mark.parametrize("options, presses, gap", [(["--table", "--workers", "1", "--memory-mb", "1"], 1, 0.2),
                                                   (["--table", "--memory-mb", "2"], 3, 0.2),
                                                   (["--table", "--memory-mb", "2"], 2, 0.01),
                                                   (["--memory-mb", "1"], 2, 0.02)],
                         ids=["table-one-thread", "table-shared-pressed-thrice", "table-shared-pressed-twice-at-once",
                              "card-values-pressed-twice"])
def test_cli_solve_ctrl_c_ends_the_search_at_once(tmp_path, options, presses, gap):
    # The compiled search looks at no signal: a Ctrl-C was taken once the search running
    # on the command's thread ended (over a minute for this table in 1 MB); on a shared
    # table the exit waited for both threads' entries, and a second Ctrl-C meanwhile
    # printed a traceback. A table or position that takes minutes here stops at once.
    import signal
    import subprocess
    import time

    from flowerbridge import HandState, Seat

    record = records.to_dict(HandState(Deal.from_seed(0), Seat.N))     # `flowerbridge deal --seed 0`
    if "--table" not in options:
        record["auction"] = ["3NT", "Pass", "Pass", "Pass"]
    (tmp_path / "h.json").write_text(json.dumps(record))
    proc = subprocess.Popen([sys.executable, "-m", "flowerbridge.cli", "solve", *options, str(tmp_path / "h.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while _cpu_seconds(proc.pid) < 2:       # well into the search (starting up takes under 1 s)
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        for _ in range(presses):
            proc.send_signal(signal.SIGINT)
            time.sleep(gap)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    assert (proc.returncode, out, err) == (130, "", "interrupted\n")


@pytest.mark.parametrize("command", ["score", "show", "solve"])
def test_cli_input_larger_than_any_record_is_refused_naming_it_before_memory_runs_out(command):
    # /dev/zero was read until memory ran out ("out of memory reading it", or the
    # system's out-of-memory killer); now the first 64 MB and a byte tell
    import subprocess

    done = subprocess.run([sys.executable, "-m", "flowerbridge.cli", command, "/dev/zero"], capture_output=True,
                          timeout=300)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == b"error: /dev/zero: more than 64 MB: too large for a hand record\n"


def test_cli_input_of_the_largest_size_taken_is_read_and_a_byte_more_is_refused(cli, assert_cli_error, tmp_path,
                                                                               monkeypatch, ch16_record):
    import flowerbridge.cli as cli_module

    monkeypatch.setattr(cli_module, "MAX_INPUT_MB", 1)
    record = json.dumps(ch16_record)
    (tmp_path / "h.json").write_text(record + " " * ((1 << 20) - len(record)))
    (tmp_path / "over.json").write_text(record + " " * ((1 << 20) + 1 - len(record)))
    status, out, err = cli("score", str(tmp_path / "h.json"))
    assert (status, err) == (0, "") and json.loads(out)
    assert_cli_error(cli("score", str(tmp_path / "over.json")), r"over\.json: more than 1 MB: too large for a hand record$")
    piped = lambda name: io.TextIOWrapper(io.BytesIO((tmp_path / name).read_bytes()))    # noqa: E731
    text_stream = lambda name: io.StringIO((tmp_path / name).read_text())                # noqa: E731
    for stdin in (piped, text_stream):      # standard input with bytes beneath, or a text stream alone
        monkeypatch.setattr(sys, "stdin", stdin("over.json"))
        assert_cli_error(cli("score", "-"), r"standard input: more than 1 MB: too large for a hand record$")
        monkeypatch.setattr(sys, "stdin", stdin("h.json"))
        assert cli("score", "-") == (0, out, "")
    (tmp_path / "d.pbn").write_text("N:" + "x" * (1 << 20))
    assert_cli_error(cli("solve", "--bridge-file", str(tmp_path / "d.pbn")),
                     r"d\.pbn: more than 1 MB: too large for Bridge deals \(one PBN deal a line\)$")


def test_cli_solve_out_of_memory_while_solving_hints_a_smaller_memory_mb(cli, assert_cli_error, tmp_path,
                                                                        monkeypatch):
    from flowerbridge.solver import core

    def no_room(self, hands):
        raise MemoryError

    monkeypatch.setattr(core.DoubleDummy, "dd_table", no_room)
    (tmp_path / "d.pbn").write_text("N:AKQJ63.AQ3.A7.KJ .T8742.T9863.A64 85.KJ6.KQ2.T9872 T9742.95.J54.Q53\n")
    assert_cli_error(cli("solve", "--workers", "1", "--memory-mb", "300", "--bridge-file", str(tmp_path / "d.pbn")),
                     r"out of memory while solving, with transposition tables of 300 MB "
                     r"\(a smaller --memory-mb may fit\)")


def test_cli_output_closed_by_its_reader_stops_quietly():
    # `flowerbridge demo | head -1`: no error line, and the shell's status for a closed pipe
    # (5,000 hands print far more than a pipe holds, so the writer meets the closed pipe).
    import subprocess
    proc = subprocess.Popen([sys.executable, "-m", "flowerbridge.cli", "demo", "--hands", "5000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().startswith(b"Board 1")
    proc.stdout.close()
    assert proc.wait(timeout=120) == 141
    assert proc.stderr is not None and proc.stderr.read() == b""


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_cli_long_output_in_an_encoding_with_a_byte_order_mark_has_one_mark(tmp_path, encoding):
    # a long text written through the byte layer began with a mark of its own, in the middle
    # of the output (the notation, in utf-8-sig, then did not read back)
    import subprocess
    saved, written = tmp_path / "s.json", tmp_path / "n.txt"
    subprocess.run([sys.executable, "-m", "flowerbridge.cli", "demo", "--hands", "20", "--quiet",
                    "--save", str(saved)], check=True, stdout=subprocess.DEVNULL)
    command = ["show", "--notation", str(saved)] if encoding == "utf-8-sig" else ["show", str(saved)]
    with open(written, "wb") as out:
        subprocess.run([sys.executable, "-m", "flowerbridge.cli", *command], check=True, stdout=out,
                       env={**os.environ, "PYTHONIOENCODING": encoding})
    text = written.read_bytes().decode(encoding)
    assert len(text) > 10_000 and "\ufeff" not in text
    if encoding == "utf-8-sig":
        assert subprocess.run([sys.executable, "-m", "flowerbridge.cli", "show", str(written)],
                              capture_output=True).returncode == 0


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_cli_long_output_closed_by_its_reader_mid_write_is_not_taken_as_written(tmp_path, unbuffered):
    # `show --notation` writes a whole session's text at once; unbuffered (PYTHONUNBUFFERED),
    # the write that met the closed pipe was taken as done: status 0, the rest silently lost
    import subprocess
    saved = tmp_path / "s.json"
    subprocess.run([sys.executable, "-m", "flowerbridge.cli", "demo", "--hands", "300", "--quiet",
                    "--save", str(saved)], check=True, stdout=subprocess.DEVNULL)
    proc = subprocess.Popen([sys.executable, "-m", "flowerbridge.cli", "show", "--notation", str(saved)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONUNBUFFERED": unbuffered})
    assert proc.stdout is not None and proc.stdout.read(1) == b"["
    time.sleep(0.5)     # the writer blocked on the full pipe (the text is over 150 KB)
    proc.stdout.close()
    assert proc.wait(timeout=120) == 141
    assert proc.stderr is not None and proc.stderr.read() == b""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("buffered", [True, False])
@pytest.mark.parametrize("argv", [["deal", "--seed", "1"], ["demo", "--hands", "200"], ["--help"]])
def test_cli_a_full_standard_output_is_named_as_standard_output(argv, buffered):
    # (it said "error: No space left on device", naming nothing)
    import subprocess

    # (set, not inherited: where the suite runs without PYTHONUNBUFFERED, both runs were buffered)
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},
           **({} if buffered else {"PYTHONUNBUFFERED": "1"})}
    with open("/dev/full", "wb") as full:
        done = subprocess.run([sys.executable, "-m", "flowerbridge.cli", *argv], stdout=full,
                              stderr=subprocess.PIPE, env=env, timeout=300)
    assert done.returncode == 2
    assert done.stderr == b"error: cannot write to standard output: No space left on device\n"


def test_cli_an_error_writing_standard_output_names_it(cli, monkeypatch, capsys):
    import errno

    class HungUp(io.StringIO):
        def write(self, text):
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    from flowerbridge.cli import main

    monkeypatch.setattr(sys, "stdout", HungUp())
    assert main(["deal", "--seed", "1"]) == 2
    assert capsys.readouterr().err == f"error: cannot write to standard output: {os.strerror(errno.EIO)}\n"


def _run_with_closed(fd: int, *argv: str):
    """The command run with file descriptor ``fd`` closed (as `<&-`, `>&-` or `2>&-` do)."""
    import subprocess
    pipes = {0: {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE},
             1: {"stdin": subprocess.DEVNULL, "stderr": subprocess.PIPE},
             2: {"stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE}}[fd]
    return subprocess.run([sys.executable, "-m", "flowerbridge.cli", *argv], **pipes,
                          pass_fds=(), preexec_fn=lambda: os.close(fd), timeout=300)


@pytest.mark.parametrize("argv", [["score", "-"], ["show", "-"], ["solve", "-"],
                                  ["solve", "--bridge-file", "-"]])
def test_cli_closed_standard_input_is_one_error_line(argv):
    # (an AttributeError traceback: sys.stdin is None)
    done = _run_with_closed(0, *argv)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr == b"error: standard input is closed: give a file, or pipe the input in\n"


def test_cli_closed_standard_output_is_an_error_not_a_silent_success():
    # (print() to a closed stdout writes nothing: exit 0 with the deal lost)
    done = _run_with_closed(1, "deal", "--seed", "1")
    assert done.returncode == 2
    assert done.stderr == b"error: standard output is closed: the command's output would be lost\n"


def test_formats_cli_closed_standard_error_keeps_standard_output_free_of_errors(tmp_path):
    # FORMATS.md: an error prints nothing on standard output (with stderr closed it went there)
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff")
    done = _run_with_closed(2, "score", str(bad))
    assert done.returncode == 2 and done.stdout == b""


@pytest.mark.parametrize("argv, unknown, meant", [
    (["deal", "--seed", "7", "--js"], "--js", "--json"), (["demo", "--hand", "1"], "--hand", "--hands"),
    (["score", "-", "--undertrick", "0"], "--undertrick", "--undertrick-penalty"),
    (["match", "--ns", "random", "--ew", "random", "--board", "1"], "--board", "--boards"),
    (["play", "--sea", "N"], "--sea", "--seat"), (["show", "--name", "-"], "--name", "--names"),
    (["solve", "--tab", "-"], "--tab", "--table"), (["lab", "deals", "--n", "1", "--qui"], "--qui", "--quiet"),
    (["serve", "--max-t", "0"], "--max-t", "--max-tables")])
def test_cli_every_subcommand_refuses_an_abbreviated_option(cli, assert_cli_error, monkeypatch, tmp_path,
                                                            argv, unknown, meant):
    # `deal --se 7 --js` was --seed 7 --json: an option is written whole
    monkeypatch.chdir(tmp_path)     # where a lab taking the abbreviation would write its report
    assert_cli_error(cli(*argv), rf"^error: flowerbridge {argv[0]}: unknown option {unknown} "
                                 rf"\(did you mean {meant}\?\)$")


@pytest.mark.parametrize("argv", [["deal"], ["demo"], ["match", "--ns", "random", "--ew", "random"], ["play"],
                                  ["lab", "deals"]])
@pytest.mark.parametrize("seed", ["", "  "])
def test_cli_an_empty_seed_is_refused(cli, assert_cli_error, monkeypatch, tmp_path, argv, seed):
    monkeypatch.chdir(tmp_path)     # where a lab taking the seed would write its report
    assert_cli_error(cli(*argv, "--seed", seed), rf"^error: --seed '{seed}': give a number or a word \(the seed is empty\)$")


def test_cli_empty_path_and_a_seed_that_is_not_utf8_are_named(cli, assert_cli_error):
    assert_cli_error(cli("score", ""), re.escape("'': No such file or directory"))
    assert_cli_error(cli("deal", "--seed", "\udcff"), re.escape("--seed '\\udcff': not UTF-8 text"))


@pytest.mark.parametrize("terminal", [True, False])
def test_cli_interrupted_mid_line_at_a_terminal_says_so_on_a_line_of_its_own(monkeypatch, capsys, terminal):
    # a second Ctrl-C as play printed its closing scoresheet left "...NORTH-SOUTH
    # aheadinterrupted" on the screen; written to a file or a pipe the output is left as it was
    from flowerbridge.cli import main

    class Screen(io.StringIO):
        def isatty(self) -> bool:
            return terminal

    screen = Screen()
    monkeypatch.setattr(sys, "stdout", screen)

    def cut_short(args) -> int:
        print("NORTH-SOUTH ahead", end="")
        raise KeyboardInterrupt

    monkeypatch.setattr("flowerbridge.cli.deal.run", cut_short)
    assert main(["deal", "--seed", "1"]) == 130
    assert screen.getvalue() == "NORTH-SOUTH ahead" + ("\n" if terminal else "")
    assert capsys.readouterr().err == "interrupted\n"


@pytest.mark.parametrize("argv, named", [
    (["lab", "deals", "--n", "1", "--workers", "1", "--out", "~nouser_fb/x"], "--out ~nouser_fb/x"),
    (["lab", "--designer", "~nouser_fb/r.md", "--n", "1", "--workers", "1"], "--designer ~nouser_fb/r.md"),
    (["prune", "--older-than", "1", "--database", "~nouser_fb/x.db"], "database ~nouser_fb/x.db"),
    (["prune", "--older-than", "1", "--database", "sqlite:///~nouser_fb/x.db"],
     "database sqlite:///~nouser_fb/x.db"),
    (["serve", "--port", "0", "--database", "~nouser_fb/x.db"], "database ~nouser_fb/x.db"),
])
def test_cli_a_home_of_no_user_is_one_error_line_naming_the_path(cli, assert_cli_error, tmp_path,
                                                                  monkeypatch, argv, named):
    # pathlib's RuntimeError ('Could not determine home directory.') was a traceback
    monkeypatch.chdir(tmp_path)
    assert_cli_error(cli(*argv), re.escape(named) + r".*there is no user 'nouser_fb' whose home folder "
                                 r"~nouser_fb could stand for \(for a folder of that name, write ./~nouser_fb\)")
    assert list(tmp_path.iterdir()) == []


PBN_DEAL = "N:AKQ2.JT9.876.543 JT98.AKQ.543.762 7654.876.AKQ.AKQ 3.5432.JT92.JT98"


@pytest.mark.parametrize("command", ["solve", "score", "show"])
@pytest.mark.parametrize("text, tagged", [(PBN_DEAL + "\n", False),
                                          (f'[Event "club"]\n[Deal "{PBN_DEAL}"]\n', True),
                                          (f'[Event "club"]\n\n\r\n \t[Deal "{PBN_DEAL}"]\n', True)],
                         ids=["deal line", "Deal tag", "Deal tag after blank lines"])
def test_cli_bridge_deals_given_as_a_hand_record_are_named_as_such(cli, assert_cli_error, tmp_path, command,
                                                                   text, tagged):
    # they were "malformed JSON at line 1 column 1: Expecting value" (and a PBN file
    # with tags "in the text notation"), with no word of solve --bridge-file
    path = tmp_path / "deals.pbn"
    path.write_text(text, encoding="utf-8")
    said = (r"solve --bridge-file FILE solves Bridge deals, one a line"
            + (r" \(each Deal tag's value alone\)" if tagged else "")
            if command == "solve" else "show takes what deal --json or deal --notation writes"
            if command == "show" else f"{command} takes a JSON hand record")
    assert_cli_error(cli(command, str(path)), rf"^error: {re.escape(str(path))} holds Bridge deals \(PBN\), "
                                              rf"not a Flower Bridge hand record: {said}$")


@pytest.mark.parametrize("command", ["score", "show"])
def test_cli_a_record_followed_by_a_megabyte_of_blank_lines_is_read(tmp_path, command):
    # The check for Bridge deals ran through every blank line after each line start
    # (time growing with the square of their number): 80,000 took 17 s, a megabyte most
    # of an hour. (A guard against the hang, far above the time it takes: not a timing.)
    import subprocess
    import sys

    from flowerbridge import Deal

    path = tmp_path / "padded.json"
    path.write_text(json.dumps({**Deal.from_seed(1).to_dict(), "dealer": "N", "auction": ["Pass"] * 4})
                    + "\n" * 1_000_000, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "flowerbridge.cli", command, str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert ('"contract": null' if command == "score" else "Passed out") in done.stdout


def test_cli_solve_bridge_file_with_pbn_tags_says_it_takes_the_deal_tags_value_alone(cli, assert_cli_error,
                                                                                      tmp_path):
    path = tmp_path / "deals.pbn"
    path.write_text(f'[Event "club"]\n[Deal "{PBN_DEAL}"]\n', encoding="utf-8")
    assert_cli_error(cli("solve", "--bridge-file", str(path)),
                     rf"^error: {re.escape(str(path))}, line 1: a PBN tag: --bridge-file takes one deal a "
                     r"line, the Deal tag's value alone \(e\.g\. N:AKQ2\.JT9\.876\.543 \.\.\.\)$")


def test_rules_prints_how_to_play_for_a_terminal_with_the_engines_figures(cli, monkeypatch):
    # a player at the terminal had no rules to read (the web client's How to play is the one text)
    from flowerbridge.calls import Denomination
    from flowerbridge.options import RuleOptions

    options = RuleOptions()
    status, out, err = cli("rules")
    assert (status, err) == (0, "")
    headings = re.findall(r"^(.+)\n-+$", out, re.M)
    assert headings == ["The table and the deal", "The auction", "The play", "Scoring", "Games and the session"]
    for name, d in (("Plains", Denomination.P), ("Ribbons", Denomination.R), ("Bright Animals", Denomination.A),
                    ("No Trump", Denomination.NT)):
        figures = [*options.contract_points[d], options.overtrick_points[d]]
        assert re.search(rf"^{name} +{' +'.join(map(str, figures))}$", out, re.M), name
    for name, (first, second) in zip(("Plain", "Ribbon", "Animal", "Bright"), options.honor_values):
        assert re.search(rf"^{name} +{first} +{first + second}$", out, re.M), name
    assert f"defenders score {options.undertrick_penalty} above the line" in out
    assert "n + 6 of the 13 tricks" in out and "\u00a0" not in out
    # the bots' count, said as they count (a player counted the honor count, and found the
    # bots' "at most 14 points" wrong of a hand of 21)
    from flowerbridge.bots.bidding import HandFacts
    from flowerbridge.cards import parse_cards
    said = re.search(r"Their points are counted by rank: 4, 3, 2 and 1 for the four highest ranks of each "
                     r"suit, every copy \(in Bright Animals 12B 4, 11B 3, 8B 2, 3B 1\)", " ".join(out.split()))
    assert said, out
    assert [HandFacts.of(parse_cards(code)).points for code in ("12B", "11B", "8B", "3B", "7A")] == [4, 3, 2, 1, 0]
    # what the page says of the web site alone is left out
    assert not re.search(r"this site|deck page|the deck shows|lobby|beside the table", out), out
    # at a terminal 40 columns wide, every line fits, and a table too wide is a line a row
    monkeypatch.setenv("COLUMNS", "40")
    status, narrow, _ = cli("rules")
    assert status == 0 and max(len(line) for line in narrow.splitlines()) <= 39
    assert "- No Trump: first level 40, each\n  further level 30, each overtrick 30" in narrow
    assert "n + 6" in narrow.replace("\n", " ")
