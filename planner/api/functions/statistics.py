"""PySpark's statistical aggregates (``F.stddev``, ``F.corr`` ...): re-exported by
``planner.api.functions``; built, and their semantics written down, in
``planner.logical.functions.statistics``."""

from __future__ import annotations

from collections.abc import Callable

from sparkwire.planner.api.column import Column, ColumnOrName, to_column
from sparkwire.planner.api.functions.core import call


def stddev(col: ColumnOrName) -> Column:
    return call("stddev", to_column(col).expr)


def std(col: ColumnOrName) -> Column:
    return call("std", to_column(col).expr)


def stddev_samp(col: ColumnOrName) -> Column:
    return call("stddev_samp", to_column(col).expr)


def stddev_pop(col: ColumnOrName) -> Column:
    return call("stddev_pop", to_column(col).expr)


def variance(col: ColumnOrName) -> Column:
    return call("variance", to_column(col).expr)


def var_samp(col: ColumnOrName) -> Column:
    return call("var_samp", to_column(col).expr)


def var_pop(col: ColumnOrName) -> Column:
    return call("var_pop", to_column(col).expr)


def skewness(col: ColumnOrName) -> Column:
    return call("skewness", to_column(col).expr)


def kurtosis(col: ColumnOrName) -> Column:
    return call("kurtosis", to_column(col).expr)


def covar_samp(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    return call("covar_samp", to_column(col1).expr, to_column(col2).expr)


def covar_pop(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    return call("covar_pop", to_column(col1).expr, to_column(col2).expr)


def corr(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    return call("corr", to_column(col1).expr, to_column(col2).expr)


def _regression(name: str) -> Callable[[ColumnOrName, ColumnOrName], Column]:
    """PySpark's ``regr_*(y, x)``, named ``name``."""

    def regression(y: ColumnOrName, x: ColumnOrName) -> Column:
        return call(name, to_column(y).expr, to_column(x).expr)

    regression.__name__ = regression.__qualname__ = name
    return regression


regr_count = _regression("regr_count")
regr_avgx = _regression("regr_avgx")
regr_avgy = _regression("regr_avgy")
regr_sxx = _regression("regr_sxx")
regr_syy = _regression("regr_syy")
regr_sxy = _regression("regr_sxy")
regr_slope = _regression("regr_slope")
regr_intercept = _regression("regr_intercept")
regr_r2 = _regression("regr_r2")

__all__ = [
    "regr_avgx", "regr_avgy", "regr_count", "regr_intercept", "regr_r2", "regr_slope", "regr_sxx",
    "regr_sxy", "regr_syy",
    "corr", "covar_pop", "covar_samp", "kurtosis", "skewness", "std", "stddev", "stddev_pop",
    "stddev_samp", "var_pop", "var_samp", "variance",
]
