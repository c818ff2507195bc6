"""``F.expr``, ``selectExpr`` and ``filter``/``where`` with SQL text against real PySpark:
the text is parsed by sqlglot and translated into the same validated expression models
as the Python functions, so names, types and values must match PySpark's."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same, session_of, sql_program

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

DATA = pa.table({
    "s": pa.array(["a.b.c", "hello world", "", None, "a.b.c", "x1y22"]),
    "i": pa.array([3, -7, 0, None, 3, 12], pa.int32()),
    "x": pa.array([2.675, -2.5, 0.0, 1.5, 2.675, None], pa.float64()),
    "d": pa.array([dt.date(2020, 2, 29), dt.date(2021, 1, 31), None, dt.date(1999, 12, 31),
                   dt.date(2020, 2, 29), dt.date(2024, 3, 1)]),
})


def select_expressions(api, df):
    return df.selectExpr(
        "*", "i + 1 AS j", "upper(s)", "regexp_replace(s, '[.]', '-') AS r", "instr(s, 'b') AS pos",
        "concat_ws('/', s, s) AS cw", "lpad(s, 4, '*') AS lp", "initcap(s) AS ic",
        "s rlike '^a' AS rl", "substring(s, -3, 2) AS sb", "round(x, 2) AS r2", "bround(x, 0) AS b0",
        "floor(x) AS fl", "pmod(i, 5) AS pm", "greatest(i, 1) AS g", "sqrt(abs(x)) AS sq",
        "datediff(d, date '2020-01-01') AS dd", "date_format(d, 'dd.MM.yyyy') AS df",
        "add_months(d, 1) AS am", "dayofweek(d) AS dw", "year(d) AS y", "last_day(d) AS ld",
        "to_date('2020-02-29') AS td", "months_between(d, date '2020-01-31') AS mb",
        "CASE WHEN i > 0 THEN 'pos' ELSE 'other' END AS sign",
    ).where("i IS NOT NULL AND (s LIKE 'a%' OR x < 1)")


def expr_columns(api, df):
    F_ = api.F
    return df.filter("d >= date '2020-01-01'").select(
        F_.expr("i * 2 AS twice"), F_.expr("coalesce(s, 'none')").alias("c"), F_.expr("x <=> 2.675 AS same"),
        (F_.expr("abs(i)") + 1).alias("k"), F_.expr("date_add(d, 30) AS later"),
    ).where(F_.expr("twice <> 0"))


@pytest.mark.slow
def test_select_expr_and_where_text_match_pyspark(spark, sessions) -> None:
    assert_same(select_expressions, [DATA], spark, sessions)


@pytest.mark.slow
def test_expr_columns_match_pyspark(spark, sessions) -> None:
    assert_same(expr_columns, [DATA], spark, sessions)


def test_sql_text_is_one_expression_and_checked_like_python_calls() -> None:
    with pytest.raises(AnalysisError, match="not one SQL expression"):
        F.expr("a, b")
    with pytest.raises(AnalysisError, match="not one SQL expression"):
        F.expr("a FROM t")
    with pytest.raises(AnalysisError, match="cannot parse"):
        F.expr("a +")
    with pytest.raises(AnalysisError, match="the function nosuch is not supported by sparkwire"):
        F.expr("nosuch(a)")
    with pytest.raises(AnalysisError, match="lookahead"):
        F.expr("s rlike '(?=a)'")
    with pytest.raises(AnalysisError, match="must be a literal"):
        F.expr("regexp_replace(s, t, 'x')")


def test_sql_aliases_keep_their_spelling(spark, sessions):
    """Spark keeps an alias as written (sqlglot folds unquoted names to lower case)."""
    table = pa.table({"a": pa.array([1, 2, None], pa.int64())})
    queries = ["SELECT a AS MyName, a + 1 AS X, a FROM spell_t ORDER BY myname",
               "SELECT a AS MyName, a + 1 AS X, a FROM spell_t UNION ALL SELECT a, a, a FROM spell_t"]
    spark.createDataFrame(table).createOrReplaceTempView("spell_t")
    for engine in sessions:
        session_of(engine).createDataFrame(table).createOrReplaceTempView("spell_t")
    for query in queries:
        want = spark.sql(query).columns
        assert want == ["MyName", "X", "a"]
        for engine in sessions:
            assert session_of(engine).sql(query).columns == want, query


COERCIONS = """
SELECT d > '2020-01-01' AS later, d = '2020-02-29' AS leap, d BETWEEN '2020-01-01' AND '2021-12-31' AS within,
       s || i AS joined, x = '2.675' AS same_text, i = '3' AS same_int
FROM t
"""


@pytest.mark.slow
def test_sql_text_coerces_strings_as_spark_does(spark, sessions) -> None:
    """Strings compared with dates or used in arithmetic: Spark's implicit casts, which
    sparkwire's analyzer applies (sqlglot's type annotation and canonicalisation are not
    run: they cost a fifth of SQL planning and Spark's rules are the analyzer's)."""
    assert_same(sql_program(COERCIONS), [DATA], spark, sessions)
