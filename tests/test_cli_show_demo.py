"""``flowerbridge demo`` and ``flowerbridge show``: saving, the scoresheet, sessions."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

import flowerbridge.bots
from flowerbridge.session import Session

ROOT = Path(__file__).resolve().parent.parent


def test_demo_save_failing_at_the_end_still_prints_the_scoresheet_then_the_error(cli, monkeypatch, tmp_path):
    # (the write's error came out of the `finally` before the sheet was printed)
    path = tmp_path / "sub" / "s.json"
    path.parent.mkdir()
    play_hand = flowerbridge.bots.play_hand

    def folder_goes(*args, **kwargs):     # the folder is removed while the bots play
        shutil.rmtree(path.parent, ignore_errors=True)
        return play_hand(*args, **kwargs)

    monkeypatch.setattr(flowerbridge.bots, "play_hand", folder_goes)
    status, out, err = cli("demo", "--hands", "2", "--quiet", "--save", str(path))
    assert status == 2
    assert err == f"error: --save {path}: cannot write the session: No such file or directory\n"
    assert out.startswith("=" * 49 + "\n") and "Totals: NORTH-SOUTH " in out and out.endswith("=" * 49 + "\n")
    assert not path.parent.exists()
    monkeypatch.undo()      # a folder that stays: the same sheet, saved
    path.parent.mkdir()
    assert cli("demo", "--hands", "2", "--quiet", "--save", str(path)) == (0, out, "")
    assert len(json.loads(path.read_text(encoding="utf-8"))["hands"]) == 2


def test_demo_save_refuses_a_file_that_exists_unless_overwrite_is_given(cli, assert_cli_error, tmp_path):
    path = tmp_path / "s.json"
    path.write_text("a session played by hand\n", encoding="utf-8")
    assert_cli_error(cli("demo", "--hands", "1", "--save", str(path)),
                     r"^error: --save \S+s\.json: the file exists; give another name, or add --overwrite to replace it$")
    assert path.read_text(encoding="utf-8") == "a session played by hand\n"
    assert cli("demo", "--hands", "1", "--save", str(path), "--overwrite")[0] == 0
    assert len(json.loads(path.read_text(encoding="utf-8"))["hands"]) == 1


def _demo_fitted(cli, monkeypatch, columns: int, *args: str) -> str:
    """``demo``'s output at a terminal ``columns`` wide, every line checked to fit."""
    monkeypatch.setenv("COLUMNS", str(columns))
    status, out, err = cli("demo", *args)
    assert (status, err) == (0, "")
    assert max(len(line) for line in out.splitlines()) <= columns - 1
    return out


def test_demo_fits_each_auction_to_a_narrow_terminal_as_show_does(cli, monkeypatch):
    # the contract line under the auction ran past 30 columns ("Contract 4 Bright Animals by North")
    out = _demo_fitted(cli, monkeypatch, 30, "--hands", "3", "--seed", "10")
    assert "Contract 4 Bright Animals by\n    West" in out


@pytest.mark.parametrize("quiet", [["--quiet"], []])
def test_demo_fits_a_narrow_terminal_as_play_does(cli, monkeypatch, quiet):
    # (COLUMNS=40 demo --hands 1 --quiet printed 21 lines wider than 40)
    out = _demo_fitted(cli, monkeypatch, 40, "--hands", "8", *quiet)
    assert "Totals: NORTH-SOUTH " in out and "NORTH-SOUTH   " not in out      # one side under the other
    monkeypatch.delenv("COLUMNS")       # to a file or a pipe: the sheet as wide as it is
    wide = cli("demo", "--hands", "8", *quiet)[1]
    assert re.search(r"^NORTH-SOUTH {20,}EAST-WEST$", wide, re.M)     # side by side


def test_demo_fits_each_boards_heading_to_a_narrow_terminal(cli, monkeypatch):
    # "Board 1 (seed 'a-longer-seed'), dealer North" ran past 40 columns
    out = _demo_fitted(cli, monkeypatch, 40, "--hands", "2", "--seed", "a-longer-seed")
    assert "Board 2 (seed 'a-longer-seed'), dealer\n    East\n" in out


