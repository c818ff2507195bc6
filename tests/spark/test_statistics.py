"""The statistical aggregates against real PySpark (``compare.py``): names, types and values
on 1 and 3 workers, grouped and global, after a ``repartition`` so each group's rows are
spread over tasks and its partial sums merge after the shuffle (two phases, as ``avg``).
Spark 4's edge cases: NULL for no rows, for one row in the sample forms, for no spread in
``skewness``/``kurtosis``/``corr``; NaN in, NaN out; a pair counts only when both are set."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire.planner.errors import AnalysisError
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

N = 240
#: Group 0's mean is 60 times its spread: its kurtosis from power sums keeps ~9 digits
#: (planner.optimizer.rules.moments), Spark's running moments a few more.
REL = 1e-7


def _x(n: int) -> float | None:
    group = n % 6
    if group == 0:
        return None if n % 5 == 0 else 100.0 + (n * 37) % 23 / 4   # spread around 100
    if group == 1:
        return 0.1                                                  # constant fractions
    if group == 2:
        return 2.5 if n == 2 else None                              # one row
    if group == 3:
        return float("nan") if n == 9 else float(n % 7)             # NaN in the group
    return float((n * 7919) % 1000 - 500) / 8                       # groups 4, 5


DATA = pa.table({
    "k": [n % 6 for n in range(N)],
    "x": [_x(n) for n in range(N)],
    "y": [None if n % 7 == 3 else ((n * 13) % 17 - 8) * 1.5 + (n % 6) for n in range(N)],
    "i": pa.array([(n * 31) % 11 - 5 for n in range(N)], pa.int32()),
})


def _statistics(F, x: str, y: str) -> list:
    return [
        F.stddev(x), F.std(x), F.stddev_samp(x), F.stddev_pop(x), F.variance(x), F.var_samp(x),
        F.var_pop(x), F.skewness(x), F.kurtosis(x), F.covar_samp(x, y), F.covar_pop(x, y),
        F.corr(x, y), F.corr(y, x),
    ]


@pytest.mark.slow
def test_grouped_statistics_over_several_tasks(spark, sessions) -> None:
    def program(api, df):
        F = api.F
        dec = F.col("i").cast("decimal(6,2)")
        return df.repartition(3).groupBy("k").agg(
            *_statistics(F, "x", "y"), F.stddev(dec).alias("sd_dec"), F.skewness("i"),
            F.corr("i", "x"), (F.var_pop("i") * 2 + F.avg("i")).alias("mixed"))

    assert_same(program, [DATA], spark, sessions, rel=REL)


@pytest.mark.slow
def test_global_statistics_and_no_rows(spark, sessions) -> None:
    def program(api, df, empty: bool):
        F = api.F
        rows = df.where(F.col("k") > 10) if empty else df.repartition(3)
        return rows.agg(*_statistics(F, "y", "i"))

    for empty in (False, True):
        assert_same(lambda api, df: program(api, df, empty), [DATA], spark, sessions)


@pytest.mark.slow
def test_statistics_in_sql_text(spark, sessions) -> None:
    names = ("stddev", "std", "stddev_samp", "stddev_pop", "variance", "var_pop", "skewness", "kurtosis")

    def program(api, df):
        F = api.F
        return df.repartition(2).groupBy("k").agg(
            *(F.expr(f"{n}(x)") for n in names),
            *(F.expr(f"{n}(x, y)") for n in ("covar_samp", "covar_pop", "corr")))

    assert_same(program, [DATA], spark, sessions, rel=REL)


def test_statistics_over_a_window_say_so(sessions) -> None:
    from sparkwire import Window, functions as F

    df = sessions[0].createDataFrame(DATA)
    with pytest.raises(AnalysisError, match="skewness over a window is not supported"):
        df.select(F.skewness("x").over(Window.partitionBy("k")))
