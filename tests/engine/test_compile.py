"""Compiled fragments run on a locked-down TaskEngine and match hand-written oracle SQL."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

import pyarrow as pa
import pytest
from tests.engine.engine_helpers import engine_for, exchange, oracle, run_fragment

from sparkwire.coordinator.worker.engine import TaskEngine
from sparkwire.coordinator.worker.compile import CompileError, compile_fragment
from sparkwire.planner.logical.expressions import AggCall, Call, Case, Cast, Column, Lit, NamedExpr, SortKey
from sparkwire.planner.logical.plan import Aggregate, Filter, Limit, Project, Sort
from sparkwire.planner.logical.sources import LocalSource
from sparkwire.planner.logical.staged import Boundary


def col(name: str) -> Column:
    return Column(name=name)


def lit(value: object, type: str | None = None) -> Lit:
    return Lit(value=value, type=type)


def call(fn: str, *args: object) -> Call:
    return Call(fn=fn, args=args)


def named(name: str, expr: object) -> NamedExpr:
    return NamedExpr(name=name, expr=expr)


def rows(t: pa.Table) -> list[dict[str, object]]:
    return t.to_pylist()


def same(a: object, b: object) -> bool:
    """Equality that treats NaN as equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def test_filter_project(engine: TaskEngine, table: pa.Table) -> None:
    fragment = Project(
        input=Filter(input=exchange(table), predicate=call("gt", col("x"), lit(1.5))),
        columns=(named("id", col("id")), named("y", call("mul", col("x"), lit(2)))),
    )
    got = run_fragment(engine, fragment, {0: table})
    want = oracle(table, 'SELECT id, x * 2 AS y FROM t WHERE x > 1.5')
    assert got.column_names == ["id", "y"]
    assert sorted(rows(got), key=lambda r: r["id"]) == sorted(rows(want), key=lambda r: r["id"])


def test_aggregate_grouped(engine: TaskEngine, table: pa.Table) -> None:
    fragment = Aggregate(
        input=exchange(table),
        keys=(named("g", col("g")),),
        aggregates=(
            named("n", AggCall(fn="count")),
            named("nx", AggCall(fn="count", arg=col("x"))),
            named("sx", AggCall(fn="sum", arg=col("x"))),
            named("si", AggCall(fn="sum", arg=col("i"))),
            named("ax", AggCall(fn="avg", arg=col("x"))),
            named("lo", AggCall(fn="min", arg=col("s"))),
            named("hi", AggCall(fn="max", arg=col("d"))),
            named("nd", AggCall(fn="count_distinct", arg=col("i"))),
        ),
    )
    got = run_fragment(engine, fragment, {0: table})
    want = oracle(
        table,
        "SELECT g, count(*) AS n, count(x) AS nx, sum(x) AS sx, sum(i) AS si, avg(x) AS ax, "
        "min(s) AS lo, max(d) AS hi, count(DISTINCT i) AS nd FROM t GROUP BY g",
    )
    key = lambda r: (r["g"] is None, r["g"] or "")  # noqa: E731
    assert got.schema == want.schema
    for a, b in zip(sorted(rows(got), key=key), sorted(rows(want), key=key), strict=True):
        assert a.keys() == b.keys()
        for k in a:
            assert a[k] == pytest.approx(b[k]) if isinstance(a[k], float) else a[k] == b[k]


def test_aggregate_computed_key_and_alias_shadowing(engine: TaskEngine, table: pa.Table) -> None:
    # The output name "x" shadows an input column; grouping is by position, so it is safe.
    fragment = Aggregate(
        input=exchange(table),
        keys=(named("x", call("mod", col("id"), lit(3))),),
        aggregates=(named("m", AggCall(fn="max", arg=col("x"))),),
    )
    got = run_fragment(engine, fragment, {0: table})
    want = oracle(table, "SELECT id % 3 AS x, max(x) AS m FROM t GROUP BY 1")
    assert sorted(rows(got), key=lambda r: r["x"]) == sorted(rows(want), key=lambda r: r["x"])


def test_global_aggregate_on_empty_input_gives_one_row(engine: TaskEngine, table: pa.Table) -> None:
    fragment = Aggregate(
        input=Filter(input=exchange(table), predicate=lit(False)),
        keys=(),
        aggregates=(named("n", AggCall(fn="count")), named("s", AggCall(fn="sum", arg=col("x")))),
    )
    assert rows(run_fragment(engine, fragment, {0: table})) == [{"n": 0, "s": None}]


