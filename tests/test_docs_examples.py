"""Every Python example of the README and docs/ runs as written: a reader who copies a
page's examples into a script, in order, gets no error (the double-dummy example used names
it never made: ``hands``, ``list_of_hands``; a review found it so). Each example runs with
those before it on its page (a page's examples go on from one another), as a script of its
own, in an empty folder (what it writes lands there)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def examples() -> list:
    found = []
    for page in PAGES:
        blocks = re.findall(r"^```python\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M)
        found += [pytest.param("\n".join(blocks[:i + 1]), id=f"{page.relative_to(ROOT)}-{i + 1}")
                  for i in range(len(blocks))]
    return found


def test_the_docs_have_python_examples():
    assert len(examples()) >= 10


@pytest.mark.parametrize("code", examples())
def test_every_python_example_in_the_docs_runs_as_written(code, tmp_path):
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
