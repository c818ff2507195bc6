"""Relations over what the driver already holds, an Arrow table or the schema of files read,
before any DataFrame wraps them: ``createDataFrame`` and the readers (``planner.api.sources``)
wrap one in a new ``DataFrame``, ``describe`` in a frame of its own class (``Frame._derive``).
"""

from __future__ import annotations

import pyarrow as pa

from sparkwire.planner.api.executor import Executor
from sparkwire.planner.api.frame import check_names
from sparkwire.planner.logical.analyzer import Attribute, Relation
from sparkwire.planner.logical.plan import Operator
from sparkwire.planner.spark.timezones import as_instants


def schema_attributes(schema: pa.Schema) -> list[Attribute]:
    """A column of each field, under its own name."""
    return [Attribute(f.name, f.name, f.type) for f in schema]


def scan_relation(scan: Operator, schema: pa.Schema) -> Relation:
    """``scan``, which reads columns of ``schema``, with checked column names."""
    check_names(schema.names)
    return Relation(scan, tuple(schema_attributes(schema)))


def local_relation(executor: Executor, table: pa.Table) -> Relation:
    """``table`` kept by ``executor``, which chooses the chunks. Timestamps become Spark's
    ``timestamp``, naive ones read as wall clocks in the session time zone, as PySpark reads
    them (``planner.spark.timezones``)."""
    check_names(table.column_names)
    table = as_instants(table, executor.time_zone)
    return Relation(executor.register_local(table), tuple(schema_attributes(table.schema)))