@pytest.mark.parametrize("ascending", [True, False])
@pytest.mark.parametrize("nulls_first", [True, False])
def test_sort_directions_and_nulls(
    engine: TaskEngine, table: pa.Table, ascending: bool, nulls_first: bool
) -> None:
    fragment = Sort(
        input=exchange(table),
        keys=(SortKey(expr=col("x"), ascending=ascending, nulls_first=nulls_first), SortKey(expr=col("id"))),
    )
    got = run_fragment(engine, fragment, {0: table})
    order = f"x {'ASC' if ascending else 'DESC'} NULLS {'FIRST' if nulls_first else 'LAST'}, id"
    want = oracle(table, f"SELECT * FROM t ORDER BY {order}")
    assert got.column("id").to_pylist() == want.column("id").to_pylist()
    xs = got.column("x").to_pylist()
    assert (xs[0] is None) == nulls_first and (xs[-1] is None) == (not nulls_first)


def test_sort_limit_and_limit(engine: TaskEngine, table: pa.Table) -> None:
    top = Sort(input=exchange(table), keys=(SortKey(expr=col("id"), ascending=False),), limit=5)
    assert run_fragment(engine, top, {0: table}).column("id").to_pylist() == [39, 38, 37, 36, 35]
    assert run_fragment(engine, Limit(input=exchange(table), n=3), {0: table}).num_rows == 3
    assert run_fragment(engine, Limit(input=exchange(table), n=0), {0: table}).num_rows == 0


def test_order_survives_project_filter_limit_on_many_threads(settings) -> None:  # type: ignore[no-untyped-def]
    big = pa.table({"k": pa.array([(i * 7919) % 100_003 for i in range(100_003)], pa.int64())})
    fragment = Limit(
        input=Project(
            input=Filter(
                input=Sort(input=exchange(big), keys=(SortKey(expr=col("k"), ascending=False),)),
                predicate=call("ne", call("mod", col("k"), lit(5)), lit(0)),
            ),
            columns=(named("k2", call("add", col("k"), lit(1))),),
        ),
        n=50_000,
    )
    with engine_for(settings.model_copy(update={"threads": 4})) as eng:
        got = run_fragment(eng, fragment, {0: big}).column("k2").to_pylist()
    assert len(got) == 50_000
    assert got == sorted(got, reverse=True)


