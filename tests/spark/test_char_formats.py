"""``to_char``/``to_varchar`` of dates, timestamps and binary
(``planner.logical.typed_to_char``) against real PySpark: one table of edges (a leap day,
the epoch, fractions of a second, NULLs, empty and non-ASCII binary) and one select of every
kind and format, in the DataFrame API and SQL text, so the family costs one Spark job."""

from __future__ import annotations

import datetime

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

FORMATS = pa.table({
    "d": pa.array([datetime.date(2024, 2, 29), datetime.date(1970, 1, 1), None, datetime.date(1, 1, 1)]),
    "ts": pa.array([datetime.datetime(2024, 1, 2, 3, 4, 5, 600000), datetime.datetime(1969, 12, 31, 23, 59, 59),
                    None, datetime.datetime(2000, 6, 15, 12)], pa.timestamp("us", "UTC")),
    "b": pa.array([b"\x00ab\xc3\xa9", b"", None, b"\x7f\x01"]),
})


def formatted(api, df):
    F_ = api.F
    return df.select(
        F_.to_char("d", F_.lit("yyyy/MM/dd EEE")), F_.to_varchar("d", F_.lit("D")),
        F_.to_char("ts", F_.lit("yyyy-MM-dd HH:mm:ss.SSS")), F_.to_varchar("ts", F_.lit("a hh")),
        F_.to_char("b", F_.lit("hex")), F_.to_char("b", F_.lit("BASE64")), F_.to_varchar("b", F_.lit("utf-8")),
        F_.expr("to_char(d, 'MMM d, yyyy') AS sql_date"), F_.expr("to_varchar(b, 'Hex') AS sql_hex"),
    )


@pytest.mark.slow
def test_to_char_matches_pyspark(spark, sessions) -> None:
    assert_same(formatted, [FORMATS], spark, sessions)


def test_refused_with_a_reason(sessions) -> None:
    df = sessions[0].createDataFrame(FORMATS)
    for build, why in [
        (lambda: df.select(F.to_char(F.lit(1), F.lit("999"))).schema, "number format"),
        (lambda: df.select(F.to_char("b", F.lit("utf-16"))).schema, "BINARY_FORMAT"),
    ]:
        with pytest.raises(AnalysisError, match=why):
            build()
