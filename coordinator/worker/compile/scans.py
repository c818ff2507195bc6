"""The leaf operators: what a fragment reads, as ``SELECT <columns> FROM <source>``.

An exchange's stream, the driver's local data and a cache chunk are tables the worker
registers under names chosen here; Parquet, CSV and JSON files are DuckDB reader calls with
the planner's schema; ``range`` is DuckDB's table function. The sources themselves, and the
list of what the worker must register or allow, are ``sources``.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.context import Context, unique_names
from sparkwire.coordinator.worker.compile.nodes import col, ident, select_from
from sparkwire.coordinator.worker.compile.sources import CachedTable, ExchangeTable, LocalTable
from sparkwire.planner.logical.plan import Exchange
from sparkwire.planner.logical.sources import (CachedSource, CsvScan, JsonScan, LocalSource,
                                               ParquetScan, RangeSource)

__all__ = ["cached_source", "exchange", "local_source", "parquet_scan", "range_source", "text_scan"]


def exchange(ctx: Context, op: Exchange) -> exp.Select:
    unique_names(op.columns, f"exchange from stage {op.stage}")
    table = ctx.leaves.table(ExchangeTable(name=f"exchange_{op.stage}", stage=op.stage))
    return select_from(map(col, op.columns), table)


def parquet_scan(ctx: Context, op: ParquetScan) -> exp.Select:
    unique_names(op.columns, "parquet scan")
    return select_from(map(col, op.columns), ctx.leaves.parquet(op))


def local_source(ctx: Context, op: LocalSource) -> exp.Select:
    unique_names(op.columns, "local source")
    table = ctx.leaves.table(LocalTable(name=f"local_{op.source_id}", source_id=op.source_id))
    return select_from(map(col, op.columns), table)


def range_source(ctx: Context, op: RangeSource) -> exp.Select:
    # DuckDB's range(start, stop, step) is a BIGINT column named "range".
    rows = exp.Anonymous(this="range", expressions=[
        exp.Literal.number(v) for v in (op.start, op.end, op.step)])
    return select_from([exp.alias_(col("range"), ident("id"))], exp.Table(this=rows))


def text_scan(ctx: Context, op: CsvScan | JsonScan) -> exp.Select:
    unique_names(op.schema_names, "text scan")
    instants = {n for n, t in zip(op.schema_names, op.schema_types, strict=True)
                if t == "timestamp"}
    return select_from([ctx.leaves.text_column(c, instants) for c in op.columns],
                       ctx.leaves.text(op, instants))


def cached_source(ctx: Context, op: CachedSource) -> exp.Select:
    unique_names(op.columns, "cached source")
    table = ctx.leaves.table(CachedTable(name=op.cache_id, cache_id=op.cache_id))
    return select_from(map(col, op.columns), table)