# Every scalar function against the same expression written by hand.
CALLS = [
    (call("add", col("i"), lit(3)), "i + 3"),
    (call("sub", col("x"), col("i")), "x - i"),
    (call("mul", col("dec"), lit(2)), "dec * 2"),
    (call("div", col("id"), lit(4)), "CAST(id AS DOUBLE) / 4"),
    (call("mod", col("i"), lit(3)), "i % 3"),
    # exact: dec has 2 decimals, a quarter of it 4, shown at the requested scale 6
    (call("decimal_div", Cast(expr=col("dec"), to="decimal(10,2)"),
          Cast(expr=lit(-4), to="decimal(1,0)"), lit(6)), "CAST(dec / -4 AS DECIMAL(38,6))"),
    # avg of a decimal: the sum's exact quotient by a count (thirds never tie), at scale 4
    (call("decimal_avg", Cast(expr=col("dec"), to="decimal(10,2)"), lit(3), lit(4)),
     "CAST(dec / 3 AS DECIMAL(38,4))"),
    (call("neg", col("x")), "-x"),
    (call("eq", col("g"), lit("aa")), "g = 'aa'"),
    (call("ne", col("i"), lit(0)), "i <> 0"),
    (call("lt", col("d"), lit("2020-06-01", "date")), "d < DATE '2020-06-01'"),
    (call("le", col("x"), lit(0.5)), "x <= 0.5"),
    (call("gt", col("ts"), lit("2021-03-20 00:00:00", "timestamp")), "ts > TIMESTAMP '2021-03-20'"),
    (call("ge", col("dec"), lit("0.50", "decimal(10,2)")), "dec >= 0.50"),
    (call("and", col("b"), call("gt", col("i"), lit(0))), "b AND i > 0"),
    (call("or", col("b"), call("gt", col("i"), lit(0)), call("is_null", col("s"))), "b OR i > 0 OR s IS NULL"),
    (call("not", col("b")), "NOT b"),
    (call("is_null", col("g")), "g IS NULL"),
    (call("is_not_null", col("g")), "g IS NOT NULL"),
    (call("isnan", col("x")), "coalesce(isnan(x), false)"),  # Spark's isnan(NULL) is false
    (call("try_double", col("s")), "TRY_CAST(s AS DOUBLE)"),
    (call("try_double", col("g")), "TRY_CAST(g AS DOUBLE)"),
    (call("in", col("i"), lit(1), lit(-2), lit(None)), "i IN (1, -2, NULL)"),
    (call("in", col("i")), "FALSE"),
    (call("between", col("x"), lit(-1), lit(2.5)), "x BETWEEN -1 AND 2.5"),
    (call("coalesce", col("g"), col("s"), lit("none")), "coalesce(g, s, 'none')"),
    (call("abs", col("i")), "abs(i)"),
    (call("trunc", col("x")), "trunc(x)"),
    (call("lower", col("s")), "lower(s)"),
    (call("upper", col("s")), "upper(s)"),
    (call("length", col("s")), "length(s)"),
    (call("year", col("d")), "year(d)"),
    (call("month", col("ts")), "month(ts)"),
    (call("day", col("d")), "day(d)"),
    (call("like", col("s"), lit("%b%")), "s LIKE '%b%'"),
    (call("like", col("g"), lit("a_")), "g LIKE 'a_'"),
    (call("substring", col("s"), lit(2), lit(3)), "substring(s, 2, 3)"),
    (call("substring", col("s"), lit(2)), "substring(s, 2)"),
    (call("concat", col("s"), lit("-"), col("g")), "s || '-' || g"),
    (call("trim", col("s")), "trim(s)"),
    (call("ltrim", col("s")), "ltrim(s)"),
    (call("rtrim", col("s")), "rtrim(s)"),
    (call("date_add", col("d"), lit(-40)), "CAST(d + INTERVAL (-40) DAY AS DATE)"),
    (call("add_months", col("d"), lit(1)), "CAST(d + INTERVAL 1 MONTH AS DATE)"),
    (call("date_sub", col("d"), col("i")), "CAST(d - INTERVAL (i) DAY AS DATE)"),
    # strings, dates and math (planner.api.functions.strings/_dates/_math), against DuckDB written by hand
    (call("substr", col("s"), lit(2), lit(3)), "substring(s, 2, 3)"),
    (call("substring", col("s"), lit(0), lit(2)), "substring(s, 1, 2)"),
    (call("substring", col("s"), lit(-2), lit(5)), "right(s, 2)"),
    (call("concat_ws", lit("-"), col("s"), col("g")), "concat_ws('-', s, g)"),
    (call("lpad", col("g"), lit(3), lit("*")), "CASE WHEN length(g) >= 3 THEN left(g, 3) ELSE lpad(g, 3, '*') END"),
    (call("rpad", col("g"), lit(3), lit("")), "left(g, 3)"),
    (call("regexp_replace", col("s"), lit("[0-9]"), lit("<$0>"), lit(1)), "regexp_replace(s, '[0-9]', '<\\0>', 'g')"),
    (call("regexp_extract", col("s"), lit("([0-9]+)"), lit(1)), "regexp_extract(s, '([0-9]+)', 1)"),
    (call("rlike", col("g"), lit("^a+$")), "regexp_full_match(g, 'a+')"),
    (call("instr", col("s"), lit("1")), "strpos(s, '1')"),
    (call("locate", lit("1"), col("s"), lit(5)), "CASE WHEN strpos(s[5:], '1') = 0 THEN 0 ELSE strpos(s[5:], '1') + 4 END"),
    (call("initcap", col("g")), "upper(g[1]) || g[2:]"),
    (call("format_string", lit("%s=%3d"), col("g"), col("i")), "coalesce(g, 'null') || '=' || coalesce(lpad(i::varchar, 3, ' '), 'null')"),
    (call("startswith", col("g"), lit("aa")), "g LIKE 'aa%'"),
    (call("endswith", col("s"), lit("9É")), "s LIKE '%9É'"),
    (call("contains", col("g"), lit("bb")), "g LIKE '%bb%'"),
    (call("eq_null_safe", col("g"), col("s")), "g IS NOT DISTINCT FROM s"),
    (call("current_date", lit("2024-02-29", "date")), "DATE '2024-02-29'"),
    # `ts` is a wall clock (timestamp_ntz); a timestamp is an instant, here in the plan's
    # default zone UTC: the oracle's timezone('UTC', x) reads a wall clock as a UTC instant
    (call("current_timestamp", lit("2024-02-29 01:02:03", "timestamp")),
     "timezone('UTC', TIMESTAMP '2024-02-29 01:02:03')"),
    (call("current_timezone"), "'UTC'"),
    (call("datediff", col("d"), col("ts")), "date_diff('day', ts::date, d)"),
    (call("months_between", col("d"), lit("2020-01-31", "date"), lit(False)),
     "CASE WHEN day(d) = 31 OR d = last_day(d) THEN (year(d) - 2020) * 12 + month(d) - 1 "
     "ELSE (year(d) - 2020) * 12 + month(d) - 1 + (day(d) - 31) / 31 END"),
    (call("date_format", col("ts"), lit("yyyy-MM-dd HH:mm")), "strftime(ts, '%Y-%m-%d %H:%M')"),
    (call("to_date", call("date_format", col("ts"), lit("yyyy-MM-dd"))), "ts::date"),
    (call("to_date", call("date_format", col("d"), lit("dd.MM.yyyy")), lit("dd.MM.yyyy")), "d"),
    (call("to_timestamp", call("date_format", col("ts"), lit("yyyy-MM-dd HH:mm:ss")), lit("yyyy-MM-dd HH:mm:ss")),
     "timezone('UTC', ts)"),
    (call("to_timestamp_ltz", call("date_format", col("ts"), lit("yyyy-MM-dd HH:mm:ss")),
          lit("yyyy-MM-dd HH:mm:ss")), "timezone('UTC', ts)"),
    (call("to_timestamp_ntz", call("date_format", col("ts"), lit("yyyy-MM-dd HH:mm:ss")),
          lit("yyyy-MM-dd HH:mm:ss")), "ts"),
    (call("unix_timestamp", call("date_format", col("ts"), lit("yyyy-MM-dd HH:mm:ss")),
          lit("yyyy-MM-dd HH:mm:ss")), "CAST(epoch(ts) AS BIGINT)"),
    (call("unix_timestamp", col("ts")), "CAST(epoch(ts) AS BIGINT)"),
    (call("from_unixtime", col("i"), lit("yyyy-MM-dd HH:mm:ss")),
     "strftime(make_timestamp(i * 1000000), '%Y-%m-%d %H:%M:%S')"),
    (call("from_utc_timestamp", col("ts"), lit("Asia/Tokyo")), "timezone('UTC', ts + INTERVAL 9 HOUR)"),
    (call("to_utc_timestamp", col("ts"), lit("Asia/Tokyo")), "timezone('UTC', ts - INTERVAL 9 HOUR)"),
    (call("date_trunc", lit("MONTH"), col("ts")), "timezone('UTC', date_trunc('month', ts))"),
    (call("trunc_date", col("d"), lit("year")), "make_date(year(d), 1, 1)"),
    (call("hour", col("ts")), "hour(ts)"),
    (call("minute", col("ts")), "minute(ts)"),
    (call("second", col("ts")), "second(ts)"),
    (call("dayofweek", col("d")), "dayofweek(d) + 1"),
    (call("dayofyear", col("d")), "dayofyear(d)"),
    (call("weekofyear", col("d")), "week(d)"),
    (call("quarter", col("d")), "(month(d) + 2) // 3"),
    (call("last_day", col("d")), "last_day(d)"),
    (call("next_day", col("d"), lit("sunday")), "d + CAST(7 - dayofweek(d) AS INTEGER)"),
    (call("round", col("dec"), lit(1)), "round(dec, 1)"),
    (call("bround", col("i"), lit(-1)), "round_even(i, -1)"),
    (call("round_double", col("x"), lit(1)), "round(x::decimal(38,6), 1)::double"),
    (call("bround_double", col("x"), lit(0)), "round_even(x::decimal(38,6), 0)::double"),
    (call("floor_double", col("x")), "CAST(floor(x) AS BIGINT)"),  # NaN, +-inf: tests/spark
    (call("ceil_double", col("x")), "CAST(ceil(x) AS BIGINT)"),
    (call("floor", col("x")), "floor(x)"),
    (call("ceil", col("dec")), "ceil(dec)"),
    (call("ceiling", col("i")), "i"),
    (call("sqrt", call("abs", col("x"))), "sqrt(abs(x))"),
    (call("pow", col("x"), lit(2)), "x * x"),
    (call("log", lit(2.0), col("x")), "CASE WHEN x > 0 THEN log2(x) END"),
    (call("ln", col("x")), "CASE WHEN x > 0 THEN ln(x) END"),
    (call("log10", col("x")), "CASE WHEN x > 0 THEN log10(x) END"),
    (call("log2", col("i")), "CASE WHEN i > 0 THEN log2(i) END"),
    (call("log1p", col("x")), "CASE WHEN x > -1 THEN ln(x + 1) END"),
    (call("exp", col("x")), "exp(x)"),
    (call("signum", col("i")), "sign(i)::double"),
    (call("greatest", col("x"), col("i"), lit(None)), "greatest(x, i)"),
    (call("least", col("x"), col("i")), "least(x, i)"),
    (call("pmod", col("i"), lit(3)), "((i % 3) + 3) % 3"),
    # precedence: sqlglot does not parenthesise built trees, the compiler must
    (call("mul", call("add", col("i"), lit(1)), lit(2)), "(i + 1) * 2"),
    (call("sub", lit(10), call("sub", col("i"), lit(3))), "10 - (i - 3)"),
    (call("not", call("eq", col("i"), lit(1))), "NOT (i = 1)"),
    (call("neg", call("sub", col("i"), lit(1))), "-(i - 1)"),
    (call("neg", lit(-5)), "5"),  # never `--5`, which would start a comment
    # typed integer arithmetic is DuckDB's with ANSI on (legacy wrapping: tests/spark/test_semantics.py)
    (call("add", col("i"), lit(3), lit("int32")), "i + 3"),
    (call("neg", col("id"), lit("int64")), "-id"),
    (call("exact_integer", call("mul", col("id"), lit(2)), lit("int64")), "CAST(id * 2 AS BIGINT)"),
    # NULL where it holds (where it does not: test_raise_error_fails_with_its_class)
    (call("assert_true", call("is_not_null", col("id")), lit("m")), "NULL"),
]


