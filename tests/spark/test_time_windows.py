"""``window`` and ``window_time`` against real PySpark: one table of edge cases (NULL
timestamps, instants before the epoch, on a window's boundary, a microsecond before one,
far dates): a grouping by sliding windows with ``startTime``, an alias and
``window_time``, and a select of a tumbling window (which drops NULL timestamps), one
Spark job each (the select also holds ``date_format``'s unpadded year ``y``, year 1 included); the refusals Spark makes, with
Spark's reasons."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

# its programs pass through Spark Connect too (compare.Remote), at more than the CI budget allows
pytestmark = pytest.mark.connect

_UTC = dt.timezone.utc
EVENTS = pa.table({
    "ts": pa.array([dt.datetime(2016, 3, 11, 9, 0, 7, tzinfo=_UTC), dt.datetime(1969, 12, 31, 23, 59, 58, tzinfo=_UTC),
                    None, dt.datetime(2016, 3, 11, 9, 0, 10, tzinfo=_UTC),
                    dt.datetime(2016, 3, 11, 9, 0, 9, 999999, tzinfo=_UTC), dt.datetime(1, 1, 3, 0, 0, 1, tzinfo=_UTC),
                    dt.datetime(9999, 12, 20, 23, 59, 59, tzinfo=_UTC), dt.datetime(2024, 2, 29, 23, 59, 59, tzinfo=_UTC)],
                   pa.timestamp("us", tz="UTC")),
    "v": pa.array([1, 2, 3, 4, 5, 6, 7, None], pa.int64()),
})


def sliding(api, df):
    F_ = api.F
    return (df.groupBy(F_.window("ts", "10 seconds", "3 seconds", "1 second").alias("w"))
            .agg(F_.sum("v").alias("s"), F_.count("*").alias("n"))
            .select("*", F_.window_time("w")))


def selected(api, df):
    F_ = api.F
    return (df.select(F_.window("ts", "1 hour", startTime="-15 minutes").alias("h"), "v")
            .select("*", F_.col("h").start.alias("start"), F_.date_format("h.start", "y"),
                    F_.date_format("h.end", "y-M-d 'y' yyyy HH:mm")))


@pytest.mark.slow
def test_time_windows_match_pyspark(spark, sessions) -> None:
    assert_same(sliding, [EVENTS], spark, sessions)


@pytest.mark.slow
def test_a_selected_window_matches_pyspark(spark, sessions) -> None:
    assert_same(selected, [EVENTS], spark, sessions)


def test_refused_as_spark_refuses(sessions) -> None:
    df = sessions[0].createDataFrame(EVENTS)
    for build, why in [
        (lambda: F.window("ts", "1 month"), "no months"),
        (lambda: F.window("ts", "5 seconds", "10 seconds"), "less than or equal"),
        (lambda: F.window("ts", "5 seconds", startTime="6 seconds"), "absolute value of start time"),
        (lambda: F.window("ts", "five seconds"), "not a duration"),
        (lambda: F.window("ts", "1 week").start, "on its own"),
        (lambda: df.groupBy(F.window("ts", "5 seconds"), F.window("ts", "1 hour").alias("h")), "cartesian"),
    ]:
        with pytest.raises(AnalysisError, match=why):
            build()
