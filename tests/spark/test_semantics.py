"""Spark's semantics where DuckDB's differ, against PySpark 4 in both ANSI modes: casts,
division and remainder (by zero too), decimal result types, overflow, NULL ordering and
case-insensitive names. Each program runs once per mode in PySpark and in sparkwire
sessions of 1 and 3 workers; with ANSI on, the values Spark rejects are checked one by one
to fail in both engines with the same error class."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest
from tests.spark.compare import assert_same, assert_same_sql, pyspark_api, sparkwire_api

# connect: passes through Spark Connect too (compare.Remote), at more than the CI budget allows
pytestmark = [pytest.mark.slow, pytest.mark.connect]

STRINGS = pa.table({"s": [
    " 12 ", "\t7\n", "+5", "-0", "1.9", "-1.9", "5.", ".5", "1e3", "abc", "", None, "3000000000",
    "1.5", " 1e3 ", "NaN", "Infinity", "-inf", "1.5d", "1.255", "-1.255", "12345.6", "1e2",
    "2024-02-29", " 2024-02-29 ", "2023-02-29", "2024-2-3", "2024", "2024-02", "2024-02-29T10:00",
    "2024-02-29 10:11:12.5", "2024-12-31 23:59:59", " yes ", "T", "n", "0", "1", "2", "FALSE",
    "1.9",  # a duplicate
]})

NUMBERS = pa.table({
    "x": pa.array([1.9, -1.9, 3e9, math.nan, math.inf, -0.0, 0.0, None, 1e10, 2.5, 2.5], pa.float64()),
    "i": pa.array([7, -7, 0, None, 2147483647, -2147483648, 1, 3, 0, 300, 300], pa.int32()),
    "l": pa.array([3000000000, -1, 0, None, 5, -3000000000, 2**40, 7, 0, 128, 128], pa.int64()),
    "dec": pa.array([Decimal("1.50"), Decimal("-2.25"), Decimal("0.00"), None, Decimal("999.99"),
                     Decimal("-0.01"), Decimal("3.00"), Decimal("1.00"), Decimal("0.00"),
                     Decimal("2.50"), Decimal("2.50")], pa.decimal128(5, 2)),
    "g": ["a", "b", "a", None, "b", "a", "", "a", "b", "", ""],
})


@pytest.fixture(scope="module")
def legacy_sessions() -> Iterator[list[Any]]:
    """sparkwire sessions of 1 and 3 workers with ANSI mode off."""
    from sparkwire.coordinator import Session

    with Session(workers=1, ansi=False) as one, Session(workers=3, ansi=False) as three:
        yield [one, three]


@pytest.fixture
def ansi_off(spark: Any) -> Iterator[Any]:
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        yield spark
    finally:
        spark.conf.set("spark.sql.ansi.enabled", "true")


def _string_casts(api: Any, df: Any) -> Any:
    c = api.F.col("s")
    return df.select(
        "s",
        c.cast("int").alias("i"), c.cast("bigint").alias("l"), c.cast("tinyint").alias("t"),
        c.cast("double").alias("d"), c.cast("float").alias("f"),
        c.cast("decimal(5,2)").alias("dec"), c.cast("date").alias("dt"),
        c.cast("timestamp").alias("ts"), c.cast("boolean").alias("b"),
    )


def _number_casts(api: Any, df: Any) -> Any:
    x, i, l, dec = (api.F.col(n) for n in ("x", "i", "l", "dec"))
    return df.select(
        x.cast("int").alias("x_int"), x.cast("bigint").alias("x_long"),
        x.cast("tinyint").alias("x_byte"), x.cast("decimal(4,1)").alias("x_dec"),
        l.cast("int").alias("l_int"), i.cast("tinyint").alias("i_byte"),
        i.cast("smallint").alias("i_short"), dec.cast("int").alias("dec_int"),
        dec.cast("decimal(3,1)").alias("dec_narrow"), i.cast("double").alias("i_double"),
        i.cast("boolean").alias("i_bool"), dec.cast("string").alias("dec_str"),
        i.cast("string").alias("i_str"), x.cast("string").alias("x_str"),
        (i > 0).cast("string").alias("b_str"), (x * 1e-9).cast("string").alias("small_str"),
        (i / 0).alias("i_div0"), (x / 0).alias("x_div0"), (i % 0).alias("i_mod0"),
        (x % 0).alias("x_mod0"), (l / i).alias("l_div_i"), (i / 2).alias("half"),
        (l % 3).alias("l_mod3"), (dec / i).alias("dec_div_i"), (dec / dec).alias("dec_div_dec"),
        (dec * dec).alias("dec_mul"), (dec + 1).alias("dec_plus"), (dec / 3).alias("dec_third"),
        (dec / 0).alias("dec_div0"), (x / i).alias("x_div_i"), (dec / x).alias("dec_div_x"),
    )


def _decimal_aggregates(api: Any, df: Any) -> Any:
    F = api.F
    return df.groupBy("g").agg(
        F.avg("dec").alias("avg_dec"), F.sum("dec").alias("sum_dec"), F.avg("i").alias("avg_i"),
        F.sum("l").alias("sum_l"), (F.sum("dec") / F.count("dec")).alias("mean_dec"),
        (F.sum("dec") / F.sum("i")).alias("dec_per_i"), F.sum("x").cast("string").alias("x_str"),
    )


#: Integers at and near their limits, for Java's wrap-around (legacy) and overflow (ANSI).
OVERFLOWING = pa.table({
    "i": pa.array([2147483647, -2147483648, 5, None, 2147483647, -7], pa.int32()),
    "l": pa.array([2**63 - 1, -(2**63), 2**62, None, 2**62, 2**62], pa.int64()),
    "b": pa.array([127, -128, 100, None, 100, -1], pa.int8()),
    "s": pa.array([32767, -32768, 200, None, 200, 200], pa.int16()),
    "g": ["a", "a", "b", "b", "a", "b"],
})


def _integer_arithmetic(api: Any, df: Any) -> Any:
    i, l, b, s = (api.F.col(n) for n in ("i", "l", "b", "s"))
    return df.select(
        (i + 1).alias("i_add"), (i * 3).alias("i_mul"), (i - 2).alias("i_sub"), (-i).alias("i_neg"),
        (l + 1).alias("l_add"), (l * 4).alias("l_mul"), (l - 1).alias("l_sub"), (-l).alias("l_neg"),
        (b + b).alias("b_add"), (s * s).alias("s_mul"), (b * i).alias("b_mul_i"),
        (i * l).alias("i_mul_l"), ((i + 1) * 2 - l).alias("nested"),
    )


def _integer_sums(api: Any, df: Any) -> Any:
    F = api.F
    return df.groupBy("g").agg(F.sum("l"), F.sum("i"), (F.sum("l") * 2).alias("twice"),
                               F.sum(F.col("l") + 1).alias("shifted"))


def test_legacy_floor_and_ceil_saturate(ansi_off: Any, legacy_sessions: list[Any]) -> None:
    """ANSI off: floor and ceil of a double beyond a bigint saturate as Java's cast; NaN is 0."""
    table = pa.table({"x": pa.array([math.nan, math.inf, -math.inf, 1e300, -9.3e18, 9.3e18, 2.5,
                                     None, -0.5], pa.float64())})

    def program(api: Any, df: Any) -> Any:
        return df.select("x", api.F.floor("x"), api.F.ceil("x"))

    assert_same(program, [table], ansi_off, legacy_sessions)


