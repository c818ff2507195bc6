"""The ``SetOperation`` operator: ``UNION`` / ``INTERSECT`` / ``EXCEPT`` of two inputs of
one width, distinct or ``ALL``."""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.context import Context
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import star_from
from sparkwire.planner.logical.plan import SetOperation, output_columns

__all__ = ["set_operation"]

_SET_OPERATIONS: dict[str, type[exp.SetOperation]] = {
    "union": exp.Union,
    "intersect": exp.Intersect,
    "except": exp.Except,
}


def set_operation(ctx: Context, op: SetOperation) -> exp.Select:
    """``SELECT * FROM (SELECT * FROM (left) AS _tL <KIND> [ALL] SELECT * FROM (right)
    AS _tR) AS _tS``. Each side is a derived table so that an input's ORDER BY / LIMIT
    stays its own; DuckDB names the result after the left side; plain UNION / INTERSECT /
    EXCEPT are distinct, ``ALL`` keeps multiplicities (sum / min / difference)."""
    width_left, width_right = len(output_columns(op.left)), len(output_columns(op.right))
    if width_left != width_right:
        raise CompileError(
            f"{op.kind}: the left input has {width_left} columns, the right {width_right}"
        )
    left = star_from(ctx.input(op.left))
    right = star_from(ctx.input(op.right))
    combined = _SET_OPERATIONS[op.kind](this=left, expression=right, distinct=not op.all)
    return star_from(ctx.derived(combined))
