"""The later string functions, the NULL functions and ``try_`` arithmetic against real
PySpark: one table of edge cases per family (NULLs, empty strings, non-ASCII text, negative
and out-of-range positions, integer extremes, NaN, -0.0) and one select of every function,
so each family costs one Spark job per sparkwire session."""

from __future__ import annotations

import re

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same, pyspark_api, sparkwire_api

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

TEXTS = pa.table({
    "s": pa.array(["a,b,c", "", None, "héllo wörld", ",,x,", "aXbXc", "ß∂ƒ,ü", "  pad  "]),
    "d": pa.array([",", "", "x", "l", ",", "X", ",", None]),
    "n": pa.array([2, 3, None, -1, -2, 7, 1, -9], pa.int32()),  # no 0: split_part fails
    "c": pa.array([65, 256, None, -1, 321, 0, 955, 97], pa.int64()),
    "k": pa.array([2, 1, None, 1, 2, 1, 1, 2], pa.int32()),  # elt's index, in range (ANSI)
})


def texts(api, df):
    F_ = api.F
    return df.select(
        F_.left("s", "n"), F_.right("s", "n"), F_.repeat("s", 2), F_.repeat("d", "n"),
        F_.reverse("s"), F_.ascii("s"), F_.char("c"), F_.chr("c"), F_.octet_length("s"),
        F_.bit_length("s"), F_.char_length("s"), F_.character_length("d"), F_.btrim("s"),
        F_.btrim("s", F_.lit(" a")), F_.translate("s", "a,ü", "A;"), F_.overlay("s", "d", 2),
        F_.overlay("s", F_.lit("XY"), "n", 1), F_.overlay("s", F_.lit(""), 3, 0),
        F_.split_part("s", "d", "n"), F_.split_part("s", F_.lit(","), F_.lit(-1)),
        F_.substring_index("s", ",", 2), F_.substring_index("s", ",", -2),
        F_.substring_index("s", "X", 0), F_.levenshtein("s", "d"), F_.levenshtein("s", "d", 3),
        F_.printf(F_.lit("%s|%5d"), "s", "n"), F_.like("s", F_.lit("%,_")),
        F_.ilike("s", F_.lit("A%")), F_.rlike("s", F_.lit("^a")),
        F_.regexp_like("s", F_.lit(r"\bw")), F_.regexp("s", F_.lit("X.")),
        F_.startswith("s", "d"), F_.endswith("s", "d"), F_.contains("s", "d"),
        F_.regexp_count("s", F_.lit("[a-z]")), F_.regexp_count("s", F_.lit(",?")),
        F_.regexp_extract_all("s", F_.lit(r"([a-z])(,|$)"), 1),
        F_.regexp_extract_all("s", F_.lit(r"(\w)")), F_.regexp_substr("s", F_.lit("[b-z]+")),
        F_.regexp_substr("s", F_.lit("q*")), F_.regexp_instr("s", F_.lit(r"\bw")),
        F_.regexp_instr("s", F_.lit("[,X]")), F_.elt(F_.lit(2), "s", "d"), F_.elt("k", "s", "d"),
        F_.find_in_set(F_.lit("b"), "s"), F_.find_in_set("d", "s"), F_.find_in_set(F_.lit(""), "s"),
        F_.lcase("s"), F_.ucase("s"), F_.replace("s", F_.lit(",")),
        F_.replace("s", "d", F_.lit("<>")), F_.position(F_.lit("b"), "s"),
        F_.position(F_.lit(","), "s", F_.lit(3)), F_.encode("s", "UTF-8"),
        F_.decode(F_.encode("s", "utf-8"), "UTF-8"),
    )


@pytest.mark.slow
def test_string_functions_match_pyspark(spark, sessions) -> None:
    assert_same(texts, [TEXTS], spark, sessions)


