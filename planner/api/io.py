"""CSV and JSON-lines sources (``session.read.csv`` / ``.json``) and ``df.write.parquet``.

Reading: the planner fixes the schema (given, or inferred now from the files, as Spark
infers it in an extra pass over the data) and the workers read the files with exactly that
schema (``CsvScan`` / ``JsonScan``), one or more whole files per task; the worker checks the
paths against its data roots as it does for Parquet (``worker.files``). A path is a file, a
directory (its files, recursively, but for names starting with ``_`` or ``.``, as Spark
skips them) or a glob.

Spark's rules kept here:

- CSV: columns ``_c0, _c1 ...`` without a header; without ``inferSchema`` every column is a
  string; inference tries, per value, ``int``, ``bigint``, ``decimal(p,0)`` (integers
  beyond ``bigint``), ``double``, ``date`` (``yyyy-MM-dd``), ``timestamp``
  (``yyyy-MM-dd HH:mm[:ss[.SSSSSS]]``, ``T`` or a space between), ``boolean``, then
  ``string``, and widens across rows (``int`` and ``bigint`` to ``bigint``, integers and
  ``double`` to ``double``, ``date`` and ``timestamp`` to ``timestamp``, anything else
  mixed to ``string``); an empty field is NULL and types nothing; a column with no value
  is a string. A timestamp without an offset is a wall clock in the session time zone.
- JSON: one object per line, or with ``multiLine`` one value per file (an object, or an
  array of objects: its rows); the schema is Spark's inference (``planner.spark.json_schema``:
  structs with their fields sorted by name, arrays, ``bigint`` and ``double`` widening,
  other mixes ``string``). Where DuckDB's reader differs: a non-string value read as a
  string is its JSON text as DuckDB writes it, compact (``{"k":[1,"2"]}``, ``2.5``), where
  Spark keeps the file's own spelling (``{"k": [1, "2"]}``, ``2.50``); a value that does
  not fit a user-given type fails the task (Spark's PERMISSIVE mode makes it NULL); a
  line that is not an object is refused (Spark reads it as a ``_corrupt_record``).

Writing: every task of the final stage writes one file into the directory, or with
``partitionBy`` one into each ``k=v`` directory it has rows for (``planner.spark.hive``: Spark's
names, escapes and ``__HIVE_DEFAULT_PARTITION__``; the partition columns leave the files,
and ``read.parquet`` of the directory finds them again) (``worker.writer``); then, on
success, the driver writes ``_SUCCESS`` (Spark's marker).
Modes as Spark: ``error``/``errorifexists`` (default) refuse an existing path, ``ignore``
writes nothing there, ``append`` adds files, ``overwrite`` replaces the directory's
contents - removed only once the new files are written, so a failed overwrite loses no
data. A failed write removes this job's files, and the directories that leaves empty (the
whole directory if it made it): nothing half-written is ever marked ``_SUCCESS``.
"""

from __future__ import annotations

import csv
import datetime as dt
import glob
import json
import os
import re
import shutil
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from sparkwire.planner.logical import types
from sparkwire.planner.spark import hive
from sparkwire.planner.api.frame import Frame
from sparkwire.planner.api.relations import scan_relation
from sparkwire.planner.logical.analyzer import Relation, with_result_types
from sparkwire.planner.errors import AnalysisError, path_not_found
from sparkwire.planner.spark.json_schema import infer_records
from sparkwire.planner.spark.timezones import INSTANT
from sparkwire.planner.pipeline import plan_on
from sparkwire.planner.logical.plan import WRITE_COLUMNS, ParquetWrite
from sparkwire.planner.logical.sources import CsvScan, FileSplit, JsonScan
from sparkwire.planner.api.schemas import arrow_schema

_INT = re.compile(r"[+-]?\d+")
_DOUBLE = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(NaN|Infinity)")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?")
_NUMBERS = (pa.int32(), pa.int64(), pa.float64())
SUCCESS = "_SUCCESS"


