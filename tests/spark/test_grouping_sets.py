"""Grouping sets against real PySpark (``compare.py``): ``df.rollup``/``df.cube`` with
``F.grouping``/``F.grouping_id``, and ``ROLLUP``/``CUBE``/``GROUPING SETS`` in SQL text:
names (``grouping(a)``, ``grouping_id()``), types (tinyint, bigint, keys keeping theirs) and
values on 1 and 3 workers, after a ``repartition`` so each group's rows are in several
tasks. The keys hold NULL values of their own beside the NULLs of the grand totals."""

from __future__ import annotations

import pyarrow as pa
import pytest

from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

N = 60
DATA = pa.table({
    "a": pa.array([None if n % 9 == 0 else n % 3 for n in range(N)], pa.int32()),
    "b": pa.array([None if n % 7 == 0 else f"s{n % 4}" for n in range(N)]),
    "c": pa.array([n * 3 % 11 for n in range(N)], pa.int64()),
    "x": pa.array([n / 8 for n in range(N)], pa.float64()),
})


def sql(text: str):  # noqa: ANN201
    """A program running ``text`` over the frame, repartitioned, as view ``t``."""

    def program(api, df):  # noqa: ANN001, ANN202
        df.repartition(3).createOrReplaceTempView("t")
        run = df.sparkSession.sql if hasattr(df, "sparkSession") else df._executor.sql
        return run(text)

    return program


@pytest.mark.slow
def test_dataframe_rollup_and_cube(spark, sessions) -> None:
    def program(api, df):
        F = api.F
        rows = df.repartition(3)
        rolled = rows.rollup("a", "b").agg(
            F.grouping("a"), F.grouping_id(), F.grouping_id("a", "b"), F.sum("c"), F.avg("x"),
            (F.grouping("b") * 10 + F.count("*")).alias("mixed"))
        cubed = rows.cube("a", F.col("b").alias("bb")).agg(F.max("x"), F.grouping("b").alias("gb"))
        return rolled, cubed

    assert_same(lambda api, df: program(api, df)[0], [DATA], spark, sessions)
    assert_same(lambda api, df: program(api, df)[1], [DATA], spark, sessions)
    assert_same(lambda api, df: df.repartition(2).rollup("b").count(), [DATA], spark, sessions)
    assert_same(lambda api, df: df.repartition(2).groupingSets([["a", "b"], ["b"], []], "a", "b").agg(
        api.F.sum("c"), api.F.grouping_id()), [DATA], spark, sessions)


@pytest.mark.slow
def test_sql_rollup_cube_and_grouping_sets(spark, sessions) -> None:
    for text in (
        "SELECT a, b, grouping(a), grouping_id(), sum(c) FROM t GROUP BY ROLLUP(a, b)",
        "SELECT a + 1, b, grouping(b), sum(x) FROM t GROUP BY a + 1, CUBE(b)",
        "SELECT a, b, sum(c), grouping_id(a, b) FROM t GROUP BY GROUPING SETS ((a, b), (a), ())",
        "SELECT a, sum(c) FROM t GROUP BY a WITH ROLLUP",
        "SELECT a, b, count(*) AS n FROM t GROUP BY ROLLUP(a, b) HAVING grouping(b) = 0 AND n > 2",
    ):
        assert_same(sql(text), [DATA], spark, sessions)


@pytest.mark.slow
def test_sql_order_by_grouping(spark, sessions) -> None:
    text = ("SELECT a, grouping(a), grouping_id() AS g, sum(c) FROM t GROUP BY ROLLUP(a) "
            "ORDER BY grouping(a) DESC, g, a")
    assert_same(sql(text), [DATA], spark, sessions, ordered=True)
