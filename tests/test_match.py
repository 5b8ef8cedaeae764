"""Duplicate matches: the IMP scale, scoring by the rules, reproducibility, the command."""

from __future__ import annotations

import json
import re

import pytest

from flowerbridge import Deal, HandState, Seat, Side
from flowerbridge.bots.base import bot_seed, load_bot, play_hand
from flowerbridge.bots.match import IMP_SCALE, imps, run_match
from flowerbridge.cli import main


@pytest.mark.parametrize("points, expected", [
    (0, 0), (10, 0), (19, 0), (20, 1), (40, 1), (50, 2), (420, 9), (430, 10), (490, 10),
    (500, 11), (1990, 18), (3990, 23), (4000, 24), (9999, 24), (-130, -4)])
def test_standard_imp_scale(points, expected):
    assert imps(points) == expected


def test_imp_scale_has_24_steps_increasing():
    assert len(IMP_SCALE) == 24 and list(IMP_SCALE) == sorted(set(IMP_SCALE))


def test_each_board_is_played_twice_with_the_pairs_swapped_and_scored_by_the_rules():
    result = run_match("basic", "random", boards=3, seed=9)
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
    assert a == b


def test_identical_bots_break_even_on_every_board():
    result = run_match("basic", "basic", boards=4, seed=2)
    assert all(r.imps == 0 for r in result.results)
    assert result.ci95 == (0.0, 0.0)


def test_match_json_has_the_promised_keys(capsys):
    assert main(["match", "--ns", "basic", "--ew", "random", "--boards", "3", "--seed", "5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["boards"] == 3
    assert isinstance(data["imps_per_board"], float)
    assert len(data["ci95"]) == 2 and data["ci95"][0] <= data["imps_per_board"] <= data["ci95"][1]
    assert set(data["ms_per_decision"]) == {"ns", "ew"}
    assert {"declared", "made", "making_rate", "honors_per_hand", "bright_bonus_per_hand",
            "contracts"} <= set(data["pairs"]["ns"])
    assert len(data["results"]) == 3


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
    with pytest.raises(FlowerBridgeError, match="a match needs at least 1 board"):
        run_match("basic", "random", boards=0, seed=1)


def test_pimc_matches_are_reproducible_for_a_seed():
    runs = [run_match("pimc", "basic", boards=1, seed=4, bot_options={"samples": 4}) for _ in range(2)]
    assert runs[0].results == runs[1].results


def test_swapping_the_bots_turns_every_boards_sign_seeded_bots_too():
    # each seat's bot was seeded by its table too: swapped, the same bot in the same
    # seat got another seed, and random (or pimc) played other cards
    ab = run_match("random", "basic", boards=6, seed=5)
    ba = run_match("basic", "random", boards=6, seed=5)
    assert [r.imps for r in ba.results] == [-r.imps for r in ab.results]
    assert any(r.imps for r in ab.results)
    assert all(r.imps == 0 for r in run_match("random", "random", boards=4, seed=5).results)


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
"""


@pytest.mark.parametrize("bot, message", [
    ("Illegal", r"^error: board \d+, table \d \(basic North-South, badbots:Illegal East-West\): the bot at "
                r"(East|West) chose an illegal card: play \d+ \((E|W)\): must follow "),
    ("RaisesOurError", r"^error: board 1, table 1 \(basic North-South, badbots:RaisesOurError East-West\): "
                       r"the bot at East failed: internal oops$"),
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


def test_match_report_keeps_long_bot_names_apart(capsys):
    # columns were 14 characters whatever the names: "basicflowerbridge.bots..."
    spec = "flowerbridge.bots.basic:BasicBot"
    assert main(["match", "--ns", "basic", "--ew", spec, "--boards", "1", "--seed", "1"]) == 0
    [row] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("bot ")]
    assert row.split() == ["bot", "basic", spec]