class StopOnThird:
    """play_hand, which raises ``error`` when asked for the third hand."""

    def __init__(self, error: BaseException) -> None:
        self.error, self.hands = error, 0
        self.play_hand = flowerbridge.bots.play_hand

    def __call__(self, *args, **kwargs):
        self.hands += 1
        if self.hands == 3:
            raise self.error
        return self.play_hand(*args, **kwargs)


def test_demo_ctrl_c_prints_the_scoresheet_of_the_hands_finished(cli, monkeypatch, tmp_path):
    # (it printed only "interrupted", where play prints the sheet)
    path = tmp_path / "s.json"
    monkeypatch.setattr(flowerbridge.bots, "play_hand", StopOnThird(KeyboardInterrupt()))
    status, out, err = cli("demo", "--hands", "8", "--quiet", "--save", str(path))
    assert (status, err) == (130, "interrupted after 2 of 8 hands\n")
    assert out.startswith("=" * 49) and "Hand      2\n" in out
    session = Session.from_dict(json.loads(path.read_text(encoding="utf-8")))
    assert len(session.hands) == 2 and out == session.render() + "\n"


def test_demo_a_ctrl_c_that_lands_inside_a_lock_prints_the_scoresheet_as_ctrl_c_does(cli, monkeypatch, tmp_path):
    # (a Ctrl-C inside threading.Condition.wait comes out as "release unlocked lock",
    # which ended the demo with a traceback and no sheet)
    import threading

    try:
        try:
            raise KeyboardInterrupt
        finally:
            threading.Lock().release()
    except RuntimeError as failed:
        error = failed
    path = tmp_path / "s.json"
    monkeypatch.setattr(flowerbridge.bots, "play_hand", StopOnThird(error))
    status, out, err = cli("demo", "--hands", "8", "--quiet", "--save", str(path))
    assert (status, err) == (130, "interrupted after 2 of 8 hands\n")
    session = Session.from_dict(json.loads(path.read_text(encoding="utf-8")))
    assert len(session.hands) == 2 and out == session.render() + "\n"


def test_demo_sigterm_saves_the_hands_finished_as_ctrl_c_does(tmp_path, signalled_after):
    # (kill PID, a job scheduler's stop, killed it outright: a session of thousands
    # of hands asked for with --save wrote nothing)
    import signal

    path = tmp_path / "s.json"
    status, out, err = signalled_after(["demo", "--hands", "10000", "--save", str(path)], "Board 3 ", signal.SIGTERM)
    session = Session.from_dict(json.loads(path.read_text(encoding="utf-8")))
    assert (status, err) == (143, f"terminated after {len(session.hands)} of 10000 hands\n")
    assert len(session.hands) >= 3 and out.endswith(session.render() + "\n")


def test_demo_a_bots_error_prints_the_scoresheet_of_the_hands_finished_then_the_error(cli, monkeypatch):
    from flowerbridge.errors import BotError

    monkeypatch.setattr(flowerbridge.bots, "play_hand", StopOnThird(BotError("the bot at North chose an illegal card")))
    status, out, err = cli("demo", "--hands", "8")
    assert (status, err) == (2, "error: the bot at North chose an illegal card\n")
    assert "Board 2 (seed 'demo')" in out and "Board 3" not in out and "Hand      2\n" in out


def test_show_a_session_heads_each_hand_and_ends_with_the_scoresheets_totals(cli, tmp_path):
    # (it printed blocks starting "Dealer ..." with no number and no games or totals)
    path = tmp_path / "s.json"
    assert cli("demo", "--hands", "3", "--quiet", "--save", str(path))[0] == 0
    session = Session.from_dict(json.loads(path.read_text(encoding="utf-8")))
    status, out, err = cli("show", str(path))
    assert (status, err) == (0, "")
    assert re.findall(r"^=== Hand \d .*===\nDealer \w+$", out, re.M) == [
        f"=== Hand {n} (seed 'demo', board {n}) ===\nDealer {dealer}"
        for n, dealer in ((1, "North"), (2, "East"), (3, "South"))]
    sheet = session.render()
    through_totals = sheet[:sheet.index("HAND RECORD")]     # the last hand's record is shown above
    assert out.endswith("\n\n" + through_totals.rstrip("\n") + "\n")
    assert f"Totals: NORTH-SOUTH {session.total(0)}, EAST-WEST {session.total(1)}" in out
    assert "GAME WINNER" in out and "HAND RECORD" not in out and out.count("Dealer ") == 3


