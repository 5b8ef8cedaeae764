"""The designer's lab: seeded studies of Flower Bridge over many deals.

Four analyses, each over deals ``Deal.from_seed(seed, i)`` for ``i < n``:

* ``deals`` — honor count, suit lengths, what the 8 undealt cards hide;
* ``dd`` — double-dummy tricks, makeable levels and best contracts (needs
  the solver);
* ``play`` — bots bid and play every deal: contracts, making rates, honors,
  Bright bonuses, hands per game;
* ``variants`` — the same hands scored under other rule options.

Work is cut into chunks saved as they finish, so a run resumes where it was
stopped, and the results are the same whatever the number of workers or
whether Ray ran them. :func:`run_lab` runs analyses and writes the HTML
report; :mod:`flowerbridge.lab.designer` writes the designer's report.

>>> from flowerbridge.lab import run_lab
>>> result = run_lab("lab-output/doc", ["deals"], n=50, seed=1, workers=1)  # doctest: +SKIP
"""

from .base import Analysis, LabError, Table
from .runner import LabResult, analyses, run
from .study import Study, run_lab

__all__ = ["Analysis", "LabError", "LabResult", "Study", "Table", "analyses", "run", "run_lab"]