@pytest.mark.parametrize(("expr", "sql"), CALLS, ids=[f"{e.fn}-{i}" for i, (e, _) in enumerate(CALLS)])
def test_every_call(engine: TaskEngine, table: pa.Table, expr: Call, sql: str) -> None:
    fragment = Project(input=exchange(table), columns=(named("id", col("id")), named("r", expr)))
    got = run_fragment(engine, fragment, {0: table})
    want = oracle(table, f"SELECT id, {sql} AS r FROM t")
    got_r = dict(zip(got.column("id").to_pylist(), got.column("r").to_pylist(), strict=True))
    want_r = dict(zip(want.column("id").to_pylist(), want.column("r").to_pylist(), strict=True))
    assert got_r.keys() == want_r.keys()
    for k in got_r:
        a, b = got_r[k], want_r[k]
        assert (a == pytest.approx(b)) if isinstance(a, float) and b is not None else a == b, (k, a, b)


def test_all_call_functions_covered() -> None:
    from typing import get_args

    from sparkwire.planner.logical.expressions import ScalarFunction

    from sparkwire.planner.logical import function_types
    from sparkwire.planner.logical.array_types import ARRAY_FUNCTIONS
    from sparkwire.planner.logical.collection_types import COLLECTION_FUNCTIONS

    from sparkwire.coordinator.worker.compile.calls_bits import BIT_CALLS
    from sparkwire.coordinator.worker.compile.calls_calendar import CALENDAR_CALLS, CALENDAR_ZONE_CALLS
    from sparkwire.coordinator.worker.compile.calls_elementary import ELEMENTARY_CALLS, ELEMENTARY_MODE_CALLS
    from sparkwire.coordinator.worker.compile.calls_encodings import ENCODING_CALLS
    from sparkwire.coordinator.worker.compile.calls_try_calendar import TRY_CALENDAR_CALLS, TRY_CALENDAR_ZONE_CALLS
    from sparkwire.coordinator.worker.compile.calls_formats import FORMAT_CALLS
    from sparkwire.coordinator.worker.compile.calls_task import TASK_CALLS
    from sparkwire.coordinator.worker.compile.calls_spellings import SPELLING_CALLS
    from sparkwire.coordinator.worker.compile.calls_timestamp_units import TIMESTAMP_UNIT_CALLS
    from sparkwire.coordinator.worker.compile.calls_hmac import HMAC_CALLS

    # arrays, maps and structs: tests/engine/test_collections.py and tests/spark/test_arrays.py;
    # the later string, NULL and try_ functions: against PySpark in tests/spark/test_texts.py;
    # raise_error fails every row: test_raise_error_fails_with_its_class; trigonometry, bits and
    # encodings, whose oracle is Spark itself: tests/spark/test_math_families.py; the other
    # array and map functions: tests/spark/test_array_functions.py; the later date
    # functions, the try_ parsers and nanvl: tests/spark/test_calendar.py; the session's
    # functions and try_make_timestamp: tests/spark/test_aggregate_forms.py; JSON, URL and
    # UTF-8 functions: tests/spark/test_formats.py; the task's identity and randomness:
    # tests/spark/test_task_values.py; soundex and format_number: tests/spark/test_spellings.py;
    # timestampdiff and timestampadd: tests/spark/test_timestamp_units.py; update_fields never
    # reaches a worker (the analyzer writes it out): tests/spark/test_struct_updates.py
    # hmac and conv: tests/spark/test_macs.py, test_radix.py; to_char/to_varchar, made other calls by the analyzer:
    # tests/spark/test_char_formats.py; vectors, collation: tests/spark/test_vectors.py; parse_url:
    # tests/spark/test_urls.py; json_tuple_value: tests/spark/test_json_tuples.py; TIME: tests/spark/test_times.py
    from sparkwire.coordinator.worker.compile.calls_times import TIME_CALLS, TIME_ZONE_CALLS
    from sparkwire.coordinator.worker.compile.calls_vectors import VECTOR_CALLS
    from sparkwire.coordinator.worker.compile.calls_urls import URL_MODE_CALLS
    families = {*VECTOR_CALLS, *URL_MODE_CALLS, "to_number", "try_to_number", "collation", "json_tuple_value", *HMAC_CALLS, "conv", "to_char", "to_varchar", *TASK_CALLS, *ELEMENTARY_CALLS, *ELEMENTARY_MODE_CALLS, *BIT_CALLS, *ENCODING_CALLS, *ARRAY_FUNCTIONS,
                *CALENDAR_CALLS, *CALENDAR_ZONE_CALLS, "try_to_date", "try_to_timestamp", "session_value", *FORMAT_CALLS,
                *TRY_CALENDAR_CALLS, *TRY_CALENDAR_ZONE_CALLS, *SPELLING_CALLS, *TIMESTAMP_UNIT_CALLS,
                *TIME_CALLS, *TIME_ZONE_CALLS, "update_fields"}
    assert {e.fn for e, _ in CALLS} == (set(get_args(ScalarFunction)) - COLLECTION_FUNCTIONS
                                        - function_types.FUNCTIONS - {"raise_error"} - families)


