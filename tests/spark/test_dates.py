"""Date and time functions against real PySpark (session time zone UTC): leap days, month
ends, year ends, times just before midnight, dates before 1970, NULLs and duplicates."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

D, T = dt.date, dt.datetime
DATA = pa.table({
    "d": pa.array([D(2020, 2, 29), D(2021, 1, 31), D(2020, 12, 31), D(1969, 7, 20), None,
                   D(2021, 1, 31), D(2023, 1, 1), D(2024, 3, 31)]),
    "e": pa.array([D(2020, 1, 31), D(2020, 2, 29), D(2021, 1, 1), D(1970, 1, 1), D(2000, 1, 1),
                   D(2020, 11, 30), None, D(2024, 2, 29)]),
    "ts": pa.array([T(2020, 2, 29, 23, 59, 59, 999000), T(2021, 1, 31, 0, 0, 0), T(2020, 12, 31, 12, 30, 45),
                    T(1969, 7, 20, 20, 17, 40, 500000), T(2001, 9, 9, 1, 46, 40), None,
                    T(2023, 1, 1, 7, 8, 9), T(2024, 3, 31, 10, 0, 0)], pa.timestamp("us")),
    "s": pa.array(["2020-02-29", "2021-01-31 10:11:12", "1999-12-31", None, "2000-01-01",
                   "2021-01-31", "2023-01-01 00:00:01", "2024-03-31"]),
    "f": pa.array(["29/02/2020 23:59", "31/01/2021 00:00", "31/12/1999 12:30", None, "01/01/2000 08:05",
                   "31/01/2021 00:00", "01/01/2023 07:08", "31/03/2024 10:00"]),
    "n": pa.array([1, -1, 12, 0, 3, None, -13, 1], pa.int32()),
})


def dates(api, df):
    F_ = api.F
    return df.select(
        "d", "ts",
        F_.datediff("d", "e"), F_.datediff("ts", "d"),
        F_.months_between("d", "e"), F_.months_between("ts", "e"), F_.months_between("e", "ts", False),
        F_.date_format("ts", "yyyy-MM-dd HH:mm:ss.SSS"), F_.date_format("d", "d/M/yy EEE MMM"),
        F_.date_format("ts", "EEEE, MMMM dd 'at' hh:mm a, DDD"),
        F_.to_date("s"), F_.to_date("f", "dd/MM/yyyy HH:mm"), F_.to_timestamp("s"),
        F_.to_timestamp("f", "dd/MM/yyyy HH:mm"),
        F_.date_trunc("month", "ts"), F_.date_trunc("HOUR", "ts"), F_.date_trunc("week", "d"),
        F_.date_trunc("quarter", "ts"), F_.trunc("d", "year"), F_.trunc("ts", "MM"), F_.trunc("d", "week"),
        F_.hour("ts"), F_.minute("ts"), F_.second("ts"), F_.hour("d"),
        F_.dayofweek("d"), F_.dayofyear("d"), F_.weekofyear("d"), F_.weekofyear("e"), F_.quarter("ts"),
        F_.last_day("d"), F_.last_day("ts"), F_.next_day("d", "Mon"), F_.next_day("e", "sunday"),
        F_.date_add("d", 1), F_.date_sub("d", 1), F_.add_months("d", 1), F_.add_months("e", -12),
        F_.add_months("d", "n"), F_.date_add("e", F_.col("n")),
        F_.year("ts"), F_.month("ts"), F_.dayofmonth("ts"),
        (F_.current_date() >= F_.col("d")).alias("past"),
        (F_.datediff(F_.current_timestamp(), F_.current_date()) == 0).alias("today"),
    )


@pytest.mark.slow
def test_date_functions_match_pyspark(spark, sessions) -> None:
    assert_same(dates, [DATA], spark, sessions)


def test_unsupported_patterns_and_units_are_refused() -> None:
    with pytest.raises(AnalysisError, match="'QQ' are not supported by sparkwire"):
        F.date_format("d", "yyyy QQ")
    with pytest.raises(AnalysisError, match="unclosed quote"):
        F.to_date("s", "yyyy 'x")
    with pytest.raises(AnalysisError, match="date_trunc of 'fortnight' is not supported by sparkwire"):
        F.date_trunc("fortnight", "ts")
    with pytest.raises(AnalysisError, match="trunc of 'day' is not supported by sparkwire"):
        F.trunc("d", "day")
    with pytest.raises(AnalysisError, match="next_day of 'someday'"):
        F.next_day("d", "someday")


def test_current_time_is_one_value_per_column() -> None:
    first = F.current_timestamp()
    assert first.output_name == "current_timestamp()"
    assert first.expr.args[0].type == "timestamp"
    assert F.current_date().output_name == "current_date()"
