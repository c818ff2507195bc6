"""A plan's expression tree as one DuckDB expression: each node kind to its builder.

Columns, literals and lambdas (their parameters named apart from any column,
``calls_lambdas``) become nodes (``nodes``, ``literals``; an instant literal is read in
the session zone, ``zones``); a call goes to the builder its name has in ``calls``, with the
ANSI mode or the zone when its SQL depends on them; an aggregate to ``calls_aggregate``; a
cast to ``casts``, in Spark's mode for it. Window functions only compile inside a
``Window`` operator (``windows``). The ANSI mode and the zone are one fragment's, so each
fragment has one ``Expressions``.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.calls import CALLS, MODE_CALLS, ZONE_CALLS
from sparkwire.coordinator.worker.compile.calls_lambdas import lambda_name
from sparkwire.coordinator.worker.compile.calls_task import TASK_CALLS
from sparkwire.coordinator.worker.compile.calls_aggregate import (
    AGGREGATE_BUILDERS,
    AGGREGATES,
    ORDERED_PICKS,
    edge_aggregate,
    quantile,
)
from sparkwire.coordinator.worker.compile.calls_listagg import listagg
from sparkwire.coordinator.worker.compile.casts import Mode, spark_cast
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.sizes import BOUNDED
from sparkwire.coordinator.worker.compile.literals import literal
from sparkwire.coordinator.worker.compile.nodes import col, ident
from sparkwire.coordinator.worker.compile.zones import instant_literal
from sparkwire.planner.logical.expressions import (
    AggCall,
    Call,
    Case,
    Cast,
    Column,
    Expr,
    LISTAGGS,
    Lambda,
    LambdaVar,
    Lit,
    NamedExpr,
    SortKey,
    WindowCall,
)

__all__ = ["Expressions"]


class Expressions:
    """Compiles one fragment's expressions: ``ansi`` is Spark's ANSI mode, which decides how
    division and casts fail (``division``, ``casts``); ``time_zone`` the session zone, in
    which instants read as wall clocks (``zones``); ``task`` the task's index, which
    ``calls_task`` reads (``task_read`` records that one did, so the fragment's SQL is the
    task's own rather than its stage's)."""

    def __init__(self, ansi: bool, time_zone: str, task: int = 0) -> None:
        self.ansi = ansi
        self.time_zone = time_zone
        self.task = task
        self.task_read = False
        #: Calls of ``sizes.BOUNDED`` compiled: the values a row may make at once.
        self.bounded_calls = 0

    def named(self, named: NamedExpr) -> exp.Expr:
        return exp.alias_(self.expr(named.expr), ident(named.name), copy=False)

    def sort_key(self, key: SortKey) -> exp.Ordered:
        return exp.Ordered(
            this=self.expr(key.expr), desc=not key.ascending, nulls_first=key.nulls_first
        )

    def expr(self, node: Expr) -> exp.Expr:
        if isinstance(node, Column):
            return col(node.name)
        if isinstance(node, Lit):
            if node.type == "timestamp" and isinstance(node.value, str):
                return instant_literal(node.value, self.time_zone)
            return literal(node)
        if isinstance(node, Call):
            args = [self.expr(arg) for arg in node.args]
            if node.fn in MODE_CALLS:
                return MODE_CALLS[node.fn](args, self.ansi)
            if node.fn in ZONE_CALLS:
                return ZONE_CALLS[node.fn](args, self.time_zone)
            if node.fn in BOUNDED:
                self.bounded_calls += 1
            if node.fn in TASK_CALLS:
                self.task_read = True
                return TASK_CALLS[node.fn](args, self.task)
            return CALLS[node.fn](args)
        if isinstance(node, AggCall):
            return self.aggregate(node)
        if isinstance(node, Case):
            ifs = [exp.If(this=self.expr(c), true=self.expr(v)) for c, v in node.branches]
            default = exp.Null() if node.otherwise is None else self.expr(node.otherwise)
            return exp.Case(ifs=ifs, default=default)
        if isinstance(node, LambdaVar):
            return col(lambda_name(node.name))
        if isinstance(node, Lambda):
            return exp.Lambda(this=self.expr(node.body),
                              expressions=[ident(lambda_name(p)) for p in node.params])
        if isinstance(node, WindowCall):
            raise CompileError(f"window function {node.fn} outside a Window operator")
        if isinstance(node, Cast):
            # Caveat: DuckDB's VARCHAR -> BLOB cast reads `\xNN` escapes and refuses
            # non-ASCII text, unlike Spark's UTF-8 encoding; a user's cast (its source
            # known) encodes instead (``casts.spark_cast``), the planner's stay plain.
            mode: Mode = "try" if node.safe else "ansi" if self.ansi else "legacy"
            return spark_cast(self.expr(node.expr), node.source, node.to, mode, self.time_zone)
        raise CompileError(f"unsupported expression {type(node).__name__}")

    def aggregate(self, node: AggCall) -> exp.Expr:
        if node.arg is None:
            if node.fn != "count":
                raise CompileError(f"{node.fn} needs an argument; only count takes none")
            return exp.Count(this=exp.Star())
        arg = self.expr(node.arg)
        if node.fn in ("quantile", "percentile_approx", "percentile"):
            return quantile(arg, node.fraction, node.fractions, interpolated=node.fn == "percentile")
        if node.fn in LISTAGGS:
            key = None if node.other is None else self.expr(node.other)
            return listagg(arg, node.separator, node.fn == "listagg_distinct", key,
                           node.ascending, node.nulls_first)
        if node.fn in ORDERED_PICKS and node.other is not None:
            return ORDERED_PICKS[node.fn](arg, self.expr(node.other))
        if node.fn in ("first", "last"):
            return edge_aggregate(node.fn, arg, node.ignore_nulls)
        if node.fn in AGGREGATE_BUILDERS:
            return AGGREGATE_BUILDERS[node.fn](arg)
        return AGGREGATES[node.fn](this=arg)