def test_division_is_double_like_pyspark(engine: TaskEngine, table: pa.Table) -> None:
    fragment = Project(input=exchange(table), columns=(named("q", call("div", lit(7), lit(2))),))
    got = run_fragment(engine, Limit(input=fragment, n=1), {0: table})
    assert got.schema.field("q").type == pa.float64()
    assert got.column("q").to_pylist() == [3.5]


LITERALS = [
    (lit(None), None, pa.int32()),
    (lit(None, "date"), None, pa.date32()),
    (lit(True), True, pa.bool_()),
    (lit(-42), -42, pa.int32()),
    (lit(2**40), 2**40, pa.int64()),
    (lit(0.1), 0.1, pa.float64()),
    (lit(1 / 3), 1 / 3, pa.float64()),
    (lit(5e-324), 5e-324, pa.float64()),
    (lit(float("nan")), float("nan"), pa.float64()),
    (lit(float("-inf")), float("-inf"), pa.float64()),
    (lit("it's \\ \"x\" ; --"), "it's \\ \"x\" ; --", pa.string()),
    (lit("1.23", "decimal(10,2)"), Decimal("1.23"), pa.decimal128(10, 2)),
    (lit("-12345678901234567890.123456789012345678", "decimal(38,18)"),
     Decimal("-12345678901234567890.123456789012345678"), pa.decimal128(38, 18)),
    (lit("2020-01-01", "date"), dt.date(2020, 1, 1), pa.date32()),
    (lit("2020-01-01 12:34:56.789012", "timestamp"),
     dt.datetime(2020, 1, 1, 12, 34, 56, 789012, tzinfo=dt.timezone.utc), pa.timestamp("us", tz="UTC")),
    (lit("2020-01-01 12:34:56.789012", "timestamp_ntz"), dt.datetime(2020, 1, 1, 12, 34, 56, 789012),
     pa.timestamp("us")),
    (lit(7, "int8"), 7, pa.int8()),
    (lit(7, "float32"), 7.0, pa.float32()),
    (lit("aÉ\\xAA", "binary"), "aÉ\\xAA".encode(), pa.binary()),
]


