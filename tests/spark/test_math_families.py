"""Trigonometric and elementary math, bitwise, digest and encoding functions against real
PySpark: one table of edge cases per family (NULL, NaN, -0.0, the infinities, the extremes
of doubles and integers, poles and values outside a domain, empty, non-ASCII and
non-hex strings), every function of the family in one ``select``, names and types
included, on 1 and 3 workers."""

from __future__ import annotations

import math

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire.transport.errors import QueryError
from sparkwire import functions as F
from tests.spark.compare import assert_same, sql_program

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

INF = math.inf
NUMBERS = pa.table({
    "x": pa.array([1.5, -0.0, 0.0, None, math.nan, INF, -INF, 2.0, -1.0, 1.0, 1e-10, -1e-7, 1e200,
                   -1e10, 5e-324, 1.7976931348623157e308, 0.5, -2.5, 3.0, 21.0], pa.float64()),
    "y": pa.array([2.0, 1.0, -0.0, 1.0, 1.0, math.nan, 3.0, None, -1.0, 0.0, 1e-10, 4.0, 1e200,
                   -3.0, 0.0, 1.0, -0.5, 2.5, -3.0, 7.0], pa.float64()),
    "i": pa.array([3, -1, 0, None, 2**31 - 1, -(2**31), 20, 21, -5, 1, 7, 31, 32, 33, 2, 63, 64,
                   -64, 100, 5], pa.int32()),
    "l": pa.array([7, -1, 0, None, 2**63 - 1, -(2**63), 20, 21, -5, 1, 7, 31, 32, 33, 2, 63, 64,
                   -64, 100, 5], pa.int64()),
    "t": pa.array([3, -1, 0, None, 127, -128, 20, 21, -5, 1, 7, 31, 32, 33, 2, 63, 64, -64, 100, 5],
                  pa.int8()),
})


def elementary_program(api, df):
    F_ = api.F
    return df.select(
        "x", F_.sin("x"), F_.cos("x"), F_.tan("x"), F_.asin("x"), F_.acos("x"), F_.atan("x"),
        F_.atan2("x", "y"), F_.atan2(F_.lit(1.0), "x"), F_.sinh("x"), F_.cosh("x"), F_.tanh("x"),
        F_.asinh("x"), F_.acosh("x"), F_.atanh("x"), F_.cot("x"), F_.sec("x"), F_.csc("x"),
        F_.hypot("x", "y"), F_.hypot("i", F_.lit(4)), F_.degrees("x"), F_.radians("x"),
        F_.toDegrees("i"), F_.toRadians("i"), F_.sign("x"), F_.sign("i"), F_.pi(), F_.e(),
        F_.cbrt("x"), F_.expm1("x"), F_.rint("x"), F_.rint("y"), F_.factorial("i"),
        F_.negative("x"), F_.negative(F_.col("t").cast("smallint")).alias("nt"),
        F_.negate(F_.col("i").cast("bigint")).alias("ni"), F_.positive("i"),
        F_.width_bucket("x", F_.lit(0.0), F_.lit(10.0), F_.lit(5)),
        F_.width_bucket("y", F_.lit(4.0), F_.lit(-4.0), F_.lit(3)),
        F_.width_bucket("x", "y", F_.lit(3.0), "i"),
    )


@pytest.mark.slow
def test_elementary_functions_match_pyspark(spark, sessions) -> None:
    assert_same(elementary_program, [NUMBERS], spark, sessions)


def bits_program(api, df):
    F_ = api.F
    return df.select(
        "i", F_.shiftleft("i", 1), F_.shiftleft("i", 31), F_.shiftleft("l", 63), F_.shiftleft("t", 4),
        F_.shiftleft("l", 65), F_.shiftLeft("i", -1), F_.shiftright("i", 33), F_.shiftright("l", 1),
        F_.shiftRight("t", 1), F_.shiftrightunsigned("i", 1), F_.shiftrightunsigned("l", 0),
        F_.shiftrightunsigned("t", 3), F_.shiftRightUnsigned("l", 60), F_.bitwise_not("i"),
        F_.bitwise_not("t"), F_.bitwiseNOT("l"), F_.bit_count("i"), F_.bit_count("l"),
        F_.bit_count("t"), F_.bit_get("i", F_.lit(31)), F_.getbit("l", F_.lit(63)),
        F_.bit_get("t", F_.lit(0)),
    )


