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
import hashlib
import importlib.util
import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Mapping

import numpy as np

from .._files import replace_whole
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
    before any work starts; ``row_key`` names the column that tells apart
    a deal's rows where it has more than one (they come in the same order
    for every deal), and ``rows_per_deal(params)`` how many it has (one
    where not given); ``code(params)`` is the fingerprint of the source files
    its rows depend on (:func:`source_digests`), which a folder records so
    that it is never resumed with other code.
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
    row_key: str | None = None
    rows_per_deal: Callable[[Params], int] | None = None
    code: Callable[[Params], dict[str, str]] | None = None

    def deal_rows(self, params: Params) -> int:
        """How many rows each deal has with ``params`` (:attr:`rows_per_deal`; one where not given)."""
        return self.rows_per_deal(params) if self.rows_per_deal else 1

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


# ------------------------------------------------------------ fingerprints


PACKAGE = Path(__file__).resolve().parent.parent
"""The ``flowerbridge`` package's folder, which the source files below are named in."""

ENGINE_SOURCES = ("calls.py", "cards.py", "contract.py", "dealing.py", "errors.py", "observation.py",
                  "options.py", "scoring.py", "seats.py", "state.py")
"""The rules engine: the deal, the auction, the play and the score of every row."""
LAB_SOURCES = ("lab/base.py", "lab/features.py")
"""The lab's own code that every analysis' rows go through (the features of a deal,
its dealer, the CSV text)."""
BOT_SOURCES = ("bots/base.py", "bots/basic.py", "bots/bidding.py", "bots/knowledge.py",
               "bots/pimc.py", "bots/sampling.py")
"""The bots' bidding and play (not ``bots/match.py``, which plays matches)."""
SOLVER_SOURCES = ("solver/__init__.py", "solver/core.py", "solver/game.py", "solver/_core.c",
                  "solver/_core_flower.c")
"""The double-dummy solver of Flower Bridge: its Python side and the C sources of its
compiled core (not the build: a rebuild of the same sources gives the same tricks;
``_core_bridge.c`` and ``bridge.py`` serve contract bridge alone)."""


def source_digests(paths: Iterable[str]) -> dict[str, str]:
    """The fingerprint of source files of the package (``paths`` relative to its folder):
    each file, named ``flowerbridge/<path>``, with the first 16 hex digits of the
    SHA-256 of its bytes (``absent`` where it is not installed). Any edit counts, a
    comment's too."""
    out = {}
    for path in paths:
        try:
            digest = hashlib.sha256((PACKAGE / path).read_bytes()).hexdigest()[:16]
        except OSError:
            digest = "absent"
        out[f"flowerbridge/{path}"] = digest
    return out


def module_digest(module: str) -> dict[str, str]:
    """The fingerprint of a module outside the package (a bot given as
    ``module:attribute``): ``module NAME`` with the digest of its file, ``unknown``
    where it has none that can be read."""
    try:
        spec = importlib.util.find_spec(module)
        origin = spec.origin if spec is not None else None
        digest = hashlib.sha256(Path(origin).read_bytes()).hexdigest()[:16] if origin else "unknown"
    except (ImportError, ValueError, OSError):
        digest = "unknown"
    return {f"module {module}": digest}


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


DAMAGED = "the file is damaged: delete it and run again"


