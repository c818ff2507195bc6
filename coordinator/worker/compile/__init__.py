"""The worker's compiler: a task's validated fragment to one DuckDB query, as sqlglot trees
rendered with every identifier and literal quoted. This is what the rest of the worker uses
of it; the modules, by job:

- the entry point, ``fragment`` (``compile_fragment``), its output boundary's partition
  column (``boundaries``), one fragment's state (``context``) and the dispatch of each
  operator to its family (``operators``);
- the operator families: leaves (``scans``, reading ``sources``), ``projections`` (filter,
  project), ``aggregates``, ``joins``, ``set_operations``, ``windows`` (placing ``over``),
  ``sorts`` (sort, limit), ``samples``, ``generate`` (explode);
- expressions: the tree walk (``expressions``), the shared nodes (``nodes``), errors
  (``errors``), builders' signatures and argument checks (``arguments``), ``templates``,
  types (``duckdb_types``), ``literals``, and the function builders by family, gathered by
  name in ``calls``: ``calls_core``, ``calls_text`` with ``casing``, ``calls_dates`` with
  ``zones``, ``calls_math``, ``calls_collections``, ``calls_aggregate``, ``calls_window``,
  Spark's arithmetic in ANSI and legacy mode (``division``, ``integers``), and ``casts``
  with the text of values (``texts``).
"""

from sparkwire.coordinator.worker.compile.boundaries import PARTITION_COLUMN
from sparkwire.coordinator.worker.compile.errors import CompileError, spark_error
from sparkwire.coordinator.worker.compile.fragment import (
    CompiledFragment,
    compile_fragment,
    compile_task,
)
from sparkwire.coordinator.worker.compile.sources import (
    CachedTable,
    ExchangeTable,
    FileList,
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
    "FileList",
    "LocalTable",
    "RowGroupTable",
    "TableInput",
    "compile_fragment",
    "compile_task",
    "spark_error",
]
