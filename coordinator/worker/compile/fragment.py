"""Compile a validated operator tree into one DuckDB query: the compiler's entry point.

A task plan arrives as pydantic models (``planner.logical.plan``); the worker turns its fragment into
SQL here and nowhere else. The SQL is built as a sqlglot expression tree and rendered with
``dialect="duckdb", identify=True``, so the generator quotes every identifier and literal:
no user-controlled string is ever formatted into SQL text by this package. Identifiers were
already checked by the model validators (no quotes, no control characters); quoting here is
the second line of defence, not the only one.

Leaves read tables the worker registers under names the compiler chooses and returns with
the SQL (``CompiledFragment.tables``), or call DuckDB's file readers directly.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from sparkwire.coordinator.worker.compile.boundaries import partitioned
from sparkwire.coordinator.worker.compile.context import Context
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import DIALECT
from sparkwire.coordinator.worker.compile.operators import compile_operator
from sparkwire.coordinator.worker.compile.shared import shared_subtrees
from sparkwire.coordinator.worker.compile.sources import FileList, TableInput
from sparkwire.planner.logical.plan import Operator, ParquetWrite
from sparkwire.planner.logical.staged import Boundary
from sparkwire.planner.spark.timezones import DEFAULT_TIME_ZONE

__all__ = ["CompiledFragment", "compile_fragment", "compile_task"]


@dataclass(frozen=True)
class CompiledFragment:
    """The query of one task and what it needs: the tables to register under the names the
    query uses, and every file it may read (the engine allows exactly those); ``write`` is
    where the task writes its rows instead of streaming them (``worker.writer``)."""

    sql: str
    tables: tuple[TableInput, ...]
    files: tuple[str, ...]
    #: The reader calls' file lists, bound as the task starts (``TaskEngine.open_files``).
    file_lists: tuple[FileList, ...] = ()
    write: ParquetWrite | None = None
    #: The SQL reads the task's index (``calls_task``): each task compiles its own.
    reads_task: bool = False
    #: Calls whose values the worker's memory bounds (``sizes.BOUNDED``): they share the bound.
    bounded_calls: int = 0


@functools.lru_cache(maxsize=256)
def compile_fragment(fragment: Operator, output: Boundary, ansi: bool = True,
                     time_zone: str = DEFAULT_TIME_ZONE, task: int = 0) -> CompiledFragment:
    """One DuckDB ``SELECT`` computing ``fragment`` and, for a shuffle, each row's partition;
    the fragment is walked once, collecting its tables as its leaves are compiled. ``ansi`` is
    Spark's ANSI mode, which decides how division and casts fail (``division``, ``casts``);
    ``time_zone`` the session zone, in which instants read as wall clocks (``zones``).

    Pure (plans are frozen, the result immutable), so the tasks of one stage that read the
    same inputs compile once: TPC-H Q1's final stage has four tasks and 28 KB of SQL. Only a
    fragment that ``reads_task`` (``rand``, ``spark_partition_id`` ...) is compiled again
    for its ``task`` (``compile_task``)."""
    write = fragment if isinstance(fragment, ParquetWrite) else None
    if write is not None and output.kind != "result":
        raise CompileError("a Parquet write is the final stage, read by the coordinator")
    root = fragment if write is None else write.input
    ctx = Context(ansi, time_zone, compile_operator, shared_subtrees(root), task)
    query = ctx.with_ctes(partitioned(ctx, ctx.operator(root), output))
    return CompiledFragment(
        sql=query.sql(dialect=DIALECT, identify=True, copy=False),
        tables=tuple(ctx.leaves.tables.values()),
        files=tuple(ctx.leaves.files),
        file_lists=tuple(ctx.leaves.file_lists),
        write=write,
        reads_task=ctx.task_read,
        bounded_calls=ctx.bounded_calls,
    )


def compile_task(fragment: Operator, output: Boundary, ansi: bool, time_zone: str,
                 task: int) -> CompiledFragment:
    """``fragment`` compiled for task ``task``: its stage's SQL, shared by all its tasks,
    unless that reads the task's index."""
    compiled = compile_fragment(fragment, output, ansi, time_zone)
    if not compiled.reads_task or task == 0:
        return compiled
    return compile_fragment(fragment, output, ansi, time_zone, task)