def test_legacy_integer_arithmetic_wraps_around(ansi_off: Any, legacy_sessions: list[Any]) -> None:
    """ANSI off: ``+ - *``, unary ``-`` and ``sum`` of integers wrap around as Java's do
    (one task summing, and partial sums merged: the same number modulo 2**64)."""
    assert_same(_integer_arithmetic, [OVERFLOWING], ansi_off, legacy_sessions)
    assert_same(_integer_sums, [OVERFLOWING], ansi_off, legacy_sessions)
    assert_same(lambda api, df: df.agg(api.F.sum("l")), [OVERFLOWING], ansi_off, legacy_sessions)
    ansi_off.createDataFrame(OVERFLOWING).createOrReplaceTempView("sem_overflowing")
    query = "SELECT g, sum(l) + 1 AS s, max(i) * 2 AS m FROM sem_overflowing GROUP BY g"
    want = sorted(map(tuple, ansi_off.sql(query).collect()), key=repr)
    for session in legacy_sessions:
        session.createDataFrame(OVERFLOWING).createOrReplaceTempView("sem_overflowing")
        got = session.sql(query).toArrow()
        assert sorted(zip(*(c.to_pylist() for c in got.columns)), key=repr) == want


#: Aggregates whose result Spark cannot represent: a bigint sum past 2**63 - 1, a decimal
#: average past the 16 whole digits of decimal(38,22).
AGGREGATE_OVERFLOWS = [
    ("ARITHMETIC_OVERFLOW", pa.table({"v": pa.array([2**62, 2**62, 1], pa.int64())}), "sum"),
    ("NUMERIC_VALUE_OUT_OF_RANGE", pa.table({"v": pa.array(
        [Decimal("50000000000000000000.5"), Decimal("1"), None], pa.decimal128(38, 18))}), "avg"),
]