@pytest.mark.parametrize(("literal", "value", "type"), LITERALS, ids=[str(i) for i in range(len(LITERALS))])
def test_literals(engine: TaskEngine, table: pa.Table, literal: Lit, value: object, type: pa.DataType) -> None:
    fragment = Limit(input=Project(input=exchange(table), columns=(named("v", literal),)), n=1)
    got = run_fragment(engine, fragment, {0: table})
    assert same(got.column("v")[0].as_py(), value)
    if literal.value is not None or literal.type is not None:
        assert got.schema.field("v").type == type


def test_case(engine: TaskEngine, table: pa.Table) -> None:
    expr = Case(
        branches=(
            (call("lt", col("i"), lit(0)), lit("neg")),
            (call("eq", col("i"), lit(0)), lit("zero")),
        ),
        otherwise=lit("pos"),
    )
    no_else = Case(branches=((col("b"), col("id")),))
    fragment = Project(input=exchange(table), columns=(named("id", col("id")), named("c", expr), named("e", no_else)))
    got = run_fragment(engine, fragment, {0: table})
    want = oracle(
        table,
        "SELECT id, CASE WHEN i < 0 THEN 'neg' WHEN i = 0 THEN 'zero' ELSE 'pos' END AS c, "
        "CASE WHEN b THEN id END AS e FROM t",
    )
    assert sorted(rows(got), key=lambda r: r["id"]) == sorted(rows(want), key=lambda r: r["id"])


