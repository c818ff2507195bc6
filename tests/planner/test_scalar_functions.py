"""Planner side of the string, date and math functions: PySpark's names and result types
(both read off PySpark 4.3), the typed rewrite of ``round``, the checks on pattern
arguments, and the translations of Java regex replacements and Spark datetime patterns."""

from __future__ import annotations

import decimal

import pyarrow as pa
import pytest
from pydantic import ValidationError

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api import functions as F
from sparkwire.planner.spark.datetime_patterns import strftime_pattern
from sparkwire.planner.logical.expressions import Call, Cast, Column, Lit
from sparkwire.planner.spark.regex import check_java_regex, java_replacement
from tests.planner.conftest import FakeExecutor

TYPES = pa.table({
    "s": pa.array(["a"]), "x": pa.array([1.5]), "f": pa.array([1.5], pa.float32()),
    "i": pa.array([1], pa.int32()), "l": pa.array([1], pa.int64()),
    "dec": pa.array([decimal.Decimal("1.25")], pa.decimal128(10, 2)),
})


@pytest.mark.parametrize(
    ("col", "name"),
    [  # as PySpark 4.3 names them
        (F.concat_ws("-", "s", "s"), "concat_ws(-, s, s)"),
        (F.regexp_replace("s", "[a-z]", "X"), "regexp_replace(s, [a-z], X, 1)"),
        (F.locate("b", "s"), "locate(b, s, 1)"),
        (F.format_string("%s-%d", "s", "i"), "format_string(%s-%d, s, i)"),
        (F.col("s").like("a%"), "s LIKE a%"),
        (F.col("s").rlike("a.*"), "RLIKE(s, a.*)"),
        (F.col("s").startswith("a"), "startswith(s, a)"),
        (F.col("s").eqNullSafe("ab"), "(s <=> ab)"),
        (F.col("s").substr(2, 2), "substr(s, 2, 2)"),
        (F.substring("s", -2, 2), "substring(s, -2, 2)"),
        (F.current_date(), "current_date()"),
        (F.months_between("ts", "d", False), "months_between(ts, d, false)"),
        (F.trunc("d", "month"), "trunc(d, month)"),
        (F.date_sub("d", 1), "date_sub(d, 1)"),
        (F.round("x"), "round(x, 0)"),
        (F.floor("x"), "FLOOR(x)"),
        (F.ceiling("x"), "ceiling(x)"),
        (F.pow("x", 2), "POWER(x, 2)"),
        (F.log("x"), "ln(x)"),
        (F.log(2.0, "x"), "LOG(2.0, x)"),
        (F.signum("x"), "SIGNUM(x)"),
        (F.pmod("i", F.lit(2)), "pmod(i, 2)"),
        (F.expr("upper(s)"), "upper(s)"),
    ],
)
def test_names_follow_pyspark(col: F.Column, name: str) -> None:
    assert col.output_name == name


def test_result_types_follow_spark(executor: FakeExecutor) -> None:
    from sparkwire.planner.api.sources import create_dataframe

    df = create_dataframe(executor, TYPES).select(
        F.round("dec", 1), F.round("dec"), F.round("i", -1), F.bround("dec", 1), F.floor("dec"),
        F.ceil("x"), F.floor("i"), F.pmod("dec", F.lit(2)), F.greatest("x", "i"), F.signum("i"),
        F.round("f", 1), F.instr("s", "a"), F.datediff(F.current_date(), F.current_date()),
    )
    assert [t for _, t in df.dtypes] == [  # PySpark 4.3's dtypes for the same columns
        "decimal(10,1)", "decimal(9,0)", "int", "decimal(10,1)", "decimal(9,0)", "bigint",
        "bigint", "decimal(3,2)", "double", "double", "float", "int", "int",
    ]


def test_round_of_a_double_rounds_its_decimal_text(executor: FakeExecutor) -> None:
    from sparkwire.planner.api.sources import create_dataframe

    df = create_dataframe(executor, TYPES).select(F.round("x", 2), F.bround("f"), F.round("dec", 1))
    exprs = [c.expr for c in df.plan.columns]
    assert exprs[0] == Call(fn="round_double", args=(Column(name="x"), Lit(value=2)))
    assert exprs[1] == Cast(expr=Call(fn="bround_double", args=(Cast(expr=Column(name="f"), to="float64"),
                                                                Lit(value=0))), to="float32")
    assert exprs[2] == Call(fn="round", args=(Column(name="dec"), Lit(value=1)))


