"""What ``session.catalog`` tells about a table over Parquet files beyond its columns:
``getCreateTableString``, ``getTableProperties``, ``listPartitions``.

A table here is what ``catalog.createTable(name, path=...)`` makes, an external Parquet table
read where its files lie, so Spark's answers for such a table are the models:

- its DDL is Spark's ``SHOW CREATE TABLE`` of an external Parquet table (its columns, the
  path option, the Hive partition columns, the location as a URI);
- its properties are the one Spark keeps for it, ``option.path``;
- its partitions are the ``k=v/...`` directories its files sit in now, sorted, each spelled
  as on disk (Spark's escaped spec string). Spark lists a new table's partitions only
  once ``recoverPartitions`` has put them in its metastore, and reads no others; sparkwire
  has no metastore and reads every file the path holds, so the partitions it lists are the
  ones it reads, from the start.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.types import ArrayType, DataType, MapType, StructType
from sparkwire.planner.logical.plan import operators
from sparkwire.planner.logical.sources import ParquetScan


class TablePartition(NamedTuple):
    """PySpark's ``TablePartition``: one partition's spec, ``k=v/k2=v2``."""

    partition: str


def create_table_string(name: str, path: str, df: DataFrame) -> str:
    """Spark's ``SHOW CREATE TABLE`` of the external Parquet table ``name`` over ``path``."""
    partitioned = _partition_names(df)
    columns = ",\n".join(f"  {f.name} {_ddl(f.dataType)}{'' if f.nullable else ' NOT NULL'}"
                         for f in df.schema.fields)
    lines = [f"CREATE TABLE spark_catalog.default.{name} (\n{columns})", "USING parquet",
             f"OPTIONS (\n  'path' = '{path}')"]
    if partitioned:
        lines.append(f"PARTITIONED BY ({', '.join(partitioned)})")
    lines.append(f"LOCATION 'file:{os.path.abspath(path)}'")
    return "\n".join(lines) + "\n"


def table_properties(path: str) -> dict[str, str]:
    """The properties Spark keeps for an external table: where it lies."""
    return {"option.path": path}


def partitions(path: str, df: DataFrame) -> list[TablePartition]:
    """The Hive partition directories under ``path`` that ``df``'s files sit in, sorted."""
    depth = len(_partition_names(df))
    if not depth:
        return []
    specs = set()
    for scan in _scans(df):
        for split in scan.splits:
            parts = os.path.relpath(os.path.dirname(split.path), path).split(os.sep)
            specs.add("/".join(parts[-depth:]))
    return [TablePartition(s) for s in sorted(specs)]


def _scans(df: DataFrame) -> list[ParquetScan]:
    return [op for op in operators(df.plan) if isinstance(op, ParquetScan)]


def _partition_names(df: DataFrame) -> tuple[str, ...]:
    scans = _scans(df)
    return scans[0].partition_names if scans else ()


def _ddl(t: DataType) -> str:
    """A type as Spark's DDL writes a column's: upper case, strings with their collation."""
    if t.typeName() == "string":
        return "STRING COLLATE UTF8_BINARY"
    if isinstance(t, ArrayType):
        return f"ARRAY<{_ddl(t.elementType)}>"
    if isinstance(t, MapType):
        return f"MAP<{_ddl(t.keyType)}, {_ddl(t.valueType)}>"
    if isinstance(t, StructType):
        return f"STRUCT<{', '.join(f'{f.name}: {_ddl(f.dataType)}' for f in t.fields)}>"
    return t.simpleString().upper()
