"""The benchmark scripts' command lines: a bad argument or a missing piece is one
clear line, not a traceback. The scripts are run for their arguments only (no
figures are measured here: speed is the benchmarks' to print, never asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

# runs a script with some modules made impossible to import, as on a machine without them
WITHOUT = """
import importlib.abc, runpy, sys
names = set(sys.argv[1].split(","))
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name in names or name.split(".")[0] in names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Block())
sys.argv = sys.argv[2:]
sys.path.insert(0, sys.argv[0].rpartition("/")[0])
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def bench(script: str, *args: str, without: str | None = None) -> subprocess.CompletedProcess:
    path = str(BENCHMARKS / script)
    command = [sys.executable, path, *args] if without is None else \
        [sys.executable, "-c", WITHOUT, without, path, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def error_line(done: subprocess.CompletedProcess) -> str:
    """The one error line (argparse may print its usage above it), no traceback."""
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if "error:" in line]
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_bench_server_refuses_more_hands_than_a_session_holds_with_restart():
    # --restart makes each session a hand longer: 100 hands would ask the server for 101
    done = bench("bench_server.py", "--tables", "1", "--hands", "100", "--restart")
    assert done.returncode == 2
    line = error_line(done)
    assert "--hands" in line and "at most 99 with --restart" in line


def test_bench_solver_without_endplay_times_flower_bridge_or_says_what_is_missing():
    done = bench("bench_solver.py", "--deals", "1", "--flower-deals", "0", without="endplay")
    assert done.returncode == 1
    assert "endplay" in error_line(done) and "--deals 0" in done.stderr


@pytest.mark.parametrize("script", ["bench_solver.py", "bench_solver_dds_check.py", "bench_solver_counts.py",
                                    "bench_leads.py"])
def test_solver_scripts_without_a_built_core_say_build_first(script):
    done = bench(script, "--help", without="flowerbridge.solver._core")
    assert done.returncode == 1
    assert "build it first (make install)" in error_line(done)


def test_bench_lab_asked_for_dd_without_a_built_core_says_build_first():
    # the dd part was left out without a word, exit status 0
    done = bench("bench_lab.py", "--play-n", "1", "--dd-n", "1", without="flowerbridge.solver._core")
    assert done.returncode == 1
    assert "build it first (make install)" in error_line(done) and "deals" not in done.stdout


def test_bench_solver_refuses_more_workers_than_its_memory_can_share():
    # 300 workers split the default 256 MB below 1 MB each: refused, not naming the option,
    # once the solving had begun
    done = bench("bench_solver.py", "--deals", "1", "--flower-deals", "0", "--workers", "300")
    assert done.returncode == 2
    assert "--workers: must be at most 256" in error_line(done) and "solver core" not in done.stdout


@pytest.mark.parametrize("option, where, said", [
    ("--json", "", "is a folder"),
    ("--cache", "f/sub", "cannot make the folder"),
])
def test_bench_bidding_dd_refuses_an_output_it_cannot_write_before_solving(tmp_path, option, where, said):
    # met after every deal was solved, as a traceback (the figures not written)
    (tmp_path / "f").write_text("")
    done = bench("bench_bidding_dd.py", "--boards", "1", option, str(tmp_path / where))
    assert done.returncode == 2
    line = error_line(done)
    assert f"argument {option}" in line and said in line and "solved" not in done.stdout


def test_dds_check_help_needs_no_endplay():
    done = bench("bench_solver_dds_check.py", "--help", without="endplay")
    assert done.returncode == 0 and "--chunk" in done.stdout, done.stderr


def test_bench_lab_names_the_workers_a_run_used():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from bench_lab import used
    finally:
        sys.path.remove(str(BENCHMARKS))
    assert used(2, 1, 1) == 1      # one chunk: computed in the lab's own process
    assert used(2, 10, 500) == 1
    assert used(2, 2, 1) == 2 and used(1, 8, 1) == 1 and used(2, 501, 500) == 2


@pytest.mark.parametrize("script", ["bench_bots.py", "bench_bidding_dd.py", "bench_leads.py"])
def test_bot_benchmarks_refuse_an_empty_seed(script):
    # (an unset shell variable, --seed "$SEED", was taken as a seed of its own)
    done = bench(script, "--seed", "")
    assert done.returncode == 2
    line = error_line(done)
    assert "--seed" in line and "the seed is empty" in line


def test_bot_benchmarks_read_a_seed_as_flowerbridge_match_does():
    # (--seed 7 was the text "7" in the scripts, the number 7 in `flowerbridge match`:
    # other boards under the same seed)
    from flowerbridge import Deal
    from flowerbridge.cli import parse_seed
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from _args import seed
    finally:
        sys.path.remove(str(BENCHMARKS))
    texts = ["7", "007", "-3", "bench", "7a"]
    assert [seed(t) for t in texts] == [parse_seed(t) for t in texts] == [7, 7, -3, "bench", "7a"]
    assert Deal.from_seed(seed("7"), 1) == Deal.from_seed(7, 1) != Deal.from_seed("7", 1)


def test_bench_bots_reports_a_pair_that_played_no_hand_with_dashes(capsys, monkeypatch):
    # honors per hand is null where every hand was passed out (the match's JSON): the
    # benchmark's report formatted it as a number and failed
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_bots

    bench_bots.report("tests.test_match:Passer", "tests.test_match:Passer", 1, 1)
    lines = [line for line in capsys.readouterr().out.splitlines() if "declared" in line]
    assert len(lines) == 2 and all("made    —, honors/hand     —," in line for line in lines), lines
