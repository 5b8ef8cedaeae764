"""Duplicate matches: the IMP scale, scoring by the rules, reproducibility, the command."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from flowerbridge import PASS, Deal, HandState, RuleOptions, Seat, Side
from flowerbridge.bots.base import bot_seed, load_bot, play_hand
from flowerbridge.bots.match import IMP_SCALE, PairStats, imps, quantile, run_match
from flowerbridge._signals import Terminated
from flowerbridge.cli import main
from flowerbridge.cli.match import render_match


@pytest.mark.parametrize("points, expected", [
    (0, 0), (10, 0), (19, 0), (20, 1), (40, 1), (50, 2), (420, 9), (430, 10), (490, 10),
    (500, 11), (1990, 18), (3990, 23), (4000, 24), (9999, 24), (-130, -4)])
def test_standard_imp_scale(points, expected):
    assert imps(points) == expected


# The standard WBF scale, written out: (lowest difference, highest difference, IMPs).
WBF_IMP_SCALE = [
    (0, 10, 0), (20, 40, 1), (50, 80, 2), (90, 120, 3), (130, 160, 4), (170, 210, 5),
    (220, 260, 6), (270, 310, 7), (320, 360, 8), (370, 420, 9), (430, 490, 10), (500, 590, 11),
    (600, 740, 12), (750, 890, 13), (900, 1090, 14), (1100, 1290, 15), (1300, 1490, 16),
    (1500, 1740, 17), (1750, 1990, 18), (2000, 2240, 19), (2250, 2490, 20), (2500, 2990, 21),
    (3000, 3490, 22), (3500, 3990, 23), (4000, 10**6, 24)]


def test_imp_scale_is_the_standard_wbf_scale_at_every_boundary():
    assert IMP_SCALE == tuple(low for low, _, n in WBF_IMP_SCALE if n)
    for low, high, n in WBF_IMP_SCALE:
        # Flower Bridge scores need not be multiples of 10: every point just
        # below a step is still worth the step below.
        for points in (low, high, low + (high - low) // 2):
            assert imps(points) == n and imps(-points) == -n, points
        if n:
            assert imps(low - 1) == n - 1 and imps(1 - low) == 1 - n, low


def test_each_board_is_played_twice_with_the_pairs_swapped_and_imps_of_the_two_nets():
    result = run_match("basic", "random", boards=3, seed=9)
    assert [r.board for r in result.results] == [1, 2, 3]
    # Each seat of each table keeps one bot for the whole match, seeded by the seat.
    tables = [{s: load_bot(ns if s.side is Side.NS else ew, seed=bot_seed(9, s.name)) for s in Seat}
              for ns, ew in (("basic", "random"), ("random", "basic"))]
    for board in result.results:
        deal = Deal.from_seed(9, board.board)
        nets = []
        for bots in tables:
            score = play_hand(HandState(deal, board.dealer), bots).score()
            nets.append(score.total(Side.NS) - score.total(Side.EW))
        assert [t.net for t in board.tables] == nets
        assert board.imps == imps(nets[0] - nets[1])


def test_same_seed_same_result():
    a = run_match("random", "basic", boards=4, seed="same").to_dict()
    b = run_match("random", "basic", boards=4, seed="same").to_dict()
    for d in (a, b):
        for pair in d["pairs"].values():
            for key in ("ms_per_decision", "card_ms_median", "card_ms_p90"):
                pair.pop(key)
        d.pop("ms_per_decision")
    assert len(a["results"]) == 4 and a == b


def test_identical_bots_break_even_on_every_board(capsys):
    result = run_match("basic", "basic", boards=4, seed=2)
    assert len(result.results) == 4 and all(r.imps == 0 for r in result.results)
    assert result.ci95 == (0.0, 0.0) and not result.spread
    # a report of no spread gives no interval: "[+0.00, +0.00]" read as a certainty
    assert main(["match", "--ns", "basic", "--ew", "basic", "--boards", "4", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "95% CI n/a (every board scored the same)" in out and "[+0.00, +0.00]" not in out


def test_match_plays_and_scores_under_the_rule_options_its_flags_set(capsys):
    # (the command had no flags for R15's penalty and R9's declarer: run_match's options only)
    argv = ["match", "--ns", "basic", "--ew", "random", "--boards", "6", "--seed", "o1", "--json"]
    assert main(argv) == 0
    default = json.loads(capsys.readouterr().out)
    assert main([*argv, "--undertrick-penalty", "0", "--declarer", "first-named"]) == 0
    changed = json.loads(capsys.readouterr().out)
    assert changed["options"] == {"undertrick_penalty": 0, "declarer": "first-named"}
    expected = run_match("basic", "random", boards=6, seed="o1",
                         options=RuleOptions(undertrick_penalty=0, declarer="first-named"))
    assert changed["results"] == [r.to_dict() for r in expected.results] != default["results"]
    # the report says what they change
    assert main(argv[:-1] + ["--undertrick-penalty", "0"]) == 0
    assert "Rule options: no undertrick penalty (R15, the rulebook as written)." in capsys.readouterr().out
    assert main(argv[:-1]) == 0
    assert "Rule options" not in capsys.readouterr().out


def test_match_json_has_the_promised_keys(capsys):
    assert main(["match", "--ns", "basic", "--ew", "random", "--boards", "3", "--seed", "5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["boards"] == 3
    assert isinstance(data["imps_per_board"], float)
    mean, half = imp_interval([r["imps"] for r in data["results"]])
    assert data["ci95"] == pytest.approx([mean - half, mean + half], abs=0.002)
    assert set(data["ms_per_decision"]) == {"ns", "ew"}
    assert {"declared", "made", "making_rate", "honors_per_hand", "bright_bonus_per_hand",
            "contracts"} <= set(data["pairs"]["ns"])
    assert len(data["results"]) == 3
    # docs/bots.md's --json object, every top-level key
    assert set(data) == {"boards", "imps_per_board", "ci95", "ms_per_decision", "ns", "ew", "seed",
                         "total_imps", "options", "pairs", "results"}
    assert data["options"] == {"undertrick_penalty": 50, "declarer": "final-bidder"}
    assert (data["ns"], data["ew"], data["seed"]) == ("basic", "random", 5)
    assert data["total_imps"] == sum(r["imps"] for r in data["results"])
    assert data["ms_per_decision"] == {side: data["pairs"][side]["ms_per_decision"] for side in ("ns", "ew")}
    # a single board has no interval: null, not a width of nothing
    assert main(["match", "--ns", "basic", "--ew", "random", "--boards", "1", "--seed", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ci95"] is None


def test_match_runs_a_bot_loaded_by_path(capsys):
    assert main(["match", "--ns", "flowerbridge.bots.basic:BasicBot", "--ew", "random",
                 "--boards", "2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "IMPs per board" in out and "flowerbridge.bots.basic:BasicBot" in out


def test_match_with_an_unknown_bot_prints_one_error_line(capsys):
    assert main(["match", "--ns", "nobody", "--ew", "random", "--boards", "1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: unknown bot 'nobody'") and captured.err.count("\n") == 1


def test_match_needs_at_least_one_board(capsys):
    assert main(["match", "--ns", "basic", "--ew", "random", "--boards", "0"]) == 2
    assert capsys.readouterr().err.startswith("error: flowerbridge match: argument --boards: '0': give a whole "
                                              "number from 1 to 100,000")
    from flowerbridge.errors import FlowerBridgeError
    with pytest.raises(FlowerBridgeError, match="a match needs a whole number of boards, at least 1"):
        run_match("basic", "random", boards=0, seed=1)


@pytest.mark.parametrize("boards", ["2", 2.5, True, None])
def test_match_boards_are_a_whole_number(boards):
    # a str or float failed deep inside with TypeError
    from flowerbridge.errors import FlowerBridgeError
    with pytest.raises(FlowerBridgeError, match=f"^a match needs a whole number of boards, at least 1, not {re.escape(repr(boards))}$"):
        run_match("random", "random", boards, seed=1)


def test_match_boards_may_be_numpys_integers():
    import numpy as np
    played = run_match("random", "basic", np.int64(2), seed=3)
    assert played.boards == 2 and played.results == run_match("random", "basic", 2, seed=3).results


def test_match_bot_option_taken_by_neither_bot_is_refused_and_one_bot_takes_its_own():
    # a misspelt option ("sample") was dropped for both bots and the match ran without it
    from flowerbridge.errors import BotError
    with pytest.raises(BotError, match="^bot option 'sample' is taken by neither bot \\(pimc, basic\\)$"):
        run_match("pimc", "basic", 1, seed=1, bot_options={"sample": 2})
    # pimc takes samples, basic does not: the match runs, as it did before
    played = run_match("pimc", "basic", 1, seed=1, bot_options={"samples": 2})
    assert played.boards and played.pairs[0].decisions > 0


def test_match_bot_option_seed_is_refused_as_the_matchs_own():
    # every bot takes seed, which the match gives each seat: it was a TypeError from load_bot
    from flowerbridge.errors import BotError
    with pytest.raises(BotError, match="^bot option 'seed' is the match's to give"):
        run_match("basic", "random", 1, seed=1, bot_options={"seed": 2})


def test_pimc_matches_are_reproducible_for_a_seed():
    runs = [run_match("pimc", "basic", boards=1, seed=4, bot_options={"samples": 4}) for _ in range(2)]
    assert len(runs[0].results) == 1 and runs[0].results == runs[1].results


def test_swapping_the_bots_turns_every_boards_sign_seeded_bots_too():
    # each seat's bot was seeded by its table too: swapped, the same bot in the same
    # seat got another seed, and random (or pimc) played other cards
    ab = run_match("random", "basic", boards=6, seed=5)
    ba = run_match("basic", "random", boards=6, seed=5)
    assert len(ab.results) == 6 and [r.imps for r in ba.results] == [-r.imps for r in ab.results]
    assert any(r.imps for r in ab.results)
    same = run_match("random", "random", boards=4, seed=5).results
    assert len(same) == 4 and all(r.imps == 0 for r in same)


BAD_BOTS = """
from flowerbridge import FlowerBridgeError

