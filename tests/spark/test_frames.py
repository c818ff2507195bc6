"""DataFrame methods against real PySpark: ``describe``/``summary`` (strings formatted as
Spark formats them), ``agg`` with a dict, ``groupBy().pivot()``, ``createDataFrame`` from
rows with each schema form, ``session.range``, ``cast`` to type objects."""

from __future__ import annotations

import datetime as dt
import decimal

import pyarrow as pa
import pytest

from sparkwire.planner.errors import AnalysisError
from tests.spark.compare import _assert_rows, assert_same, normalize

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
    def program(api, df):
        F = api.F
        described = df.describe().withColumnRenamed("summary", "stat")
        chosen = df.describe("i", "s").withColumnRenamed("summary", "stat")
        ranked = df.select("i", "x", "s", "d").summary()
        picked = df.select("i", "n", "s").summary("count", "33%", "max", "count_distinct", "mean")
        return (described.select("stat", "i", "x", "s", "d")
                .union(chosen.select("stat", "i", F.lit("-").alias("x"), "s", F.lit("-").alias("d")))
                .union(ranked.select("summary", "i", "x", "s", "d"))
                .union(picked.select("summary", "i", "n", "s", F.lit("-").alias("d"))))

    assert_same(program, [DATA], spark, sessions)


@pytest.mark.slow
def test_dict_agg_and_pivot(spark, sessions) -> None:
    def program(api, df):
        F = api.F
        whole = df.agg({"x": "max", "i": "sum", "*": "count", "d": "mean"})
        grouped = df.groupBy("k").agg({"i": "min", "x": "avg"})
        pivot = df.groupBy("k").pivot("p").agg(F.sum("i"), F.count("x"), F.max("s").alias("top"))
        given = df.groupBy("k").pivot("b", [True, False]).sum("x")
        counted = df.groupBy("p").pivot("k").count()
        return (whole.crossJoin(grouped).crossJoin(pivot.withColumnRenamed("k", "pk"))
                .crossJoin(given.withColumnRenamed("k", "gk"))
                .crossJoin(counted))

    assert_same(program, [DATA], spark, sessions)


def _same_frames(ours, theirs) -> None:
    want_types = [(f.name, f.dataType.simpleString()) for f in theirs.schema.fields]
    assert ours.dtypes == want_types
    want = [normalize(r.asDict(recursive=True), want_types) for r in theirs.collect()]
    got = [normalize(r, want_types) for r in ours.toArrow().to_pylist()]
    _assert_rows(got, want, ordered=True, rel=1e-12, where="createDataFrame")


@pytest.mark.slow
def test_create_dataframe_range_and_type_objects(spark, sessions) -> None:
    from pyspark.sql import types as PT

    from sparkwire import types as T

    rows = [(1, "a", 1.5, dt.date(2024, 2, 29), decimal.Decimal("1.10"), True),
            (None, "", None, None, None, None), (-7, None, -0.0, dt.date(1970, 1, 1),
                                                  decimal.Decimal("-0.05"), False)]
    ddl = "a int, b string, c double, d date, e decimal(5,2), f boolean"
    ours_struct = T.StructType([T.StructField("a", T.LongType()), T.StructField("b", T.StringType()),
                                T.StructField("c", T.DoubleType()), T.StructField("d", T.DateType()),
                                T.StructField("e", T.DecimalType(5, 2)),
                                T.StructField("f", T.BooleanType())])
    spark_struct = PT.StructType([PT.StructField("a", PT.LongType()), PT.StructField("b", PT.StringType()),
                                  PT.StructField("c", PT.DoubleType()), PT.StructField("d", PT.DateType()),
                                  PT.StructField("e", PT.DecimalType(5, 2)),
                                  PT.StructField("f", PT.BooleanType())])
    dict_rows = [{"z": 1, "a": "x", "m": 2.5}, {"z": None, "a": None, "m": 1.0}]
    for session in sessions:
        _same_frames(session.createDataFrame(rows, ddl), spark.createDataFrame(rows, ddl))
        _same_frames(session.createDataFrame(rows, ours_struct), spark.createDataFrame(rows, spark_struct))
        _same_frames(session.createDataFrame(rows, spark_struct), spark.createDataFrame(rows, spark_struct))
        _same_frames(session.createDataFrame([list(r) for r in rows], list("uvwxyz")),
                     spark.createDataFrame([list(r) for r in rows], list("uvwxyz")))
        _same_frames(session.createDataFrame(dict_rows), spark.createDataFrame(dict_rows))
        _same_frames(session.createDataFrame([T.Row(q=1, r="s")]),
                     spark.createDataFrame([PT.Row(q=1, r="s")]))
        for args in ((5,), (2, 11, 3), (10, 0, -4), (-3, 3)):
            _same_frames(session.range(*args), spark.range(*args))
        df = session.createDataFrame(rows, ddl)
        sdf = spark.createDataFrame(rows, ddl)
        for to_ours, to_spark in ((T.LongType(), PT.LongType()), (T.StringType(), PT.StringType()),
                                  (T.DecimalType(12, 4), PT.DecimalType(12, 4)),
                                  (T.DoubleType(), PT.DoubleType())):
            _same_frames(df.select(df.a.cast(to_ours), df.e.cast(to_spark), df.a.cast(to_ours).alias("n")),
                         sdf.select(sdf.a.cast(to_spark), sdf.e.cast(to_spark),
                                    sdf.a.cast(to_spark).alias("n")))


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