@pytest.mark.parametrize("columns", [80, 40, 30])      # (at 30 "=== Hand 1 (seed 'demo', board 1) ===" did not)
def test_show_fits_its_hands_to_the_terminal_as_demo_does(cli, monkeypatch, tmp_path, columns):
    # show --names printed named holdings of up to 143 characters at 80 columns
    path = tmp_path / "s.json"
    assert cli("demo", "--hands", "3", "--quiet", "--save", str(path))[0] == 0
    monkeypatch.setenv("COLUMNS", str(columns))
    status, out, err = cli("show", "--names", str(path))
    assert (status, err) == (0, "")
    assert max(len(line) for line in out.splitlines()) <= columns - 1
    assert re.search(r"^  A  \d+[BA] \(\w+ [\w ]+\)", out, re.M)     # the names are there
    assert out.count("=== Hand ") == 3 and "Totals: NORTH-SOUTH " in out
    monkeypatch.delenv("COLUMNS")       # to a file or a pipe: each suit on one line
    whole = cli("show", "--names", str(path))[1]
    assert max(len(line) for line in whole.splitlines()) > 80


def test_show_numbers_several_hands_and_leaves_one_hand_as_it_was(cli, monkeypatch, tmp_path, random_hand):
    import io
    import sys

    from flowerbridge import notation, records

    monkeypatch.setattr(sys, "stdin", io.StringIO(notation.dumps_all([random_hand(seed) for seed in (1, 2)])))
    status, out, _ = cli("show", "-")
    assert status == 0 and out.startswith("=== Hand 1 ===\nDealer ") and "\n=== Hand 2 ===\nDealer " in out
    assert "FLOWER BRIDGE" not in out       # hands, not a session: no scoresheet
    (tmp_path / "h.json").write_text(records.dumps(random_hand(1)), encoding="utf-8")
    status, out, _ = cli("show", str(tmp_path / "h.json"))
    assert status == 0 and out.startswith("Dealer ") and "===" not in out


def _worked_example() -> str:
    """The section "A worked example" of docs/rules.md."""
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    return text.split("\n## A worked example\n", 1)[1].split("\n## ", 1)[0]


def test_rules_md_worked_example_is_what_the_engine_makes_of_its_hand_record(cli):
    # (it told of a hand `demo --bots basic` played, which went stale when the bots changed:
    # its numbers are now those of a hand record kept in docs/examples, checked here)
    section = _worked_example()
    auction, tricks, scoring = re.findall(r"```\n(.*?)```", section, re.S)
    path = ROOT / "docs" / "examples" / "hand1.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    status, shown, err = cli("show", str(path))
    assert (status, err) == (0, "")
    assert "\n" + auction in shown
    for line in tricks.splitlines():     # tricks 2, 11 and 12 (the twins of R12) as show prints them
        assert "\n" + line + "\n" in shown
    command, printed = scoring.strip().splitlines()
    assert command.startswith("$ flowerbridge score docs/examples/hand1.json | jq -c '{")
    keys = re.search(r"jq -c '\{(.*)\}'$", command).group(1).split(", ")
    status, out, err = cli("score", str(path))
    score = json.loads(out)
    assert json.loads(printed) == {key: score[key] for key in keys}
    assert f"North–South take {score['tricks']['NS']} tricks" in section
    below = re.search(r"- Below the line, North–South: [^\n]*\*\*(\d+)\*\*", section).group(1)
    above = re.search(r"- Above the line, North–South: [^\n]*\*\*(\d+)\*\*", section).group(1)
    east_west = re.search(r"- East–West captured [^*]*\*\*(\d+)\*\* above the line", section).group(1)
    assert [int(below), int(above), int(east_west)] == [score["below"]["NS"], score["above"]["NS"],
                                                        score["above"]["EW"]]
    assert record["undealt"].count("3B") == 1          # "the second 3B was among the undealt 8"
    status, dealt, _ = cli("deal", "--seed", "demo", "--board", "1", "--json")
    assert {key: json.loads(dealt)[key] for key in ("dealer", "hands", "undealt")} == {
        key: record[key] for key in ("dealer", "hands", "undealt")}


