"""Finding Parquet files and reading their footers, once per file version.

Both the reader (column names) and the stage cutter (row counts per row group, to balance
tasks; integer key ranges per row group, to keep tasks that split a file clustered) need
footers; they are cached by path, size and modification time so planning a query twice
reads nothing twice, and a rewritten file is read again.
"""

from __future__ import annotations

import functools
import glob
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sparkwire.planner.errors import AnalysisError, path_not_found

_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class ParquetFileInfo:
    path: str
    schema: pa.Schema
    row_group_rows: tuple[int, ...]
    bytes: int  # the file's size: what the planner estimates a scan of it by
    #: Compressed bytes of each top-level column, so a scan of a few columns is estimated
    #: at their share of ``bytes``.
    column_bytes: Mapping[str, int] = field(default_factory=dict)
    #: ``(min, max)`` of each integer column over the file, from the footer's statistics:
    #: ``max - min + 1`` bounds how many distinct keys a join can match.
    int_ranges: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    #: The same ``(min, max)`` for each row group, in file order, of the columns
    #: ``int_ranges`` holds: tasks that each read some row groups of a sorted file read
    #: disjoint key ranges too (``planner.physical.clustering``).
    row_group_int_ranges: Mapping[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    #: ``(min, max)`` of each integer, decimal, floating-point or date column (dates as day
    #: numbers, ``date.toordinal``) over the file, as floats: where a range predicate's
    #: bounds fall in it says what share of the rows it keeps (``planner.optimizer.selectivity``).
    value_ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    #: Columns every row group's statistics show without NULLs.
    null_free: frozenset[str] = frozenset()

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(self.schema.names)


def list_parquet_files(path: str | os.PathLike[str]) -> list[str]:
    """Absolute paths of a file, of every ``*.parquet`` under a directory (recursive,
    skipping ``_``/``.`` names as Spark does), or of a glob's matches; sorted."""
    text = os.fspath(path)
    if _GLOB_CHARS & set(text):
        matches = sorted(glob.glob(text, recursive=True))
        if not matches:
            raise AnalysisError(f"no file matches {text!r}")
        return [
            f
            for m in matches
            if not Path(m).name.startswith(("_", "."))
            for f in list_parquet_files(m)
        ]
    p = Path(text)
    if p.is_file():
        return [str(p.resolve())]
    if p.is_dir():
        files = sorted(
            str(f.resolve())
            for f in p.rglob("*.parquet")
            if f.is_file() and not any(part[0] in "_." for part in f.relative_to(p).parts)
        )
        if not files:
            raise AnalysisError(f"no .parquet files under directory {text!r}")
        return files
    raise path_not_found(text)


_SEEN: ContextVar[dict[str, ParquetFileInfo] | None] = ContextVar("sparkwire_footers", default=None)


@contextmanager
def one_version() -> Iterator[None]:
    """Within, each file is looked up once: planning asks for a file's footer again and
    again (TPC-H Q8: 409 times, a ``stat`` each), and every answer is then about the same
    version of the file. Nested scopes share the outer's."""
    if _SEEN.get() is not None:
        yield
        return
    token = _SEEN.set({})
    try:
        yield
    finally:
        _SEEN.reset(token)


def file_info(path: str) -> ParquetFileInfo:
    seen = _SEEN.get()
    if seen is not None and (info := seen.get(path)) is not None:
        return info
    try:
        stat = os.stat(path)
    except OSError as exc:
        raise AnalysisError(f"cannot read Parquet file {path!r}: {exc.strerror}") from exc
    info = _read_footer(path, stat.st_size, stat.st_mtime_ns)
    if seen is not None:
        seen[path] = info
    return info


@functools.lru_cache(maxsize=4096)
def _read_footer(path: str, size: int, mtime_ns: int) -> ParquetFileInfo:
    """``size`` and ``mtime_ns`` are only part of the cache key."""
    try:
        metadata = pq.read_metadata(path)
    except (OSError, pa.ArrowException) as exc:
        raise AnalysisError(f"{path!r} is not a readable Parquet file: {exc}") from exc
    groups = [metadata.row_group(i) for i in range(metadata.num_row_groups)]
    column_bytes: dict[str, int] = {}
    ranges: dict[str, list[tuple[int, int]]] = {}
    values: dict[str, tuple[float, float]] = {}
    spoiled: set[str] = set()
    unordered: set[str] = set()
    nullable: set[str] = set()
    for group in groups:
        for j in range(group.num_columns):
            chunk = group.column(j)
            name = chunk.path_in_schema.split(".", 1)[0]
            column_bytes[name] = column_bytes.get(name, 0) + chunk.total_compressed_size
            stats = chunk.statistics
            if stats is None or not stats.has_null_count or stats.null_count:
                nullable.add(name)
            span = _value_span(stats)
            if span is None:
                unordered.add(name)
            else:
                low, high = values.get(name, span)
                values[name] = (min(low, span[0]), max(high, span[1]))
            if (stats is None or not stats.has_min_max or chunk.physical_type not in ("INT32", "INT64")
                    or stats.logical_type.type not in ("NONE", "INT")):
                spoiled.add(name)
                continue
            ranges.setdefault(name, []).append((stats.min, stats.max))
    return ParquetFileInfo(
        path=path,
        schema=metadata.schema.to_arrow_schema(),
        bytes=size,
        row_group_rows=tuple(group.num_rows for group in groups),
        column_bytes=column_bytes,
        int_ranges={k: (min(lo for lo, _ in v), max(hi for _, hi in v))
                    for k, v in ranges.items() if k not in spoiled},
        row_group_int_ranges={k: tuple(v) for k, v in ranges.items()
                              if k not in spoiled and len(v) == len(groups)},  # one leaf each
        value_ranges={k: v for k, v in values.items() if k not in unordered},
        null_free=frozenset(column_bytes) - nullable if groups else frozenset(),
    )


def _value_span(stats: pq.Statistics | None) -> tuple[float, float] | None:
    """A column chunk's ``(min, max)`` as floats, for the kinds ``value_ranges`` keeps."""
    if stats is None or not stats.has_min_max:
        return None
    kind, low, high = stats.logical_type.type, stats.min, stats.max
    if kind == "DATE":
        return float(low.toordinal()), float(high.toordinal())
    if kind in ("NONE", "INT", "DECIMAL") and stats.physical_type in ("INT32", "INT64", "FLOAT", "DOUBLE",
                                                                     "FIXED_LEN_BYTE_ARRAY"):
        try:
            return float(low), float(high)
        except (TypeError, ValueError):
            return None
    return None
