"""Window functions against real PySpark: the same programs on the same data, on one
worker and on three (where a window's input is shuffled on its partition keys, or gathered
into one task without them), compared by names, types and values (``compare.py``).

The data has NULLs in partition keys, order keys and values, ties in the order keys, an
empty-string key, negatives, zero, NaN, a leap day and month ends. Where Spark leaves a
result to the row order (``row_number``, ``lag``, a ``ROWS`` frame among tied rows) the
window orders by a unique ``id`` last, so the answer is determined.
"""

from __future__ import annotations

import datetime as dt
import decimal

import pyarrow as pa
import pytest

from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

pytestmark = pytest.mark.slow

_KEYS = ["a", "b", "a", None, "", "b", "a", "c", None, "a", "b", "", "a", "c", "b", "a", None, "b"]
_GRADES = [3, 1, 3, 2, None, 1, 5, 0, 2, None, -4, 7, 3, 0, 1, -1, None, 9]
_XS = [1.5, None, -2.0, 0.0, 4.25, float("nan"), 3.0, -0.5, None, 10.0, 2.0, -7.5, 0.0, 8.0,
       1.0, None, 6.5, -3.25]
_DAYS = [dt.date(2024, 2, 29), dt.date(2023, 1, 31), None, dt.date(2024, 12, 31),
         dt.date(2000, 2, 29), dt.date(2023, 4, 30), dt.date(1999, 12, 31), None,
         dt.date(2024, 3, 1), dt.date(2023, 2, 28), dt.date(2024, 2, 29), dt.date(2020, 6, 30),
         dt.date(1970, 1, 1), dt.date(2024, 1, 31), None, dt.date(2022, 11, 30),
         dt.date(2021, 9, 30), dt.date(2024, 2, 28)]
_AMOUNTS = [decimal.Decimal(v) if v is not None else None for v in (
    "12.50", "-3.00", None, "0.00", "7.25", "100.10", "-0.05", "3.30", "12.50", None, "1.00",
    "-9.99", "4.40", "0.01", "2.20", "5.00", "-1.10", "8.80")]

DATA = pa.table({
    "id": pa.array(range(1, len(_KEYS) + 1), pa.int64()),
    "k": pa.array(_KEYS, pa.string()),
    "g": pa.array(_GRADES, pa.int32()),
    "x": pa.array(_XS, pa.float64()),
    "day": pa.array(_DAYS, pa.date32()),
    "amount": pa.array(_AMOUNTS, pa.decimal128(10, 2)),
    "s": pa.array(["p", "q", None, "", "r", "s", "t", "u", "v", None, "w", "x", "y", "z", "",
                   "aa", "bb", "cc"], pa.string()),
})


def _ranking_and_offsets(api, df):  # noqa: ANN001, ANN202 - a program for both engines
    F, W = api.F, api.Window  # noqa: N806
    by_g = W.partitionBy("k").orderBy("g")
    by_id = W.partitionBy("k").orderBy("id")
    g_desc = W.partitionBy("k").orderBy(F.col("g").desc(), "id")
    return df.select(
        "id", "k", "g",
        F.row_number().over(g_desc).alias("rn"),
        F.rank().over(by_g).alias("rk"),
        F.dense_rank().over(W.partitionBy("k").orderBy(F.col("g").desc_nulls_first())).alias("drk"),
        F.percent_rank().over(by_g).alias("prk"),
        F.cume_dist().over(by_g).alias("cd"),
        F.ntile(3).over(by_id).alias("nt"),
        F.ntile(1).over(W.orderBy("id")).alias("nt1"),
        F.lag("x").over(by_id).alias("lag_x"),
        F.lag("g", 2, -1).over(by_id).alias("lag_g"),
        F.lag("s", -1).over(by_id).alias("lag_neg"),
        F.lead("s", 1, "none").over(by_id).alias("lead_s"),
        F.lead("day", 2).over(W.orderBy(F.col("day").asc_nulls_last(), "id")).alias("lead_day"),
        F.lead("amount").over(by_id).alias("lead_amount"),
        F.rank().over(W.orderBy(F.col("k").desc_nulls_last())).alias("global_rank"),
        F.row_number().over(W.partitionBy(F.length("s")).orderBy(F.col("id").desc())).alias("rn_expr"),
        (F.dense_rank().over(by_g) * 10 + 1).alias("drk_expr"),
    )