CASTS = [
    ("bool", col("i"), pa.bool_()),
    ("int8", col("i"), pa.int8()),
    ("int16", col("i"), pa.int16()),
    ("int32", col("id"), pa.int32()),
    ("int64", col("i"), pa.int64()),
    ("float32", col("i"), pa.float32()),
    ("float64", col("dec"), pa.float64()),
    ("string", col("d"), pa.string()),
    ("binary", col("g"), pa.binary()),  # ASCII only: see the caveat in the compiler
    ("date", col("ts"), pa.date32()),
    ("timestamp_ntz", col("d"), pa.timestamp("us")),
    ("decimal(12,3)", col("x"), pa.decimal128(12, 3)),
]


@pytest.mark.parametrize(("to", "source", "type"), CASTS, ids=[c[0] for c in CASTS])
def test_cast(engine: TaskEngine, table: pa.Table, to: str, source: Column, type: pa.DataType) -> None:
    fragment = Project(
        input=exchange(table), columns=(named("id", col("id")), named("c", Cast(expr=source, to=to)))
    )
    got = run_fragment(engine, fragment, {0: table})
    duck = {"bool": "BOOLEAN", "int8": "TINYINT", "int16": "SMALLINT", "int32": "INTEGER", "int64": "BIGINT",
            "float32": "FLOAT", "float64": "DOUBLE", "string": "VARCHAR", "binary": "BLOB", "date": "DATE",
            "timestamp_ntz": "TIMESTAMP"}.get(to, "DECIMAL(12,3)")
    want = oracle(table, f"SELECT id, CAST({source.name} AS {duck}) AS c FROM t")
    assert got.schema.field("c").type == type == want.schema.field("c").type
    assert sorted(rows(got), key=lambda r: r["id"]) == sorted(rows(want), key=lambda r: r["id"])


def test_aggregate_of_cast_and_cast_of_aggregate(engine: TaskEngine, table: pa.Table) -> None:
    # DuckDB's sum of integers is HUGEINT (decimal128(38,0) in Arrow); a planner that wants
    # PySpark's bigint wraps the aggregate in a Cast, which the compiler allows.
    fragment = Aggregate(
        input=exchange(table),
        keys=(),
        aggregates=(named("s", Cast(expr=AggCall(fn="sum", arg=col("i")), to="int64")),),
    )
    got = run_fragment(engine, fragment, {0: table})
    assert got.schema.field("s").type == pa.int64()
    assert got.column("s").to_pylist() == [sum(v for v in table.column("i").to_pylist() if v is not None)]


def test_local_source_reads_the_registered_chunk(engine: TaskEngine, table: pa.Table) -> None:
    source = LocalSource(source_id="src1", chunks=1, columns=("i",))
    got = run_fragment(engine, Filter(input=source, predicate=lit(True)), local=table)
    assert got.column("i").to_pylist() == table.column("i").to_pylist()


