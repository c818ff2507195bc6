"""What a fragment's leaves read: the tables the worker registers for the query, and the
files DuckDB's readers open.

The compiler builds one query per fragment (``fragment``); its leaves (``scans``) are either
tables registered by name (an exchange's stream, the driver's local data, a cache chunk,
chosen row groups) or a reader call over files (``read_parquet``, ``read_csv``,
``read_json``) with the planner's schema.
``Leaves`` collects both as the fragment is compiled, so the worker registers exactly those
tables and its engine allows exactly those files.

A reader call names no path: its file list is a DuckDB variable (``FileList``) that the
worker binds as the task starts, to the descriptors it opened and checked then
(``worker.opened``), so DuckDB reads what was checked, never a path that may have been
swapped since. The query text stays the same for every task of a stage.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlglot import exp

from sparkwire.coordinator.worker.compile.casts import spark_cast
from sparkwire.coordinator.worker.compile.duckdb_types import duckdb_type
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import DIALECT, col, ident
from sparkwire.planner.logical.sources import CsvScan, FileSplit, JsonScan, ParquetScan

__all__ = [
    "CachedTable", "ExchangeTable", "FileList", "Leaves", "LocalTable", "RowGroupTable", "TableInput",
]


@dataclass(frozen=True)
class ExchangeTable:
    """Register the stream of producer stage ``stage`` (every partition this task reads
    from it, in routing order) under ``name``."""

    name: str
    stage: int


@dataclass(frozen=True)
class LocalTable:
    """Register this task's chunk of the driver's in-memory source ``source_id``."""

    name: str
    source_id: str


@dataclass(frozen=True)
class RowGroupTable:
    """A view of exactly these row groups (``TaskEngine.register_row_groups``).

    ``read_parquet`` takes no row-group list, so the engine filters each file on its
    ``file_row_number`` ranges, which DuckDB turns into skipped row groups; the view needs
    the files' footers, read on the worker once its file checks have passed, which is why
    this is a registered table and not inline SQL.
    """

    name: str
    splits: tuple[FileSplit, ...]


@dataclass(frozen=True)
class CachedTable:
    """Register this task's chunk of cache ``cache_id``, held in this worker's store."""

    name: str
    cache_id: str


TableInput = ExchangeTable | LocalTable | RowGroupTable | CachedTable


@dataclass(frozen=True)
class FileList:
    """The files of one reader call, bound as DuckDB variable ``variable`` (a ``VARCHAR[]``)
    when the task runs; ``hive``: the reader takes partition columns from their ``k=v``
    directories, so each is handed over under those (``OpenedFiles.hive_path``)."""

    variable: str
    paths: tuple[str, ...]
    hive: bool = False


def _type_struct(names: Iterable[str], type_names: Iterable[str]) -> exp.Struct:
    """``{'name': 'DUCKDB TYPE', ...}``: the column types DuckDB's readers take."""
    return exp.Struct(expressions=[
        exp.PropertyEQ(this=exp.Literal.string(name),
                       expression=exp.Literal.string(duckdb_type(type_name).sql(dialect=DIALECT)))
        for name, type_name in zip(names, type_names, strict=True)
    ])


