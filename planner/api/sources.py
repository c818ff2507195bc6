"""Where DataFrames come from: Parquet files (``session.read``), in-memory tables
(``createDataFrame``) and SQL text (``session.sql``), each typed from the start."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from sparkwire.planner.logical import types
from sparkwire.planner.spark import hive
from sparkwire.planner.logical.analyzer import Attribute, Relation
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.frame import check_names
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.executor import Executor, View
from sparkwire.planner.spark.parquet_meta import file_info, list_parquet_files
from sparkwire.planner.logical.sources import FileSplit, ParquetScan
from sparkwire.planner.api.io import read_csv, read_json
from sparkwire.planner.logical.ranges import range_source
from sparkwire.planner.api.relations import local_relation, schema_attributes
from sparkwire.planner.api.schemas import arrow_schema, rows_table
from sparkwire.planner.api.sql_formatter import format_sql
from sparkwire.planner.sql import sql_relation
from sparkwire.planner.sql.parameters import Args

if TYPE_CHECKING:
    import pandas as pd


class DataFrameReader:
    """``session.read``."""

    def __init__(self, executor: Executor) -> None:
        self._executor = executor

    def parquet(self, *paths: str | os.PathLike[str]) -> DataFrame:
        """Files, directories (every ``*.parquet`` inside, recursively) or globs; every
        file must have the same columns. Footers are read now, for the column names and
        types and the row groups the stage cutter balances tasks by."""
        if not paths:
            raise AnalysisError("parquet needs at least one path")
        files = list(dict.fromkeys(f for p in paths for f in list_parquet_files(p)))
        infos = [file_info(f) for f in files]
        columns = infos[0].columns
        for info in infos[1:]:
            if info.columns != columns:
                raise AnalysisError(
                    f"{info.path} has columns [{', '.join(info.columns)}] but {infos[0].path} has "
                    f"[{', '.join(columns)}]; all files of one read need the same columns"
                )
        names, partition_types = _partitions(paths, files)
        check_names([*columns, *names])
        splits = tuple(FileSplit(path=i.path) for i in infos)  # whole files: DuckDB's native reader
        type_names = tuple(types.to_name(t) or "string" for t in partition_types)
        scan = ParquetScan(splits=splits, columns=(*columns, *names), partition_names=tuple(names),
                           partition_types=type_names)
        schema = pa.schema([*infos[0].schema, *(pa.field(n, t) for n, t in zip(names, partition_types))])
        return DataFrame(scan, schema_attributes(schema), self._executor)


    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise AnalysisError(
            f"DataFrameReader.{name} is not supported by sparkwire; use read.parquet, read.csv or read.json"
        )

    def csv(self, path: str | os.PathLike[str] | Sequence[str], schema: Any = None,
            sep: str | None = None, header: bool | str = False,
            inferSchema: bool | str = False) -> DataFrame:  # noqa: N803 - PySpark's name
        """CSV files with Spark's defaults and inference (``planner.api.io``)."""
        paths = [path] if isinstance(path, str | os.PathLike) else list(path)
        relation = read_csv(paths, header=_flag(header), infer_schema=_flag(inferSchema),
                            schema=schema, sep="," if sep is None else sep)
        return _frame(relation, self._executor)

    def json(self, path: str | os.PathLike[str] | Sequence[str], schema: Any = None,
             multiLine: bool | str = False) -> DataFrame:  # noqa: N803 - PySpark's name
        """JSON-lines files, one object per line, or with ``multiLine`` one JSON value per
        file (``planner.api.io``)."""
        paths = [path] if isinstance(path, str | os.PathLike) else list(path)
        return _frame(read_json(paths, schema, _flag(multiLine)), self._executor)


def _partitions(paths: Sequence[str | os.PathLike[str]], files: list[str]) -> tuple[list[str], list[pa.DataType]]:
    """Hive partition columns of a read of one directory (``planner.spark.hive``); none else."""
    if len(paths) != 1 or not os.path.isdir(paths[0]):
        return [], []
    return hive.discover(os.path.realpath(paths[0]), files)


def _flag(value: bool | str) -> bool:
    """PySpark's options take ``True`` or ``"true"``."""
    return value.lower() == "true" if isinstance(value, str) else bool(value)


def create_dataframe(
    executor: Executor, data: pa.Table | pa.RecordBatch | pd.DataFrame | Sequence[Any],
    schema: Any = None,
) -> DataFrame:
    """``session.createDataFrame``: the executor keeps the rows and chooses the chunks.

    ``data`` is an Arrow table or batch, a pandas DataFrame, or a list of rows (tuples,
    lists, dicts, ``Row``); ``schema`` a DDL string, a ``StructType`` or a list of names
    (``planner.api.schemas``). A table given with a schema is cast to it (names by position).
    Timestamps become Spark's ``timestamp``, naive ones read as wall clocks in the session
    time zone, as PySpark reads them (``planner.spark.timezones``)."""
    if isinstance(data, list | tuple):
        table = rows_table(data, schema)
    else:
        table = _as_table(data)
        if schema is not None:
            table = _with_schema(table, schema)
    return _frame(local_relation(executor, table), executor)


def sql_dataframe(executor: Executor, text: str, views: Mapping[str, View],
                  args: Args = None, values: Mapping[str, object] | None = None) -> DataFrame:
    """``session.sql``: the query's plan, built by the SQL front end over the views, its
    parameter markers bound to ``args`` (``planner.sql.parameters``), its text formatted
    with ``values`` first (``planner.api.sql_formatter``: the frames it names are views of
    this query only)."""
    formatted = format_sql(text, values or {})
    tables = {**views, **formatted.views}
    relation = sql_relation(formatted.text, {name: view.relation for name, view in tables.items()}, args)
    return _frame(relation, executor)


def range_dataframe(executor: Executor, start: int, end: int | None, step: int,
                    partitions: int | None) -> DataFrame:
    """``session.range``: one ``bigint`` column ``id``, generated by the workers
    (``planner.logical.ranges``); ``range(n)`` counts from 0, as in PySpark."""
    source = range_source(start, end, step, partitions)
    return DataFrame(source, [Attribute("id", "id", pa.int64())], executor)


def _frame(relation: Relation, executor: Executor) -> DataFrame:
    return DataFrame(relation.plan, relation.attrs, executor)


def _with_schema(table: pa.Table, schema: Any) -> pa.Table:
    if isinstance(schema, list | tuple) and all(isinstance(n, str) for n in schema):
        if len(schema) != table.num_columns:
            raise AnalysisError(f"{len(schema)} names for {table.num_columns} columns")
        return table.rename_columns(list(schema))
    target = arrow_schema(schema)
    if len(target) != table.num_columns:
        raise AnalysisError(f"a schema of {len(target)} columns for {table.num_columns} columns")
    try:
        return table.rename_columns(target.names).cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise AnalysisError(f"the data does not fit the schema: {exc}") from None


def _as_table(data: object) -> pa.Table:
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    try:
        import pandas as pd
    except ImportError:
        pass
    else:
        if isinstance(data, pd.DataFrame):
            return pa.Table.from_pandas(data, preserve_index=False)
    raise AnalysisError(
        "createDataFrame takes a pyarrow Table, a pandas DataFrame or a list of rows, "
        f"got {type(data).__name__}"
    )
