"""Math functions against real PySpark: halves of both signs for the rounding modes,
values whose decimal text and binary value round differently (2.675), zero, negatives,
NaN, infinities, NULLs, and integer, bigint and decimal operands for the result types."""

from __future__ import annotations

import decimal

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

Dec = decimal.Decimal
DATA = pa.table({
    "x": pa.array([2.5, -2.5, 2.675, 0.0, -0.125, 1e10 + 0.5, None, 15.0, 0.5, 1e-7], pa.float64()),
    "i": pa.array([25, -25, 7, 0, -7, 35, None, 1, 15, 3], pa.int32()),
    "l": pa.array([10**12, -3, 8, 4, -8, 5, 9, None, 2, 2], pa.int64()),
    "dec": pa.array([Dec("1.25"), Dec("-1.25"), Dec("2.675"), Dec("0"), None, Dec("99.995"),
                     Dec("-0.005"), Dec("12.5"), Dec("0.5"), Dec("3.333")], pa.decimal128(10, 3)),
    "y": pa.array([3.0, -2.0, 0.5, 2.0, -1.0, 0.0, 1.0, None, -0.5, 4.0], pa.float64()),
})
SPECIAL = pa.table({"x": pa.array([float("nan"), float("inf"), -float("inf"), -1.0, 0.0, None])})


def math_program(api, df):
    F_ = api.F
    return df.select(
        "x",
        F_.round("x"), F_.round("x", 2), F_.round("x", -1), F_.bround("x"), F_.bround("x", 1),
        F_.round("i", -1), F_.bround("i", -1), F_.round("i"), F_.round("dec", 2), F_.bround("dec", 2),
        F_.round("dec", -1), F_.round("l", -1),
        F_.floor("x"), F_.ceil("x"), F_.floor("dec"), F_.ceil("dec"), F_.floor("i"), F_.ceil("l"),
        F_.sqrt("x"), F_.sqrt("i"), F_.pow("x", 2), F_.pow("y", "i"), F_.pow(2, "y"),
        F_.log("x"), F_.log(2.0, "y"), F_.log(10.0, "i"), F_.log10("x"), F_.ln("l"), F_.log2("y"),
        F_.log1p("y"), F_.exp("y"), F_.signum("x"), F_.signum("i"), F_.signum("dec"),
        F_.greatest("x", "y"), F_.least("x", "y", "i"), F_.greatest("i", "l"), F_.least("dec", "i"),
        F_.pmod("i", F_.lit(3)), F_.pmod("l", F_.lit(-3)), F_.pmod("x", F_.lit(2)), F_.pmod("dec", F_.lit(2)),
        F_.pmod("i", "l"),
    )


def special_program(api, df):
    F_ = api.F
    return df.select(
        "x", F_.round("x", 1), F_.bround("x"), F_.sqrt("x"), F_.log("x"), F_.log10("x"),
        F_.exp("x"), F_.signum("x"), F_.greatest("x", F_.lit(1.0)), F_.least("x", F_.lit(1.0)),
        F_.pow("x", 2),
    )


@pytest.mark.slow
def test_math_functions_match_pyspark(spark, sessions) -> None:
    assert_same(math_program, [DATA], spark, sessions)


@pytest.mark.slow
def test_nan_infinities_and_non_positive_logarithms_match_pyspark(spark, sessions) -> None:
    assert_same(special_program, [SPECIAL], spark, sessions)


#: Doubles whose floor and ceil are a bigint in ANSI mode: NaN (0), -0.0, near 2**63.
BIGINT_EDGES = pa.table({"x": pa.array(
    [float("nan"), 1.5, -1.5, -0.0, None, 9.2e18, -9.2e18, 2.0**62 + 0.5, -2.5, 1e-300], pa.float64())})


def floors_program(api, df):
    F_ = api.F
    f = F_.col("x").cast("float")
    return df.select("x", F_.floor("x"), F_.ceil("x"), F_.ceiling("x").alias("c"), F_.floor(f).alias("ff"),
                     F_.ceil(f).alias("cf"), (F_.floor("x") + 1).alias("plus"))


@pytest.mark.slow
def test_floor_and_ceil_of_doubles_are_bigints_nan_zero(spark, sessions) -> None:
    """ANSI on: NaN floors to 0 and in-range doubles to their bigint (legacy mode and the
    values beyond a bigint: tests/spark/test_semantics.py)."""
    assert_same(floors_program, [BIGINT_EDGES], spark, sessions)


def test_floor_with_a_scale_is_refused() -> None:
    with pytest.raises(AnalysisError, match="floor with a scale is not supported by sparkwire"):
        F.floor("x", 1)
    with pytest.raises(AnalysisError, match="greatest needs at least two columns"):
        F.greatest("x")