class Leaves:
    """The tables and files of one fragment, collected as its leaves compile; instants in
    text files read in ``time_zone``."""

    def __init__(self, time_zone: str) -> None:
        self.time_zone = time_zone
        self.tables: dict[str, TableInput] = {}
        self.files: dict[str, None] = {}  # ordered set
        self.file_lists: list[FileList] = []

    def table(self, table: TableInput) -> exp.Table:
        self.tables.setdefault(table.name, table)
        return exp.Table(this=ident(table.name))

    def parquet(self, scan: ParquetScan) -> exp.Expr:
        """The scan's files (or row groups), only the rows of their key range when the
        splits carry one (a task's share of a file in a co-located join)."""
        if not scan.splits:
            raise CompileError("a Parquet scan with no splits; give the task no scan instead")
        ranges = {split.keys for split in scan.splits}
        if len(ranges) > 1:
            raise CompileError("the splits of one task's Parquet scan read different key ranges")
        source = self._parquet_files(scan)
        keys = ranges.pop()
        bounds: list[exp.Expr] = []
        if keys is not None and keys.low is not None:
            bounds.append(exp.GTE(this=col(keys.column), expression=exp.Literal.number(keys.low)))
        if keys is not None and keys.high is not None:
            bounds.append(exp.LT(this=col(keys.column), expression=exp.Literal.number(keys.high)))
        if not bounds:
            return source
        return exp.Subquery(this=exp.select(exp.Star(), copy=False).from_(source, copy=False)
                            .where(exp.and_(*bounds, copy=False), copy=False))

    def _parquet_files(self, scan: ParquetScan) -> exp.Expr:
        self.files.update(dict.fromkeys(split.path for split in scan.splits))
        if any(split.row_groups is not None for split in scan.splits):
            if scan.partition_names:
                raise CompileError("a partitioned Parquet scan reads whole files")
            count = sum(isinstance(t, RowGroupTable) for t in self.tables.values())
            return self.table(RowGroupTable(name=f"scan_{count}", splits=scan.splits))
        args: list[exp.Expr] = [self._file_list(scan.splits, hive=bool(scan.partition_names))]
        if scan.partition_names:
            # DuckDB reads k=v directories as Spark does: %XX unescaped, and
            # __HIVE_DEFAULT_PARTITION__ NULL; the types are the planner's (Spark's inference).
            hive_types = _type_struct(scan.partition_names, scan.partition_types)
            args += [exp.EQ(this=exp.column("hive_partitioning"), expression=exp.true()),
                     exp.EQ(this=exp.column("hive_types"), expression=hive_types)]
        return exp.Table(this=exp.Anonymous(this="read_parquet", expressions=args))

    def _file_list(self, splits: Iterable[FileSplit], hive: bool) -> exp.Expr:
        """``getvariable('…')`` of a new ``FileList`` of the splits' files."""
        files = FileList(f"sparkwire_files_{len(self.file_lists)}",
                         tuple(split.path for split in splits), hive)
        self.file_lists.append(files)
        return exp.Anonymous(this="getvariable", expressions=[exp.Literal.string(files.variable)])

    def text_column(self, name: str, instants: set[str]) -> exp.Expr:
        """A text scan's column; an instant was read as its text (``text``) and is read as
        Spark reads it, in the session zone unless it names an offset (NULL where it does not
        parse, as Spark's permissive reader gives)."""
        if name not in instants:
            return col(name)
        instant = spark_cast(col(name), "string", "timestamp", "try", self.time_zone)
        return exp.alias_(instant, ident(name))

    def text(self, scan: CsvScan | JsonScan, instants: set[str]) -> exp.Expr:
        """``read_csv`` / ``read_json`` of the split files with the planner's schema, no
        sniffing: every column by name and type, so each task reads the same columns. A
        ``timestamp`` column is read as text: DuckDB would read it in UTC."""
        if not scan.splits:
            raise CompileError("a text scan with no splits")
        self.files.update(dict.fromkeys(split.path for split in scan.splits))
        types = ["string" if name in instants else type_name
                 for name, type_name in zip(scan.schema_names, scan.schema_types, strict=True)]
        options: dict[str, exp.Expr] = {"columns": _type_struct(scan.schema_names, types)}
        if isinstance(scan, CsvScan):
            reader = "read_csv"
            # Spark's CSV defaults: '"' quotes, '\\' escapes, an unquoted empty field is
            # NULL and a quoted one the empty string; no dialect sniffing.
            options.update(header=exp.Boolean(this=scan.header), delim=exp.Literal.string(scan.sep),
                           quote=exp.Literal.string('"'), escape=exp.Literal.string("\\"),
                           allow_quoted_nulls=exp.false(), auto_detect=exp.false())
        else:
            reader = "read_json"
            # "auto" reads a file holding an object, or an array of objects, as its rows
            options.update(format=exp.Literal.string("auto" if scan.multiline else "newline_delimited"),
                           auto_detect=exp.false())
        paths = self._file_list(scan.splits, hive=False)
        args = [paths, *(exp.EQ(this=exp.column(k), expression=v) for k, v in options.items())]
        return exp.Table(this=exp.Anonymous(this=reader, expressions=args))
