"""Windows over aggregates and sorts on what a query does not select, against real PySpark
on 1 and 3 workers: names (unaliased ones as Spark writes them), Spark types (``rank`` an
int, ``avg`` of a decimal sum a decimal of Spark's precision) and values, in SQL and in the
DataFrame API (agg, then a window; ``orderBy`` of a column dropped by ``select`` or of an
aggregate after ``agg``). Sorted results compare in order; each sort ends on a unique key.

The data has NULL keys, NULL values and ties in the sums; every sum is positive (a ratio to
a sum of 0 fails in Spark with ANSI on)."""

from __future__ import annotations

import decimal

import pyarrow as pa
import pytest

from tests.spark.compare import assert_same, sql_program

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

pytestmark = pytest.mark.slow

_N = 24
DATA = pa.table({
    "id": pa.array(range(_N), pa.int64()),
    "k": pa.array([None if i % 7 == 0 else ["ab", "b", "ca", ""][i % 4] for i in range(_N)]),
    "g": pa.array([None if i % 10 == 3 else i % 3 for i in range(_N)], pa.int32()),
    "x": pa.array([None if i % 5 == 4 else (i * 7) % 11 + 1 for i in range(_N)], pa.int64()),
    "amt": pa.array([decimal.Decimal(f"{(i * 13) % 29}.{(i * 7) % 100:02d}") for i in range(_N)],
                    pa.decimal128(7, 2)),
})

SQL = [
    "SELECT k, g, SUM(x), SUM(x) * 100 / SUM(SUM(x)) OVER (PARTITION BY k) FROM t GROUP BY k, g",
    "SELECT k, g, RANK() OVER (PARTITION BY k ORDER BY SUM(x) DESC) AS rk, "
    "AVG(SUM(amt)) OVER (PARTITION BY k) AS av FROM t GROUP BY k, g",
    "SELECT g, SUM(SUM(x)) OVER (ORDER BY g) AS running, COUNT(*) AS n FROM t GROUP BY g",
    "SELECT count(*) FROM t WHERE x > 0 ORDER BY count(*)",
]

SQL_SORTED = [
    "SELECT id FROM t ORDER BY x DESC, id",
    "SELECT g, count(DISTINCT k) FROM t GROUP BY g ORDER BY sum(x) DESC, g",
    "SELECT id AS i FROM t ORDER BY substring(k, 1, 1) DESC, id",
    "SELECT s.id FROM (SELECT id, k FROM t) s ORDER BY s.k, s.id",
]


@pytest.mark.parametrize("text", SQL)
def test_sql_matches_pyspark(spark, sessions, text: str) -> None:
    assert_same(sql_program(text), [DATA], spark, sessions)


@pytest.mark.parametrize("text", SQL_SORTED)
def test_sql_sorted_on_what_it_does_not_select_matches_pyspark(spark, sessions, text: str) -> None:
    assert_same(sql_program(text), [DATA], spark, sessions, ordered=True)


def agg_then_windows(api, df):
    F, Window = api.F, api.Window
    by_k = Window.partitionBy("k")
    return (df.groupBy("k", "g").agg(F.sum("x").alias("s"), F.sum("amt").alias("a"))
            .withColumn("share", F.col("s") * 100 / F.sum("s").over(by_k))
            .withColumn("rk", F.rank().over(by_k.orderBy(F.desc("s"))))
            .withColumn("av", F.avg("a").over(by_k)))


def select_then_sort_on_dropped(api, df):
    return df.select("id").orderBy(api.F.col("x").desc(), "id")


def agg_then_sort_on_aggregate(api, df):
    F = api.F
    return df.groupBy("g").agg(F.count("*").alias("n")).orderBy(F.sum("x").desc(), "g")


def expression_sort(api, df):
    F = api.F
    return df.select((F.col("id") * 2).alias("d")).orderBy(F.substring("k", 1, 1), "d")


def test_agg_then_windows_match_pyspark(spark, sessions) -> None:
    assert_same(agg_then_windows, [DATA], spark, sessions)


@pytest.mark.parametrize("program", [select_then_sort_on_dropped, agg_then_sort_on_aggregate, expression_sort])
def test_dataframe_sorted_on_what_it_does_not_select_matches_pyspark(spark, sessions, program) -> None:
    assert_same(program, [DATA], spark, sessions, ordered=True)