class Illegal:
    def act(self, observation):
        if observation.phase == "play":
            wrong = [c for c in observation.hand if c not in observation.legal]
            if wrong:
                return wrong[0]
        return observation.legal[0]

class RaisesOurError:
    def act(self, observation):
        raise FlowerBridgeError("internal oops")

class CallsExit:
    def act(self, observation):
        raise SystemExit(3)

class RaisesGeneratorExit:
    def act(self, observation):
        raise GeneratorExit("closed")

class Custom(BaseException):
    pass

class MadeBadly:
    def __init__(self):
        raise Custom("custom base exc")
    def act(self, observation):
        return observation.legal[0]

class ActProperty:
    @property
    def act(self):
        raise RuntimeError("act property")

class DeepExit:
    def __deepcopy__(self, memo):
        raise SystemExit(9)
    def act(self, observation):
        return observation.legal[0]

deep_exit = DeepExit()

def out_of_memory():
    raise MemoryError()

class Prints:
    def act(self, observation):
        print("HELLO FROM BOT", observation.seat)
        return observation.legal[0]

ACTS = [0]

class FailsLater:
    # plays the first legal action, and fails at its 150th decision (all seats together)

    def act(self, observation):
        ACTS[0] += 1
        if ACTS[0] == 150:
            raise RuntimeError("out of memory")
        return observation.legal[0]