def test_rules_md_worked_examples_failed_hand_is_what_the_engine_makes_of_it(cli):
    section = _worked_example()
    said = re.search(r"South's `(\w+)` makes (\d+)\s+tricks, (\d+)\s+short, and East–West get (\d+) × (\d+) = (\d+)\s+"
                     r"above the line for the undertricks \((\d+) above\s+the line with their (\d+) in honors\), "
                     r"or (\d+) for them with\s+`flowerbridge score --undertrick-penalty 0 (\S+)`", section)
    contract, tricks, short, down, per, points, above, honors, strict, file = said.groups()
    path = ROOT / file
    score = json.loads(cli("score", str(path))[1])
    assert (score["contract"], score["declarer"], score["tricks"]["NS"]) == (contract, "S", int(tricks))
    assert score["result"] == -int(short) == -int(down) and int(down) * int(per) == int(points)
    penalty = [item["points"] for item in score["breakdown"] if item["rule"] == "R15"]
    assert penalty == [int(points)]
    # (the 100 is the undertricks': East-West's honors are above the line too)
    assert (score["above"]["EW"], score["honors"]["EW"]) == (int(above), int(honors)) == (int(points) + int(honors),
                                                                                      int(honors))
    strict_score = json.loads(cli("score", "--undertrick-penalty", "0", str(path))[1])
    assert sum(item["points"] for item in strict_score["breakdown"] if item["rule"] == "R15") == int(strict)
    status, dealt, _ = cli("deal", "--seed", "demo", "--board", "2", "--json")
    assert json.loads(dealt)["hands"] == json.loads(path.read_text(encoding="utf-8"))["hands"]


def test_show_names_the_seed_and_board_each_hand_of_a_saved_session_was_dealt_from(cli, tmp_path):
    # play and demo save their seed; show named each hand "Hand 2" alone, so its board could
    # not be dealt again without opening the file
    saved = tmp_path / "s.json"
    assert cli("demo", "--seed", "demo", "--hands", "2", "--save", str(saved))[0] == 0
    status, out, err = cli("show", str(saved))
    assert status == 0, err
    assert [line for line in out.splitlines() if line.startswith("=== Hand")] == [
        "=== Hand 1 (seed 'demo', board 1) ===", "=== Hand 2 (seed 'demo', board 2) ==="]
    dealt = json.loads(cli("deal", "--seed", "demo", "--board", "2", "--json")[1])
    assert dealt["hands"] == json.loads(saved.read_text(encoding="utf-8"))["hands"][1]["hands"]
    # a session without one (the server's) is shown as before, and so is one whose seed did not
    # deal its hands (written by hand, or dealt otherwise): "seed 7, board 2" named other cards
    record = json.loads(saved.read_text(encoding="utf-8"))
    for seed in (None, 7, "tune18"):
        if seed is None:
            del record["seed"]
        else:
            record["seed"] = seed
        saved.write_text(json.dumps(record), encoding="utf-8")
        heads = [line for line in cli("show", str(saved))[1].splitlines() if line.startswith("=== Hand")]
        assert heads == ["=== Hand 1 ===", "=== Hand 2 ==="], seed


STRICT_FIRST_NAMED = ("Rule options: no undertrick penalty (R15, the rulebook as written); the first of "
                      "the declaring side to name the final denomination declares (R9).")


