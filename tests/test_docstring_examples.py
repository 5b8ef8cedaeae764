"""The examples in the package's docstrings (``>>>``) run as written: a reader who
copies one gets what it shows."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import flowerbridge

# Alembic's env.py runs only inside Alembic (it reads the migration context on
# import), and a __main__ runs the command.
MODULES = ["flowerbridge"] + sorted(m.name for m in pkgutil.walk_packages(flowerbridge.__path__, "flowerbridge.")
                 if ".migrations" not in m.name and not m.name.endswith("__main__"))


def _with_examples(name: str) -> bool:
    module = importlib.import_module(name)
    return any(test.examples for test in doctest.DocTestFinder().find(module))


@pytest.mark.parametrize("name", [m for m in MODULES if _with_examples(m)])
def test_every_docstring_example_runs_as_written(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, f"{result.failed} of {result.attempted} failed in {name}"
