"""The ``Join`` operator: ``SELECT <outputs> FROM (left) <how> JOIN (right) ON <keys AND
condition>``, every join type Spark has, and the null-aware anti join (``NOT IN``)."""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.context import Context, unique_names
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import col, paren, select_from
from sparkwire.planner.logical.plan import Join, output_columns

__all__ = ["join"]

#: (side, kind) of the sqlglot ``Join`` node for each join type but ``cross``.
_JOIN_SHAPES: dict[str, tuple[str | None, str | None]] = {
    "inner": (None, None),
    "left": ("LEFT", None),
    "right": ("RIGHT", None),
    "full": ("FULL", None),
    "semi": (None, "SEMI"),
    "anti": (None, "ANTI"),
}


def join(ctx: Context, op: Join) -> exp.Select:
    """``SELECT <outputs> FROM (left) AS _tL <how> JOIN (right) AS _tR ON <keys AND
    condition>``; output columns are named explicitly, unqualified (names are unique
    across the sides, checked here, and a column wins over a table alias in DuckDB)."""
    left_names, right_names = output_columns(op.left), output_columns(op.right)
    # Checked for semi/anti too: the ON clause sees both sides' columns unqualified.
    unique_names([*left_names, *right_names], f"{op.how} join")
    if len(op.left_keys) != len(op.right_keys):
        raise CompileError(f"{len(op.left_keys)} left keys but {len(op.right_keys)} right keys")
    if op.null_aware:
        return _null_aware_anti_join(ctx, op, left_names)
    left = ctx.input(op.left)
    right = ctx.input(op.right)
    outputs = left_names if op.how in ("semi", "anti") else [*left_names, *right_names]
    query = select_from(map(col, outputs), left)
    if op.how == "cross":
        if op.left_keys or op.condition is not None:
            raise CompileError("a cross join has no keys and no condition")
        return query.join(exp.Join(this=right, kind="CROSS"), copy=False)
    # Build the join node directly: sqlglot's `Select.join(..., join_kind=...)` ignores
    # an unknown keyword and would silently produce an inner join.
    side, kind = _JOIN_SHAPES[op.how]
    node = exp.Join(this=right, side=side, kind=kind, on=_join_on(ctx, op))
    return query.join(node, copy=False)


def _join_on(ctx: Context, op: Join) -> exp.Expr:
    """``left_key_i = right_key_i`` (SQL equality: NULL never matches) AND the residual
    condition; ``TRUE`` when there is neither (every pair of rows matches)."""
    terms: list[exp.Expr] = [
        exp.EQ(this=paren(ctx.expr(lk)), expression=paren(ctx.expr(rk)))
        for lk, rk in zip(op.left_keys, op.right_keys, strict=True)
    ]
    if op.condition is not None:
        terms.append(ctx.expr(op.condition))
    if not terms:
        return exp.Boolean(this=True)
    on = paren(terms[0])
    for term in terms[1:]:
        on = exp.And(this=on, expression=paren(term))
    return on


def _null_aware_anti_join(ctx: Context, op: Join, left_names: list[str]) -> exp.Select:
    """``SELECT <left> FROM (left) WHERE NOT (lk IN (SELECT rk FROM (right) [WHERE
    condition]))``: exactly ``NOT IN`` (a NULL among the right keys keeps nothing, a NULL
    left key is kept only when no right row qualifies). DuckDB plans the uncorrelated form
    as a hash MARK join. A residual condition correlates the subquery: a left row is kept
    iff no right row satisfies the condition with a key equal to, or NULL-compared with,
    its key (Spark's rewrite of a correlated ``NOT IN``)."""
    if op.how != "anti" or len(op.left_keys) != 1:
        raise CompileError("only an anti join on one key can be null-aware")
    left = ctx.input(op.left)
    right = ctx.input(op.right)
    keys = select_from([ctx.expr(op.right_keys[0])], right)
    if op.condition is not None:
        keys = keys.where(ctx.expr(op.condition), copy=False)
    member = exp.In(this=paren(ctx.expr(op.left_keys[0])), query=keys.subquery(copy=False))
    return (
        select_from(map(col, left_names), left)
        .where(exp.Not(this=exp.Paren(this=member)), copy=False)
    )
