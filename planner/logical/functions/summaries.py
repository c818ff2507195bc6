"""The later aggregates of the registry: Spark's semantics, built by the worker's
``calls_aggregate`` and typed by ``planner.logical.summary_types``.

- ``bool_and``/``every`` and ``bool_or``/``some`` skip NULLs (NULL for a group of none) and
  merge in two phases, as ``product`` does (a double, NULL for no values);
- ``max_by(x, ord)``/``min_by`` take ``x`` on a row with the greatest (least) non-NULL
  ``ord``, a NULL ``x`` included; with several such rows, any one (as in Spark);
- ``median(x)`` is ``percentile(x, 0.5)``; ``percentile(x, p)`` interpolates between the
  two values around the rank ``p * (n - 1)`` (Spark's ``Percentile``), a double, or an
  array of them for an ``array`` of percentages; a frequency other than 1 is not supported.
They aggregate once, after a shuffle on the keys, where they have no merge
(``planner.physical.aggregates``).
"""

from __future__ import annotations

from typing import cast

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import MAX_PERCENTAGES, AggCall, AggregateFunction, Call, Expr, Lit
from sparkwire.planner.logical.functions.base import Function, allowed, number_option, option, shown

_ONE = Lit(value=1)


def _of_one(name: str) -> Function:
    fn = cast(AggregateFunction, allowed(name, AggregateFunction))

    def build(value: Expr) -> Expr:
        return AggCall(fn=fn, arg=value)

    return Function(name, build, 1, 1)


def _ordered_pick(name: str) -> Function:
    fn = cast(AggregateFunction, allowed(name, AggregateFunction))

    def build(value: Expr, ordering: Expr) -> Expr:
        return AggCall(fn=fn, arg=value, other=ordering)

    return Function(name, build, 2, 2)


def percentile(value: Expr, percentage: Expr, frequency: Expr = _ONE) -> Expr:
    """One percentage (a literal) or several (an ``array`` of literals), between 0 and 1."""
    if option(frequency) != 1 or isinstance(option(frequency), bool):
        raise AnalysisError(f"percentile with a frequency other than 1 is not supported by sparkwire, "
                            f"got {shown(frequency)}")
    several = isinstance(percentage, Call) and percentage.fn == "array"
    parts = percentage.args if isinstance(percentage, Call) and several else (percentage,)
    values = [number_option(p) for p in parts]
    if not values or len(values) > MAX_PERCENTAGES or not all(
        isinstance(p, float | int) and not isinstance(p, bool) and 0.0 <= p <= 1.0 for p in values
    ):
        raise AnalysisError("percentile takes percentages between 0.0 and 1.0 (literals), got "
                            + ", ".join(shown(p) for p in parts))
    fractions = tuple(float(p) for p in values if isinstance(p, float | int))
    if several:
        return AggCall(fn="percentile", arg=value, fractions=fractions)
    return AggCall(fn="percentile", arg=value, fraction=fractions[0])


FUNCTIONS = (
    *(_of_one(name) for name in ("bool_and", "bool_or", "every", "some", "product", "median")),
    *(_ordered_pick(name) for name in ("max_by", "min_by")),
    Function.of("percentile", percentile),
)
