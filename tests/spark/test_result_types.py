"""Result types follow Spark SQL: the same program on the same data, in real PySpark and in
sparkwire, gives the same column types (``dtypes``), and sparkwire's results carry the
types its ``schema`` promised before running."""

from __future__ import annotations

import datetime as dt
import decimal

import pyarrow as pa
import pytest

from sparkwire.coordinator import Session

DATA = pa.table({
    "k": pa.array(["a", "b", "a", None], pa.string()),
    "i": pa.array([1, 2, None, 4], pa.int32()),
    "b": pa.array([10, None, 30, 40], pa.int64()),
    "d": pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("3.50"), decimal.Decimal("0.05")],
                  pa.decimal128(12, 2)),
    "x": pa.array([0.5, 1.5, None, 2.0], pa.float64()),
    "day": pa.array([dt.date(1994, 1, 1), None, dt.date(1995, 6, 30), dt.date(1996, 12, 31)]),
})


def program(df, F):  # noqa: N803 - the functions module, PySpark's or ours
    return df.groupBy("k").agg(
        F.sum("i").alias("sum_i"), F.sum("b").alias("sum_b"), F.count("*").alias("n"),
        F.avg("i").alias("avg_i"), F.avg("d").alias("avg_d"), F.sum("d").alias("sum_d"),
        F.max("d").alias("max_d"), F.min("x").alias("min_x"),
        F.max(F.year("day")).alias("year"), F.sum(F.length("k")).alias("len"),
        F.sum(F.col("d") * 2).alias("d2"), F.sum(F.col("i") / F.col("b")).alias("ratio"),
        F.max(F.coalesce(F.col("b"), F.col("d"))).alias("co"),
        F.sum((F.col("x") * -3).cast("int")).alias("trunc_x"),
        F.min(F.col("d").cast("bigint")).alias("trunc_d"),
    )


@pytest.mark.slow
def test_types_and_values_match_pyspark(spark) -> None:
    from pyspark.sql import functions as SF

    expected = program(spark.createDataFrame(DATA), SF)
    with Session(workers=2) as session:
        from sparkwire import functions as F

        ours = program(session.createDataFrame(DATA), F)
        result = ours.toArrow()
        promised = ours.arrow_schema
    assert ours.dtypes == [(f.name, f.dataType.simpleString()) for f in expected.schema.fields]
    assert result.schema == promised
    theirs = {r["k"]: r.asDict() for r in expected.collect()}
    for row in result.to_pylist():
        want = theirs[row["k"]]
        for name, value in row.items():
            if isinstance(value, float):
                assert value == pytest.approx(want[name], rel=1e-9), name
            else:
                assert value == want[name], name
