"""DataFrame methods against real PySpark: ``describe``/``summary`` (strings formatted as
Spark formats them), ``agg`` with a dict, ``groupBy().pivot()``, ``createDataFrame`` from
rows with each schema form, ``session.range``, ``cast`` to type objects."""

from __future__ import annotations

import datetime as dt
import decimal
import time

import pyarrow as pa
import pytest

from sparkwire.planner.errors import AnalysisError
from tests.spark.compare import _assert_rows, assert_same, normalize

pytestmark = pytest.mark.connect

NAN = float("nan")
DATA = pa.table({
    "k": pa.array(["a", "b", "a", None, "b", "a", "c"], pa.string()),
    "p": pa.array([1, 2, None, 1, 2, 3, 1], pa.int32()),
    "i": pa.array([1, 2, None, 4, 4, -3, 0], pa.int32()),
    "x": pa.array([0.5, 1e8, None, -2.25, 1e-5, 3.0, 123456789.125], pa.float64()),
    "n": pa.array([NAN, 1.0, None, 2.0, 0.0, -1.5, 2.0], pa.float64()),
    "s": pa.array(["a", "", None, "zz", "a", "12", " 7 "], pa.string()),
    "d": pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("-3.50"), decimal.Decimal("0.05"),
                   None, decimal.Decimal("2.00"), decimal.Decimal("0.00")], pa.decimal128(6, 2)),
    "day": pa.array([dt.date(2024, 2, 29), None, dt.date(2024, 1, 31), dt.date(1999, 12, 31),
                     dt.date(2024, 2, 29), None, dt.date(2023, 12, 31)]),
    "b": pa.array([True, False, None, True, True, False, None]),
})


@pytest.mark.slow
def test_describe_and_summary(spark, sessions) -> None:
    # Spark prints a decimal percentile in the column's scale here (0.00); in some plan
    # shapes it prints the double instead (see planner.api.describe). NaN is left out of the percentiles: Spark's
    # sketch ranks NaN its own way (see planner.api.describe).
    columns = ("i", "x", "s", "d", "n")

    def described(api, df, stddev: bool):
        F = api.F
        rows = df.describe(*columns).filter((F.col("summary") == "stddev") == F.lit(stddev))
        # The standard deviation, merged from per-task power sums (``statistics_as_sums``),
        # may differ from Spark's running moments in its last digits, so that row is
        # compared as doubles (approximately); the others as Spark prints them.
        return rows.select("summary", *[F.col(c).cast("double") for c in columns]) if stddev else rows

    assert_same(lambda api, df: described(api, df, False), [DATA], spark, sessions)
    assert_same(lambda api, df: described(api, df, True), [DATA], spark, sessions)
    assert_same(lambda api, df: df.select("i", "x", "s", "d").summary(
        "count", "25%", "50%", "75%", "33%", "count_distinct", "max"), [DATA], spark, sessions)


@pytest.mark.slow
def test_dict_agg(spark, local_sessions) -> None:
    """``agg`` with a dict: classic PySpark and the Connect client order its columns
    differently (no server can match both), so it runs on sparkwire's own API only."""
    def program(api, df):
        whole = df.agg({"x": "max", "i": "sum", "*": "count", "d": "mean"})
        grouped = df.groupBy("k").agg({"i": "min", "x": "avg"})
        return whole.crossJoin(grouped)

    assert_same(program, [DATA], spark, local_sessions)


@pytest.mark.slow
def test_pivot(spark, sessions) -> None:
    def program(api, df):
        F = api.F
        pivot = df.groupBy("k").pivot("p").agg(F.sum("i"), F.count("x"), F.max("s").alias("top"))
        given = df.groupBy("k").pivot("b", [True, False]).sum("x")
        counted = df.groupBy("p").pivot("k").count()
        return (pivot.withColumnRenamed("k", "pk").crossJoin(given.withColumnRenamed("k", "gk"))
                .crossJoin(counted))

    assert_same(program, [DATA], spark, sessions)


