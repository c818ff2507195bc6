import datetime as dt
import decimal

import pytest

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api import functions as F
from sparkwire.planner.logical.expressions import AggCall, Call, Case, Cast, Column, Lit


@pytest.mark.parametrize(
    ("col", "name"),
    [
        (F.sum("x"), "sum(x)"),
        (F.avg("x"), "avg(x)"),
        (F.mean("x"), "avg(x)"),
        (F.min("x"), "min(x)"),
        (F.max("x"), "max(x)"),
        (F.count("*"), "count(1)"),
        (F.count(F.lit(1)), "count(1)"),
        (F.count("x"), "count(x)"),
        (F.countDistinct("x"), "count(DISTINCT x)"),
        (F.sum(F.col("a") * F.col("b")), "sum((a * b))"),
        (F.col("a") + 1, "(a + 1)"),
        (F.lit(5), "5"),
        (F.lit("s"), "s"),
        (F.lower("s"), "lower(s)"),
        (F.dayofmonth("d"), "dayofmonth(d)"),
        (F.sum("x").alias("total"), "total"),
        # checked against PySpark 4
        (F.col("x") != 1, "(NOT (x = 1))"),
        (F.col("k").isin("a", "b"), "(k IN (a, b))"),
        (F.col("x").cast("decimal(10,2)"), "x"),
        (F.lit(decimal.Decimal("12.50")), "12.50"),
        (F.when(F.col("x") > 1, "big").otherwise("small"), "CASE WHEN (x > 1) THEN big ELSE small END"),
        (F.dayofmonth(F.lit(dt.date(2020, 1, 2))), "dayofmonth(DATE '2020-01-02')"),
    ],
)
def test_default_names_follow_pyspark(col: F.Column, name: str) -> None:
    assert col.output_name == name


def test_count_star_forms_are_argumentless() -> None:
    assert F.count("*").expr == AggCall(fn="count")
    assert F.count(F.lit(1)).expr == AggCall(fn="count")
    # count of a NULL literal counts nothing, so it is not count(*)
    assert F.count(F.lit(None)).expr == AggCall(fn="count", arg=Lit(value=None))


def test_operators_build_calls_and_reflected_operands_keep_order() -> None:
    x = F.col("x")
    assert (1 - x).expr == Call(fn="sub", args=(Lit(value=1), Column(name="x")))
    assert (x / 2).expr.fn == "div"
    assert (x % 2).expr.fn == "mod"
    assert (-x).expr == Call(fn="neg", args=(Column(name="x"),))
    assert (~(x > 1)).expr.fn == "not"
    assert ((x >= 1) & (x != 3) | (x == 5)).expr.fn == "or"
    # a string on the right of an operator is a literal, in a function a column name
    assert (x == "a").expr.args[1] == Lit(value="a")
    assert F.upper("a").expr.args[0] == Column(name="a")


def test_isin_between_null_checks() -> None:
    x = F.col("x")
    assert x.isin([1, 2]).expr == x.isin(1, 2).expr
    assert x.isin(1, 2).expr.args == (Column(name="x"), Lit(value=1), Lit(value=2))
    assert x.between(1, 5).expr.fn == "between"
    assert x.isNull().expr.fn == "is_null"
    assert x.isNotNull().expr.fn == "is_not_null"


def test_bool_of_column_is_refused() -> None:
    with pytest.raises(TypeError, match="'&' for 'and'"):
        bool(F.col("a") > 1)
    with pytest.raises(TypeError):
        _ = (F.col("a") > 1) and (F.col("b") > 2)


@pytest.mark.parametrize(
    ("spark", "planner"),
    [
        ("int", "int32"),
        ("bigint", "int64"),
        ("long", "int64"),
        ("double", "float64"),
        ("float", "float32"),
        ("string", "string"),
        ("date", "date"),
        ("timestamp", "timestamp"),
        ("boolean", "bool"),
        ("decimal(10, 2)", "decimal(10,2)"),
        ("DECIMAL(10,2)", "decimal(10,2)"),
        ("int64", "int64"),
    ],
)
def test_cast_accepts_pyspark_type_names(spark: str, planner: str) -> None:
    assert F.col("x").cast(spark).expr == Cast(expr=Column(name="x"), to=planner)


def test_cast_to_unknown_type_is_an_analysis_error() -> None:
    with pytest.raises(AnalysisError, match="varchar2"):
        F.col("x").cast("varchar2")


def test_literals_carry_types_json_cannot() -> None:
    assert F.lit(decimal.Decimal("12.50")).expr == Lit(value="12.50", type="decimal(4,2)")
    assert F.lit(decimal.Decimal("0.001")).expr == Lit(value="0.001", type="decimal(3,3)")
    assert F.lit(dt.date(2024, 2, 29)).expr == Lit(value="2024-02-29", type="date")
    assert F.lit(dt.datetime(2024, 1, 1, 12, 30)).expr == Lit(value="2024-01-01 12:30:00", type="timestamp")
    assert F.lit(float("nan")).expr == Lit(value="nan", type="float64")
    assert F.lit(True).expr == Lit(value=True)
    assert F.lit(None).expr == Lit(value=None)
    with pytest.raises(AnalysisError):
        F.lit(object())  # type: ignore[arg-type]


def test_when_otherwise_chain() -> None:
    c = F.when(F.col("x") > 1, "big").when(F.col("x") > 0, "small").otherwise(F.col("y"))
    assert isinstance(c.expr, Case)
    assert len(c.expr.branches) == 2
    assert c.expr.branches[0][1] == Lit(value="big")
    assert c.expr.otherwise == Column(name="y")
    with pytest.raises(AnalysisError):
        F.col("x").otherwise(1)
    with pytest.raises(AnalysisError):
        c.otherwise(2)


def test_sort_orders_default_nulls_like_pyspark() -> None:
    assert F.col("x").asc().key().nulls_first is True
    assert F.col("x").desc().key().nulls_first is False
    assert F.col("x").desc().key().ascending is False
    assert F.col("x").asc_nulls_last().key().nulls_first is False


def test_alias_and_col_refuse_bad_identifiers() -> None:
    with pytest.raises(AnalysisError):
        F.col("x").alias('a"b')
    with pytest.raises(AnalysisError):
        F.col("")


def test_count_distinct_of_several_columns_is_refused() -> None:
    with pytest.raises(AnalysisError, match="several"):
        F.countDistinct("a", "b")