def _aggregates_and_frames(api, df):  # noqa: ANN001, ANN202
    F, W = api.F, api.Window  # noqa: N806
    part = W.partitionBy("k")
    by_g = W.partitionBy("k").orderBy("g")
    by_id = W.partitionBy("k").orderBy("id")
    return df.select(
        "id", "k",
        F.sum("g").over(by_g).alias("sum_running"),
        F.sum("x").over(part).alias("sum_all"),
        F.avg("g").over(part).alias("avg_all"),
        F.sum("amount").over(part).alias("sum_amount"),
        F.min("s").over(by_id.rowsBetween(-1, 1)).alias("min_s"),
        F.max("day").over(W.orderBy("id").rowsBetween(W.currentRow, 2)).alias("max_day"),
        F.count("*").over(by_g).alias("cnt_peers"),
        F.count("x").over(by_id.rowsBetween(W.unboundedPreceding, -1)).alias("cnt_before"),
        F.sum("g").over(by_id.rowsBetween(2, 3)).alias("sum_ahead"),
        F.max("x").over(by_id.rowsBetween(-2, W.unboundedFollowing)).alias("max_rest"),
        F.first("x").over(by_id).alias("first_x"),
        F.first("x", True).over(by_id.rowsBetween(-2, 2)).alias("first_nn"),
        F.last("x").over(by_id.rowsBetween(W.unboundedPreceding, W.unboundedFollowing)).alias("last_x"),
        F.last("s", ignorenulls=True).over(by_id).alias("last_nn"),
        F.sum("id").over(by_g.rangeBetween(-1, 1)).alias("range_sum"),
        F.count("*").over(W.partitionBy("k").orderBy(F.col("g").desc()).rangeBetween(-2, 0)).alias("range_desc"),
        F.max("id").over(by_g.rangeBetween(W.currentRow, W.unboundedFollowing)).alias("range_rest"),
        F.min("id").over(by_g.rangeBetween(1, 5)).alias("range_ahead"),
        F.sum("id").over(W.orderBy("amount").rangeBetween(-5, 5)).alias("range_decimal"),
        F.avg("amount").over(W.partitionBy("k").orderBy("id").rowsBetween(-1, 0)).alias("avg_amount"),
        (F.sum("g").over(part) - F.col("g")).alias("others"),
        F.sum("id").over(W.partitionBy("k").orderBy("x").rangeBetween(-1, 1)).alias("range_nan"),
        F.count("*").over(W.orderBy(F.col("x").desc()).rangeBetween(-3, 0)).alias("range_nan_desc"),
    )


def test_ranking_and_offset_functions_match_pyspark(spark, sessions) -> None:
    assert_same(_ranking_and_offsets, [DATA], spark, sessions)


def test_aggregates_over_every_kind_of_frame_match_pyspark(spark, sessions) -> None:
    assert_same(_aggregates_and_frames, [DATA], spark, sessions)


def _aggregates_with_defaults(api, df):  # noqa: ANN001, ANN202
    """Aggregates with a value for no rows (``collect_list``'s ``[]``, ``count_if``'s 0) over
    windows, and functions of them: a ROWS frame ahead of the last row is empty."""
    F, W = api.F, api.Window  # noqa: N806
    running = W.partitionBy("k").orderBy("id")
    ahead = running.rowsBetween(1, 2)
    return df.select(
        "id", "k",
        F.size(F.collect_list("g").over(running)).alias("seen"),
        F.sort_array(F.collect_set("g").over(ahead)).alias("next_two"),
        F.count_if(F.col("g") > 0).over(ahead).alias("positive_ahead"),
    )


def test_aggregates_with_defaults_over_windows_match_pyspark(spark, sessions) -> None:
    assert_same(_aggregates_with_defaults, [DATA], spark, sessions)


#: Decimals with more digits than a double holds: an average through a double is off.
WIDE = pa.table({
    "k": pa.array(["a", "a", "a", "b", "b", None], pa.string()),
    "id": pa.array(range(6), pa.int64()),
    "d": pa.array([decimal.Decimal(v) if v else None for v in (
        "12345678901234567.89", "0.01", "0.02", "-98765432109876543.21", None, "7.77")],
        pa.decimal128(20, 2)),
})


def test_decimal_averages_over_windows_are_exact(spark, sessions) -> None:
    """``avg`` of a decimal over a window is Spark's exact quotient (as a grouped ``avg``),
    over running, whole-partition and empty frames, and inside an expression."""
    def program(api, df):  # noqa: ANN001, ANN202
        F, W = api.F, api.Window  # noqa: N806
        running = W.partitionBy("k").orderBy("id")
        return df.select(
            "id", F.avg("d").over(running).alias("running"),
            (F.avg("d").over(W.partitionBy("k")) * 2).alias("twice"),
            F.avg("d").over(running.rowsBetween(1, 1)).alias("next"),
        )

    assert_same(program, [WIDE], spark, sessions)