def text_files(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """Every data file the paths name, absolute, in order, each once."""
    if not paths:
        raise AnalysisError("a read needs at least one path")
    found: list[str] = []
    for path in map(str, paths):
        matches = sorted(glob.glob(path)) if glob.has_magic(path) else [path]
        if not matches or not all(os.path.exists(m) for m in matches):
            raise path_not_found(path)
        for match in matches:
            found.extend(_files_under(match))
    if not found:
        raise AnalysisError(f"no data files in {', '.join(map(str, paths))}")
    return list(dict.fromkeys(found))


def _files_under(path: str) -> Iterator[str]:
    if not os.path.isdir(path):
        yield os.path.abspath(path)
        return
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")))
        yield from (os.path.abspath(os.path.join(root, f)) for f in sorted(files)
                    if not f.startswith(("_", ".")))


# -- CSV ---------------------------------------------------------------------------------
def read_csv(paths: Sequence[str | os.PathLike[str]], *, header: bool, infer_schema: bool,
             schema: Any, sep: str) -> Relation:
    if not isinstance(sep, str) or len(sep) != 1 or sep in '\r\n"\\':
        raise AnalysisError(f"sep must be one character other than a quote, backslash or newline, got {sep!r}")
    files = text_files(paths)
    if schema is not None:
        target = arrow_schema(schema)
    else:
        rows = list(_csv_rows(files, sep, header))
        names = _header(files[0], sep) if header else None
        width = len(names) if names is not None else max((len(r) for r in rows), default=0)
        if names is None:
            names = [f"_c{i}" for i in range(width)]
        if not names:
            raise AnalysisError(f"{files[0]} has no columns")
        column_types = [_csv_column_type(rows, i) if infer_schema else pa.string()
                        for i in range(len(names))]
        target = pa.schema([pa.field(n, t) for n, t in zip(names, column_types, strict=True)])
    return scan_relation(CsvScan(header=header, sep=sep, **_scan_fields(files, target)), target)


def _csv_reader(file: str, sep: str) -> Iterator[list[str]]:
    with open(file, newline="", encoding="utf-8") as handle:
        yield from csv.reader(handle, delimiter=sep, quotechar='"', escapechar="\\",
                              doublequote=False)


def _header(file: str, sep: str) -> list[str]:
    first = next(_csv_reader(file, sep), [])
    return [name or f"_c{i}" for i, name in enumerate(first)]


def _csv_rows(files: list[str], sep: str, header: bool) -> Iterator[list[str]]:
    for file in files:
        rows = _csv_reader(file, sep)
        if header:
            next(rows, None)
        yield from rows


def _csv_value_type(text: str) -> pa.DataType | None:
    if text == "":
        return None
    if _INT.fullmatch(text):
        return hive.integer_type(text) or pa.float64()
    if _DOUBLE.fullmatch(text):
        return pa.float64()
    if _DATE.fullmatch(text) or _TIMESTAMP.fullmatch(text):
        try:
            dt.datetime.fromisoformat(text)
        except ValueError:
            pass
        else:
            return pa.date32() if len(text) == 10 else INSTANT
    if text.lower() in ("true", "false"):
        return pa.bool_()
    return pa.string()


def _csv_column_type(rows: list[list[str]], index: int) -> pa.DataType:
    result: pa.DataType | None = None
    for row in rows:
        value = _csv_value_type(row[index]) if index < len(row) else None
        result = _widen(result, value)
    return pa.string() if result is None else result


def _widen(a: pa.DataType | None, b: pa.DataType | None) -> pa.DataType | None:
    """Spark's ``compatibleType`` over the types inference yields."""
    if a is None or a == b:
        return b if a is None else a
    if b is None:
        return a
    if {a, b} == {pa.date32(), INSTANT}:
        return INSTANT
    if (a in _NUMBERS or pa.types.is_decimal(a)) and (b in _NUMBERS or pa.types.is_decimal(b)):
        if pa.float64() in (a, b):
            return pa.float64()
        if pa.types.is_decimal(a) or pa.types.is_decimal(b):
            return types.common(a, b)
        return pa.int64()
    return pa.string()


# -- JSON ------------------------------------------------------------------------------------
def read_json(paths: Sequence[str | os.PathLike[str]], schema: Any,
              multiline: bool = False) -> Relation:
    files = text_files(paths)
    if schema is not None:
        target = arrow_schema(schema)
    else:
        records = _json_documents(files) if multiline else _json_lines(files)
        inferred = infer_records(records)
        if inferred is None:
            raise AnalysisError(f"no JSON fields in {', '.join(files)}")
        target = inferred
    return scan_relation(JsonScan(multiline=multiline, **_scan_fields(files, target)), target)


def _json_lines(files: list[str]) -> Iterator[dict[str, Any]]:
    for file in files:
        with open(file, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if line.strip():
                    yield from _objects(_parse(line, f"{file} line {number}"), f"{file} line {number}")


def _json_documents(files: list[str]) -> Iterator[dict[str, Any]]:
    """``multiLine``: each file is one JSON value, an object or an array of objects."""
    for file in files:
        yield from _objects(_parse(Path(file).read_text(encoding="utf-8"), file), file)


def _parse(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise AnalysisError(f"{where} is not one JSON value: {exc}") from None


def _objects(value: Any, where: str) -> list[dict[str, Any]]:
    """The records of one JSON value: an object, or each object of an array."""
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(item, dict) for item in items):
        raise AnalysisError(f"{where} is not a JSON object or an array of objects")
    return items


# -- shared --------------------------------------------------------------------------------
def _scan_fields(files: list[str], schema: pa.Schema) -> dict[str, Any]:
    names = tuple(schema.names)
    type_names = []
    for field in schema:
        name = types.to_name(field.type)
        if name is None:
            raise AnalysisError(
                f"column {field.name!r} of type {field.type} in a text file is not supported by sparkwire"
            )
        type_names.append(name)
    return {"splits": tuple(FileSplit(path=f) for f in files), "schema_names": names,
            "schema_types": tuple(type_names), "columns": names}


# -- writing ---------------------------------------------------------------------------------
_MODES = {"error": "error", "errorifexists": "error", "default": "error", "append": "append",
          "overwrite": "overwrite", "ignore": "ignore"}


class DataFrameWriter:
    """``df.write``: ``mode(...)``, ``partitionBy(...)``, then ``parquet(path)``."""

    __slots__ = ("_df", "_mode", "_partition_by")

    def __init__(self, df: Frame, mode: str = "error", partition_by: tuple[str, ...] = ()) -> None:
        self._df = df
        self._mode = mode
        self._partition_by = partition_by

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise AnalysisError(f"DataFrameWriter.{name} is not supported by sparkwire; use write.parquet")

    def mode(self, saveMode: str | None) -> DataFrameWriter:  # noqa: N803 - PySpark's name
        return DataFrameWriter(self._df, _save_mode(saveMode), self._partition_by)

    def partitionBy(self, *cols: str | list[str]) -> DataFrameWriter:  # noqa: N802 - PySpark's name
        """Write ``cols`` as ``k=v`` directories (``planner.spark.hive``)."""
        return DataFrameWriter(self._df, self._mode, _names(cols))

    def parquet(self, path: str | os.PathLike[str], mode: str | None = None,
                partitionBy: str | list[str] | None = None,  # noqa: N803 - PySpark's name
                compression: str | None = None) -> None:
        """Write the rows as Parquet files into the directory ``path`` (see the module
        docstring for the modes and the ``_SUCCESS`` marker)."""
        if compression not in (None, "snappy"):
            raise AnalysisError(f"write.parquet(compression={compression!r}) is not supported by sparkwire")
        write_parquet(self._df, os.path.abspath(os.fspath(path)),
                      self._mode if mode is None else _save_mode(mode),
                      self._partition_by if partitionBy is None else _names([partitionBy]))


def _names(cols: Sequence[str | list[str]]) -> tuple[str, ...]:
    """PySpark's ``partitionBy("a", "b")``, ``partitionBy(["a", "b"])`` or ``"a"``."""
    flat = [c for col in cols for c in ([col] if isinstance(col, str) else col)]
    if not all(isinstance(c, str) for c in flat):
        raise AnalysisError(f"partitionBy takes column names, got {flat!r}")
    return tuple(flat)


def _partition_columns(df: Frame, wanted: tuple[str, ...]) -> tuple[str, ...]:
    """The written columns ``wanted`` names (matched ignoring case, as Spark resolves them),
    each of a type ``planner.spark.hive`` writes."""
    by_name = {a.name.casefold(): a for a in df._attrs}
    found = []
    for name in wanted:
        attr = by_name.get(name.casefold())
        if attr is None:
            raise AnalysisError(f"partition column {name!r} is not one of [{', '.join(a.name for a in df._attrs)}]")
        if not hive.writable(attr.type):
            raise AnalysisError(
                f"partitionBy on {attr.name!r} of type {attr.type} is not supported by sparkwire")
        found.append(attr.name)
    if len(set(found)) != len(found) or len(found) == len(df._attrs):
        raise AnalysisError("partitionBy needs distinct columns and at least one column left to write")
    return tuple(found)


def _save_mode(mode: str | None) -> str:
    if mode is None:
        return "error"
    if not isinstance(mode, str) or mode.lower() not in _MODES:
        raise AnalysisError(f"unknown save mode {mode!r}; known: {', '.join(sorted(_MODES))}")
    return _MODES[mode.lower()]


def write_parquet(df: Frame, directory: str, mode: str, partition_by: tuple[str, ...] = ()) -> None:
    partition_by = _partition_columns(df, partition_by)
    existed = os.path.exists(directory)
    if existed and mode == "error":
        raise AnalysisError(f"path {directory} already exists; use mode 'overwrite' or 'append'")
    if existed and mode == "ignore":
        return
    if existed and not os.path.isdir(directory):
        raise AnalysisError(f"path {directory} exists and is not a directory")
    job = uuid.uuid4().hex
    plan = ParquetWrite(input=with_result_types(df._plan, df._attrs), directory=directory,
                        job=job, names=tuple(a.name for a in df._attrs), partition_by=partition_by)
    executor = df._executor
    staged = plan_on(executor, plan, list(WRITE_COLUMNS))
    try:
        with executor.execute(staged) as stream:
            files = {name for batch in stream for name in batch.column(0).to_pylist()}
    except BaseException:
        _discard(directory, job, made=not existed)
        raise
    if mode == "overwrite":
        _remove_files(directory, lambda path: path not in files)
    Path(directory, SUCCESS).touch()


def _discard(directory: str, job: str, made: bool) -> None:
    """Remove what a failed job left: its files, and the directory if the job made it."""
    if not os.path.isdir(directory):
        return
    if made:
        shutil.rmtree(directory, ignore_errors=True)
        return
    _remove_files(directory, lambda path: job in os.path.basename(path))


def _remove_files(directory: str, doomed: Callable[[str], bool]) -> None:
    """Remove every file under ``directory`` whose relative path is ``doomed``, then the
    directories that leaves empty (never ``directory`` itself)."""
    for root, dirs, names in os.walk(directory, topdown=False):
        for name in names:
            path = os.path.join(root, name)
            if doomed(os.path.relpath(path, directory)):
                Path(path).unlink(missing_ok=True)
        for name in dirs:
            path = os.path.join(root, name)
            if os.path.islink(path):
                if doomed(os.path.relpath(path, directory)):
                    Path(path).unlink(missing_ok=True)
            elif not os.listdir(path):
                os.rmdir(path)

