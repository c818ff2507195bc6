"""The later date and time functions (``planner.logical.functions.calendar``), ``isnan``,
``nanvl`` and the sort orders with NULLs placed (as a window's order), against real PySpark:
the whole family in one ``select`` over one table of edges, in a zone with DST
(America/New_York): instants just before 1970 with a fraction (``floorDiv``), ISO weeks
across a year end, a leap day, a wall clock that does not exist (02:30 on 14 March 2021) and
one that shows twice (01:30 on 7 November 2021), 60 seconds, NaN, infinities, -0.0,
unparsable strings and NULLs; the SQL forms through ``F.expr``."""

from __future__ import annotations

import datetime as dt
import decimal

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

D, T, UTC = dt.date, dt.datetime, dt.timezone.utc
ZONE = "America/New_York"

DATA = pa.table({
    "d": pa.array([D(2020, 2, 29), D(1969, 12, 31), D(2021, 1, 3), D(2024, 12, 30), None,
                   D(1970, 1, 1), D(2021, 3, 14), D(2021, 11, 7)]),
    "ts": pa.array([T(1969, 12, 31, 23, 59, 59, 500001, tzinfo=UTC), T(2021, 3, 14, 7, 30, tzinfo=UTC),
                    T(2020, 2, 29, 23, 59, 59, 999999, tzinfo=UTC), T(2021, 11, 7, 5, 30, tzinfo=UTC),
                    None, T(1970, 1, 1, tzinfo=UTC), T(2024, 12, 31, 12, 0, 0, 1, tzinfo=UTC),
                    T(2021, 11, 7, 6, 30, tzinfo=UTC)], pa.timestamp("us", tz="UTC")),
    "y": pa.array([2020, 2021, 2021, 1969, None, 2024, 2021, 2000], pa.int32()),
    "mo": pa.array([2, 3, 11, 12, 1, 12, 1, 1], pa.int32()),
    "dd": pa.array([29, 14, 7, 31, 1, 30, 3, 1], pa.int32()),
    "h": pa.array([23, 2, 1, 23, 0, 0, 12, 0], pa.int32()),
    "mi": pa.array([59, 30, 30, 59, 0, 0, None, 0], pa.int32()),
    "sec": pa.array([decimal.Decimal(v) if v is not None else None
                     for v in ("59.999999", "0", "1.5", "60", "0", None, "0.000001", "30")],
                    pa.decimal128(8, 6)),
    "n": pa.array([0, -1, 1600000000, None, 1614000000, -86400, 253402300799, 1636263000], pa.int64()),
    "x": pa.array([-1.5, float("nan"), float("inf"), 1.2345678, None, -0.0, 1e9, -0.0000015]),
    "i": pa.array([0, -1, 18321, None, 2932896, -719000, 1, 100], pa.int32()),
    "s": pa.array(["2020-02-29 10:00:00", None, "1969-12-31 23:59:59", "2021-03-14 02:30:00",
                   "2021-11-07 01:30:00", "2000-01-01 00:00:00", "2024-12-31 23:59:59",
                   "1970-01-01 00:00:00"]),
    # four sort keys, each with a NULL among rows the keys before it tie on: one order only
    "k1": pa.array([None, 1, 1, 1, 1, 1, 1, 2], pa.int32()),
    "k2": pa.array([1, None, 5, 5, 5, 5, 7, 1], pa.int32()),
    "k3": pa.array([1, 1, None, 3, 3, 4, 1, 1], pa.int32()),
    "k4": pa.array([1, 1, 1, None, 0, 1, 1, 1], pa.int32()),
    "t": pa.array(["2020-02-30", "abc", "", None, "2021-03-14 02:30:00", "2020-02-29", "31/12/2020",
                   "1970-01-01"]),
})