@pytest.mark.slow
def test_using_joins_of_a_frame_with_itself(spark, sessions) -> None:
    """``df.join(df.select(...), "k")``: the key names one column on each side although both
    sides come from one DataFrame (it was "ambiguous"), for inner, outer, semi and anti."""
    def program(api, df):
        F = api.F
        keys = df.select("p", F.col("i").alias("j"))
        inner = df.join(keys, "p").select("p", "i", "j")
        outer = df.join(df.select("p", "k").filter(F.col("p") > 1), ["p", "k"], "full")
        kept = df.join(df.select("p").filter(F.col("p") < 3), "p", "left_semi").select("p", "i")
        dropped = df.join(df.select("p").filter(F.col("p") < 3), "p", "left_anti").select("p", "i")
        return (inner.crossJoin(outer.select(F.count("*").alias("outer")))
                .crossJoin(kept.groupBy().count().withColumnRenamed("count", "kept"))
                .crossJoin(dropped.groupBy().count().withColumnRenamed("count", "dropped")))

    assert_same(program, [DATA], spark, sessions)


@pytest.mark.slow
def test_repartition_and_coalesce_keep_every_row(spark, sessions) -> None:
    def program(api, df):
        F = api.F
        by_key = df.repartition(3, "k").groupBy("k").agg(F.sum("i").alias("s"), F.count("*").alias("n"))
        spread = df.repartition(4).filter(F.col("i") >= 0).groupBy("k").agg(F.max("x").alias("s"),
                                                                             F.count("d").alias("n"))
        merged = df.coalesce(1).groupBy("k").agg(F.min("i").alias("s"), F.count("s").alias("n"))
        named = df.repartition("p").select("k", F.col("p").cast("bigint").alias("s"),
                                           F.lit(1).cast("bigint").alias("n"))
        return (by_key.withColumn("s", F.col("s").cast("double"))
                .union(spread).union(merged.withColumn("s", F.col("s").cast("double")))
                .union(named.withColumn("s", F.col("s").cast("double"))))

    assert_same(program, [DATA], spark, sessions)


def test_sample_keeps_its_fraction_and_its_rows_for_a_seed(sessions) -> None:
    """Spark's sampled rows cannot be reproduced; the fraction and the determinism can."""
    n = 20_000
    for session in sessions:
        ids = session.range(n)
        first = sorted(r.id for r in ids.sample(0.3, 5).collect())
        assert abs(len(first) - 0.3 * n) < 5 * (n * 0.3 * 0.7) ** 0.5
        assert sorted(r.id for r in ids.sample(False, 0.3, 5).collect()) == first
        other = sorted(r.id for r in ids.sample(fraction=0.3, seed=6).collect())
        assert other != first and abs(len(other) - 0.3 * n) < 5 * (n * 0.21) ** 0.5
        assert ids.sample(0.0, 1).count() == 0
        assert ids.sample(1.0, 1).count() == n
        small = ids.sample(0.01, 9).count()
        assert 0 < small < 0.01 * n + 5 * (n * 0.0099) ** 0.5


def _expected(theirs) -> tuple[list[tuple[str, str]], list[tuple]]:
    types = [(f.name, f.dataType.simpleString()) for f in theirs.schema.fields]
    return types, [normalize(r.asDict(recursive=True), types) for r in theirs.collect()]


def _same_frames(ours, expected: tuple[list[tuple[str, str]], list[tuple]]) -> None:
    want_types, want = expected
    assert ours.dtypes == want_types
    got = [normalize(r, want_types) for r in ours.toArrow().to_pylist()]
    _assert_rows(got, want, ordered=True, rel=1e-12, where="createDataFrame")


@pytest.mark.slow
def test_create_dataframe_range_and_type_objects(spark, local_sessions) -> None:
    """Each case builds the same frame from the same rows in both engines; PySpark's side
    runs once, sparkwire's on each session."""
    from pyspark.sql import types as PT

    from sparkwire import types as T

    rows = [(1, "a", 1.5, dt.date(2024, 2, 29), decimal.Decimal("1.10"), True),
            (None, "", None, None, None, None), (-7, None, -0.0, dt.date(1970, 1, 1),
                                                  decimal.Decimal("-0.05"), False)]
    ddl = "a int, b string, c double, d date, e decimal(5,2), f boolean"

    def struct(t):  # the same StructType from either module
        return t.StructType([t.StructField("a", t.LongType()), t.StructField("b", t.StringType()),
                             t.StructField("c", t.DoubleType()), t.StructField("d", t.DateType()),
                             t.StructField("e", t.DecimalType(5, 2)), t.StructField("f", t.BooleanType())])

    def casts(df, t):
        return df.select(df.a.cast(t.LongType()).alias("l"), df.a.cast(t.StringType()).alias("s"),
                         df.e.cast(t.DecimalType(12, 4)).alias("e4"), df.c.cast(t.DoubleType()),
                         df.e.cast(t.IntegerType()).alias("i"))

    def ranges(session):
        out = session.range(5)
        for args in ((2, 11, 3), (10, 0, -4), (-3, 3)):
            out = out.union(session.range(*args))
        return out

    dict_rows = [{"z": 1, "a": "x", "m": 2.5}, {"z": None, "a": None, "m": 1.0}]
    cases = [
        lambda s, t: s.createDataFrame(rows, ddl),
        lambda s, t: s.createDataFrame(rows, struct(t)),
        lambda s, t: s.createDataFrame([list(r) for r in rows], list("uvwxyz")),
        lambda s, t: s.createDataFrame(dict_rows),
        lambda s, t: s.createDataFrame([t.Row(q=1, r="s")]),
        lambda s, t: ranges(s),
        lambda s, t: casts(s.createDataFrame(rows, ddl), t),
    ]
    expected = [_expected(case(spark, PT)) for case in cases]
    for session in local_sessions:
        for case, want in zip(cases, expected):
            _same_frames(case(session, T), want)
        # PySpark's own type objects are accepted too
        _same_frames(session.createDataFrame(rows, struct(PT)), expected[1])
        _same_frames(casts(session.createDataFrame(rows, ddl), PT), expected[-1])


