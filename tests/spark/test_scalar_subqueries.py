"""Scalar subqueries and the functions that fail a query, against real PySpark on 1 and 3
workers: an uncorrelated subquery of no row is NULL, named ``scalarsubquery()`` with its
column's type, in the SELECT list, CASE, over an aggregate and in WHERE; one of more than
one row fails with Spark's ``SCALAR_SUBQUERY_TOO_MANY_ROWS``; ``raise_error`` and
``assert_true`` have Spark's names, ``void`` type and ``USER_RAISED_EXCEPTION``."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from tests.spark.compare import Api, assert_same, sql_program as sql
from sparkwire.transport.errors import QueryError

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

T = pa.table({"k": pa.array([1, 2, 2, None], pa.int64()), "v": [1.5, None, 2.5, 4.0]})
U = pa.table({"k": pa.array([2, 3, 3], pa.int32()), "w": pa.array([10, 20, None], pa.int64())})

VALUES = """
SELECT k, (SELECT w FROM u WHERE w > 100), (SELECT max(w) FROM u) AS m,
       CASE WHEN k > 1 THEN (SELECT DISTINCT k FROM u WHERE w = 10) END AS c
FROM t WHERE k = (SELECT DISTINCT k FROM u WHERE w = 10) OR k IS NULL
"""
GROUPED = "SELECT k, sum(v) + (SELECT max(w) FROM u) FROM t GROUP BY k"


@pytest.mark.slow
@pytest.mark.parametrize("query", [VALUES, GROUPED], ids=["values", "grouped"])
def test_scalar_subqueries_match_pyspark(spark: Any, sessions: list[Any], query: str) -> None:
    assert_same(sql(query, ("t", "u")), [T, U], spark, sessions)


def test_too_many_rows_fails_as_in_pyspark(spark: Any, local_sessions: list[Any]) -> None:
    program = sql("SELECT k, (SELECT w FROM u WHERE k = 3) FROM t", ("t", "u"))
    with pytest.raises(Exception, match=r"\[SCALAR_SUBQUERY_TOO_MANY_ROWS\] More than one row"):
        _run_pyspark(spark, program)
    for session in local_sessions:
        with pytest.raises(QueryError, match=r"\[SCALAR_SUBQUERY_TOO_MANY_ROWS\] More than one row"):
            program(Api(None, None, None), *(session.createDataFrame(t) for t in (T, U))).toArrow()


def _run_pyspark(spark: Any, program: Any) -> None:
    program(Api(None, None, None), *(spark.createDataFrame(t) for t in (T, U))).collect()


def _holds(api: Api, df: Any) -> Any:
    """Where the assertions hold, NULLs; no row raises: names and void types."""
    F = api.F
    return df.filter("k = 2").select(F.assert_true(F.col("k") > 1), F.assert_true(F.col("k") > 1, "m"))


def _no_row(api: Api, df: Any) -> Any:
    return df.filter("k > 5").select(api.F.raise_error("x"))


FAILURES = [
    (lambda F, df: df.select(F.raise_error("boom")), r"\[USER_RAISED_EXCEPTION\] boom"),
    (lambda F, df: df.select(F.assert_true(F.col("v") < 2)), r"\[USER_RAISED_EXCEPTION\] '\(v < 2\)' is not true!"),
    (lambda F, df: df.selectExpr("assert_true(k > 1, 'small k')"), r"\[USER_RAISED_EXCEPTION\] small k"),
]


def test_raise_error_and_assert_true_match_pyspark(spark: Any, sessions: list[Any],
                                                   local_sessions: list[Any]) -> None:
    from pyspark.sql import functions as spark_functions

    from sparkwire import functions as ours

    assert_same(_holds, [T], spark, sessions)
    assert_same(_no_row, [T], spark, sessions)
    for fails, message in FAILURES:
        with pytest.raises(Exception, match=message):
            fails(spark_functions, spark.createDataFrame(T)).collect()
        for session in local_sessions:
            with pytest.raises(QueryError, match=message):
                fails(ours, session.createDataFrame(T)).toArrow()
