"""Spark's other spellings of the aggregates, ``mode`` and ``try_sum``/``try_avg``
(``planner.logical.functions.aggregate_forms``) against real PySpark: one grouped ``agg``
(DataFrame API and SQL text) and one window over one table of edges:
a bigint sum past 2**63 (NULL), groups of only NULLs, NaN, -0.0 beside 0.0 in ``mode``,
ties in ``mode(x, true)`` (the least, as Spark) and none in ``mode(x)`` (where Spark takes
any), one non-NULL value per group where ``first_value`` would otherwise pick any row; the
session's functions (``current_user`` ...) ride along in the window's select."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import AnalysisError, Window
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

NAN = float("nan")
BIG = 2**62
DATA = pa.table({
    "k": pa.array(["a", "a", "a", "b", "b", "c", "d", "d", "d", "d"]),
    "i": pa.array([3, 3, None, 7, 7, None, 0, 9, 0, 2], pa.int32()),
    "x": pa.array([1.5, None, -2.0, NAN, NAN, None, -0.0, 0.0, 10.0, 10.0]),
    "s": pa.array(["p", "p", "q", None, "r", None, "z", "y", "z", None]),
    "l": pa.array([BIG, BIG, 5, 1, 2, None, 3, -4, 10, 1], pa.int64()),
    "f": pa.array([None, 5, None, None, None, None, 8, None, None, None], pa.int32()),
    "o": pa.array(range(10), pa.int64()),
})


def grouped(api, df):
    F_ = api.F
    return df.groupBy("k").agg(
        F_.first_value("k"), F_.last_value("f", True), F_.first_value("f", ignoreNulls=True),
        F_.sort_array(F_.array_agg("i")), F_.approx_percentile("i", 0.5),
        F_.approx_percentile("l", [0.25, 0.75], 100), F_.mode("i"), F_.mode("s"), F_.mode("x", True),
        F_.approx_percentile("x", 0.5),
        F_.try_sum("i"), F_.try_sum("l"), F_.try_sum("x"), F_.try_avg("i"), F_.try_avg("l"),
        F_.try_avg("x"),
        *(F_.expr(text).alias(f"sql{n}") for n, text in enumerate((
            "mode(s)", "try_sum(l)", "try_avg(i)", "last_value(f, true)", "first_value(k)",
            "percentile_approx(i, 0.5)", "mode(x, true)"))),
    )


def windowed(api, df):
    F_ = api.F
    w = api.Window.partitionBy("k").orderBy("o")
    return df.select("o", F_.try_sum("l").over(w), F_.try_avg("i").over(w), F_.first_value("i").over(w),
                     F_.last_value("f", True).over(w),
                     F_.expr("first_value(f) IGNORE NULLS OVER (PARTITION BY k ORDER BY o)"),
                     # the session's functions (planner.logical.functions.session_info)
                     F_.current_database(), F_.current_catalog(), F_.current_user(), F_.user(),
                     F_.session_user(), F_.expr("current_catalog()").alias("sql_catalog"),
                     # try_make_timestamp (planner.logical.functions.try_calendar): days
                     # 25-34 of February, seconds 0-67.5 (out of range NULL, 60 the next minute)
                     *(getattr(F_, name)(F_.lit(2024), F_.lit(2), F_.col("o") + 25, F_.col("o") + 20,
                                         F_.lit(59), F_.col("o") * 7.5)
                       for name in ("try_make_timestamp", "try_make_timestamp_ltz",
                                    "try_make_timestamp_ntz")),
                     F_.expr("try_make_timestamp(2024, 13, o, 1, 2, 3)").alias("sql_ts"))


def inlined(api, df):
    """``inline_outer`` of an array of structs (a NULL struct in it), NULL for half the rows."""
    F_ = api.F
    pairs = F_.array(F_.struct("i", "s"), F_.struct(F_.col("f").alias("i"), F_.col("k").alias("s")))
    return df.select("o", F_.inline_outer(F_.when(F_.col("o") < 6, pairs)))


@pytest.mark.slow
def test_aggregate_forms_match_pyspark(spark, sessions) -> None:
    assert_same(grouped, [DATA], spark, sessions)
    assert_same(windowed, [DATA], spark, sessions, time_zone="America/New_York")
    assert_same(inlined, [DATA], spark, sessions)


def test_version_is_the_spark_version_followed(sessions) -> None:
    import pyspark

    from sparkwire.coordinator import catalog
    from sparkwire.planner.logical.functions import session_info

    (row,) = sessions[0].sql("select version() AS v, current_database() AS d").collect()
    assert row.v.split(" ")[0] == pyspark.__version__
    assert row.v.split(" ")[1].startswith("sparkwire-")
    assert (row.d, session_info.CATALOG) == (catalog.DATABASE, catalog.CATALOG)


def test_what_cannot_be_exact_is_refused(sessions) -> None:
    df = sessions[0].createDataFrame(DATA)
    with pytest.raises(AnalysisError, match="mode over a window"):
        df.select(F.mode("i").over(Window.orderBy("o"))).schema
    with pytest.raises(AnalysisError, match="try_sum of a decimal"):
        df.select(F.try_sum(F.col("i").cast("decimal(10,2)"))).schema
    with pytest.raises(AnalysisError, match="deterministic takes a bool"):
        F.mode("i", "yes")  # type: ignore[arg-type]
