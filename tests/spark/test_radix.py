"""``conv`` (``planner.logical.functions.radix``) against real PySpark: one table of edges
(signs, spaces, invalid digits ending the number, non-ASCII text, empty strings, values at
2^63 and 2^64 and beyond, where Java's overflow check stops) and one select of every sign of
base, NULL bases, an integer column and SQL text, so the family costs one Spark job with ANSI
off (where overflow is an answer) and one small one with it on (where it fails)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same, pyspark_api, sparkwire_api

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

ANSI = "spark.sql.ansi.enabled"
CONV = pa.table({
    "s": pa.array(["10", "-10", "ff", "FF", "fz1", " 17 ", "", "  ", "-", "-0", "0", "zz", "ffffffffffffffff",
                   "ffffffffffffffffff", "10000000000000000", "8000000000000000", "7fffffffffffffff",
                   "-8000000000000000", "18446744073709551615", "18446744073709551616", "9223372036854775808",
                   "-9223372036854775809", "1é2", "\t12", None, "+5", "1_0", "12abc", "--3", "zzzzzzzzzzzzz"]),
    "i": pa.array([255, -255, 0, None, 2**63 - 1, -2**63, 36, -1, 7, 10] * 3, pa.int64()),
})


def converted(api, df):
    F_ = api.F
    return df.select(
        F_.conv("s", 16, 10), F_.conv("s", 16, -10), F_.conv("s", 10, 16), F_.conv("s", 10, -16),
        F_.conv("s", 36, 2), F_.conv("s", 2, 36), F_.conv("s", 1, 10), F_.conv("s", 10, -37),
        F_.conv("i", 10, 16), F_.conv("i", 10, -2), F_.expr("conv(s, 36, -36) AS sql_conv"),
    )


@contextmanager
def ansi(enabled: bool, *engines: Any) -> Iterator[None]:
    for engine in engines:
        engine.conf.set(ANSI, enabled)
    try:
        yield
    finally:
        for engine in engines:
            engine.conf.unset(ANSI)


@pytest.mark.slow
def test_conv_matches_pyspark(spark, sessions) -> None:
    with ansi(False, spark, *sessions):
        assert_same(converted, [CONV], spark, sessions)


@pytest.mark.slow
def test_overflow_fails_with_ansi_on(spark, sessions) -> None:
    table = pa.table({"s": ["1", "10000000000000000"]})
    for engine, api in ((spark, pyspark_api()), (sessions[0], sparkwire_api())):
        with ansi(True, engine), pytest.raises(Exception, match="ARITHMETIC_OVERFLOW"):
            engine.createDataFrame(table).select(api.F.conv("s", 16, 10)).collect()


def test_column_bases_are_refused() -> None:
    with pytest.raises(AnalysisError, match="int literal bases"):
        F.conv("s", F.col("b"), 10)
