"""Relations over what the driver already holds, an Arrow table or the schema of files read,
before any DataFrame wraps them: ``createDataFrame`` and the readers (``planner.api.sources``)
wrap one in a new ``DataFrame``, ``describe`` in a frame of its own class (``Frame._derive``).
"""

from __future__ import annotations

import pyarrow as pa

from sparkwire.planner.api.executor import Executor
from sparkwire.planner.api.frame import check_names
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import time_types
from sparkwire.planner.logical.analyzer import Attribute, Relation
from sparkwire.planner.logical.plan import Operator
from sparkwire.planner.spark.timezones import as_instants


def schema_attributes(schema: pa.Schema) -> list[Attribute]:
    """A column of each field, under its own name; a time of day of any unit typed as
    Spark's ``toArrow()`` gives it (``planner.logical.time_types``)."""
    return [Attribute(f.name, f.name, time_types.TIME if time_types.is_time(f.type) else f.type)
            for f in schema]


def scan_relation(scan: Operator, schema: pa.Schema) -> Relation:
    """``scan``, which reads columns of ``schema``, with checked column names."""
    check_names(schema.names)
    return Relation(scan, tuple(schema_attributes(schema)))


def local_relation(executor: Executor, table: pa.Table) -> Relation:
    """``table`` kept by ``executor``, which chooses the chunks. Timestamps become Spark's
    ``timestamp``, naive ones read as wall clocks in the session time zone, as PySpark reads
    them (``planner.spark.timezones``). A column the table declares not null is reported
    so in ``df.schema``, as Spark reports it, and refused if it holds a NULL, as Spark
    refuses it (``createDataFrame(rows, schema)`` with ``nullable=False``)."""
    check_names(table.column_names)
    table = _spark_names(as_instants(table, executor.time_zone))
    attrs = tuple(schema_attributes(table.schema))
    table = time_types.as_engine_times(table)
    not_null = tuple(f.name for f in table.schema if not f.nullable)
    for name in not_null:
        if table.column(name).null_count:
            raise AnalysisError(f"column {name!r} is not nullable but holds a NULL")
    source = executor.register_local(table).model_copy(update={"not_null": not_null})
    return Relation(source, attrs)


def _spark_names(table: pa.Table) -> pa.Table:
    """``table`` with its arrays' element fields named ``element``, as Spark's Arrow output
    names them (pyarrow names them ``item``), so results carry Spark's names."""
    schema = pa.schema([f.with_type(_named_parts(f.type)) for f in table.schema])
    same = schema.equals(table.schema, check_metadata=True)  # `==` ignores nested names
    return table if same else table.cast(schema)


def _named_parts(t: pa.DataType) -> pa.DataType:
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return pa.list_(pa.field("element", _named_parts(t.value_type), t.value_field.nullable))
    if pa.types.is_map(t):
        return pa.map_(t.key_field.with_type(_named_parts(t.key_type)),
                       t.item_field.with_type(_named_parts(t.item_type)))
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_named_parts(f.type)) for f in t])
    return t