def _around_other_operators(api, df):  # noqa: ANN001, ANN202
    """withColumn, a filter on a partition key (moved below the window) and one on a
    window column (kept above it), an aggregate after, and a window over no rows."""
    F, W = api.F, api.Window  # noqa: N806
    ranked = (
        df.withColumn("rk", F.rank().over(W.partitionBy("k").orderBy(F.col("x").desc())))
        .withColumn("total", F.sum("g").over(W.partitionBy("k")))
        .filter(F.col("k").isNotNull() & (F.col("rk") <= 2))
    )
    per_key = ranked.groupBy("k").agg(F.count("*").alias("n"), F.max("total").alias("total"),
                                      F.sum("rk").alias("ranks"))
    empty = df.filter(F.col("id") < 0).select(
        F.col("k"), F.row_number().over(W.orderBy("id")).cast("bigint").alias("n"),
        F.sum("g").over(W.partitionBy("k")).alias("total"), F.lit(0).cast("bigint").alias("ranks"))
    return per_key.union(empty)


def test_windows_among_other_operators_match_pyspark(spark, sessions) -> None:
    assert_same(_around_other_operators, [DATA], spark, sessions)


FIRSTS = pa.table({
    "k": pa.array(["a", "a", "a", "b", "b", "c", "c", None, None], pa.string()),
    "x": pa.array([None, 5, None, None, None, 7, 7, 2, 2], pa.int64()),
    "s": pa.array(["u", "u", "u", None, None, "", "", "n", "n"], pa.string()),
})


def _determined_firsts(api, df):  # noqa: ANN001, ANN202
    """first/last of groups whose answer does not depend on the row order: one non-NULL
    value among NULLs (ignorenulls), all NULL, or all equal."""
    F = api.F  # noqa: N806
    return df.groupBy("k").agg(
        F.first("x", True).alias("first_nn"), F.last("x", ignorenulls=True).alias("last_nn"),
        F.first("s").alias("first_s"), F.last("s").alias("last_s"),
    )


def test_first_and_last_as_aggregates_match_pyspark(spark, sessions) -> None:
    assert_same(_determined_firsts, [FIRSTS], spark, sessions)


SQL = """
SELECT id, k,
       row_number() OVER (PARTITION BY k ORDER BY g DESC NULLS LAST, id) AS rn,
       rank() OVER w AS rk,
       dense_rank() OVER w AS drk,
       cume_dist() OVER w AS cd,
       ntile(2) OVER (PARTITION BY k ORDER BY id) AS nt,
       lag(x, 2, 0) OVER (PARTITION BY k ORDER BY id) AS lag_x,
       lead(s) OVER (PARTITION BY k ORDER BY id) AS lead_s,
       sum(g) OVER w AS running,
       sum(id) OVER (PARTITION BY k ORDER BY g NULLS FIRST RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) AS near,
       avg(x) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS moving,
       count(*) OVER (PARTITION BY k) AS n,
       first_value(s) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING) AS later,
       max(id) OVER () + 0 * id AS top,
       g - min(g) OVER (PARTITION BY k) AS above_min
FROM t
WINDOW w AS (PARTITION BY k ORDER BY g NULLS FIRST)
"""


def test_sql_windows_match_pyspark(spark, sessions) -> None:
    """``OVER`` clauses and a named window through ``spark.sql`` and ``session.sql`` (the
    sparkwire DataFrame's executor is its session)."""

    def program(api, df):  # noqa: ANN001, ANN202
        df.createOrReplaceTempView("t")
        run = df.sparkSession.sql if hasattr(df, "sparkSession") else df._executor.sql
        return run(SQL)

    assert_same(program, [DATA], spark, sessions)


#: nth_value's edges: NULLs to skip or count, NaN, -0.0, a frame shorter than n, a NULL
#: partition; order keys without ties inside a partition, so each frame's rows are certain.
NTH = pa.table({
    "k": ["a", "a", "a", "a", "b", "b", None],
    "o": pa.array([1, 2, 3, 4, 1, 2, 5], pa.int64()),
    "x": pa.array([None, 2.5, None, -0.0, float("nan"), 7.0, 1.0]),
})


def nth_values(api, df):
    F, W = api.F, api.Window
    w = W.partitionBy("k").orderBy("o")
    return df.select(
        "k", "o", F.nth_value("x", 2).over(w), F.nth_value("x", 1, True).over(w).alias("a"),
        F.nth_value("x", 2).over(w.rowsBetween(W.unboundedPreceding, W.unboundedFollowing)).alias("b"),
        F.nth_value("o", 3, ignoreNulls=True).over(w.rowsBetween(-1, 1)),
        F.expr("nth_value(x, 2) IGNORE NULLS OVER (PARTITION BY k ORDER BY o)").alias("s"),
    )


@pytest.mark.slow
def test_nth_value_matches_pyspark(spark, sessions) -> None:
    assert_same(nth_values, [NTH], spark, sessions)