"""


@pytest.mark.parametrize("bot, message", [
    ("Illegal", r"^error: board \d+, table \d \(basic North-South, badbots:Illegal East-West\): the bot at "
                r"(East|West) chose an illegal card: play \d+ \((E|W)\): must follow "),
    ("RaisesOurError", r"^error: board 1, table 1 \(basic North-South, badbots:RaisesOurError East-West\): "
                       r"the bot at East failed: internal oops$"),
    # (exit() in a bot ended the match at once, silently, with the bot's status)
    ("CallsExit", r"^error: board 1, table 1 \(basic North-South, badbots:CallsExit East-West\): "
                  r"the bot at East failed: it called exit\(3\)$"),
    # (an error that is no Exception, GeneratorExit, was a traceback)
    ("RaisesGeneratorExit", r"^error: board 1, table 1 \(basic North-South, badbots:RaisesGeneratorExit "
                            r"East-West\): the bot at East failed: GeneratorExit: closed$"),
])
def test_match_a_bot_that_breaks_the_rules_or_fails_is_named_with_its_board_and_table(
        tmp_path, monkeypatch, capsys, bot, message):
    # (the rules' own words came alone: no bot, board or table; an error of the
    # package's own type raised by a bot named not even its seat)
    (tmp_path / "badbots.py").write_text(BAD_BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["match", "--ns", "basic", "--ew", f"badbots:{bot}", "--boards", "3", "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.search(message, err.strip()), err


@pytest.mark.parametrize("bot, message", [
    # (a traceback: BaseException of the bot's own from its constructor, or a property)
    ("MadeBadly", r"cannot make bot 'badbots:MadeBadly': Custom: custom base exc"),
    ("ActProperty", r"bot 'badbots:ActProperty': reading its act method failed: RuntimeError: act property"),
    # (the command ended silently with status 9)
    ("deep_exit", r"bot 'badbots:deep_exit' is an object that cannot be copied for each seat \(SystemExit\): "
                  r"name its class or a factory instead"),
    # (its words were empty: "MemoryError: ")
    ("out_of_memory", r"cannot make bot 'badbots:out_of_memory': MemoryError"),
])
def test_match_a_bot_that_cannot_be_made_is_one_error_line(tmp_path, monkeypatch, capsys, bot, message):
    (tmp_path / "badbots.py").write_text(BAD_BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["match", "--ns", f"badbots:{bot}", "--ew", "basic", "--boards", "1", "--seed", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and re.fullmatch(f"error: {message}\n", err), err


def test_match_a_bot_module_raising_a_base_exception_on_import_is_one_error_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "raisesonimport.py").write_text("class C(BaseException):\n    pass\n\nraise C('import base exc')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["match", "--ns", "raisesonimport:Bot", "--ew", "basic", "--boards", "1"]) == 2
    assert capsys.readouterr().err == ("error: cannot load bot 'raisesonimport:Bot': importing raisesonimport "
                                       "failed: C: import base exc\n")


def test_match_json_is_the_only_thing_on_standard_output_when_a_bot_prints(tmp_path, monkeypatch, capsys):
    # a bot printing in its play put 52 lines before match --json's object
    (tmp_path / "badbots.py").write_text(BAD_BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["match", "--ns", "badbots:Prints", "--ew", "basic", "--boards", "1", "--seed", "1", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["boards"] == 1
    assert err.count("HELLO FROM BOT") > 10 and "HELLO" not in out


def test_match_json_is_the_only_thing_on_standard_output_when_a_bots_module_prints_on_import(
        tmp_path, monkeypatch, capsys):
    # --samples asks the bots whether they sample, which imports their modules: that came
    # before standard output went to standard error, so a module's print came before the JSON
    (tmp_path / "noisybots.py").write_text(
        "print('HELLO ON IMPORT')\n"
        "class Noisy:\n"
        "    def __init__(self, samples=1, seed=None):\n"
        "        pass\n"
        "    def act(self, observation):\n"
        "        return observation.legal[0]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["match", "--ns", "noisybots:Noisy", "--ew", "random", "--boards", "1", "--seed", "1",
                 "--samples", "2", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["boards"] == 1 and "HELLO ON IMPORT" in err


def test_a_bots_keyboard_interrupt_in_a_process_that_takes_no_ctrl_c_is_its_failure(monkeypatch):
    # in the lab's worker processes (their driver stops them) a KeyboardInterrupt can only be
    # the bot's own; elsewhere it is the person's Ctrl-C, whatever SIGINT's disposition (a
    # command the shell starts in the background ignores SIGINT)
    import signal

    from flowerbridge import Deal, HandState
    from flowerbridge._signals import Terminated
    from flowerbridge.bots import base
    from flowerbridge.bots.base import ask
    from flowerbridge.errors import BotError

    class Interrupts:
        def act(self, observation):
            raise KeyboardInterrupt("from the bot")

    class Terminates:   # (as the bot is asked when SIGTERM's handler raises Terminated)
        def act(self, observation):
            raise Terminated()

    state = HandState(Deal.from_seed(1))
    seat = state.turn
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with pytest.raises(KeyboardInterrupt):      # the person's, SIGINT ignored or not
            ask(Interrupts(), seat, state.observation(seat))
    finally:
        signal.signal(signal.SIGINT, before)
    monkeypatch.setattr(base, "_ctrl_c_is_not_the_persons", False)
    base.ctrl_c_is_not_the_persons()
    with pytest.raises(BotError, match=f"^the bot at {seat.full_name} failed: KeyboardInterrupt: from the bot$"):
        ask(Interrupts(), seat, state.observation(seat))
    # SIGTERM's stop is a stop still (a diff review: kill ended a background match as a bot's
    # failure, exit 2, not "terminated", 143)
    with pytest.raises(Terminated):
        ask(Terminates(), seat, state.observation(seat))
    # and so is the making of a bot there (the lab makes its bots in the workers, a deal at a time)

    def interrupts_when_made():
        raise KeyboardInterrupt("from the factory")

    with pytest.raises(BotError, match="^cannot make bot '.*interrupts_when_made': KeyboardInterrupt: from the factory$"):
        base.load_bot(interrupts_when_made)


@pytest.mark.parametrize("as_json", [False, True])
def test_match_a_bot_failing_late_still_reports_the_boards_finished_before_it(
        tmp_path, monkeypatch, capsys, as_json):
    # (the boards played before the failure were lost: nothing on standard output)
    (tmp_path / "badbots.py").write_text(BAD_BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "badbots", raising=False)     # its count of decisions from 0
    json_flag = ["--json"] if as_json else []
    assert main(["match", "--ns", "basic", "--ew", "badbots:FailsLater", "--boards", "20", "--seed", "1",
                 *json_flag]) == 2
    out, err = capsys.readouterr()
    failed = re.fullmatch(r"error: board (\d+), table \d \((basic|badbots:FailsLater) North-South, "
                          r"(basic|badbots:FailsLater) East-West\): "
                          r"the bot at \w+ failed: RuntimeError: out of memory "
                          r"\(after (\d+) of 20 boards, reported above\)\n", err)
    assert failed, err
    board, finished = int(failed[1]), int(failed[4])
    assert 1 <= finished == board - 1 < 20
    # the report is of the boards finished: nothing of the board the failure cut short
    if as_json:
        report = json.loads(out)
        assert report["boards"] == finished and [r["board"] for r in report["results"]] == \
            list(range(1, finished + 1))
    else:
        assert out.startswith(f"basic (A) v badbots:FailsLater (B), {finished} boards, seed 1\n"), out


def test_match_report_keeps_long_bot_names_apart(capsys):
    # columns were 14 characters whatever the names: "basicflowerbridge.bots..."
    spec = "flowerbridge.bots.basic:BasicBot"
    assert main(["match", "--ns", "basic", "--ew", spec, "--boards", "1", "--seed", "1"]) == 0
    [row] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("bot ")]
    assert row.split() == ["bot", "basic", spec]


def test_match_report_says_how_many_contracts_its_list_of_eight_leaves_out(capsys):
    # "A declared: ..." listed the eight commonest contracts beside "contracts declared
    # 24" and said nothing of the others
    assert main(["match", "--ns", "random", "--ew", "random", "--boards", "32", "--seed", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert main(["match", "--ns", "random", "--ew", "random", "--boards", "32", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    for side, name in (("A", "ns"), ("B", "ew")):
        kinds = report["pairs"][name]["contracts"]
        assert len(kinds) > 8
        rest = sorted(kinds.values(), reverse=True)[8:]
        [line] = [line for line in out.splitlines() if line.startswith(f"{side} declared: ")]
        assert line.endswith(f", and {len(rest)} more ({sum(rest)} contracts)")


def test_match_report_fits_a_terminal_of_40_columns(monkeypatch, capsys):
    # its table was 50 columns wide (14 a column whatever the cells) and its sentences
    # ran on, wrapped by the terminal in mid-word
    monkeypatch.setenv("COLUMNS", "40")
    assert main(["match", "--ns", "basic", "--ew", "random", "--boards", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 39, out
    joined = out.replace(",\n  ", ", ")       # a sentence broken between its parts only
    assert re.search(r"^A: [+-]\d+\.\d\d IMPs per board, 95% CI \[[^]]+\], total [+-]\d+ IMPs?$", joined, re.M), out
    assert re.search(r"^bot +basic +random$", out, re.M), out
    monkeypatch.delenv("COLUMNS")
    assert main(["match", "--ns", "basic", "--ew", "random", "--boards", "4", "--seed", "1"]) == 0
    timed = re.compile(r"^ms per decision.*\n", re.M)     # (the one line that is not the same)
    assert timed.sub("", capsys.readouterr().out) == timed.sub("", joined)  # to a pipe: a line a sentence


# Student's t at 97.5 % by degrees of freedom, from the printed tables
T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 9: 2.262, 19: 2.093, 29: 2.045}


def imp_interval(results: list[int]) -> tuple[float, float]:
    """The mean and the half-width of its Student's t 95% interval."""
    n = len(results)
    mean = sum(results) / n
    stdev = math.sqrt(sum((x - mean) ** 2 for x in results) / (n - 1))
    return mean, T_975[n - 1] * stdev / math.sqrt(n)


