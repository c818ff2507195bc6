"""Ranking, offset and edge functions over a window (``row_number``, ``ntile``, ``lag``,
``first_value`` ...): one builder per window function of the plan's allow-list.

A window builder takes the compiled arguments and the plan's integer (an offset, a bucket
count); ``windows`` puts its result over the window. Spark types ranks and buckets ``int``
where DuckDB gives BIGINT: those are ``INTEGER_WINDOW_CALLS``, cast after ``OVER``.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import arity
from sparkwire.coordinator.worker.compile.errors import CompileError

__all__ = ["INTEGER_WINDOW_CALLS", "WINDOW_CALLS", "WindowBuilder", "edge_over_window"]

#: (arguments, offset or buckets) -> the call.
WindowBuilder = Callable[[list[exp.Expr], int], exp.Expr]

#: first/last over a window frame: the frame's first or last row.
WINDOW_EDGES: dict[str, type[exp.Func]] = {"first": exp.FirstValue, "last": exp.LastValue}


def edge_over_window(fn: str, arg: exp.Expr, ignore_nulls: bool) -> exp.Expr:
    """``first``/``last`` over a window frame: ``first_value``/``last_value`` of the frame,
    ``IGNORE NULLS`` for Spark's ``ignorenulls``."""
    call = WINDOW_EDGES[fn](this=arg)
    return exp.IgnoreNulls(this=call) if ignore_nulls else call


def _ranking(cls: type[exp.Func]) -> WindowBuilder:
    def build(args: list[exp.Expr], offset: int) -> exp.Expr:
        arity(cls.__name__, args, 0)
        return cls()

    return build


def _ntile(args: list[exp.Expr], buckets: int) -> exp.Expr:
    """As Spark's: the first ``rows % n`` buckets get one row more than the rest."""
    arity("ntile", args, 0)
    return exp.Ntile(this=exp.Literal.number(buckets))


def _shift(cls: type[exp.Func]) -> WindowBuilder:
    """``lag``/``lead(value, rows, default)``; the planner gave the default the value's type
    (DuckDB refuses a default of another type)."""

    def build(args: list[exp.Expr], offset: int) -> exp.Expr:
        if len(args) not in (1, 2):
            raise CompileError(f"{cls.__name__} takes a value and a default, got {len(args)} arguments")
        default = args[1] if len(args) == 2 else None
        return cls(this=args[0], offset=exp.Literal.number(offset), default=default)

    return build


def _nth_value(args: list[exp.Expr], row: int) -> exp.Expr:
    """The frame's ``row``-th value (``windows`` adds ``IGNORE NULLS``)."""
    arity("nth_value", args, 1)
    return exp.NthValue(this=args[0], offset=exp.Literal.number(row))


#: Window functions Spark types ``int`` (DuckDB: BIGINT); ``over`` casts them.
INTEGER_WINDOW_CALLS = frozenset({"row_number", "rank", "dense_rank", "ntile"})

#: Ranking and offset functions over a window: (arguments, offset or buckets) -> call.
WINDOW_CALLS: dict[str, WindowBuilder] = {
    "row_number": _ranking(exp.RowNumber),
    "rank": _ranking(exp.Rank),
    "dense_rank": _ranking(exp.DenseRank),
    "percent_rank": _ranking(exp.PercentRank),
    "cume_dist": _ranking(exp.CumeDist),
    "ntile": _ntile,
    "lag": _shift(exp.Lag),
    "lead": _shift(exp.Lead),
    "nth_value": _nth_value,
}