def bit_aggregates_program(api, df):
    F_ = api.F
    return df.agg(F_.bit_and("i"), F_.bit_or("l"), F_.bit_xor("t"), F_.bit_xor("l"),
                  F_.bit_and("t"), F_.bit_or(F_.col("t").cast("smallint")).alias("h"))


@pytest.mark.slow
def test_bitwise_functions_match_pyspark(spark, sessions) -> None:
    assert_same(bits_program, [NUMBERS], spark, sessions)
    assert_same(bit_aggregates_program, [NUMBERS], spark, sessions)


TEXTS = pa.table({
    "s": pa.array(["abc", "", None, "é\\x", "4a5", "ZZ", "0aFf", "YWJj", "YWI", "日本語 ✓"]),
    "b": pa.array([b"ab", b"", None, b"\xff\x00", b"\\x41", b"x", None, b"\x80", b"0", b"z"],
                  pa.binary()),
    "l": pa.array([255, -1, None, 0, 2**63 - 1, -(2**63), 16, 1, 10, 7], pa.int64()),
    "i": pa.array([255, -1, None, 0, 2**31 - 1, -(2**31), 16, 1, 10, 7], pa.int32()),
})


def encodings_program(api, df):
    F_ = api.F
    return df.select(
        "s", F_.md5("s"), F_.md5("b"), F_.sha1("s"), F_.sha("b"), F_.sha2("s", 256),
        F_.sha2("b", 0), F_.base64("s"), F_.base64("b"),
        F_.unbase64(F_.base64("s")), F_.unbase64(F_.lit("YWI")), F_.hex("s"), F_.hex("b"),
        F_.hex("l"), F_.hex("i"), F_.unhex("s"), F_.unhex(F_.hex("b")), F_.bin("l"), F_.bin("i"),
    )


@pytest.mark.slow
def test_digests_and_encodings_match_pyspark(spark, sessions) -> None:
    assert_same(encodings_program, [TEXTS], spark, sessions)


@pytest.mark.slow
def test_the_families_in_sql_match_pyspark(spark, sessions) -> None:
    """The same functions through ``session.sql``, one of each kind of call sqlglot parses."""
    assert_same(sql_program(
        "SELECT atan(x), atan2(x, y), hypot(x, y), pi(), e(), expm1(x), positive(i), negative(x), "
        "factorial(i), width_bucket(x, 0, 10, 5), cot(x), bit_count(l), bit_get(i, 3), "
        "shiftleft(i, 3), shiftrightunsigned(l, 2), ~t, bin(l) FROM t"), [NUMBERS], spark, sessions)
    assert_same(sql_program("SELECT md5(s), sha1(b), sha2(s, 0), base64(s), unbase64(base64(b)), "
                            "hex(l), unhex(s) FROM t"), [TEXTS], spark, sessions)


def test_a_bit_position_outside_the_width_fails_as_in_spark(sessions) -> None:
    df = sessions[0].createDataFrame(pa.table({"i": pa.array([1], pa.int32())}))
    with pytest.raises(QueryError, match=r"BIT_POSITION_RANGE.*\[0, 32\), but got 32"):
        df.select(F.bit_get("i", F.lit(32))).collect()


def test_what_duckdb_cannot_compute_is_refused_with_the_reason() -> None:
    with pytest.raises(AnalysisError, match="sha2 with 512 bits is not supported by sparkwire"):
        F.sha2("s", 512)
    with pytest.raises(AnalysisError, match="sha2's numBits has to be one of"):
        F.sha2("s", 100)  # as PySpark's API refuses it
    for name in ("hash", "xxhash64", "crc32"):
        with pytest.raises(AttributeError, match=f"`{name}` is not supported.*Murmur3"):
            getattr(F, name)
