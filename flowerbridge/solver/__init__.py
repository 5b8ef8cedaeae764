"""Double-dummy solver (issue #3).

A compiled, generic search core (:mod:`flowerbridge.solver._core`, plain C
over the CPython API) solves trick-taking positions for up to 8 suits, 16
ranks per suit and 4 identical copies of a card, with the Flower Bridge rule that
a card wins only by outranking the card currently winning (of two identical
cards the first played wins).

* :mod:`flowerbridge.solver.core` - engine-independent API on card indices
  (:class:`DoubleDummy`, :func:`dd_tables`; :data:`FLOWER` and :data:`BRIDGE`).
* :mod:`flowerbridge.solver.game` - the same for the rules engine's objects
  (:func:`card_values`, :func:`dd_table`, :func:`optimal_line`).
* :mod:`flowerbridge.solver.bridge` - PBN deals of Contract Bridge.
"""

from .core import (BRIDGE, DEFAULT_MEMORY_MB, FLOWER, DoubleDummy, Geometry, SearchCancelled, SolverBusyError,
                   SolverInputError, SolverMemoryError, dd_tables, iter_dd_tables, kept_memory, release_memory)
from .game import SolverError, card_values, dd_table, dd_table_many, optimal_line, tricks

__all__ = ["BRIDGE", "DEFAULT_MEMORY_MB", "FLOWER", "DoubleDummy", "Geometry", "SearchCancelled",
           "SolverBusyError", "SolverInputError", "SolverMemoryError", "SolverError", "card_values",
           "dd_table", "dd_table_many", "dd_tables", "iter_dd_tables", "kept_memory", "optimal_line",
           "release_memory", "tricks"]