def test_match_ci95_is_students_t_interval_of_the_mean_over_boards():
    # It was mean ± 1.96 standard errors: of 300 ten-board matches of bots of equal
    # strength, 10 % of intervals left out 0, not 5 % (a review)
    for boards in (6, 10):
        result = run_match("random", "basic", boards=boards, seed=5)
        scores = [r.imps for r in result.results]
        assert len(set(scores)) > 1
        mean, half = imp_interval(scores)
        low, high = result.ci95
        assert low == pytest.approx(mean - half, rel=1e-3) and high == pytest.approx(mean + half, rel=1e-3)
    assert result.imps_per_board == pytest.approx(mean)
    assert run_match("random", "basic", boards=1, seed=5).ci95 is None


def test_match_board_one_is_dealt_by_north_and_the_dealer_rotates_clockwise():
    # docs/bots.md: "dealer rotating N, E, S, W" from board 1
    result = run_match("random", "random", boards=6, seed=3)
    assert [r.dealer for r in result.results] == [Seat.N, Seat.E, Seat.S, Seat.W, Seat.N, Seat.E]
    assert [r.to_dict()["dealer"] for r in result.results] == list("NESWNE")


class Passer:
    """Passes whenever it may (its side never declares: a hand is passed out
    unless the other side opens)."""

    def act(self, observation):
        return PASS if observation.phase == "auction" else observation.legal[0]


