"""Spark's TIME type against real PySpark 4.3 (``spark.sql.timeType.enabled`` set on the
shared session for this module, as Spark needs it): the type's names and Arrow type, rows
of ``datetime.time`` in and out, literals, casts, comparisons, and the TIME functions in the DataFrame API and SQL, names, types,
values and errors (``planner.logical.time_types``, ``coordinator.worker.compile.calls_times``);
grouping and joining across workers against DuckDB."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from zoneinfo import ZoneInfo

import duckdb
import pyarrow as pa
import pytest

from sparkwire import functions as F
from sparkwire import types as T
from tests.spark.compare import assert_same

_TIMES = [dt.time(1, 2, 3, 4), dt.time(0, 0), dt.time(23, 59, 59, 999999), None, dt.time(12, 30),
          dt.time(1, 2, 3, 4)]
TABLE = pa.table({
    "t": pa.array(_TIMES, pa.time64("us")),
    "s": pa.array(["12:34:56", "1:2:3", "T12:34:56", None, "12:34:56.1234567", "24:00:00"]),
    "h": pa.array([3, 0, 23, None, 12, 1], pa.int32()),
    "m": pa.array([4, 0, 59, 1, 30, 2], pa.int32()),
    "sec": pa.array([5.5, 0.0, 59.999999, 1.0, None, 3.000004]),
    "n": pa.array([3_661_500_000, 0, 86_399_999_999, None, 1, 45_000_000_000]),
})


@pytest.fixture(autouse=True)
def _time_type(spark) -> Iterator[None]:
    spark.conf.set("spark.sql.timeType.enabled", "true")
    yield
    spark.conf.unset("spark.sql.timeType.enabled")


def functions(api, df):
    F_ = api.F
    good = F_.when(F_.col("s") != "24:00:00", F_.col("s"))  # to_time fails on it
    return df.select(
        "t", F_.lit(dt.time(1, 2, 3, 500000)).alias("lit"),
        F_.make_time("h", "m", "sec"), F_.to_time(good), F_.try_to_time("s"),
        F_.time_diff(F_.lit("MINUTE"), F_.lit(dt.time(12, 0)), "t"),
        F_.time_diff(F_.lit("hour"), "t", F_.lit(dt.time(0, 0))),
        *(F_.time_trunc(F_.lit(u), "t") for u in ("HOUR", "MINUTE", "SECOND", "MILLISECOND")),
        F_.time_to_micros("t"), F_.time_to_millis("t"), F_.time_to_seconds("t"),
        F_.time_from_micros("n"), F_.time_from_millis(F_.col("n") % 86_400_000).alias("ms"),
        F_.time_from_seconds("sec"),
        F_.expr("TRY_CAST(s AS TIME) AS cast_s"), F_.expr("CAST(t AS STRING) AS text"),
        F_.expr("TIME'1:2:3' AS sql_lit"), F_.expr("time_trunc('HOUR', t) AS sql_trunc"),
        F_.expr("time_diff('SECOND', t, TIME'23:00:00') AS sql_diff"),
        F_.expr("CAST(TIMESTAMP'2020-01-01 12:34:56.5' AS TIME) AS from_ts"),
        (F_.col("t") < F_.lit(dt.time(12, 0))).alias("before_noon"),
        (F_.col("t") >= F_.lit("12:30")).alias("by_text"),
        F_.hour("t"), F_.minute("t"), F_.second("t"),
        # two-digit fields only: strptime's %H also takes one digit, where Java's HH does not
        F_.try_to_time(F_.when(F_.col("s").startswith("12"), F_.col("s")), F_.lit("HH:mm:ss")).alias("formatted"),
        F_.expr("CAST(t AS BIGINT) AS secs"), F_.expr("CAST(t AS DECIMAL(12, 3)) AS exact"),
        # a time to a timestamp is on the current date: its day and its clock compared
        F_.datediff(F_.col("t").cast("timestamp_ntz"), F_.current_date()).alias("today"),
        F_.date_format(F_.col("t").cast("timestamp"), "HH:mm:ss.SSSSSS").alias("clock"),
        F_.greatest("t", F_.lit(dt.time(6, 0))).alias("latest"),
    )




def test_time_functions_match_pyspark(spark, sessions) -> None:
    assert_same(functions, [TABLE], spark, sessions)


def test_grouping_joining_and_ordering_by_a_time_across_workers(sessions) -> None:
    """Hash-shuffled on a TIME key (3 workers) and sorted, NULL first as Spark sorts; the
    oracle is DuckDB, whose TIME is the workers' (a plain group, join and sort: no Spark rule)."""
    with duckdb.connect() as oracle:
        oracle.register("times", TABLE)
        want = oracle.sql("SELECT g.t, g.n, g.h, times.m FROM (SELECT t, count(*) AS n, max(h) AS h FROM times "
                          "GROUP BY t) g JOIN times ON g.t = times.t ORDER BY g.t NULLS FIRST, times.m").fetchall()
    for session in sessions:
        df = session.createDataFrame(TABLE)
        counts = df.groupBy("t").agg(F.count("*").alias("n"), F.max("h").alias("h"))
        got = counts.join(df.select("t", "m"), "t").orderBy("t", "m").collect()
        assert [tuple(r) for r in got] == want, f"{session.settings.workers} worker(s)"


