"""``flowerbridge demo`` and ``flowerbridge show``: saving, the scoresheet, sessions."""

from __future__ import annotations

import json
import shutil

import flowerbridge.bots


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
