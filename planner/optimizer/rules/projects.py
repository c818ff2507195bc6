"""A ``Project`` that passes its input through unchanged goes; a ``Project`` over a ``Project`` becomes one, the outer expressions written over the
inner's inputs, when that computes nothing twice: every computed inner column is read at
most once above (a column passed through may be read any number of times), and when no
merged expression nests deeper than ``MAX_MERGED_DEPTH``: a hundred chained
``withColumn("x", F.col("x") + 1)`` stay a few projections of moderate depth, far inside
the plan's nesting limit (``planner.limits.MAX_PLAN_DEPTH``), instead of one expression
two hundred levels deep."""

from __future__ import annotations

from collections import Counter

from sparkwire.planner.logical.expressions import Column, Expr, NamedExpr
from sparkwire.planner.limits import plan_depth
from sparkwire.planner.logical.plan import Operator, Project, output_columns, transform_up
from sparkwire.planner.logical.tree import transform, walk


MAX_MERGED_DEPTH = 48


def merge_projects(plan: Operator) -> Operator:
    def rewrite(op: Operator) -> Operator:
        if isinstance(op, Project) and _identity(op):
            return op.input
        if not (isinstance(op, Project) and isinstance(op.input, Project)):
            return op
        inner = {c.name: c.expr for c in op.input.columns}
        reads = Counter(
            node.name for c in op.columns for node in walk(c.expr) if isinstance(node, Column)
        )
        if any(reads[name] > 1 and not isinstance(expr, Column) for name, expr in inner.items()):
            return op

        def substitute(node: Expr) -> Expr | None:
            return inner.get(node.name) if isinstance(node, Column) else None

        columns = tuple(NamedExpr(name=c.name, expr=transform(c.expr, substitute)) for c in op.columns)
        if any(plan_depth(c.expr) > MAX_MERGED_DEPTH for c in columns):
            return op
        return Project(input=op.input.input, columns=columns)

    return transform_up(plan, rewrite)


def _identity(op: Project) -> bool:
    """Whether ``op`` passes its input's columns through, in order, under their own names
    (what is left of a projection once ``prune_columns`` dropped what nobody reads)."""
    names = [c.name for c in op.columns]
    return (all(isinstance(c.expr, Column) and c.expr.name == c.name for c in op.columns)
            and names == output_columns(op.input))
