"""The worker's compiler: a task's validated fragment to one DuckDB query, as sqlglot trees
rendered with every identifier and literal quoted. What the rest of the worker uses of it is
exported here: ``compile_fragment`` and its result, the tables a query reads, the partition
column a shuffle appends, and DuckDB's failures read back as Spark's errors.
"""

from sparkwire.coordinator.worker.compile.compiler import (
    PARTITION_COLUMN,
    CompileError,
    CompiledFragment,
    compile_fragment,
)
from sparkwire.coordinator.worker.compile.semantics import spark_error
from sparkwire.coordinator.worker.compile.sources import (
    CachedTable,
    ExchangeTable,
    LocalTable,
    RowGroupTable,
    TableInput,
)

__all__ = [
    "PARTITION_COLUMN",
    "CachedTable",
    "CompileError",
    "CompiledFragment",
    "ExchangeTable",
    "LocalTable",
    "RowGroupTable",
    "TableInput",
    "compile_fragment",
    "spark_error",
]