def test_compile_errors_for_bad_arity_and_shuffle_without_keys(table: pa.Table) -> None:
    with pytest.raises(CompileError, match="2 argument"):
        compile_fragment(Filter(input=exchange(table), predicate=call("eq", col("i"))), Boundary(kind="result"))
    with pytest.raises(CompileError, match="needs an argument"):
        compile_fragment(
            Aggregate(input=exchange(table), keys=(), aggregates=(named("s", AggCall(fn="sum")),)),
            Boundary(kind="result"),
        )
    with pytest.raises(CompileError, match="shuffle"):
        compile_fragment(exchange(table), Boundary(kind="shuffle", partitions=4))


def test_engine_error_from_duckdb(engine: TaskEngine, table: pa.Table) -> None:
    from sparkwire.coordinator.worker.engine import EngineError

    # a cast the planner made itself (no source type) is DuckDB's own, failing on bad text
    fragment = Project(input=exchange(table), columns=(named("m", Cast(expr=col("s"), to="int32")),))
    with pytest.raises(EngineError, match="DuckDB failed the task's query: Conversion Error"):
        run_fragment(engine, fragment, {0: table})


@pytest.mark.parametrize(("expr", "message"), [
    (call("raise_error", lit("USER_RAISED_EXCEPTION"), col("g")), r"^\[USER_RAISED_EXCEPTION\] ([abc]+|null)$"),
    (call("assert_true", call("lt", col("id"), lit(1)), lit("'(id < 1)' is not true!")),
     r"^\[USER_RAISED_EXCEPTION\] '\(id < 1\)' is not true!$"),
    (Case(branches=((call("ge", col("id"), lit(0)),
                     call("raise_error", lit("SCALAR_SUBQUERY_TOO_MANY_ROWS"), lit(None))),)),
     r"^\[SCALAR_SUBQUERY_TOO_MANY_ROWS\] null$"),
])
def test_raise_error_fails_with_its_class(engine: TaskEngine, table: pa.Table, expr: Call, message: str) -> None:
    """DuckDB's error() carries Spark's class and message, read back as they are
    (``compile.errors.spark_error``); a NULL message reads ``null``, as Spark's."""
    from sparkwire.coordinator.worker.engine import EngineError

    fragment = Project(input=exchange(table), columns=(named("m", expr),))
    with pytest.raises(EngineError, match=message):
        run_fragment(engine, fragment, {0: table})


def test_remainder_by_zero_follows_the_ansi_mode(engine: TaskEngine, table: pa.Table) -> None:
    """ANSI on: Spark's REMAINDER_BY_ZERO error, not DuckDB's text; off: NULL."""
    from sparkwire.coordinator.worker.engine import EngineError

    fragment = Project(input=exchange(table), columns=(named("m", call("mod", col("id"), lit(0))),))
    with pytest.raises(EngineError, match=r"^\[REMAINDER_BY_ZERO\] Remainder by zero"):
        run_fragment(engine, fragment, {0: table})
    got = run_fragment(engine, fragment, {0: table}, ansi=False)
    assert got.column("m").null_count == table.num_rows


def test_or_inside_and_keeps_its_parentheses(engine: TaskEngine) -> None:
    """sqlglot's AND/OR are Func subclasses; unparenthesised, (a OR b) AND c would be
    compiled as a OR (b AND c)."""
    t = pa.table({"a": [True, True, False, False], "b": [False, False, True, False],
                  "c": [False, True, False, True]})
    predicate = call("and", call("or", col("a"), col("b")), col("c"))
    got = run_fragment(engine, Filter(input=exchange(t), predicate=predicate), {0: t})
    want = oracle(t, "SELECT * FROM t WHERE (a OR b) AND c")
    assert got.to_pylist() == want.to_pylist() == [{"a": True, "b": False, "c": True}]


def test_quantile_is_one_of_the_input_values(engine: TaskEngine, table: pa.Table) -> None:
    fragment = Aggregate(
        input=exchange(table), keys=(),
        aggregates=(named("q", AggCall(fn="quantile", arg=col("i"), fraction=0.5)),),
    )
    got = run_fragment(engine, fragment, {0: table})
    want = oracle(table, "select quantile_disc(i, 0.5) q from t")
    assert got.to_pylist() == want.to_pylist()
    with pytest.raises(ValueError, match="fraction"):
        AggCall(fn="quantile", arg=col("i"))
