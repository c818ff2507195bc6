"""Column pruning: every operator computes, and every boundary carries, only the columns
something above reads.

DuckDB prunes within one fragment, but a stage's output crosses the network as it is: a
join that passes every column of ``lineitem`` up through three shuffles moves sixteen
columns where two are read. So the rule walks top-down with the set of columns the parent
needs: scans read only those, projections and aggregates drop unread outputs, and a join
input that would still carry unread columns (a filter passes its predicate's columns up)
gets a projection of exactly what the join and its parents read. The plan's own output
columns never change. Set operations match columns by position and, without ``ALL``,
compare whole rows, so their inputs keep every column. A window computes only the
functions something reads (none: it goes), and its input keeps what they, its partition
and order keys, and the operators above read. An ``Expand`` (grouping sets) keeps its keys
and id, which define the groups, and passes up only the input columns read above it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

from sparkwire.planner.logical.expressions import Column, Expr, NamedExpr
from sparkwire.planner.logical.plan import (Aggregate, Exchange, Expand, Filter, Generate, Join, Keep,
                                            Limit, Operator, output_columns, ParquetWrite, Project,
                                            Repartition, RowSample, Sample, SetOperation, Sort,
                                            Window, with_children)
from sparkwire.planner.logical.sources import (CachedSource, CsvScan, JsonScan, LocalSource,
                                               ParquetScan, RangeSource)
from sparkwire.planner.logical.tree import children, column_names


def prune_columns(plan: Operator) -> Operator:
    return _prune(plan, set(output_columns(plan)))


def _prune(op: Operator, needed: set[str]) -> Operator:
    """``op`` rewritten to produce at least ``needed`` (a subset of its columns), in order."""
    match op:
        case ParquetScan() | CsvScan() | JsonScan() | LocalSource() | CachedSource():
            return op.model_copy(update={"columns": _keep(op.columns, needed)})
        case Exchange() | RangeSource():
            return op
        case Project():
            columns = tuple(c for c in op.columns if c.name in needed) or op.columns[:1]
            return Project(input=_prune(op.input, _reads(c.expr for c in columns)), columns=columns)
        case Aggregate():
            # Keys define the groups, so they stay even when nothing above reads them.
            aggregates = tuple(a for a in op.aggregates if a.name in needed)
            if not aggregates and not op.keys:
                aggregates = op.aggregates[:1]  # a global aggregate still yields its one row
            reads = _reads(e.expr for e in (*op.keys, *aggregates))
            return op.model_copy(update={"input": _prune(op.input, reads), "aggregates": aggregates})
        case Filter():
            return with_children(op, [_prune(op.input, needed | _reads([op.predicate]))])
        case Sort():
            return with_children(op, [_prune(op.input, needed | _reads(k.expr for k in op.keys))])
        case Generate():
            reads = (needed - set(op.names)) | _reads([op.expr])
            return with_children(op, [_prune(op.input, reads & set(output_columns(op.input)))])
        case Expand():
            # every column it passes is copied once per set: exactly those read above
            reads = (needed & set(output_columns(op.input))) | _reads(k.expr for k in op.keys)
            return with_children(op, [_exactly(op.input, reads)])
        case Limit() | Sample() | RowSample():
            return with_children(op, [_prune(op.input, needed)])
        case Repartition():
            reads = needed | _reads(op.keys)
            return with_children(op, [_prune(op.input, reads)])
        case ParquetWrite() | Keep():
            return with_children(op, [_prune(op.input, set(output_columns(op.input)))])
        case Join():
            return _prune_join(op, needed)
        case SetOperation():
            return with_children(op, [_prune(op.left, set(output_columns(op.left))),
                                      _prune(op.right, set(output_columns(op.right)))])
        case Window():
            return _prune_window(op, needed)
        case _:
            assert_never(op)


def _prune_window(op: Window, needed: set[str]) -> Operator:
    functions = tuple(f for f in op.functions if f.name in needed)
    passed = needed & set(output_columns(op.input))
    if not functions:
        return _prune(op.input, passed)
    reads = _reads([*op.partition_by, *(k.expr for k in op.order_by),
                    *(a for f in functions for a in children(f.function))])
    return op.model_copy(update={"input": _prune(op.input, passed | reads), "functions": functions})


def _prune_join(op: Join, needed: set[str]) -> Operator:
    condition = [] if op.condition is None else [op.condition]
    left_needed = (needed | _reads([*op.left_keys, *condition])) & set(output_columns(op.left))
    right_needed = (needed | _reads([*op.right_keys, *condition])) & set(output_columns(op.right))
    return with_children(op, [_exactly(op.left, left_needed), _exactly(op.right, right_needed)])


def _exactly(op: Operator, needed: set[str]) -> Operator:
    """``op`` pruned, under a projection when it would still produce unread columns."""
    pruned = _prune(op, needed)
    produced = output_columns(pruned)
    kept = _keep(produced, needed)
    if len(kept) == len(produced):
        return pruned
    return Project(input=pruned, columns=tuple(NamedExpr(name=c, expr=Column(name=c)) for c in kept))


def _keep(columns: Iterable[str], needed: set[str]) -> tuple[str, ...]:
    """The needed columns in their order; the first column when none is (``count(*)``
    still needs rows, and an operator needs at least one column)."""
    columns = tuple(columns)
    return tuple(c for c in columns if c in needed) or columns[:1]


def _reads(exprs: Iterable[Expr]) -> set[str]:
    return {name for e in exprs for name in column_names(e)}
