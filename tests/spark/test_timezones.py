"""The session time zone against real PySpark, in UTC and in a zone with DST
(America/Los_Angeles) around both of its 2024 changes: instants that show the same wall
clock twice (01:30 on 3 November), wall clocks that do not exist (02:30 on 10 March),
strings with offsets, dates before 1970, fractions of a second, NULLs and duplicates.

Naive Arrow timestamps are wall clocks in the session zone for ``createDataFrame`` (PySpark
refuses one that does not exist there, so the naive column avoids the changes); the zoned
column holds the instants around them."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from sparkwire.coordinator import Session
from sparkwire.transport.errors import ConfigError
from tests.spark.compare import assert_same, pyspark_api, sparkwire_api

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

T = dt.datetime
UTC = dt.timezone.utc
ZONES = ["UTC", "America/Los_Angeles", "+05:30"]

DATA = pa.table({
    # wall clocks in the session zone
    "wall": pa.array([T(2024, 3, 10, 1, 59, 59), T(2024, 3, 10, 3, 0), T(2024, 11, 3, 0, 30),
                      T(2024, 11, 3, 2, 0, 0, 250000), T(1969, 12, 31, 23, 59, 59, 500000), None,
                      T(2024, 3, 10, 3, 0), T(2024, 12, 31, 23, 30)], pa.timestamp("us")),
    # instants: the first two are both 01:30 in Los Angeles; then the edges of the gap
    "instant": pa.array([T(2024, 11, 3, 8, 30, tzinfo=UTC), T(2024, 11, 3, 9, 30, tzinfo=UTC),
                         T(2024, 3, 10, 9, 59, 59, tzinfo=UTC), T(2024, 3, 10, 10, 0, tzinfo=UTC),
                         T(1960, 1, 1, 0, 0, 0, 1, tzinfo=UTC), T(2025, 1, 1, 7, 59, 59, tzinfo=UTC),
                         None, T(2024, 11, 3, 8, 30, tzinfo=UTC)], pa.timestamp("us", tz="UTC")),
    # strings: a wall clock twice over, one that does not exist, offsets, a date alone
    "s": pa.array(["2024-11-03 01:30:00", "2024-03-10 02:30:00", "2024-03-10 10:30:00+02:00",
                   "2024-11-03T01:30:00Z", "2024-01-01", None, "1969-12-31 23:59:59.5",
                   "2024-11-03 01:30:00"]),
    "w": pa.array(["2024-11-03 01:30:00", "2024-03-10 02:30:00", "2024-03-10 10:30:00",
                   "2024-11-03 00:59:59", "2024-01-01 00:00:00", None, "1969-12-31 23:59:59",
                   "2024-11-03 01:30:00"]),
    "n": pa.array([1730622600, 1710063000, 0, -1, None, 1704067200, 1730626200, 1730622600],
                  pa.int64()),
})


def zoned(api, df):
    F_ = api.F
    ntz = F_.to_timestamp_ntz("w")
    return df.select(
        "wall", "instant",
        F_.col("wall").cast("string").alias("wall_text"),
        F_.col("instant").cast("string").alias("instant_text"),
        F_.col("instant").cast("date").alias("instant_date"),
        F_.col("instant").cast("timestamp_ntz").alias("instant_ntz"),
        F_.col("s").cast("timestamp").alias("s_ts"),
        F_.col("s").cast("timestamp_ntz").alias("s_ntz"),
        F_.col("instant").cast("bigint").alias("seconds"), F_.col("instant").cast("int").alias("int_seconds"),
        F_.col("instant").cast("double").alias("exact_seconds"), F_.col("n").cast("timestamp").alias("of_n"),
        F_.to_date("instant").alias("to_date"), F_.to_timestamp("s"), F_.to_timestamp_ltz("w"),
        F_.to_timestamp("w", "yyyy-MM-dd HH:mm:ss").alias("parsed"), ntz.alias("ntz"),
        ntz.cast("timestamp").alias("ntz_instant"), ntz.cast("string").alias("ntz_text"),
        F_.hour("instant"), F_.minute("instant"), F_.second("wall"), F_.hour("s"), F_.hour(ntz),
        F_.date_format("instant", "yyyy-MM-dd HH:mm:ss.SSS EEE"),
        F_.date_format(ntz, "yyyy-MM-dd HH:mm"),
        F_.date_trunc("day", "instant").alias("day"), F_.date_trunc("hour", "instant").alias("hour"),
        F_.date_trunc("month", "wall").alias("month"), F_.date_trunc("week", "instant").alias("week"),
        F_.date_trunc("day", ntz).alias("ntz_day"),
        F_.year("instant"), F_.month("instant"), F_.dayofmonth("instant"), F_.dayofweek("instant"),
        F_.datediff("instant", "wall"), F_.last_day("instant"),
        F_.months_between("instant", "wall"),
        F_.unix_timestamp("w"), F_.unix_timestamp("instant"), F_.unix_timestamp(ntz).alias("ntz_unix"),
        F_.from_unixtime("n"), F_.from_unixtime("n", "yyyy-MM-dd HH:mm").alias("unix_text"),
        F_.from_utc_timestamp("instant", "Asia/Tokyo"),
        F_.to_utc_timestamp("instant", "America/New_York"),
        F_.current_timezone(),
        F_.expr("TIMESTAMP '2024-03-10 02:30:00'").alias("sql_wall_clock"),
        F_.expr("TIMESTAMP '2024-11-03 01:30:00'").alias("sql_overlap"),
        F_.lit(T(2024, 11, 3, 9, 30, tzinfo=UTC)).alias("aware_literal"),
        (F_.col("instant") >= F_.expr("TIMESTAMP '2024-11-03 01:30:00'")).alias("after"),
        (F_.col("instant") >= F_.lit("2024-11-03 01:30:00")).alias("after_text"),
        (F_.col("instant") < F_.to_date("w")).alias("before_day"),
        (F_.col("instant") == ntz).alias("same_clock"),
        F_.col("instant").between("2024-03-10 01:00:00", "2024-11-03 01:45:00").alias("within"),
        F_.col("instant").isin("2024-11-03 01:30:00", "2025-01-01").alias("listed"),
        F_.greatest("instant", ntz).alias("latest"), F_.coalesce("instant", ntz).alias("either"),
    )


@pytest.mark.parametrize("zone", ZONES)
def test_functions_follow_the_session_time_zone(spark, sessions, zone: str) -> None:
    assert_same(zoned, [DATA], spark, sessions, time_zone=zone)


def by_local_day(api, df):
    F_ = api.F
    return (df.groupBy(F_.to_date("instant").alias("day"))
            .agg(F_.count("*").alias("n"), F_.min("instant").alias("first"),
                 F_.max(F_.hour("instant")).alias("last_hour")))


@pytest.mark.parametrize("zone", ZONES[:2])
def test_grouping_by_local_day_across_workers(spark, sessions, zone: str) -> None:
    assert_same(by_local_day, [DATA], spark, sessions, time_zone=zone)


def test_parquet_wall_clocks_are_timestamp_ntz(spark, sessions, tmp_path) -> None:
    """A naive Parquet timestamp (isAdjustedToUTC=false) is a wall clock, an adjusted one an
    instant: read by either engine, the types and values agree."""
    path = str(tmp_path / "t.parquet")
    pq.write_table(DATA.select(["wall", "instant"]), path)
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    want = spark.read.parquet(path)
    want_rows = want.toArrow()
    for session in sessions:
        got = session.read.parquet(path)
        assert got.dtypes == want.dtypes == [("wall", "timestamp_ntz"), ("instant", "timestamp")]
        assert got.toArrow().sort_by("instant") == want_rows.sort_by("instant")


def test_naive_wall_clocks_in_a_gap_are_refused() -> None:
    """PySpark's createDataFrame refuses a naive timestamp that does not exist in the session
    zone; so does sparkwire, naming the column and the zone."""
    gap = pa.table({"t": pa.array([T(2024, 3, 10, 2, 30)], pa.timestamp("us"))})
    with Session(workers=1, time_zone="America/Los_Angeles") as session:
        with pytest.raises(AnalysisError, match="column 't'.*America/Los_Angeles"):
            session.createDataFrame(gap)
        session.conf.set("spark.sql.session.timeZone", "UTC")
        assert session.createDataFrame(gap).toArrow().column(0).to_pylist() == [
            T(2024, 3, 10, 2, 30, tzinfo=dt.timezone.utc)]


def test_session_conf_checks_zones_and_keys() -> None:
    with Session(workers=1) as session:
        assert session.conf.get("spark.sql.session.timeZone") == "UTC"
        session.conf.set("spark.sql.session.timeZone", "+08:00")
        assert session.time_zone == "+08:00"
        assert session.conf.get("spark.sql.ansi.enabled") == "true"
        session.conf.set("spark.sql.ansi.enabled", "false")
        assert session.ansi is False
        with pytest.raises(ConfigError, match="spark.sql.session.timeZone.*unknown time zone 'PST'"):
            session.conf.set("spark.sql.session.timeZone", "PST")
        assert session.conf.get("spark.sql.foo", "fallback") == "fallback"
        session.conf.unset("spark.sql.session.timeZone")
        assert session.time_zone == "UTC"
        df = session.createDataFrame(pa.table({"x": [1]})).select(F.current_timezone())
        assert df.toArrow().column(0).to_pylist() == ["UTC"]


def test_zone_arguments_must_be_known_literals() -> None:
    with pytest.raises(AnalysisError, match="unknown time zone 'Mars/Olympus'"):
        F.from_utc_timestamp("t", "Mars/Olympus")
    with pytest.raises(AnalysisError, match="argument 2 must be a literal"):
        F.to_utc_timestamp("t", F.col("zone"))


def in_sql(api, df):
    return df.selectExpr(
        "from_utc_timestamp(instant, 'Asia/Tokyo') AS tokyo",
        "to_utc_timestamp(wall, '+08:00') AS shifted",
        "unix_timestamp(w) AS seconds", "unix_timestamp(w, 'yyyy-MM-dd HH:mm:ss') AS parsed",
        "unix_timestamp(instant) AS of_instant", "from_unixtime(n) AS text",
        "from_unixtime(n, 'yyyy/MM/dd HH') AS hours", "to_timestamp_ntz(w) AS ntz",
        "to_timestamp_ltz(w) AS ltz", "current_timezone() AS zone", "to_timestamp(s) AS ts",
        "CAST(instant AS TIMESTAMP_NTZ) AS clock", "CAST(w AS TIMESTAMP) AS instant_of_w",
        "hour(instant) AS h", "instant > TIMESTAMP '2024-11-03 01:30:00' AS later",
    )


@pytest.mark.parametrize("zone", ZONES[1:])
def test_sql_text_follows_the_session_time_zone(spark, sessions, zone: str) -> None:
    assert_same(in_sql, [DATA], spark, sessions, time_zone=zone)


def test_csv_timestamps_are_wall_clocks_in_the_session_zone(spark, sessions, tmp_path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("at,n\n2024-11-03 01:30:00,1\n2024-03-10 02:30:00,2\n2024-03-10T10:30:00,3\n"
                    "2024-11-03 01:30:00,4\n,5\n1969-12-31 23:59:59.5,6\n")
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    want = spark.read.csv(str(path), header=True, inferSchema=True)
    want_rows = want.toArrow().sort_by("n")
    for session in sessions:
        session.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
        try:
            got = session.read.csv(str(path), header=True, inferSchema=True)
            assert got.dtypes == want.dtypes == [("at", "timestamp"), ("n", "int")]
            assert got.toArrow().sort_by("n") == want_rows
        finally:
            session.conf.set("spark.sql.session.timeZone", "UTC")


@pytest.mark.parametrize("zone", ZONES[1:])
def test_pandas_and_rows_as_pyspark_gives_them(spark, local_sessions, zone: str) -> None:
    """``toPandas()``: naive wall clocks in the session zone, nanoseconds; ``collect()``:
    naive datetimes in the process's zone; for instants and wall clocks alike."""
    spark.conf.set("spark.sql.session.timeZone", zone)

    def program(api, df):
        return df.select("instant", api.F.to_timestamp_ntz("w").alias("ntz"), "n")

    want = program(pyspark_api(), spark.createDataFrame(DATA))
    want_pandas = want.toPandas().sort_values("n", ignore_index=True)
    for session in local_sessions:
        session.conf.set("spark.sql.session.timeZone", zone)
        try:
            ours = program(sparkwire_api(), session.createDataFrame(DATA))
            got_pandas = ours.toPandas().sort_values("n", ignore_index=True)
            got_rows = ours.collect()
        finally:
            session.conf.set("spark.sql.session.timeZone", "UTC")
        assert got_pandas.dtypes.to_dict() == want_pandas.dtypes.to_dict()
        assert got_pandas.equals(want_pandas)
        assert sorted(map(tuple, got_rows), key=_by_n) == sorted(map(tuple, want.collect()), key=_by_n)


