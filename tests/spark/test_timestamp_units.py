"""``timestamp_diff`` and ``timestamp_add`` (``planner.logical.functions.timestamp_units``)
against real PySpark: every unit in one ``select`` over one table of edges, in a zone with
DST (America/New_York): a month end not reached (Jan 31 to Feb 29), a time of day not
reached, both directions, the spring-forward and fall-back nights, instants before 1970 with
a fraction, a leap day a year on, wall clocks (``timestamp_ntz``), dates and strings as
operands, negative and NULL quantities; the SQL forms (``TIMESTAMPDIFF``, ``TIMESTAMPADD``,
``DATEADD``) through ``F.expr``."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

T, UTC = dt.datetime, dt.timezone.utc
ZONE = "America/New_York"
_INSTANT = pa.timestamp("us", tz="UTC")

DATA = pa.table({
    "a": pa.array([T(2024, 1, 31, 15, tzinfo=UTC), T(2024, 2, 29, 16, tzinfo=UTC),
                   T(2021, 3, 14, 6, 30, tzinfo=UTC), T(2021, 11, 7, 5, 30, tzinfo=UTC),
                   T(1969, 12, 31, 23, 59, 59, 500001, tzinfo=UTC), None,
                   T(2020, 2, 29, 12, tzinfo=UTC), T(2023, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)], _INSTANT),
    "b": pa.array([T(2024, 2, 29, 15, tzinfo=UTC), T(2024, 1, 31, 15, tzinfo=UTC),
                   T(2021, 3, 15, 6, tzinfo=UTC), T(2021, 11, 8, 5, 30, tzinfo=UTC),
                   T(1970, 1, 1, 0, 0, 0, 499999, tzinfo=UTC), T(2000, 1, 1, tzinfo=UTC),
                   T(2021, 2, 28, 11, 59, 59, tzinfo=UTC), T(2024, 1, 1, tzinfo=UTC)], _INSTANT),
    "w": pa.array([T(2024, 1, 31, 10), T(2021, 3, 14, 3, 30), None, T(2021, 11, 7, 0, 30),
                   T(1969, 12, 31, 23, 59, 59, 1), T(2020, 2, 29), T(2024, 3, 31, 23), T(1900, 1, 1)],
                  pa.timestamp("us")),
    "d": pa.array([dt.date(2024, 1, 31), dt.date(2021, 3, 13), dt.date(2020, 2, 29), None,
                   dt.date(1969, 12, 31), dt.date(2021, 11, 7), dt.date(2000, 3, 31), dt.date(2024, 12, 31)]),
    "s": pa.array(["2024-01-31 10:00:00", "2021-03-14 01:59:59", "2021-03-14 03:00:00", None, "1970-01-01 00:00:00",
                   "2021-11-07 01:30:00", "2024-02-29", "2024-12-31 23:59:59.999"]),
    "q": pa.array([1, -1, 13, None, 0, 2000, -12, 5], pa.int32()),
})
_DIFF_UNITS = ("YEAR", "quarter", "Month", "week", "DAY", "hour", "minute", "second", "millisecond",
               "microsecond")
# the calendar units move the wall clock, the clock units the instant: one of each kind
_ADD_UNITS = ("YEAR", "quarter", "month", "week", "dayofyear", "hour", "second")
SQL_FORMS = ("timestampdiff(QUARTER, d, b)", "timestampadd(MINUTE, q, d)", "dateadd(DAY, q, d)")


def units(api, df):
    F_ = api.F
    return df.select(
        *(F_.timestamp_diff(unit, "a", "b") for unit in _DIFF_UNITS),
        F_.timestamp_diff("hour", "w", "b"), F_.timestamp_diff("day", "d", "a"),
        F_.timestamp_diff("month", "s", "d"),
        *(F_.timestamp_add(unit, "q", "a") for unit in _ADD_UNITS),
        F_.timestamp_add("month", "q", "w"), F_.timestamp_add("hour", "q", "w"),
        F_.timestamp_add("week", "q", "s"), F_.timestamp_add("millisecond", api.F.lit(-1500), "s"),
        *(F_.expr(text) for text in SQL_FORMS),
    )


@pytest.mark.slow
def test_timestamp_units_match_pyspark(spark, sessions) -> None:
    assert_same(units, [DATA], spark, sessions, time_zone=ZONE)


def test_unknown_units_are_refused() -> None:
    with pytest.raises(AnalysisError, match="timestampdiff of 'dayofyear' is not supported"):
        F.timestamp_diff("dayofyear", "a", "b")
    with pytest.raises(AnalysisError, match="timestampadd of 'fortnight' is not supported"):
        F.timestamp_add("fortnight", F.lit(1), "a")
    with pytest.raises(AnalysisError, match="argument 1 must be a literal"):
        F.timestamp_diff(F.col("s"), "a", "b")  # type: ignore[arg-type]
