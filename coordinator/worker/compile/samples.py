"""Sampling, repeatable: ``Sample`` draws a reservoir of about ``rows`` rows with a fixed
seed (the stage cutter reads a range shuffle's bounds from it); ``RowSample`` keeps a
fraction of the rows by a hash of its seed and each row's position (``df.sample``). The
same input gives the same rows."""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.context import Context
from sparkwire.coordinator.worker.compile.nodes import cast, col, ident, select_from, star_from
from sparkwire.planner.logical.plan import RowSample, Sample, output_columns

__all__ = ["row_sample", "sample"]

#: Reservoir samples are repeatable: the same input gives the same range bounds.
_SAMPLE_SEED = 42


def sample(ctx: Context, op: Sample) -> exp.Select:
    source = ctx.input(op.input)
    reservoir = exp.TableSample(
        method=exp.var("RESERVOIR"), size=exp.Literal.number(op.rows),
        seed=exp.Literal.number(_SAMPLE_SEED),
    )
    query = star_from(source)
    query.set("sample", reservoir)
    return query


def row_sample(ctx: Context, op: RowSample) -> exp.Select:
    """Rows whose ``hash(position, seed, row)`` falls below ``fraction`` of the hash
    range: the position is the row's number in the task's input, in input order
    (insertion order is preserved), so the same input keeps the same rows."""
    if op.fraction >= 1.0 and op.lower <= 0.0:
        return star_from(ctx.input(op.input))
    position = "__sparkwire_position"
    numbered = select_from(
        [exp.Star(), exp.alias_(exp.Window(this=exp.RowNumber()), ident(position))],
        ctx.input(op.input),
    )
    names = output_columns(op.input)
    hashed = exp.Anonymous(this="hash", expressions=[
        col(position), exp.Literal.number(op.seed), *map(col, names)])
    query = select_from(map(col, names), ctx.derived(numbered))
    if op.fraction < 1.0:
        query = query.where(exp.LT(this=hashed, expression=_threshold(op.fraction)), copy=False)
    if op.lower > 0.0:
        query = query.where(exp.GTE(this=hashed.copy(), expression=_threshold(op.lower)), copy=False)
    return query


def _threshold(fraction: float) -> exp.Expr:
    """The hash below which a row's draw is under ``fraction`` (in [0, 1))."""
    return cast(exp.Literal.number(int(fraction * 2**64)), "UBIGINT")
