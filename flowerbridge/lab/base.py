"""What an analysis is, and the column tables its rows become.

An :class:`Analysis` turns a range of deal indices into rows, one or more per
deal, as a *pure* function of ``(seed, start, stop, params)``: deal ``i`` is
always ``Deal.from_seed(seed, i)`` and every random choice is seeded from
``(seed, i)``. That is what makes a run independent of how the deals are
split among workers, and lets a finished chunk be stored and never redone.

Rows hold only whole numbers and short strings, so the CSV files they are
stored in are byte-identical whichever machine wrote them.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from ..errors import FlowerBridgeError

Row = dict[str, Any]
Params = Mapping[str, Any]


class LabError(FlowerBridgeError):
    """A lab run that cannot be carried out as asked (bad parameter, clashing output folder)."""


@dataclass(frozen=True)
class Analysis:
    """One kind of study over many deals.

    ``columns`` maps each column of the rows to ``int`` or ``str``;
    ``rows(seed, start, stop, params)`` computes the rows of deals
    ``start..stop-1``; ``summarize(table, params, settings)`` reduces the
    merged rows to plain numbers (JSON) and ``sections(table, summary,
    params, settings)`` lays them out for the report, where ``settings`` are
    the run's report-only settings (such as the rule variants); ``defaults``
    are its parameters and their default values; ``chunk_size`` is how many
    deals one unit of work holds (part of a run's identity, never of its
    results); ``check`` rejects bad parameters with a :class:`LabError`
    before any work starts.
    """

    name: str
    title: str
    columns: Mapping[str, type]
    rows: Callable[[Any, int, int, Params], list[Row]]
    summarize: Callable[["Table", Params, Params], dict]
    sections: Callable[["Table", dict, Params, Params], list]
    defaults: Mapping[str, Any] = field(default_factory=dict)
    chunk_size: int = 100
    check: Callable[[Params], None] | None = None

    def params(self, given: Params | None) -> dict[str, Any]:
        """The defaults updated with ``given``; unknown names are an error."""
        given = dict(given or {})
        unknown = sorted(set(given) - set(self.defaults))
        if unknown:
            raise LabError(f"analysis {self.name}: unknown parameter {unknown[0]!r}; it takes "
                           + (", ".join(sorted(self.defaults)) or "none"))
        merged = {**self.defaults, **given}
        if self.check:
            self.check(merged)
        return merged


# ------------------------------------------------------------------ tables


class Table:
    """Rows stored as named numpy columns, in deal order.

    >>> t = Table.from_rows({"deal": int, "c": str}, [{"deal": 0, "c": "1P"}])
    >>> len(t), t["c"][0]
    (1, '1P')
    """

    def __init__(self, columns: Mapping[str, type], data: Mapping[str, np.ndarray]) -> None:
        self.columns = dict(columns)
        self.data = dict(data)

    @classmethod
    def from_rows(cls, columns: Mapping[str, type], rows: Iterable[Row]) -> "Table":
        rows = list(rows)
        return cls(columns, {name: np.array([r[name] for r in rows],
                                            dtype=np.int64 if kind is int else object)
                             for name, kind in columns.items()})

    def __len__(self) -> int:
        return len(next(iter(self.data.values()))) if self.data else 0

    def __getitem__(self, name: str) -> np.ndarray:
        return self.data[name]

    def where(self, mask: np.ndarray) -> "Table":
        """The rows where ``mask`` is true."""
        return Table(self.columns, {k: v[mask] for k, v in self.data.items()})


def rows_to_csv(columns: Mapping[str, type], rows: Iterable[Row]) -> str:
    """CSV text of ``rows`` with a header line, columns in schema order."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([row[name] for name in columns])
    return buf.getvalue()


def csv_rows(columns: Mapping[str, type], text: str, where: str) -> list[Row]:
    """Rows from CSV text written by :func:`rows_to_csv`, typed by the schema."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header != list(columns):
        raise LabError(f"{where}: columns do not match this version of the analysis; "
                       "use a new output folder")
    out = []
    for line in reader:
        out.append({name: (int(value) if kind is int else value)
                    for (name, kind), value in zip(columns.items(), line)})
    return out


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that the file is either absent or complete.

    The text goes to a temporary file in the same folder, is flushed to disk,
    and is renamed over ``path``: a run killed at any moment leaves no
    half-written chunk for the resume to trust.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