@pytest.mark.parametrize(("error_class", "table", "fn"), AGGREGATE_OVERFLOWS,
                         ids=[e[0] for e in AGGREGATE_OVERFLOWS])
def test_aggregate_overflow(spark: Any, local_sessions: list[Any], legacy_sessions: list[Any],
                            error_class: str, table: pa.Table, fn: str) -> None:
    """ANSI on: the aggregate fails in both engines with Spark's error class; off, the
    bigint sum wraps around and the decimal average is NULL, as Spark's."""
    def program(api: Any, df: Any) -> Any:
        return df.agg(getattr(api.F, fn)("v"))

    with pytest.raises(Exception, match=re.escape(f"[{error_class}")):
        program(pyspark_api(), spark.createDataFrame(table)).collect()
    with pytest.raises(Exception, match=re.escape(f"[{error_class}")):
        program(sparkwire_api(), local_sessions[-1].createDataFrame(table)).toArrow()
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        assert_same(program, [table], spark, legacy_sessions)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", "true")


@pytest.mark.parametrize("program", [_string_casts, _number_casts], ids=["strings", "numbers"])
def test_legacy_mode_gives_null(ansi_off: Any, legacy_sessions: list[Any],
                                program: Callable[..., Any]) -> None:
    """ANSI off: what Spark cannot cast or divide is NULL; overflowing casts wrap or saturate."""
    table = STRINGS if program is _string_casts else NUMBERS.filter(
        pa.compute.invert(pa.compute.is_in(NUMBERS["l"], pa.array([2**40]))))
    assert_same(program, [table], ansi_off, legacy_sessions)


def test_ansi_mode_values(spark: Any, sessions: list[Any]) -> None:
    """ANSI on: every value Spark accepts casts to the same value and type."""
    good = pa.table({"s": [
        " 12 ", "\t7\n", "+5", "-0", None, "12", "-3", "0", "1", "0", "1", "12", "1", "0", "1",
        "12",
    ], "b": [" yes ", "T", "n", "0", "1", "FALSE", None, "t", "y", "no", "f", "true", "F",
             "N", "Y", "1"],
        "dt": ["2024-02-29", " 2024-02-29 ", "2024-2-3", "2024", "2024-02", "2024-02-29T10:00",
               "2024-12-31 23:59:59", None, "2023-01-31", "2020-02-29", "2024-02-29", "1999-12-31",
               "2024-02-29", "2024-02-29", "2024-02-29", "2024-02-29"],
        "num": ["1.5", " 1e3 ", "NaN", "Infinity", "-inf", "1.5d", "1.255", "-1.255", "1e2", None,
                "0", "-0.0", "2.5", "-2.5", "0.005", "9.995"],
        "decs": ["1.5", " 1e1 ", "-0", "1.255", "-1.255", "1e2", None, "0.005", "-0.005", "9.995",
                 "999.994", "-999.99", "+1", "12", "1.", ".5"]})

    def program(api: Any, df: Any) -> Any:
        c, b, d, n, m = (api.F.col(x) for x in ("s", "b", "dt", "num", "decs"))
        return df.select(
            c.cast("int").alias("i"), c.cast("bigint").alias("l"), c.cast("tinyint").alias("t"),
            b.cast("boolean").alias("bool"), d.cast("date").alias("date"),
            d.cast("timestamp").alias("ts"), n.cast("double").alias("d"),
            n.cast("float").alias("f"), m.cast("decimal(5,2)").alias("dec"),
        )

    assert_same(program, [good], spark, sessions)

    def tried(api: Any, df: Any) -> Any:
        c = api.F.col("s")
        return df.select(c.try_cast("int"), c.try_cast("date").alias("d"),
                         c.try_cast("boolean").alias("b"), c.try_cast("decimal(5,2)").alias("dec"))

    assert_same(tried, [STRINGS], spark, sessions)
    query = "SELECT s, TRY_CAST(s AS INT) AS i, TRY_CAST(s AS DATE) AS d FROM sem_strings"
    assert_same_sql(query, {"sem_strings": STRINGS}, spark, sessions)
    numbers = NUMBERS.filter(pa.compute.field("i") != 0)  # no zero divisors in ANSI mode

    def arithmetic(api: Any, df: Any) -> Any:
        x, i, dec = (api.F.col(n) for n in ("x", "i", "dec"))
        return df.select(
            (i * 0 + 1.5).cast("int").alias("one"), (dec / i).alias("dec_div_i"),
            (dec * dec).alias("dec_mul"), (dec / 3).alias("dec_third"), (i / 2).alias("half"),
            (i % 3).alias("i_mod"), (dec % 2).alias("dec_mod"),
        )

    assert_same(arithmetic, [numbers.filter(pa.compute.is_valid(numbers["i"]))], spark, sessions)
    assert_same(_decimal_aggregates, [NUMBERS], spark, sessions)


