"""Statistical aggregates of the registry: ``stddev``/``variance`` and their ``_samp`` and
``_pop`` forms (``std`` and ``stddev`` are ``stddev_samp``, ``variance`` is ``var_samp``),
``skewness``, ``kurtosis`` (excess), ``covar_samp``, ``covar_pop``, ``corr`` and the
linear regressions ``regr_*(y, x)`` of two columns (over the rows where both are there;
``regr_count`` a bigint, never NULL; ``regr_slope``/``regr_intercept``/``regr_r2`` NULL
where x does not vary, ``regr_r2`` 1 where only y does not). All are doubles, NULL where Spark 4 divides by zero (no rows; one row for the
sample forms; no spread for ``skewness``, ``kurtosis`` and ``corr``). They aggregate in two
phases as sums of powers (``planner.optimizer.rules.moments``, which has the formulas).
"""

from __future__ import annotations

from typing import cast

from sparkwire.planner.logical.expressions import AggCall, AggregateFunction, Expr

#: The linear regressions, ``regr_*(y, x)``.
REGRESSIONS = ("regr_count", "regr_avgx", "regr_avgy", "regr_sxx", "regr_syy", "regr_sxy",
               "regr_slope", "regr_intercept", "regr_r2")
from sparkwire.planner.logical.functions.base import Function, allowed

_ONE_COLUMN = ("stddev", "std", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop",
               "skewness", "kurtosis")
_TWO_COLUMNS = ("covar_samp", "covar_pop", "corr", *REGRESSIONS)


def _of_one(name: str) -> Function:
    fn = cast(AggregateFunction, allowed(name, AggregateFunction))

    def build(value: Expr) -> Expr:
        return AggCall(fn=fn, arg=value)

    return Function(name, build, 1, 1)


def _of_two(name: str) -> Function:
    fn = cast(AggregateFunction, allowed(name, AggregateFunction))

    def build(value: Expr, other: Expr) -> Expr:
        return AggCall(fn=fn, arg=value, other=other)

    return Function(name, build, 2, 2)


FUNCTIONS = (*(_of_one(n) for n in _ONE_COLUMN), *(_of_two(n) for n in _TWO_COLUMNS))