def test_the_type_its_schema_and_arrow_type_are_sparks(spark, sessions) -> None:
    rows = [(dt.time(1, 2, 3, 4),), (None,)]
    theirs = spark.createDataFrame(rows, "t time")
    ours = sessions[0].createDataFrame(rows, "t time")
    assert ours.schema == theirs.schema and ours.dtypes == theirs.dtypes == [("t", "time(6)")]
    assert [r.t for r in ours.collect()] == [r[0] for r in rows]  # datetime.time in and out
    assert ours.toArrow().schema == theirs.toArrow().schema == pa.schema([("t", pa.time64("ns"))])
    inferred = sessions[0].createDataFrame([(dt.time(5, 6),)], ["t"])
    assert inferred.dtypes == spark.createDataFrame([(dt.time(5, 6),)], ["t"]).dtypes
    assert ours.schema == T.StructType([T.StructField("t", T.TimeType())])
    assert repr(T.TimeType()) == "TimeType(6)"


@pytest.mark.parametrize("query, condition", [
    ("to_time('24:00:00')", "CANNOT_PARSE_TIME"),
    ("make_time(25, 0, 0)", "DATETIME_FIELD_OUT_OF_BOUNDS"),
    ("make_time(1, 2, 59.9999999)", "DATETIME_FIELD_OUT_OF_BOUNDS"),
    ("time_from_seconds(86400)", "DATETIME_FIELD_OUT_OF_BOUNDS"),
    ("time_diff('DAY', TIME'01:00', TIME'02:00')", "INVALID_PARAMETER_VALUE.TIME_UNIT"),
])
def test_errors_are_sparks(spark, sessions, query: str, condition: str) -> None:
    with pytest.raises(Exception, match=condition):
        spark.sql(f"SELECT {query}").collect()
    with pytest.raises(Exception, match=condition):
        sessions[0].sql(f"SELECT {query}").collect()


def test_current_time_is_the_session_zones_clock(sessions) -> None:
    session = sessions[0]
    before = session.conf.get("spark.sql.session.timeZone")
    session.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        got = session.range(1).select(F.current_time().alias("now")).first().now
    finally:
        session.conf.set("spark.sql.session.timeZone", before)
    now = dt.datetime.now(ZoneInfo("America/Los_Angeles"))
    seconds = (now.hour * 3600 + now.minute * 60 + now.second) - (got.hour * 3600 + got.minute * 60 + got.second)
    assert 0 <= seconds % 86400 < 30


def test_what_is_refused_says_why(sessions) -> None:
    df = sessions[0].createDataFrame(TABLE)
    with pytest.raises(Exception, match="precision 6"):
        df.select(F.current_time(3))
    with pytest.raises(Exception, match="CAST_WITHOUT_SUGGESTION"):
        df.select(F.col("t").cast("double"))
    with pytest.raises(Exception, match="time\\(3\\) is not supported"):
        sessions[0].createDataFrame([(dt.time(1, 0),)], "t time(3)")