def test_format_string_arguments_are_checked_against_their_types(executor: FakeExecutor) -> None:
    from sparkwire.planner.api.sources import create_dataframe

    df = create_dataframe(executor, TYPES)
    with pytest.raises(AnalysisError, match="takes 2 argument"):
        df.select(F.format_string("%s %d", "s"))
    with pytest.raises(AnalysisError, match="%s of a double is not supported by sparkwire"):
        df.select(F.format_string("%s", "x"))
    with pytest.raises(AnalysisError, match="%d of a string"):
        df.select(F.format_string("%d", "s"))


def test_pattern_arguments_must_be_valid_literals() -> None:
    with pytest.raises(ValidationError, match="must be a literal"):
        Call(fn="date_format", args=(Column(name="d"), Column(name="p")))
    with pytest.raises(ValidationError, match="position other than 1"):
        Call(fn="regexp_replace", args=(Column(name="s"), Lit(value="a"), Lit(value="b"), Lit(value=2)))
    with pytest.raises(ValidationError, match="integer literal"):
        Call(fn="round", args=(Column(name="x"), Lit(value="2")))
    with pytest.raises(AnalysisError, match="next_day of 'Funday'"):
        F.next_day("d", "Funday")


def test_types_named_in_calls_are_checked() -> None:
    """The integer type of arithmetic and the struct type of sort_array are literal names a
    plan cannot forge (``planner.logical.typed``, ``planner.logical.typed_calls``)."""
    with pytest.raises(ValidationError, match="integer type name"):
        Call(fn="add", args=(Column(name="i"), Lit(value=1), Lit(value="float64")))
    with pytest.raises(ValidationError, match="must be a literal"):
        Call(fn="exact_integer", args=(Column(name="i"), Column(name="t")))
    with pytest.raises(ValidationError, match="struct type name"):
        Call(fn="sort_array", args=(Column(name="a"), Lit(value=True), Lit(value="int32")))
    with pytest.raises(ValidationError, match="unknown"):
        Call(fn="sort_array", args=(Column(name="a"), Lit(value=True), Lit(value="struct<a:nope>")))
    Call(fn="neg", args=(Column(name="i"), Lit(value="int8")))


@pytest.mark.parametrize(
    ("spark", "duckdb"),
    [
        ("yyyy-MM-dd HH:mm:ss.SSS", "%Y-%m-%d %H:%M:%S.%g"),
        ("d/M/yy", "%-d/%-m/%y"),
        ("yyyy-MM-dd'T'HH:mm", "%Y-%m-%dT%H:%M"),
        ("hh 'o''clock' a, 100%", "%I o'clock %p, 100%%"),
        ("EEEE, MMMM d", "%A, %B %-d"),
        ("''yy", "'%y"),
    ],
)
def test_datetime_patterns_translate_letter_runs(spark: str, duckdb: str) -> None:
    assert strftime_pattern(spark) == duckdb


def test_parsing_patterns_accept_unpadded_fields() -> None:
    assert strftime_pattern("d/M/yyyy H:m", parsing=True) == "%d/%m/%Y %H:%M"


@pytest.mark.parametrize(
    ("java", "re2"),
    [("$1", "\\1"), ("<$0>", "<\\0>"), ("\\$5", "$5"), ("a\\\\b", "a\\\\b"), ("x$2y", "x\\2y")],
)
def test_java_replacements_become_re2_rewrites(java: str, re2: str) -> None:
    assert java_replacement(java) == re2


@pytest.mark.parametrize(
    "pattern",
    ["^a[]b]+\\d{2,3}?$", "(?i)abc", "\\Qa+b(\\E", "[^\\]x]*", "(?:a|b)+c", "a*?b+?", "\\bw\\w+"],
)
def test_java_regexes_re2_reads_alike_pass(pattern: str) -> None:
    assert check_java_regex(pattern) == pattern
