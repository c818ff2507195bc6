"""``soundex`` and ``format_number`` against real PySpark: one table of edge cases (NULLs,
empty strings, non-letters and non-ASCII letters, H and W, NaN, -0.0, infinities, ties
at the rounding place, extreme integers, decimals) and one select of
every function, in the DataFrame API and in SQL text (``F.expr``), so the family costs one
Spark job."""

from __future__ import annotations

import decimal

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

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
})


def spellings(api, df):
    F_ = api.F
    return df.select(
        F_.soundex("s"), F_.expr("soundex(s) AS sql_soundex"),
        F_.format_number("x", 2), F_.format_number("x", 0), F_.format_number("x", 5), F_.format_number("x", -1),
        F_.format_number("f", 3), F_.format_number("i", 2), F_.format_number("i", 0), F_.format_number("n", 1),
        F_.format_number("p", 0), F_.format_number("p", 2), F_.format_number("p", 5),
        F_.expr("format_number(x, 1) AS sql_fn"), F_.expr("format_number(p, 1) AS sql_fn_p"),
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


def test_a_double_past_2_pow_53_fails_the_query(sessions) -> None:
    """Java writes it from FloatingDecimal's digits (``1e23`` as ``99,...,990,000,000``)."""
    df = sessions[0].createDataFrame(pa.table({"x": [1.0, 1e23]}))
    with pytest.raises(Exception, match="FloatingDecimal"):
        df.select(F.format_number("x", 2)).collect()