def _by_n(row: tuple) -> tuple:
    return (row[2] is None, row[2] or 0, str(row))


DAYS = pa.table({
    "d": pa.array([dt.date(2024, 2, 28), dt.date(2024, 2, 29), dt.date(2024, 3, 1), dt.date(2024, 3, 1),
                   dt.date(2024, 3, 4), None, dt.date(1969, 12, 31), dt.date(1970, 1, 1)]),
    "k": pa.array([1, 1, 1, 2, 1, 1, 2, 2], pa.int32()),
    "x": pa.array([1, 2, 3, 4, 5, 6, 7, 8], pa.int64()),
})


def day_ranges(api, df):
    return df.selectExpr(
        "d", "k", "x",
        "sum(x) OVER (ORDER BY d RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) AS last_two_days",
        "count(*) OVER (PARTITION BY k ORDER BY d DESC RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS around",
        "max(x) OVER (ORDER BY d RANGE BETWEEN CURRENT ROW AND 3 FOLLOWING) AS ahead",
    )


def test_range_frames_over_dates_count_days(spark, sessions) -> None:
    """Spark SQL's RANGE frame over a date key takes day offsets (leap day, month end, the
    epoch, NULL keys, duplicates); PySpark's rangeBetween would pass longs Spark refuses."""
    assert_same(day_ranges, [DAYS], spark, sessions)
