"""The functions of the task's identity and randomness
(``planner.logical.functions.task_values``): ``monotonically_increasing_id`` and
``spark_partition_id`` against real PySpark over a range cut into Spark's slices (our tasks
are then Spark's partitions, so the ids are Spark's exactly); ``rand``/``randn`` have
Spark's names and types, but not its random stream, so their values are checked for what
they promise: in range, repeatable, spread, and filtered as drawn; so do ``uniform``,
``randstr`` and ``shuffle``, whose names and types (``typeof``) are compared with PySpark's
beside what their values keep whatever the stream (range, length, alphabet, elements)."""

from __future__ import annotations

import math
import statistics

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

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


def test_random_values_are_repeatable_spread_and_filterable(local_sessions) -> None:
    session = local_sessions[-1]
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


#: Arrays with NULLs, an empty one and a NULL one, for ``shuffle``.
ARRAYS = pa.table({"a": pa.array([[3, 1, None, 2], [], None, [7, 7]], pa.list_(pa.int32())),
                   "n": pa.array([5, 0, 2, None], pa.int32())})


def drawn(api, df):
    F_ = api.F
    return df.select(
        F_.typeof(F_.uniform(F_.lit(0), F_.lit(10), 3)), F_.typeof(F_.uniform(1.5, F_.lit(2), 4)),
        F_.typeof(F_.uniform(F_.lit(-5), F_.lit(10**12), 1)), F_.typeof(F_.uniform(F_.lit(None), 3, 1)),
        (F_.uniform(F_.lit(0), F_.lit(10), 3) >= 0) & (F_.uniform(F_.lit(0), F_.lit(10), 3) < 10),
        F_.uniform(F_.lit(-1.0), F_.lit(-0.5), 2) < -0.5,
        F_.length(F_.randstr(F_.lit(6), 2)), F_.randstr(F_.lit(0), 1), F_.randstr(F_.lit(12), 9).rlike("^[0-9a-zA-Z]+$"),
        F_.sort_array(F_.shuffle("a", 5)), F_.size(F_.shuffle("a")), F_.typeof(F_.shuffle("a", 1)),
        F_.expr("uniform(1, 100, 2) < 100 AND uniform(0.5, 12.25, 1) < 12.25").alias("sql_uniform"),
        F_.expr("typeof(uniform(1, 2.5, 1)) || typeof(uniform(0.5, 12.25)) || typeof(uniform(1Y, 2S, 1))"
                " || typeof(uniform(1, 2.5F, 1))").alias("sql_types"),
        F_.expr("length(randstr(4, 1))").alias("sql_randstr"),
        F_.expr("sort_array(shuffle(a))").alias("sql_shuffle"),
    )


@pytest.mark.slow
def test_drawn_values_match_pyspark_in_names_types_and_bounds(spark, sessions) -> None:
    assert_same(drawn, [ARRAYS], spark, sessions)


def test_drawn_values_cover_their_range_and_repeat(local_sessions) -> None:
    df = local_sessions[-1].range(0, 2000, numPartitions=4).select(
        F.uniform(0, 10, 7).alias("u"), F.randstr(3, 7).alias("s"),
        F.shuffle(F.array(F.lit(1), F.lit(2), F.lit(3)), 7).alias("p"))
    first, again = df.toArrow(), df.toArrow()
    assert first.equals(again), "a plan run again draws the same values"
    assert set(first.column("u").to_pylist()) == set(range(10)), "every integer of [0, 10), none else"
    assert len(set(first.column("s").to_pylist())) > 1900, "strings differ row by row"
    orders = first.column("p").to_pylist()
    assert all(sorted(p) == [1, 2, 3] for p in orders) and len({tuple(p) for p in orders}) == 6


def test_what_is_not_supported_is_refused_when_planned(sessions) -> None:
    df = sessions[0].range(3)
    with pytest.raises(AnalysisError, match="rand takes an int literal seed"):
        df.select(F.expr("rand(id)")).schema
    with pytest.raises(AnalysisError, match="inside an aggregate call are not supported"):
        df.groupBy("id").agg(F.sum(F.rand(1))).schema
    with pytest.raises(AnalysisError, match="uniform takes constant bounds"):
        df.select(F.uniform(0, F.col("id"))).schema
    with pytest.raises(AnalysisError, match="inside an aggregate call are not supported"):
        df.selectExpr("max(monotonically_increasing_id())").schema
    assert df.withColumn("r", F.rand(1)).agg(F.sum("r")).count() == 1
