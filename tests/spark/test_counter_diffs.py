"""``counter_diff`` against real PySpark: one table of two counters (a NULL counter, a
decrease, equal values, start times that advance, stay, turn NULL and come back lower after
a NULL) and one select of its forms (a start time or not, an int, a decimal and a double
counter, SQL text), so it costs one Spark job; Spark's errors and refusals apart."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from sparkwire import AnalysisError, Window
from sparkwire import functions as F
from tests.spark.compare import assert_same

_T0 = dt.datetime(2026, 1, 1)
_S1, _S2, _S3 = dt.datetime(2025, 1, 1), dt.datetime(2025, 6, 1), dt.datetime(2025, 5, 1)
COUNTERS = pa.table({
    "m": ["a"] * 10 + ["b"] * 4,
    "t": pa.array([_T0 + dt.timedelta(minutes=i) for i in range(14)], pa.timestamp("us")),
    "c": pa.array([100, 200, None, 250, 50, 60, 70, 80, 80, 90, 0, 0, None, 7], pa.int32()),
    "st": pa.array([_S1] * 5 + [_S2, None, None, _S3, _S3] + [None, _S1, _S2, _S2],
                   pa.timestamp("us", tz="UTC")),
})


def counter_diffs(api, df):
    F_, w = api.F, api.Window.partitionBy("m").orderBy("t")
    return df.select(
        "t", F_.counter_diff("c").over(w), F_.counter_diff("c", "st").over(w),
        F_.counter_diff(F_.col("c").cast("decimal(10,2)")).over(w).alias("dec"),
        F_.counter_diff(F_.col("c").cast("double"), "t").over(w).alias("dbl"),
        F_.expr("counter_diff(c, st) OVER (PARTITION BY m ORDER BY t) AS sql_diff"),
    )


@pytest.mark.slow
def test_counter_diff_matches_pyspark(spark, sessions) -> None:
    assert_same(counter_diffs, [COUNTERS], spark, sessions)


def test_counter_diff_errors_as_spark(sessions) -> None:
    df = sessions[0].createDataFrame(COUNTERS)
    w = Window.partitionBy("m").orderBy("t")
    for build, why in [
        (lambda: df.select(F.counter_diff("c").over(Window.partitionBy("m"))), "requires the window to be ordered"),
        (lambda: df.select(F.counter_diff("c").over(w.rowsBetween(-5, 0))), "window frame of counter_diff"),
        (lambda: df.select(F.counter_diff("m").over(w)), "DATATYPE_MISMATCH"),
        (lambda: df.select(F.counter_diff("c", F.col("st").cast("date")).over(w)), "TIMESTAMP_NTZ"),
        (lambda: df.select(F.counter_diff("c")), "requires an OVER clause"),
    ]:
        with pytest.raises(AnalysisError, match=why):
            build()
    # One window partition: with two, whichever task fails first names its value (-50 in
    # "a", -150 in "b"), in Spark as here.
    with pytest.raises(Exception, match=r"COUNTER_DIFF_NEGATIVE_COUNTER_VALUE\] A negative counter value -50 "):
        df.where(F.col("m") == "a").select(F.counter_diff(F.col("c") - 150).over(w)).collect()
    earlier = F.when(F.col("c") == 250, F.lit(dt.datetime(2020, 1, 1))).otherwise(F.col("st"))
    with pytest.raises(Exception, match="COUNTER_DIFF_START_TIME_DECREASED.* from 2025-01-01 00:00:00 to "
                                        "2020-01-01 00:00:00"):
        df.select(F.counter_diff("c", earlier).over(w)).collect()
