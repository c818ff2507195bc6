"""The DuckDB type of each sparkwire type name, as a sqlglot ``DataType``.

Spark's ``timestamp`` is an instant (DuckDB's ``TIMESTAMPTZ``, ``zones``) and
``timestamp_ntz`` a wall clock (``TIMESTAMP``); nested types map field by field. Casts,
typed literals and the schemas handed to DuckDB's readers all name their types here.
"""

from __future__ import annotations

import functools
import re

from sqlglot import exp

from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import DIALECT, ident
from sparkwire.planner.logical import typenames

__all__ = ["duckdb_type"]

_SIMPLE_TYPES = {
    "bool": "BOOLEAN",
    "int8": "TINYINT",
    "int16": "SMALLINT",
    "int32": "INTEGER",
    "int64": "BIGINT",
    "float32": "FLOAT",
    "float64": "DOUBLE",
    "string": "VARCHAR",
    "binary": "BLOB",
    "date": "DATE",
    "timestamp": "TIMESTAMPTZ",  # Spark's timestamp is an instant (worker.zones)
    "timestamp_ntz": "TIMESTAMP",
    "time": "TIME",
}
_DECIMAL = re.compile(r"decimal\((\d{1,2}),(\d{1,2})\)")
_NESTED = {"array": exp.DataType.Type.ARRAY, "map": exp.DataType.Type.MAP,
           "struct": exp.DataType.Type.STRUCT}


def duckdb_type(name: str) -> exp.DataType:
    """The DuckDB type for a sparkwire type name (already validated by ``TypeName``):
    ``array<T>`` is ``T[]``, ``map<K,V>`` ``MAP(K, V)``, ``struct<a:T>`` ``STRUCT("a" T)``.
    A fresh node each call, from a cache: a typed literal's type was parsed anew every
    time, 70 us each."""
    return _cached(name).copy()


@functools.lru_cache(maxsize=512)
def _cached(name: str) -> exp.DataType:
    try:
        tree = typenames.parse(name)
    except ValueError as exc:
        raise CompileError(str(exc)) from None
    return _duckdb_type(tree)


def _duckdb_type(tree: typenames.TypeTree) -> exp.DataType:
    if tree.kind == "struct":
        fields = [exp.ColumnDef(this=ident(f), kind=_duckdb_type(a))
                  for f, a in zip(tree.fields, tree.args, strict=True)]
        return exp.DataType(this=_NESTED["struct"], expressions=fields, nested=True)
    if tree.kind in _NESTED:
        return exp.DataType(this=_NESTED[tree.kind], expressions=[_duckdb_type(a) for a in tree.args],
                            nested=True)
    if tree.name in _SIMPLE_TYPES:
        return exp.DataType.build(_SIMPLE_TYPES[tree.name], dialect=DIALECT)
    match = _DECIMAL.fullmatch(tree.name)
    if match is None:
        raise CompileError(f"unknown type {tree.name!r}")
    params = [exp.DataTypeParam(this=exp.Literal.number(int(g))) for g in match.groups()]
    return exp.DataType(this=exp.DataType.Type.DECIMAL, expressions=params)
