"""Aggregate functions as DuckDB aggregates: one entry per aggregate of the plan's
allow-list, placed by the ``Aggregate`` operator and, over a window, by ``windows``.

The ones sqlglot has a node for are that node (``AGGREGATES``; Spark's ``any_value`` is
DuckDB's ``first``); the rest are built from their argument (``AGGREGATE_BUILDERS``):
distinct counts and sums, Spark's statistics under DuckDB's names, the 0 ``count_if`` gives
for no rows, the collection aggregates (``calls_collections``); ``first``/``last`` may skip
NULLs (``edge_aggregate``), and the quantiles take their fractions (``quantile``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlglot import exp

from sparkwire.coordinator.worker.compile.calls_collections import COLLECTION_AGGREGATES
from sparkwire.coordinator.worker.compile.calls_vectors import VECTOR_AGGREGATES
from sparkwire.coordinator.worker.compile.nodes import call, cast, paren
from sparkwire.coordinator.worker.compile.templates import template

__all__ = ["AGGREGATES", "AGGREGATE_BUILDERS", "ORDERED_PICKS", "edge_aggregate", "quantile"]

#: Spark's ``mode``: the values' counts (``histogram`` skips NULLs), sorted by count
#: descending and then by value, the first's value; NULL for no values. DuckDB's ``mode``
#: breaks ties by arrival, which differs from task to task.
_MODE = template(
    "list_sort(list_transform(map_entries(histogram(:a)), __sparkwire_p -> "
    "{'c': -CAST(__sparkwire_p.value AS BIGINT), 'k': __sparkwire_p.key}))[1].k")

AGGREGATES: dict[str, type[exp.AggFunc]] = {
    "sum": exp.Sum,
    "avg": exp.Avg,
    "min": exp.Min,
    "max": exp.Max,
    "count": exp.Count,
    # Spark's any_value keeps NULLs (isIgnoreNull=false): that is DuckDB's first(), not its
    # any_value(), which skips them. Every first() of one aggregate reads the same row, so
    # dropDuplicates keeps whole input rows.
    "any_value": exp.First,
    # Spark's first/last keep NULLs unless told to skip them (``edge_aggregate``).
    "first": exp.First,
    "last": exp.Last,
}


def _named_aggregate(name: str) -> Callable[[exp.Expr], exp.Expr]:
    return lambda arg: call(name, arg)


def _distinct(cls: type[exp.AggFunc]) -> Callable[[exp.Expr], exp.Expr]:
    return lambda arg: cls(this=exp.Distinct(expressions=[arg]))


#: The aggregates built from their one argument.
AGGREGATE_BUILDERS: dict[str, Callable[[exp.Expr], exp.Expr]] = {
    **COLLECTION_AGGREGATES,
    **VECTOR_AGGREGATES,
    "count_distinct": _distinct(exp.Count),
    "approx_count_distinct": _distinct(exp.Count),
    "sum_distinct": _distinct(exp.Sum),
    # DuckDB's count_if of no rows is NULL, Spark's 0
    "count_if": lambda arg: exp.Coalesce(this=call("count_if", arg), expressions=[exp.Literal.number(0)]),
    "stddev": _named_aggregate("stddev_samp"),
    "std": _named_aggregate("stddev_samp"),
    "stddev_samp": _named_aggregate("stddev_samp"),
    "stddev_pop": _named_aggregate("stddev_pop"),
    "variance": _named_aggregate("var_samp"),
    "var_samp": _named_aggregate("var_samp"),
    "var_pop": _named_aggregate("var_pop"),
    # Spark's bit aggregates are DuckDB's, of the same type (planner.logical.functions.bits)
    **{fn: _named_aggregate(fn) for fn in ("bit_and", "bit_or", "bit_xor")},
    # planner.logical.functions.summaries: Spark's every/some are bool_and/bool_or, its
    # product and median doubles (median interpolated, as percentile)
    **dict.fromkeys(("bool_and", "every"), _named_aggregate("bool_and")),
    **dict.fromkeys(("bool_or", "some"), _named_aggregate("bool_or")),
    "product": lambda arg: call("product", cast(arg, "DOUBLE")),
    "median": lambda arg: call("quantile_cont", cast(arg, "DOUBLE"), exp.Literal.number(0.5)),
    # planner.logical.functions.aggregate_forms: the least of the most frequent values
    "mode": lambda arg: _MODE(a=arg),
}

#: ``max_by``/``min_by`` of a value and its ordering: the value on a row with the greatest
#: (least) non-NULL ordering, NULL or not (DuckDB's ``arg_max``/``arg_min`` would skip a
#: NULL value; its ``_null`` forms keep it, as Spark's ``MaxBy``/``MinBy`` do). Which row
#: of several with that ordering is unspecified, as in Spark.
ORDERED_PICKS: dict[str, Callable[[exp.Expr, exp.Expr], exp.Expr]] = {
    "max_by": lambda value, by: call("arg_max_null", value, by),
    "min_by": lambda value, by: call("arg_min_null", value, by),
}


def edge_aggregate(fn: str, arg: exp.Expr, ignore_nulls: bool) -> exp.Expr:
    """``first``/``last`` of a group; skipping NULLs is a ``FILTER`` on the aggregate
    (DuckDB's ``any_value`` skips them too, but there is no such ``last``)."""
    aggregate = AGGREGATES[fn](this=arg)
    if not ignore_nulls:
        return aggregate
    keep = exp.Not(this=exp.Paren(this=exp.Is(this=paren(arg.copy()), expression=exp.Null())))
    return exp.Filter(this=aggregate, expression=exp.Where(this=keep))


def quantile(arg: exp.Expr, fraction: float | None,
             fractions: Sequence[float] | None, interpolated: bool = False) -> exp.Expr:
    """``quantile``/``percentile_approx`` at one fraction, or an array of them at several:
    DuckDB's ``quantile_disc``, which answers one of the input's values; ``percentile``
    (``interpolated``) is ``quantile_cont`` of the doubles, as Spark's ``Percentile``
    interpolates; each fraction is a DOUBLE cast of its shortest text."""
    wanted_fractions = [fraction] if fractions is None else list(fractions)
    doubles = [cast(exp.Literal.string(repr(f)), "DOUBLE") for f in wanted_fractions]
    wanted = doubles[0] if fractions is None else exp.Array(expressions=doubles)
    if interpolated:
        return exp.Anonymous(this="quantile_cont", expressions=[cast(arg, "DOUBLE"), wanted])
    return exp.Anonymous(this="quantile_disc", expressions=[arg, wanted])