# Spark's names of these are their text (sqlglot upper-cases EXTRACT's field, so it is written so)
SQL_FORMS = ("dayname(ts)", "weekday(make_date(y, 1, 1))", "date_part('doy', d)", "datepart('HOUR', ts)",
             "extract(WEEK FROM ts)", "make_date(y, 1, dd)", "make_timestamp(y, mo, 1, h, 0, 0)",
             "make_timestamp_ntz(y, 1, 1, 0, 0, sec)", "unix_date(d) + 1", "unix_micros(ts) - 1",
             "timestamp_seconds(i)", "timestamp_millis(i)", "date_from_unix_date(y)",
             "isnan(y)", "nanvl(y, x)", "dayofmonth(ts)",
             "try_to_timestamp(t, 'dd/MM/yyyy')", "try_to_date(s)",
             "convert_timezone('Asia/Kolkata', 'America/Los_Angeles', make_timestamp_ntz(y, mo, dd, h, 0, 0))")
_FIELDS = ("YEAR", "qtr", "mon", "W", "D", "dow", "DOW_ISO", "doy", "H", "minutes", "SECS")


def calendar(api, df):
    F_ = api.F
    return df.select(
        F_.day("d"), F_.day("ts"), F_.dayname("d"), F_.monthname("ts"), F_.weekday("d"), F_.weekday("ts"),
        *(F_.date_part(F_.lit(field), "ts") for field in _FIELDS),
        F_.datepart(F_.lit("week"), "d"), F_.extract(F_.lit("second"), "d"), F_.extract(F_.lit("DAY"), "ts"),
        F_.make_date("y", "mo", "dd"),
        F_.make_timestamp("y", "mo", "dd", "h", "mi", "sec"),
        F_.make_timestamp_ltz("y", "mo", "dd", "h", "mi", "sec"),
        F_.make_timestamp_ntz("y", "mo", "dd", "h", "mi", "sec"),
        F_.unix_date("d"), F_.unix_seconds("ts"), F_.unix_millis("ts"), F_.unix_micros("ts"),
        F_.timestamp_seconds("n"), F_.timestamp_seconds("x"), F_.timestamp_seconds("sec"),
        F_.timestamp_millis("n"), F_.timestamp_micros("n"),
        F_.date_diff("d", "ts"), F_.dateadd("d", 3), F_.dateadd("ts", "i"),
        F_.date_from_unix_date("i"),
        F_.convert_timezone(F_.lit("UTC"), F_.lit("Europe/Paris"), "ts"),
        F_.try_to_date("t"), F_.try_to_date("t", "dd/MM/yyyy"), F_.try_to_timestamp("t"),
        F_.try_to_timestamp("t", F_.lit("yyyy-MM-dd")), F_.try_to_date("ts"), F_.try_to_timestamp("d"),
        F_.convert_timezone(F_.lit("America/New_York"), F_.lit("+05:30"), "s"),
        F_.to_unix_timestamp("s"), F_.to_unix_timestamp("d"), F_.to_unix_timestamp("d", F_.lit("yyyy")),
        (F_.to_date(F_.localtimestamp()) == F_.curdate()).alias("today"),
        (F_.now() >= F_.col("ts")).alias("past"),
        F_.isnan("x"), F_.isnan("i"), F_.nanvl("x", "i"), F_.nanvl("i", "x"),
        # the sort orders placing NULLs, as a window's order (one Spark job for the family)
        F_.row_number().over(api.Window.orderBy(
            F_.asc_nulls_last("k1"), F_.desc_nulls_first("k2"), F_.desc_nulls_last("k3"),
            F_.asc_nulls_first("k4"))).alias("placed"),
        # the SQL front end resolves through the same registry
        *(F_.expr(text) for text in SQL_FORMS),
    )


@pytest.mark.slow
def test_calendar_functions_match_pyspark(spark, sessions) -> None:
    assert_same(calendar, [DATA], spark, sessions, time_zone=ZONE)


def test_unsupported_date_parts_are_refused() -> None:
    with pytest.raises(AnalysisError, match="date_part of the field 'YEAROFWEEK' is not supported"):
        F.date_part(F.lit("YEAROFWEEK"), "d")
    with pytest.raises(AnalysisError, match="convert_timezone without a source time zone"):
        F.convert_timezone(None, F.lit("UTC"), "ts")
    with pytest.raises(AnalysisError, match="make_timestamp with a time zone is not supported"):
        F.make_timestamp("y", "mo", "dd", "h", "mi", "sec", F.lit("UTC"))