NULLS = pa.table({
    "a": pa.array([1, None, 0, 2147483647, -2147483648, 7, None], pa.int32()),
    "b": pa.array([1, 5, None, 1, -1, 0, None], pa.int32()),
    "l": pa.array([2**62, -(2**63), None, 3, 9223372036854775807, 0, 1], pa.int64()),
    "x": pa.array([1.5, float("nan"), None, -0.0, 0.0, 1e308, float("inf")]),
    "t": pa.array(["p", None, "", "q", "p", None, "r"]),
    "u": pa.array(["p", "q", "", None, "P", None, "s"]),
})


def nulls(api, df):
    F_ = api.F
    return df.select(
        F_.nvl("a", "b"), F_.ifnull("t", "u"), F_.nvl2("a", "t", "u"), F_.nvl2("x", "a", "l"),
        F_.nullif("a", "b"), F_.nullif("t", "u"), F_.nullifzero("b"), F_.nullifzero("x"),
        F_.zeroifnull("a"), F_.zeroifnull("x"), F_.zeroifnull("l"), F_.equal_null("t", "u"),
        F_.equal_null("a", "b"), F_.isnull("x"), F_.isnotnull("t"),
        F_.try_add("a", "b"), F_.try_subtract("a", "b"), F_.try_multiply("a", "b"),
        F_.try_add("l", "l"), F_.try_subtract("l", "a"), F_.try_multiply("l", "b"),
        F_.try_add("x", "a"), F_.try_multiply("x", "x"), F_.try_divide("a", "b"),
        F_.try_divide("x", "b"), F_.try_divide("l", "a"), F_.try_mod("a", "b"), F_.try_mod("l", "b"),
    )


@pytest.mark.slow
def test_null_functions_and_try_arithmetic_match_pyspark(spark, sessions) -> None:
    assert_same(nulls, [NULLS], spark, sessions)


FAILING = pa.table({"s": ["a,b"], "n": pa.array([0], pa.int32()), "i": pa.array([3], pa.int32())})
ANSI_KEY = "spark.sql.ansi.enabled"


@pytest.mark.slow
@pytest.mark.parametrize(("error_class", "build"), [
    ("INVALID_INDEX_OF_ZERO", lambda F_: F_.split_part("s", F_.lit(","), "n")),
    ("INVALID_ARRAY_INDEX", lambda F_: F_.elt("i", "s", "s")),
])
def test_errors_match_pyspark(spark, local_sessions, error_class, build) -> None:
    """Where the plain function fails, both engines fail with Spark's error class (on the
    3-worker session: a failing query waits out the coordinator's grace, 1.5 s)."""
    def program(api, df):
        return df.select(build(api.F).alias("r"))

    for api, df in ((pyspark_api(), spark.createDataFrame(FAILING)),
                    (sparkwire_api(), local_sessions[-1].createDataFrame(FAILING))):
        with pytest.raises(Exception, match=re.escape(f"[{error_class}]")):
            program(api, df).toArrow()


@pytest.mark.slow
def test_elt_past_its_strings_is_null_without_ansi(spark, sessions) -> None:
    def program(api, df):
        return df.select(api.F.elt("i", "s", "s"), api.F.elt(api.F.lit(-1), "s"))

    spark.conf.set(ANSI_KEY, "false")
    for session in sessions:
        session.conf.set(ANSI_KEY, "false")
    try:
        assert_same(program, [FAILING], spark, sessions)
    finally:
        spark.conf.set(ANSI_KEY, "true")
        for session in sessions:
            session.conf.set(ANSI_KEY, "true")


def test_refused_with_a_reason() -> None:
    for build, why in [
        (lambda: F.encode("s", "UTF-16"), "character set"),
        (lambda: F.regexp_instr("s", F.lit("a"), 1), "group other than 0"),
        (lambda: F.regexp_count("s", F.lit("(?<=a)b")), "lookbehind"),
        (lambda: F.uuid(7), "seed"),
    ]:
        with pytest.raises(AnalysisError, match=why):
            build()
