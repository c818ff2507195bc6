"""The functions of ``pyspark.sql.functions`` that draw random values or read the task
computing the row (``rand``, ``monotonically_increasing_id`` ...); built, and Spark's rules
and ours written down, in ``planner.logical.functions.task_values``."""

from __future__ import annotations

import random as _random
from collections.abc import Callable

from sparkwire.planner.api.column import Column, ColumnOrName, Value, lit, to_column
from sparkwire.planner.api.functions.core import call
from sparkwire.planner.logical import expressions as ex

__all__ = ["monotonically_increasing_id", "rand", "randn", "random", "randstr", "shuffle",
           "spark_partition_id", "uniform"]


def _seeded(name: str) -> Callable[[int | None], Column]:
    """PySpark draws a missing seed itself, so the column is named with it (``rand(83...)``),
    where SQL's ``rand()`` keeps it hidden."""
    def function(seed: int | None = None) -> Column:
        drawn = seed if seed is not None else _random.randint(-(2**63), 2**63 - 1)
        return call(name, ex.Lit(value=drawn))

    function.__name__ = function.__qualname__ = name
    return function


rand = _seeded("rand")
randn = _seeded("randn")
random = _seeded("random")


def monotonically_increasing_id() -> Column:
    return call("monotonically_increasing_id")


def spark_partition_id() -> Column:
    return call("spark_partition_id")


def _seed(seed: Column | int | None) -> ex.Expr:
    """PySpark draws a missing seed (its JVM side does, and names the column with it)."""
    return lit(_random.randint(-(2**63), 2**63 - 1) if seed is None else seed).expr


def uniform(min: Column | Value, max: Column | Value, seed: Column | int | None = None) -> Column:  # noqa: A002
    return call("uniform", lit(min).expr, lit(max).expr, _seed(seed))


def randstr(length: Column | int, seed: Column | int | None = None) -> Column:
    return call("randstr", lit(length).expr, _seed(seed))


def shuffle(col: ColumnOrName, seed: Column | int | None = None) -> Column:
    return call("shuffle", to_column(col).expr, *(() if seed is None else (lit(seed).expr,)))
