"""The functions of the task's identity and randomness
(``planner.logical.functions.task_values``): ``monotonically_increasing_id`` and
``spark_partition_id`` against real PySpark over a range cut into Spark's slices (our tasks
are then Spark's partitions, so the ids are Spark's exactly); ``rand``/``randn`` have
Spark's names and types, but not its random stream, so their values are checked for what
they promise: in range, repeatable, spread, and filtered as drawn."""

from __future__ import annotations

import math
import statistics

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

#: A placeholder frame: the programs read its session's ``range``.
ONE = pa.table({"x": pa.array([1], pa.int64())})


def identities(api, df):
    F_ = api.F
    ranged = df.sparkSession.range(0, 23, numPartitions=3)
    return ranged.select(
        "id", F_.monotonically_increasing_id(), F_.spark_partition_id(),
        F_.expr("monotonically_increasing_id() + spark_partition_id()").alias("sql"),
        # the names and types of the random functions, and values Spark's stream shares
        (F_.rand(5) >= 0) & (F_.rand(5) < 1), F_.randn(-3).isNotNull(), F_.random(4) < 1,
        F_.expr("rand(2) < 1 AND randn(2) IS NOT NULL").alias("sql_rand"),
        F_.expr("rand() < 1"), F_.expr("random() < 1 AND randn() < 10"),
    )


@pytest.mark.slow
def test_task_identity_matches_pyspark(spark, sessions) -> None:
    assert_same(identities, [ONE], spark, sessions)


def test_random_values_are_repeatable_spread_and_filterable(sessions) -> None:
    session = sessions[-1]
    df = session.range(0, 4000, numPartitions=4).select(
        "id", F.rand(11).alias("u"), F.randn(11).alias("n"), F.random(12).alias("v"),
        F.spark_partition_id().alias("p"))
    first, again = df.toArrow(), df.toArrow()
    assert first.equals(again), "a plan run again draws the same values"
    u, n, v = (first.column(c).to_pylist() for c in ("u", "n", "v"))
    assert all(0.0 <= x < 1.0 for x in u + v)
    assert len(set(u)) == len(u) and u != v, "each row, and each seed, draws its own"
    assert len(set(first.column("p").to_pylist())) == 4, "the range ran as four tasks"
    assert abs(statistics.fmean(u) - 0.5) < 0.03 and abs(statistics.fmean(n)) < 0.1
    assert abs(statistics.stdev(n) - 1.0) < 0.1 and all(math.isfinite(x) for x in n)
    kept = session.range(0, 4000, numPartitions=4).filter(F.rand(3) < 0.25).count()
    assert 800 < kept < 1200, "a filter keeps rows as drawn, in a QUALIFY"


def test_what_is_not_supported_is_refused_when_planned(sessions) -> None:
    df = sessions[0].range(3)
    with pytest.raises(AnalysisError, match="rand takes an int literal seed"):
        df.select(F.expr("rand(id)")).schema
    with pytest.raises(AnalysisError, match="inside an aggregate call are not supported"):
        df.groupBy("id").agg(F.sum(F.rand(1))).schema
    with pytest.raises(AnalysisError, match="inside an aggregate call are not supported"):
        df.selectExpr("max(monotonically_increasing_id())").schema
    assert df.withColumn("r", F.rand(1)).agg(F.sum("r")).count() == 1
