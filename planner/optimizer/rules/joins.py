"""Outer joins that a filter makes into other joins.

``outer_to_inner``: an outer join under a filter that rejects the rows it pads with NULLs
becomes the join that does not pad them (Spark's ``EliminateOuterJoin``): a LEFT JOIN
filtered on a right column is an inner join, a FULL JOIN filtered on one side a one-sided
outer join. Inner joins can be broadcast and let filters move below them.

``left_join_to_anti``: ``SELECT <left columns> FROM l LEFT JOIN r ON l.k = r.k WHERE r.k IS
NULL`` keeps exactly the left rows without a match (a matched row's key equals a non-NULL
left key), which is an anti join; it needs no right rows and never duplicates left ones.
"""

from __future__ import annotations

from sparkwire.planner.logical.expressions import Call, Cast, Column, Expr
from sparkwire.planner.logical.plan import (
    Filter,
    Join,
    JoinType,
    Operator,
    Project,
    output_columns,
    transform_up,
)
from sparkwire.planner.logical.predicates import conjuncts, nonempty_conjunction
from sparkwire.planner.logical.tree import column_names

# Functions that return NULL whenever one of their arguments is NULL.
_STRICT = frozenset({
    "add", "sub", "mul", "div", "mod", "neg", "eq", "ne", "lt", "le", "gt", "ge", "like",
    "between", "not", "abs", "trunc", "lower", "upper", "length", "year", "month", "day",
    "substring", "concat", "trim", "ltrim", "rtrim", "date_add", "add_months",
})


def outer_to_inner(plan: Operator) -> Operator:
    def rewrite(op: Operator) -> Operator:
        if not (isinstance(op, Filter) and isinstance(op.input, Join)):
            return op
        join = op.input
        if join.how not in ("left", "right", "full"):
            return op
        parts = conjuncts(op.predicate)
        left = any(rejects(p, set(output_columns(join.left))) for p in parts)
        right = any(rejects(p, set(output_columns(join.right))) for p in parts)
        how = _narrowed(join.how, rejects_left=left, rejects_right=right)
        if how == join.how:
            return op
        return Filter(input=join.model_copy(update={"how": how}), predicate=op.predicate)

    return transform_up(plan, rewrite)


def _narrowed(how: JoinType, rejects_left: bool, rejects_right: bool) -> JoinType:
    """The join once rows NULL on the rejected side(s) are known to be dropped."""
    if how == "left":
        return "inner" if rejects_right else how
    if how == "right":
        return "inner" if rejects_left else how
    if rejects_left and rejects_right:
        return "inner"
    return "left" if rejects_left else "right" if rejects_right else how


def rejects(predicate: Expr, columns: set[str]) -> bool:
    """Whether ``predicate`` is never true when every one of ``columns`` is NULL."""
    if isinstance(predicate, Call):
        if predicate.fn == "and":
            return any(rejects(a, columns) for a in predicate.args)
        if predicate.fn == "or":
            return all(rejects(a, columns) for a in predicate.args)
        if predicate.fn in ("is_not_null", "in"):
            return null_when_null(predicate.args[0], columns)
    return null_when_null(predicate, columns)


def null_when_null(expr: Expr, columns: set[str]) -> bool:
    """Whether ``expr`` is NULL whenever every one of ``columns`` is NULL."""
    if isinstance(expr, Column):
        return expr.name in columns
    if isinstance(expr, Cast):
        return null_when_null(expr.expr, columns)
    if isinstance(expr, Call) and expr.fn in _STRICT:
        return any(null_when_null(a, columns) for a in expr.args)
    return False


def left_join_to_anti(plan: Operator) -> Operator:
    def rewrite(op: Operator) -> Operator:
        if not (isinstance(op, Project) and isinstance(op.input, Filter)
                and isinstance(op.input.input, Join)):
            return op
        condition, join = op.input, op.input.input
        if join.how != "left" or not join.right_keys:
            return op
        left = set(output_columns(join.left))
        if not all(set(column_names(c.expr)) <= left for c in op.columns):
            return op
        parts = conjuncts(condition.predicate)
        unmatched = [p for p in parts if _null_test_of_key(p, join)]
        if not unmatched:
            return op
        rest = [p for p in parts if p not in unmatched]
        if any(not set(column_names(p)) <= left for p in rest):
            return op
        anti: Operator = join.model_copy(update={"how": "anti"})
        if rest:
            anti = Filter(input=anti, predicate=nonempty_conjunction(rest))
        return op.model_copy(update={"input": anti})

    return transform_up(plan, rewrite)


def _null_test_of_key(predicate: Expr, join: Join) -> bool:
    """``<right key column> IS NULL``: true exactly for the rows the left join padded."""
    if not (isinstance(predicate, Call) and predicate.fn == "is_null"):
        return False
    (arg,) = predicate.args
    keys = {k.expr.name if isinstance(k, Cast) and isinstance(k.expr, Column) else
            k.name if isinstance(k, Column) else None for k in join.right_keys}
    return isinstance(arg, Column) and arg.name in keys