ERRORS = [
    ("DIVIDE_BY_ZERO", "i", pa.int32(), [4, 0], lambda F, c: c / 0),
    ("DIVIDE_BY_ZERO", "dec", pa.decimal128(5, 2), [Decimal("1.00")], lambda F, c: c / 0),
    ("REMAINDER_BY_ZERO", "i", pa.int32(), [4, None], lambda F, c: c % 0),
    ("CAST_INVALID_INPUT", "s", pa.string(), ["1", "1.9"], lambda F, c: c.cast("int")),
    ("CAST_INVALID_INPUT", "s", pa.string(), ["2024-02-29", "2023-02-29"], lambda F, c: c.cast("date")),
    ("CAST_INVALID_INPUT", "s", pa.string(), ["2024-02-29", "bad"], lambda F, c: c.cast("timestamp")),
    ("CAST_INVALID_INPUT", "s", pa.string(), ["yes", "2"], lambda F, c: c.cast("boolean")),
    ("NUMERIC_VALUE_OUT_OF_RANGE", "s", pa.string(), ["12345.6"], lambda F, c: c.cast("decimal(5,2)")),
    ("NUMERIC_VALUE_OUT_OF_RANGE", "dec", pa.decimal128(5, 2), [Decimal("999.99")],
     lambda F, c: c.cast("decimal(3,1)")),
    ("CAST_OVERFLOW", "x", pa.float64(), [3e9], lambda F, c: c.cast("int")),
    ("CAST_OVERFLOW", "l", pa.int64(), [3000000000], lambda F, c: c.cast("int")),
    ("CAST_OVERFLOW", "i", pa.int32(), [300], lambda F, c: c.cast("tinyint")),
    ("ARITHMETIC_OVERFLOW", "i", pa.int32(), [2147483647], lambda F, c: c + 1),
    ("ARITHMETIC_OVERFLOW", "l", pa.int64(), [2**62], lambda F, c: c * 4),
    ("BINARY_ARITHMETIC_OVERFLOW", "b", pa.int8(), [100], lambda F, c: c + c),
    ("ARITHMETIC_OVERFLOW", "x", pa.float64(), [1.0, math.inf], lambda F, c: F.floor(c)),
    ("ARITHMETIC_OVERFLOW", "x", pa.float64(), [-9.3e18], lambda F, c: F.ceil(c)),
    ("ARITHMETIC_OVERFLOW", "i", pa.int32(), [-2147483648], lambda F, c: -c),
]


