"""Aggregate functions of the registry: one ``AggCall`` each.

- ``count()`` counts rows (``count(*)``), ``count(x)`` the non-NULL values of ``x``;
  ``count_distinct`` takes one column;
- ``first``/``last`` take any row's value of a group (Spark does not order a group) or a
  window frame's first or last row's, NULLs skipped when ``ignorenulls`` is true;
- ``collect_list``/``collect_set`` skip NULLs, in no defined order;
- ``approx_count_distinct`` is exact (a distinct count is within any relative error of
  itself), ``percentile_approx`` one of the input values (exact, ``worker.collections``);
  several percentages (an ``array`` of literals) give an array;
- ``any_value`` is some value of the group, NULLs included (Spark's default).

The statistical aggregates are a family of their own (``statistics``).
"""

from __future__ import annotations

from typing import cast

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import (
    MAX_PERCENTAGES,
    AggCall,
    AggregateFunction,
    Call,
    Expr,
    Lit,
)
from sparkwire.planner.logical.functions.base import Function, allowed, int_option, number_option, option, shown

_NO_NULLS_SKIPPED = Lit(value=False)
_DEFAULT_ACCURACY = Lit(value=10000)


def _aggregate(name: str, fn: AggregateFunction | None = None) -> Function:
    """``fn`` (by default the function's own name) of one column."""
    call = cast(AggregateFunction, fn or allowed(name, AggregateFunction))

    def build(value: Expr) -> Expr:
        return AggCall(fn=call, arg=value)

    return Function(name, build, 1, 1)


def count(value: Expr | None = None) -> Expr:
    return AggCall(fn="count") if value is None else AggCall(fn="count", arg=value)


def count_distinct(value: Expr, *more: Expr) -> Expr:
    if more:
        raise AnalysisError("countDistinct of several columns is not supported by sparkwire; use one column")
    return AggCall(fn="count_distinct", arg=value)


def _edge(fn: AggregateFunction) -> Function:
    """``first``/``last``, NULLs skipped when ``ignorenulls`` is true."""

    def build(value: Expr, ignorenulls: Expr = _NO_NULLS_SKIPPED) -> Expr:
        skip = option(ignorenulls)
        if not isinstance(skip, bool):
            raise AnalysisError(f"{fn}'s ignorenulls takes a bool, got {shown(ignorenulls)}")
        return AggCall(fn=fn, arg=value, ignore_nulls=skip)

    return Function(fn, build, 1, 2)


def any_value(value: Expr, ignore_nulls: Expr | None = None) -> Expr:
    """``ignoreNulls`` true is not supported."""
    if ignore_nulls is not None and option(ignore_nulls) not in (None, False):
        raise AnalysisError("any_value(ignoreNulls=True) is not supported by sparkwire")
    return AggCall(fn="any_value", arg=value)


def approx_count_distinct(value: Expr, rsd: Expr | None = None) -> Expr:
    error = None if rsd is None else option(rsd)
    if rsd is not None and not (isinstance(error, float | int) and 0 < error < 0.4):
        raise AnalysisError(f"approx_count_distinct takes an rsd between 0 and 0.4, got {shown(rsd)}")
    return AggCall(fn="approx_count_distinct", arg=value)


def percentile_approx(value: Expr, percentage: Expr, accuracy: Expr = _DEFAULT_ACCURACY) -> Expr:
    """One percentage (a literal) or several (an ``array`` of literals)."""
    steps = int_option(accuracy)
    if steps is None or not 0 < steps < 2**31:
        raise AnalysisError(f"percentile_approx takes a positive int accuracy, got {shown(accuracy)}")
    several = isinstance(percentage, Call) and percentage.fn == "array"
    parts = percentage.args if isinstance(percentage, Call) and several else (percentage,)
    values = [number_option(p) for p in parts]
    if not values or len(values) > MAX_PERCENTAGES or not all(
        isinstance(p, float | int) and not isinstance(p, bool) and 0.0 <= p <= 1.0 for p in values
    ):
        got = "[" + ", ".join(shown(p) for p in parts) + "]" if several else shown(percentage)
        raise AnalysisError(
            f"percentile_approx takes percentages between 0.0 and 1.0 (at most "
            f"{MAX_PERCENTAGES}), got {got}"
        )
    fractions = tuple(float(p) for p in values if isinstance(p, float | int))
    if several:
        return AggCall(fn="percentile_approx", arg=value, accuracy=steps, fractions=fractions)
    return AggCall(fn="percentile_approx", arg=value, accuracy=steps, fraction=fractions[0])


FUNCTIONS = (
    *(_aggregate(name) for name in (
        "sum", "avg", "min", "max", "collect_list", "collect_set", "count_if", "sum_distinct",
    )),
    _aggregate("mean", "avg"),
    Function.of("count", count),
    Function.of("count_distinct", count_distinct),
    _edge("first"),
    _edge("last"),
    Function.of("any_value", any_value),
    Function.of("approx_count_distinct", approx_count_distinct),
    Function.of("percentile_approx", percentile_approx),
)