class ColumnReader:
    """Reads chunk CSV files written by :func:`rows_to_csv` straight into
    typed numpy columns, one file at a time: no row is ever a dict, so a run
    of a million deals fits in memory (a string column holds one object per
    distinct value).

    Each file is checked as it is read: it must be exactly what
    :func:`rows_to_csv` writes for the rows it holds (header, widths, the
    numbers' and texts' spelling, line ends, a final newline), hold no
    control character, and hold every deal of its chunk in order, each deal
    with as many rows as every other (``per_deal``, where given: as the run's
    parameters say; told apart by ``row_key``, in the same order). Any fault is
    a :class:`LabError` naming the file.
    """

    def __init__(self, columns: Mapping[str, type], row_key: str | None = None,
                 per_deal: int | None = None) -> None:
        self.columns = dict(columns)
        self.row_key = row_key
        self.per_deal = per_deal
        self._pattern: list[str] | None = None     # row_key's values for one deal
        self._parts: dict[str, list[np.ndarray]] = {name: [] for name in columns}
        self._strings: dict[str, dict[str, str]] = {name: {} for name, kind in columns.items() if kind is not int}

    def add_file(self, path: Path, deals: range | None = None) -> None:
        """Take the rows of the CSV file at ``path``, which must hold the
        deals ``deals`` (when given)."""
        try:
            with open(path, encoding="utf-8", newline="") as fh:
                text = fh.read()
        except UnicodeDecodeError as exc:
            raise LabError(f"{path}: byte {exc.start} is not UTF-8; {DAMAGED}") from None
        self.add(text, str(path), deals)

    def add(self, text: str, where: str, deals: range | None = None) -> None:
        """Take the rows of one CSV text; ``where`` names it in errors."""
        if not text.endswith("\n"):
            raise LabError(f"{where}: the file does not end with a whole line; {DAMAGED}")
        try:
            reader = csv.reader(io.StringIO(text, newline=""))
            header = next(reader, None)
            if header != list(self.columns):
                raise LabError(f"{where}: its columns are not this analysis' (the file is damaged, "
                               "or was written by another version of flowerbridge): delete it and "
                               "run again, or use a new output folder")
            lines = list(reader)
        except csv.Error as exc:
            raise LabError(f"{where}: not CSV as the lab writes it ({exc}); {DAMAGED}") from None
        width = len(self.columns)
        for number, line in enumerate(lines, 2):
            if len(line) != width:
                raise LabError(f"{where}, line {number}: {len(line)} fields where the header has "
                               f"{width}; {DAMAGED}")
        columns: dict[str, np.ndarray] = {}
        for index, (name, kind) in enumerate(self.columns.items()):
            values = [line[index] for line in lines]
            if kind is int:
                try:
                    columns[name] = np.fromiter(map(int, values), dtype=np.int64, count=len(values))
                except (ValueError, OverflowError):
                    bad = next(v for v in values if not _is_int64(v))
                    raise LabError(f"{where}: column {name} holds {bad[:40]!r}, not a whole number "
                                   f"of this analysis; {DAMAGED}") from None
            else:
                odd = next((v for v in values if _CONTROL.search(v)), None)
                if odd is not None:
                    raise LabError(f"{where}: column {name} holds a control character "
                                   f"({odd[:40]!r}); {DAMAGED}")
                seen = self._strings[name]
                columns[name] = np.array([seen.setdefault(v, v) for v in values], dtype=object)
        # the same rows written again must give the file: a number or a text
        # spelt another way (" 5", "+5", "5_0", quotes where none are needed,
        # CR LF) is not the lab's writing
        rows = zip(*(columns[name].tolist() for name in self.columns)) if lines else ()
        if rows_to_csv(self.columns, (dict(zip(self.columns, row)) for row in rows)) != text:
            raise LabError(f"{where}: not written as the lab writes its rows (spacing, signs, "
                           f"quotes or line ends differ); {DAMAGED}")
        if deals is not None and "deal" in columns:
            self._check_deals(columns, deals, where)
        for name, column in columns.items():
            self._parts[name].append(column)

    def _check_deals(self, columns: Mapping[str, np.ndarray], deals: range, where: str) -> None:
        held = columns["deal"]
        per_deal, extra = divmod(len(held), len(deals)) if len(deals) else (0, len(held))
        wrong = extra or not per_deal or (self.per_deal is not None and per_deal != self.per_deal) or \
            not np.array_equal(held, np.repeat(np.arange(deals.start, deals.stop), per_deal))
        if not wrong and self.row_key is not None:
            keys = columns[self.row_key].tolist()
            pattern = keys[:per_deal]
            if self._pattern is None:
                self._pattern = pattern
            wrong = pattern != self._pattern or len(set(pattern)) != per_deal \
                or keys != pattern * len(deals)
        if wrong:
            each = ""
            if self.row_key is not None:
                each = f", each with the same {self.row_key} rows in order"
            elif self.per_deal is not None:
                each = ", a row each" if self.per_deal == 1 else f", each in {self.per_deal} rows"
            raise LabError(f"{where}: it does not hold deals {deals.start} to {deals.stop - 1} in "
                           f"order{each}; {DAMAGED}")

    def table(self) -> "Table":
        return Table(self.columns, {
            name: np.concatenate(parts) if parts else np.array([], dtype=np.int64 if kind is int else object)
            for (name, kind), parts in zip(self.columns.items(), self._parts.values())})


# Characters the lab never writes in a text cell.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _is_int64(text: str) -> bool:
    try:
        value = int(text)
    except ValueError:
        return False
    return -2**63 <= value < 2**63


def write_atomic(path: Path, text: str | bytes | Iterable[str]) -> None:
    """Write ``text`` (or its parts, in order; or bytes, such as a figure) to
    ``path`` so that the file is either absent or complete.

    The text goes to a temporary file in the same folder, is flushed to disk,
    and is renamed over ``path`` (:func:`flowerbridge._files.replace_whole`): a run
    killed at any moment leaves no half-written chunk for the resume to trust. A
    ``path`` that is a symbolic link (a designer's report kept elsewhere) is written
    where it leads, and stays a link; a file replaced keeps its permissions.
    """
    parts = [text] if isinstance(text, (str, bytes)) else text

    def fill(fh: IO[bytes]) -> None:
        for part in parts:
            fh.write(part if isinstance(part, bytes) else part.encode("utf-8"))

    try:
        # (renamed over, the link itself would become the file)
        replace_whole(os.path.realpath(path), fill)
    except OSError as exc:      # the parts failed (a damaged chunk), or the disk did
        if exc.filename is None:    # a failed write names no file
            exc.filename = str(path)
        raise