def test_frame_errors(sessions) -> None:
    session = sessions[0]
    df = session.createDataFrame(DATA)
    with pytest.raises(AnalysisError, match="not supported by sparkwire"):
        df.agg({"x": "kurtosis"})
    with pytest.raises(AnalysisError, match="not supported by sparkwire"):
        df.summary("median-ish")
    with pytest.raises(AnalysisError, match="every value is None"):
        session.createDataFrame([(None,), (None,)], ["a"])
    with pytest.raises(AnalysisError, match="unknown type"):
        session.createDataFrame([(1,)], "a integr")
    with pytest.raises(AnalysisError, match="step"):
        session.range(1, 5, 0)


@pytest.mark.slow
def test_cached_frames_give_pysparks_answers(spark, sessions) -> None:
    def program(api, df):
        F = api.F
        kept = df.filter(F.col("i").isNotNull()).withColumn("y", F.col("x") * 2).cache()
        first = kept.groupBy("k").agg(F.sum("y").alias("s"), F.count("*").alias("n"))
        again = kept.filter(F.col("i") > 0).groupBy("k").agg(F.max("y").alias("s"),
                                                            F.count("d").alias("n"))
        return first.union(again)

    assert_same(program, [DATA], spark, sessions)


def test_a_cached_frame_is_read_from_the_workers_stores() -> None:
    from sparkwire.coordinator import Session
    from sparkwire.planner.logical.plan import operators
    from sparkwire.planner.logical.sources import CachedSource, LocalSource

    table = pa.table({"k": ["a", "b", None] * 400, "v": list(range(1200))})
    with Session(workers=3, local_chunk_rows=400) as session:
        workers = session.cluster.workers
        df = session.createDataFrame(table)
        kept = df.filter(df.v % 3 != 0).cache()
        assert kept.count() == 800  # materializes the cache, then counts it
        held = [w.store.memory_bytes for w in workers]
        assert sum(held) > 0 and sum(1 for h in held if h) == 3  # a chunk on every worker
        derived = kept.groupBy("k").count()
        plan = derived.staged_plan()
        leaves = [op for s in plan.stages for op in operators(s.fragment)]
        assert any(isinstance(op, CachedSource) for op in leaves)
        assert not any(isinstance(op, LocalSource) for op in leaves)  # nothing recomputed
        assert sorted(derived.collect(), key=repr) == sorted(
            df.filter(df.v % 3 != 0).groupBy("k").count().collect(), key=repr)
        derived.collect()
        metrics = session.last_metrics
        assert metrics.stages[0].tasks == 3 and metrics.stages[0].done == 3  # a task per chunk
        # every task the query ran is one of the cached plan's: nothing upstream ran again
        deadline = time.monotonic() + 5
        while True:
            ran = [(c["stage"], c["task"]) for w in workers for c in list(w.completed)
                   if c["query_id"] == metrics.query_id]
            if len(ran) >= sum(s.tasks for s in plan.stages) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert sorted(ran) == [(s.id, t) for s in plan.stages for t in range(s.tasks)]
        kept.unpersist()
        assert [w.store.memory_bytes for w in workers] == [0, 0, 0]
        assert [w.store.partitions_held() for w in workers] == [0, 0, 0]
        assert kept.count() == 800  # plain again