@pytest.mark.parametrize("other", ["random", "tests.test_match:Passer"])
def test_match_json_pair_statistics_are_recounted_by_replaying_every_table(capsys, other):
    boards, seed = 6, 11
    assert main(["match", "--ns", "basic", "--ew", other, "--boards", str(boards), "--seed", str(seed),
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # Replay: pair 0 is basic (North-South at table 1, East-West at table 2), pair 1 the other.
    specs = ("basic", other)
    tables = [{s: load_bot(specs[int(s.side) ^ t], seed=bot_seed(seed, s.name)) for s in Seat}
              for t in range(2)]
    count = [{"declared": 0, "made": 0, "honors": 0, "bright": 0, "hands": 0, "contracts": Counter()}
             for _ in range(2)]
    passed_out = 0
    for board in range(1, boards + 1):
        for t, bots in enumerate(tables):
            score = play_hand(HandState(Deal.from_seed(seed, board), Seat((board - 1) % 4)), bots).score()
            passed_out += score.contract is None
            for side in Side:
                pair = count[int(side) ^ t]
                # per hand played: a hand passed out has no honors to count
                pair["hands"] += score.contract is not None
                pair["honors"] += score.honors(side)
                pair["bright"] += score.bright_bonus(side)
            if score.contract is not None:
                pair = count[int(score.contract.declarer.side) ^ t]
                pair["declared"] += 1
                pair["made"] += bool(score.made)
                pair["contracts"][score.contract.code] += 1
    assert sum(c["declared"] for c in count) > 0
    if other == "random":
        assert any(c["made"] < c["declared"] for c in count), "some contract should fail"
    else:
        assert passed_out > 0       # (honors per hand counted passed-out hands)
    for key, pair in zip(("ns", "ew"), count):
        got = data["pairs"][key]
        assert got["bot"] == specs[key == "ew"]
        assert (got["declared"], got["made"]) == (pair["declared"], pair["made"])
        assert got["contracts"] == dict(pair["contracts"])
        rate = pair["made"] / pair["declared"] if pair["declared"] else None
        assert got["making_rate"] == (None if rate is None else round(rate, 4))
        assert pair["hands"] == 2 * boards - passed_out
        assert got["honors_per_hand"] == round(pair["honors"] / pair["hands"], 3)
        assert got["bright_bonus_per_hand"] == round(pair["bright"] / pair["hands"], 3)


def test_a_match_of_hands_all_passed_out_has_no_per_hand_figures_and_the_report_says_so():
    # honors per hand read 0.0 (none won) where no hand was played, beside a making rate of null
    result = run_match(Passer, Passer, 2, 1)
    for pair in result.to_dict()["pairs"].values():
        assert (pair["declared"], pair["making_rate"]) == (0, None)
        assert (pair["honors_per_hand"], pair["bright_bonus_per_hand"]) == (None, None)
    report = render_match(result)
    for label in ("making rate", "honors per hand", "bright bonus per hand"):
        line = next(line for line in report.splitlines() if line.startswith(label))
        assert line.split()[-2:] == ["—", "—"], line


def test_quantile_interpolates_between_the_order_statistics():
    # the median of an even count is the mean of the middle two, as statistics.median's
    assert quantile([4.0, 1.0, 3.0, 2.0], 0.5) == 2.5
    assert quantile([1.0, 2.0, 3.0, 4.0], 0.9) == pytest.approx(3.7)   # numpy's default, 'inclusive'
    assert quantile([1.0, 2.0, 3.0], 0.5) == 2.0
    assert quantile([7.0, 5.0], 1.0) == 7.0 and quantile([7.0, 5.0], 0.0) == 5.0
    assert quantile([5.0], 0.9) == 5.0 and quantile([], 0.5) == 0.0
    with pytest.raises(ValueError):
        quantile([1.0], 1.5)


def test_card_ms_median_of_an_even_count_is_the_mean_of_the_middle_two():
    stats = PairStats("basic", card_seconds=[0.004, 0.001, 0.003, 0.002])
    assert stats.card_ms(0.5) == pytest.approx(2.5)   # the old ordered[int(q * n)] gave 3.0
    assert stats.card_ms(1.0) == pytest.approx(4.0)
    assert stats.to_dict()["card_ms_p90"] == pytest.approx(3.7)


class StopsAfter:
    """Plays as basic does, and is Ctrl-C at its ``limit``-th decision (counted
    over all its seats)."""

    limit = 10 ** 9
    made = 0

    def __init__(self, seed=None):
        from flowerbridge.bots.basic import BasicBot
        self.basic = BasicBot()

    def act(self, observation):
        StopsAfter.made += 1
        if StopsAfter.made == StopsAfter.limit:
            StopsAfter.stop()
        return self.basic.act(observation)

    @staticmethod
    def stop() -> None:
        raise KeyboardInterrupt


def the_loaded_stops_after():
    """StopsAfter as the match loads it (tests.test_match: another module than
    the one pytest runs, whose class attributes are its own)."""
    import importlib
    return importlib.import_module("tests.test_match").StopsAfter


def test_match_cut_short_by_ctrl_c_reports_the_boards_finished(monkeypatch, capsys):
    stops = the_loaded_stops_after()
    # (Ctrl-C part-way through threw away every board played: 'interrupted', nothing more)
    command = ["match", "--ns", "basic", "--ew", "tests.test_match:StopsAfter", "--seed", "4", "--json"]
    monkeypatch.setattr(stops, "made", 0)
    assert main([*command, "--boards", "5"]) == 0
    whole = json.loads(capsys.readouterr().out)
    per_board = stops.made // 5       # about: its decisions in a board, both tables
    monkeypatch.setattr(stops, "made", 0)
    monkeypatch.setattr(stops, "limit", 3 * per_board + per_board // 2)   # in a board, not at its end
    assert main([*command, "--boards", "5"]) == 130
    out, err = capsys.readouterr()
    cut = json.loads(out)
    finished = cut["boards"]
    assert 1 <= finished < 5 and err == f"interrupted after {finished} of 5 boards\n"
    # what was reported is a match of those boards alone: the board cut short left nothing behind
    monkeypatch.setattr(stops, "made", 0)
    monkeypatch.setattr(stops, "limit", 10 ** 9)
    assert main([*command, "--boards", str(finished)]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert cut["results"] == alone["results"] == whole["results"][:finished]
    for pair in ("ns", "ew"):
        for key in ("decisions", "declared", "made", "contracts", "honors_per_hand", "bright_bonus_per_hand"):
            assert cut["pairs"][pair][key] == alone["pairs"][pair][key], (pair, key)


def test_match_a_ctrl_c_that_lands_inside_a_lock_a_bot_waits_on_is_a_stop_not_the_bots_failure(monkeypatch, capsys):
    # A Ctrl-C taken inside threading.Condition.wait (a bot waiting on its solver's
    # threads) fails the wait's release of its lock: the RuntimeError was the bot's
    # failure, "the bot at ... failed", and the boards finished were reported as if a bot
    # had broken
    import threading

    def stop_inside_a_lock() -> None:
        lock = threading.Lock()
        try:
            raise KeyboardInterrupt
        finally:
            lock.release()

    stops = the_loaded_stops_after()
    monkeypatch.setattr(stops, "stop", staticmethod(stop_inside_a_lock))
    monkeypatch.setattr(stops, "made", 0)
    monkeypatch.setattr(stops, "limit", 150)        # in the second board or later
    command = ["match", "--ns", "basic", "--ew", "tests.test_match:StopsAfter", "--seed", "4", "--json"]
    assert main([*command, "--boards", "5"]) == 130
    out, err = capsys.readouterr()
    finished = json.loads(out)["boards"]
    assert 1 <= finished < 5 and err == f"interrupted after {finished} of 5 boards\n"


def test_match_cut_short_before_a_board_is_finished_says_interrupted(monkeypatch, capsys):
    stops = the_loaded_stops_after()
    monkeypatch.setattr(stops, "made", 0)
    monkeypatch.setattr(stops, "limit", 3)
    assert main(["match", "--ns", "basic", "--ew", "tests.test_match:StopsAfter", "--boards", "3"]) == 130
    out, err = capsys.readouterr()
    assert out == "" and err == "interrupted\n"


def untimed(report):
    """A match's JSON report without its timings, which differ from run to run."""
    timed = re.compile(r"ms|seconds")
    drop = lambda d: {k: v for k, v in d.items() if not timed.search(k)}   # noqa: E731
    return {**drop(report), "pairs": {pair: drop(stats) for pair, stats in report["pairs"].items()}}


def test_match_stopped_between_boards_reports_the_boards_finished(monkeypatch, capsys):
    # A Ctrl-C or SIGTERM outside a board's play (dealing the next board, scoring
    # one) escaped as it was: 'terminated', and no report of the boards played.
    import flowerbridge.bots.match as match_module
    command = ["match", "--ns", "basic", "--ew", "basic", "--seed", "4", "--json"]
    assert main([*command, "--boards", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    deal = match_module.Deal.from_seed

    def stopped_at_board_3(seed, board):
        if board == 3:
            raise Terminated
        return deal(seed, board)

    monkeypatch.setattr(match_module.Deal, "from_seed", staticmethod(stopped_at_board_3))
    assert main([*command, "--boards", "5"]) == 143
    out, err = capsys.readouterr()
    assert err == "terminated after 2 of 5 boards\n"
    assert untimed(json.loads(out)) == untimed(two)


def test_match_stopped_as_it_ends_reports_every_board(monkeypatch, capsys):
    # (a stop once the last board was in, as the progress bar closed, lost them all)
    import flowerbridge.cli.match as cli_match
    command = ["match", "--ns", "basic", "--ew", "basic", "--seed", "4", "--json", "--boards", "2"]
    assert main(command) == 0
    two = json.loads(capsys.readouterr().out)
    play = cli_match._play

    def stopped_as_it_ends(*args):
        play(*args)
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_match, "_play", stopped_as_it_ends)
    assert main(command) == 130
    out, err = capsys.readouterr()
    assert untimed(json.loads(out)) == untimed(two) and err == "interrupted after 2 of 2 boards\n", err


class Announces:
    """Plays as basic does, and at its 200th decision (a few boards in) makes the
    file that ANNOUNCE names."""

    def __init__(self, seed=None):
        from flowerbridge.bots.basic import BasicBot
        self.basic, self.made = BasicBot(), 0

    def act(self, observation):
        self.made += 1
        if self.made == 200:
            open(os.environ["ANNOUNCE"], "w").close()
        return self.basic.act(observation)


def test_match_terminated_by_kill_reports_the_boards_finished(tmp_path):
    # (SIGTERM, `kill PID`, killed the match outright: every board played was lost, as
    # after Ctrl-C before)
    announce = tmp_path / "playing"
    proc = subprocess.Popen([sys.executable, "-m", "flowerbridge.cli", "match", "--ns", "basic",
                             "--ew", "tests.test_match:Announces", "--boards", "100000", "--seed", "1", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "ANNOUNCE": str(announce)})
    deadline = time.monotonic() + 60
    while not announce.exists():                    # boards are being played
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    report = json.loads(out)
    assert 1 <= report["boards"] < 100_000 and len(report["results"]) == report["boards"]
    assert err == f"terminated after {report['boards']} of 100000 boards\n"


def test_match_json_keeps_a_seed_past_2_53_as_its_digits(capsys):
    # jq read 12345678901234567891 as 12345678901234567000: another seed, other boards
    assert main(["match", "--ns", "basic", "--ew", "random", "--boards", "1", "--seed", "12345678901234567891",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == "12345678901234567891"
    assert main(["match", "--ns", "basic", "--ew", "random", "--boards", "1", "--seed", "7", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == 7


def test_match_card_decision_times_are_of_the_cards_played_only():
    # docs/bots.md: card_ms_median and card_ms_p90 time the bots' cards, not their calls
    from flowerbridge.bots.match import run_match
    result = run_match("random", "random", 4, 1)
    played = 52 * sum(t.contract is not None for r in result.results for t in r.tables)
    assert played and sum(len(p.card_seconds) for p in result.pairs) == played


def test_match_samples_beside_a_bot_object_is_refused_as_an_option_neither_bot_takes(tmp_path, monkeypatch,
                                                                                   capsys):
    # a bot object is used as it is: --samples would be ignored, so it is refused
    from flowerbridge.bots.base import bot_takes
    (tmp_path / "objbots.py").write_text("class FirstLegal:\n    def act(self, o):\n        return o.legal[0]\n\n"
                                         "shared = FirstLegal()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert not bot_takes("objbots:shared", "samples") and bot_takes("pimc", "samples")
    assert main(["match", "--ns", "objbots:shared", "--ew", "basic", "--boards", "1", "--samples", "5"]) == 2
    assert capsys.readouterr().err == ("error: --samples is for pimc (or a bot that takes a samples option): "
                                       "objbots:shared and basic do not sample\n")


def test_match_plays_32_boards_unless_told():
    from flowerbridge.cli import build_parser
    assert build_parser().parse_args(["match", "--ns", "random", "--ew", "basic"]).boards == 32


@pytest.mark.parametrize("width", range(12, 60, 3))
def test_match_report_lists_break_between_parts_within_the_width(width):
    from flowerbridge.cli.match import _parts
    parts = ["A declared: 1P ×2", "3NT ×1", "4A ×10", "2R ×3", "and 2 more (5 contracts)"]
    lines = _parts(parts, width)
    # a line of two parts or more is within the width, its comma too (a part alone is never broken)
    assert all(len(line) <= width for line in lines if ", " in line)
    assert " ".join(line.strip() for line in lines) == ", ".join(parts)
