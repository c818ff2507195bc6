"""Finding Parquet files and reading their footers, once per file version.

Both the reader (column names) and the stage cutter (row counts per row group, to balance
tasks) need footers; they are cached by path, size and modification time so planning a
query twice reads nothing twice, and a rewritten file is read again.
"""

from __future__ import annotations

import functools
import glob
import os
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sparkwire.planner.errors import AnalysisError

_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class ParquetFileInfo:
    path: str
    schema: pa.Schema
    row_group_rows: tuple[int, ...]
    bytes: int  # the file's size: what the planner estimates a scan of it by

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
    raise AnalysisError(f"path does not exist: {text!r}")


def file_info(path: str) -> ParquetFileInfo:
    try:
        stat = os.stat(path)
    except OSError as exc:
        raise AnalysisError(f"cannot read Parquet file {path!r}: {exc.strerror}") from exc
    return _read_footer(path, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=4096)
def _read_footer(path: str, size: int, mtime_ns: int) -> ParquetFileInfo:
    """``size`` and ``mtime_ns`` are only part of the cache key."""
    try:
        metadata = pq.read_metadata(path)
    except (OSError, pa.ArrowException) as exc:
        raise AnalysisError(f"{path!r} is not a readable Parquet file: {exc}") from exc
    return ParquetFileInfo(
        path=path,
        schema=metadata.schema.to_arrow_schema(),
        bytes=size,
        row_group_rows=tuple(
            metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)
        ),
    )