@pytest.mark.parametrize(("error_class", "name", "type_", "values", "expr"), ERRORS,
                         ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_ansi_mode_errors(spark: Any, local_sessions: list[Any], error_class: str, name: str,
                          type_: pa.DataType, values: list[Any], expr: Callable[..., Any]) -> None:
    """ANSI on: the value Spark rejects fails the query in both engines, with the same
    error class leading sparkwire's message (on the 3-worker session only: a failing query
    waits out the coordinator's grace for worker losses, 1.5 s)."""
    table = pa.table({name: pa.array(values, type_)})

    def program(api: Any, df: Any) -> Any:
        return df.select(expr(api.F, api.F.col(name)).alias("r"))

    spark.conf.set("spark.sql.session.timeZone", "UTC")
    with pytest.raises(Exception, match=re.escape(f"[{error_class}")):
        program(pyspark_api(), spark.createDataFrame(table)).collect()
    with pytest.raises(Exception, match=re.escape(f"[{error_class}")):
        program(sparkwire_api(), local_sessions[-1].createDataFrame(table)).toArrow()


def test_nulls_sort_first_ascending_last_descending(spark: Any, sessions: list[Any]) -> None:
    """Spark's default NULL order, by orderBy/sort (flags, asc()/desc(), F.desc) and SQL."""
    table = pa.table({"k": pa.array([3, None, 1, None, 2, 2, -1, 0], pa.int32()),
                      "v": ["c", "n1", "a", "n2", "b", "b", "m", ""]})

    def program(api: Any, df: Any) -> Any:
        return df.orderBy(api.F.col("k"), "v")

    def descending(api: Any, df: Any) -> Any:
        return df.sort(df.k.desc(), api.F.desc("v"))

    def flags(api: Any, df: Any) -> Any:
        return df.orderBy(["k", "v"], ascending=[False, True])

    for p in (program, descending, flags):
        assert_same(p, [table], spark, sessions, ordered=True)
    spark.createDataFrame(table).createOrReplaceTempView("sem_nulls")
    want = [tuple(r) for r in spark.sql("SELECT k, v FROM sem_nulls ORDER BY k, v DESC").collect()]
    for session in sessions:
        session.createDataFrame(table).createOrReplaceTempView("sem_nulls")
        got = session.sql("SELECT k, v FROM sem_nulls ORDER BY k, v DESC").toArrow()
        assert list(zip(*(c.to_pylist() for c in got.columns))) == want


def test_names_resolve_ignoring_case(spark: Any, sessions: list[Any]) -> None:
    """``spark.sql.caseSensitive=false``: any case finds the column; output names are as
    Spark gives them."""
    table = pa.table({"Amount": [1, 2, None, 2], "kind": ["a", "B", "a", ""]})

    def program(api: Any, df: Any) -> Any:
        F = api.F
        return df.select(
            "AMOUNT", df["KIND"], (F.col("aMoUnT") + 1).alias("Plus"), F.upper("KIND"),
        ).where(F.col("kind").isNotNull())

    assert_same(program, [table], spark, sessions)

    def grouped(api: Any, df: Any) -> Any:
        return df.groupBy("KIND").agg(api.F.sum("amount"), api.F.count("AMOUNT")).orderBy("kind")

    assert_same(grouped, [table], spark, sessions)


def test_ambiguous_name_after_join_is_an_error(sessions: list[Any]) -> None:
    from sparkwire.planner.errors import AnalysisError

    session = sessions[0]
    left = session.createDataFrame(pa.table({"id": [1], "A": [1]}))
    right = session.createDataFrame(pa.table({"id": [1], "a": [2]}))
    joined = left.join(right, "id")
    with pytest.raises(AnalysisError, match="'a' is ambiguous"):
        joined.select("a")


def test_timestamps_are_utc_instants(spark: Any, sessions: list[Any]) -> None:
    """Timestamps read and cast in the session time zone (UTC), as PySpark types them."""
    table = pa.table({"ts": pa.array([dt.datetime(2024, 2, 29, 23, 59, 59, 500000), None,
                                      dt.datetime(1970, 1, 1)], pa.timestamp("us"))})

    def program(api: Any, df: Any) -> Any:
        c = api.F.col("ts")
        return df.select("ts", c.cast("date").alias("d"), c.cast("string").alias("s"),
                         c.cast("date").cast("string").alias("ds"))

    assert_same(program, [table], spark, sessions)