def test_r9_r15_demo_and_show_say_the_rule_options_other_than_the_defaults(cli, monkeypatch, tmp_path):
    # At a session under other options nothing said so: a failed contract scored nothing
    # (R15 strict) and another player declared (R9), with no word why.
    monkeypatch.delenv("COLUMNS", raising=False)
    path = tmp_path / "s.json"
    status, out, _ = cli("demo", "--hands", "2", "--seed", "s7", "--undertrick-penalty", "0",
                         "--declarer", "first-named", "--save", str(path))
    assert status == 0 and out.startswith(STRICT_FIRST_NAMED + "\n\nBoard 1 ")
    status, out, _ = cli("show", str(path))
    assert status == 0 and out.startswith(STRICT_FIRST_NAMED + "\n\n=== Hand 1 ")
    assert out.count("Rule options:") == 2      # and on the scoresheet, under its title
    # a hand record alone: said before its hand
    import json
    data = json.loads(path.read_text(encoding="utf-8"))
    (tmp_path / "h.json").write_text(json.dumps({**data["hands"][0], "options": data["options"]}),
                                     encoding="utf-8")
    status, out, _ = cli("show", str(tmp_path / "h.json"))
    assert status == 0 and out.startswith(STRICT_FIRST_NAMED + "\nDealer North")
    # the defaults: nothing said
    status, out, _ = cli("demo", "--hands", "1", "--seed", "s7")
    assert status == 0 and "Rule options" not in out


def test_r15_show_says_when_a_hands_options_go_back_to_the_defaults(cli, tmp_path):
    # after a hand under no penalty, one under the defaults said nothing, and read as played
    # under the same options as the hand before it
    from flowerbridge import Deal, HandState, Seat
    from flowerbridge.bots import RandomBot, play_hand
    from flowerbridge.notation import dumps_all
    from flowerbridge.options import RuleOptions

    def played(options):
        state = HandState(Deal.from_seed(3), Seat.N, options)
        for call in ("1NT", "Pass", "Pass", "Pass"):
            state.call(call)
        return play_hand(state, [RandomBot(seed=1)] * 4)

    path = tmp_path / "two.fbn"
    path.write_text(dumps_all([played(RuleOptions(undertrick_penalty=0)), played(RuleOptions())]),
                    encoding="utf-8")
    status, out, _ = cli("show", str(path))
    said = [line for line in out.splitlines() if line.startswith("Rule options")]
    assert status == 0 and said == [
        "Rule options: no undertrick penalty (R15, the rulebook as written).",
        "Rule options: the defaults (R9: the final bidder declares; R15: 50 points a trick down)."]
    assert out.index(said[1]) > out.index("=== Hand 2 ===")


def test_show_heads_a_hand_with_its_event_site_date_and_board(cli, tmp_path, ch16_record):
    # the notation's Event, Site, Date and Board tags (kept by the reader) were shown nowhere:
    # a director could not tell one board's record from another's
    from flowerbridge import notation
    from flowerbridge.records import HandRecord, replay

    record = HandRecord(replay(ch16_record), {"Event": "Club night", "Site": "Seoul", "Date": "2026.11.30",
                                              "Board": "16"})
    (tmp_path / "h.fbn").write_text(notation.dumps(record), encoding="utf-8")
    status, out, err = cli("show", str(tmp_path / "h.fbn"))
    assert (status, err) == (0, "")
    assert out.splitlines()[:2] == ["Event: Club night; Site: Seoul; Date: 2026.11.30; Board: 16", "Dealer South"]
    # a JSON record's keys of those names too, either case; a value holding a line end or an
    # escape is left out, and a record of none of them is shown as before
    (tmp_path / "h.json").write_text(json.dumps({**ch16_record, "board": 7, "event": "a\x1b[2Jb",
                                                  "site": "x\u202egnp", "Date": "1\u20282"}))
    assert cli("show", str(tmp_path / "h.json"))[1].splitlines()[0] == "Board: 7"
    (tmp_path / "h.json").write_text(json.dumps({**ch16_record, "Event": None, "event": "Club night"}))
    assert cli("show", str(tmp_path / "h.json"))[1].splitlines()[0] == "Event: Club night"
    (tmp_path / "plain.json").write_text(json.dumps(ch16_record))
    assert cli("show", str(tmp_path / "plain.json"))[1].splitlines()[0] == "Dealer South"
