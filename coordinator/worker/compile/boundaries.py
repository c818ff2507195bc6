"""What a stage's output boundary adds to its query: for a ``shuffle`` or ``range``
boundary, each row's output partition as one more column (``PARTITION_COLUMN``).

DuckDB computes the partition inside the query; the worker then only regroups rows by that
column (``worker.partitioning``). A ``shuffle`` hashes its keys modulo P, the same on every
worker; a ``range`` boundary's one key is the partition the plan computed, clamped so a bad
plan cannot name a partition that does not exist.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.context import Context
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import cast, ident, select_from
from sparkwire.planner.logical.staged import Boundary

__all__ = ["PARTITION_COLUMN", "partitioned"]

#: The column a shuffle stage appends: the output partition of each row, in ``[0, P)``.
PARTITION_COLUMN = "__sparkwire_partition"


def partitioned(ctx: Context, query: exp.Select, output: Boundary) -> exp.Select:
    """``query`` with its rows' partitions appended, for a boundary that partitions them;
    ``query`` as it is for any other."""
    if output.kind not in ("shuffle", "range"):
        return query
    if not output.keys:
        raise CompileError(f"a {output.kind} boundary needs at least one key")
    keys = [ctx.expr(key) for key in output.keys]
    if output.kind == "range":
        if len(keys) != 1:
            raise CompileError("a range boundary has one key: the partition")
        # the plan computed each row's partition; clamped, so a bad plan cannot
        # name a partition that does not exist
        bucket: exp.Expr = exp.Greatest(
            this=exp.Literal.number(0),
            expressions=[exp.Least(
                this=cast(keys[0], "BIGINT"),
                expressions=[exp.Literal.number(output.partitions - 1)],
            )],
        )
    else:
        # HASH returns UBIGINT (never negative), so the modulo by an unsigned P lies in
        # [0, P).
        bucket = exp.Mod(
            this=exp.Anonymous(this="hash", expressions=keys),
            expression=cast(exp.Literal.number(output.partitions), "UBIGINT"),
        )
    return select_from(
        [exp.Star(), exp.alias_(cast(bucket, "BIGINT"), ident(PARTITION_COLUMN))],
        ctx.derived(query),
    )
