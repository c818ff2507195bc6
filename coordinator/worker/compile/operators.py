"""Which compiler each operator has: one ``match`` over the plan's operator union, each
case the function of its family's module.

The dispatch is the one place that knows every family; the families know only the
``Context``, through which they compile their inputs, so none imports another. The
operators that never run inside a fragment are refused: ``Repartition`` and ``Keep`` are
logical only (the stage cutter turns them into boundaries), and a ``ParquetWrite`` is a
final fragment's root, taken off before its input compiles (``fragment``).
"""

from __future__ import annotations

from typing import assert_never

from sqlglot import exp

from sparkwire.coordinator.worker.compile.aggregates import aggregate
from sparkwire.coordinator.worker.compile.context import Context
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.expand import expand
from sparkwire.coordinator.worker.compile.generate import generate
from sparkwire.coordinator.worker.compile.joins import join
from sparkwire.coordinator.worker.compile.projections import filter_rows, project
from sparkwire.coordinator.worker.compile.samples import row_sample, sample
from sparkwire.coordinator.worker.compile.scans import (
    cached_source,
    exchange,
    local_source,
    parquet_scan,
    range_source,
    text_scan,
)
from sparkwire.coordinator.worker.compile.set_operations import set_operation
from sparkwire.coordinator.worker.compile.sorts import limit, sort
from sparkwire.coordinator.worker.compile.windows import window
from sparkwire.planner.logical.plan import (Aggregate, Exchange, Expand, Filter, Generate, Join, Keep,
                                            Limit, Operator, ParquetWrite, Project, Repartition,
                                            RowSample, Sample, SetOperation, Sort, Window)
from sparkwire.planner.logical.sources import (CachedSource, CsvScan, JsonScan, LocalSource,
                                               ParquetScan, RangeSource)

__all__ = ["compile_operator"]


def compile_operator(ctx: Context, op: Operator) -> exp.Select:
    match op:
        case Exchange():
            return exchange(ctx, op)
        case ParquetScan():
            return parquet_scan(ctx, op)
        case LocalSource():
            return local_source(ctx, op)
        case RangeSource():
            return range_source(ctx, op)
        case CsvScan() | JsonScan():
            return text_scan(ctx, op)
        case CachedSource():
            return cached_source(ctx, op)
        case Filter():
            return filter_rows(ctx, op)
        case Project():
            return project(ctx, op)
        case Aggregate():
            return aggregate(ctx, op)
        case Generate():
            return generate(ctx, op)
        case Expand():
            return expand(ctx, op)
        case Sort():
            return sort(ctx, op)
        case Limit():
            return limit(ctx, op)
        case Sample():
            return sample(ctx, op)
        case RowSample():
            return row_sample(ctx, op)
        case Join():
            return join(ctx, op)
        case SetOperation():
            return set_operation(ctx, op)
        case Window():
            return window(ctx, op)
        case Repartition() | ParquetWrite() | Keep():
            raise CompileError(f"{type(op).__name__} cannot run inside a fragment")
        case _:
            assert_never(op)
