"""``soundex``, ``format_number``, ``to_base32`` and ``from_base32`` against real PySpark:
one table of edge cases (NULLs, empty strings, non-letters and non-ASCII letters, H and W,
NaN, -0.0, infinities, ties at the rounding place, extreme integers, decimals; base32 of
every padding length, lower case, characters outside the alphabet, partial bytes) and one select of
every function, in the DataFrame API and in SQL text (``F.expr``), so the family costs one
Spark job."""

from __future__ import annotations

import decimal

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

_N = 14
SPELLINGS = pa.table({
    "s": pa.array(["Robert", "Tymczak", "Ab-Bc", "AbéBc", "Whw", "Bhb", "Bab", "1abc", "", "ÉCole", None,
                   "x y z", "BBBBBcccc", "hello world"]),
    "x": pa.array([1234567.891, -0.0, float("nan"), float("inf"), float("-inf"), 0.005, 0.015, 0.125, -1234.5,
                   123456789012.345, None, 4503599627370495.5, -1e-9, -987654321.987654321]),
    "f": pa.array([0.1, 2.5, None, -3.5] * 3 + [1e10, 0.0], pa.float32()),
    "i": pa.array([12345, -9223372036854775808, 9223372036854775807, 0, None, -5, 999, 1000, -1000, 7, 1, 2, 3,
                   123456789], pa.int64()),
    "n": pa.array([1, -2, 3, None, 0, 100, -100, 7, 8, 9, 10, 11, 12, 13], pa.int16()),
    "p": pa.array([v if v is None else decimal.Decimal(v) for v in ["2.500", "3.500", "-0.001", "12345678.125", "0.000", "-2.500",
                                                                  "0.005", "-0.015", "99999999.999", None, "1.000", "1.000",
                                                                  "-12345.678", "0.499"]], pa.decimal128(11, 3)),
    "b32": pa.array(["MFRGG===", "MFRGG", "mfrgg===", "", "MY======", "MZXQ====", "1", "MFRG G===", "ZZ", None,
                     "MZXW6YTBOI======", "MZXW6YTB", "YOUQ====", "M Y======"]),
    "bin": pa.array([b"", b"\x00", b"\xff\xfe", None, b"foobar", b"fooba", b"foob", b"foo", b"fo", b"f",
                     b"\x80" * 7, b"abc", b"\x01\x02\x03\x04\x05", b"z"]),
})


def spellings(api, df):
    F_ = api.F
    return df.select(
        F_.soundex("s"), F_.expr("soundex(s) AS sql_soundex"),
        F_.format_number("x", 2), F_.format_number("x", 0), F_.format_number("x", 5), F_.format_number("x", -1),
        F_.format_number("f", 3), F_.format_number("i", 2), F_.format_number("i", 0), F_.format_number("n", 1),
        F_.format_number("p", 0), F_.format_number("p", 2), F_.format_number("p", 5),
        F_.expr("format_number(x, 1) AS sql_fn"), F_.expr("format_number(p, 1) AS sql_fn_p"),
        F_.to_base32("s"), F_.to_base32("bin"), F_.from_base32("b32"), F_.from_base32(F_.to_base32("s")).alias("round"),
        F_.expr("to_base32(bin) AS sql_to32"), F_.expr("from_base32(b32) AS sql_from32"),
    )


@pytest.mark.slow
def test_spelling_functions_match_pyspark(spark, sessions) -> None:
    assert len(SPELLINGS) == _N
    assert_same(spellings, [SPELLINGS], spark, sessions)


def test_refused_with_a_reason(sessions) -> None:
    df = sessions[0].createDataFrame(SPELLINGS)
    for build, why in [
        (lambda: F.format_number("x", F.col("n")), "int literal"),
        (lambda: F.format_number("x", "#,###.##"), "DecimalFormat pattern"),
        (lambda: df.select(F.format_number("s", 2)).schema, "takes a number"),
    ]:
        with pytest.raises(AnalysisError, match=why):
            build()


@pytest.mark.parametrize(("values", "build", "why"), [
    ([1.0, 1e23], lambda: F.format_number("x", 2), "FloatingDecimal"),  # Java's digits: 99,...,990,000,000
    (["MY======", "M=ZXW6"], lambda: F.from_base32("x"), "after its '=' padding"),  # Spark: 0x03
])
def test_what_spark_writes_its_own_way_fails_the_query(sessions, values, build, why) -> None:
    df = sessions[0].createDataFrame(pa.table({"x": values}))
    with pytest.raises(Exception, match=why):
        df.select(build()).collect()
