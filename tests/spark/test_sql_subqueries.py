"""Subqueries under OR, NOT and CASE and in the SELECT list (mark joins, ``planner.sql.marks``) and correlated
counts against real PySpark, on 1 and 3 workers: names, types and values must match. The
point is SQL's three-valued logic: ``x IN (q)`` unmatched is NULL when ``x`` is NULL or
``q`` holds a NULL, so ``NOT (x IN (q))`` keeps no such row; a correlated ``count(*)`` over
no rows is 0. One view ``t`` serves as both sides (``sql_program``).

Where the NULL itself is observable (``(x IN (q)) IS NULL``, a NOT above an OR), Spark 4.3
answers FALSE: it plans a nested IN as an existence join, which has no NULL (SPARK-58442,
an open fix). sparkwire keeps the SQL standard's NULL there, as DuckDB, PostgreSQL and
Spark's own non-nested IN do; tests/e2e/test_sql_subqueries.py checks those cases against
DuckDB."""

from __future__ import annotations

import pyarrow as pa
import pytest

from tests.spark.compare import assert_same, sql_program as sql

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

DATA = pa.table({
    "g": pa.array([1, 1, 2, 2, 3, None, 4], pa.int32()),
    "a": pa.array([1, 5, 2, None, 3, 4, 7], pa.int64()),
    "b": pa.array([2, None, 3, 1, 9, 5, 8], pa.int64()),
})

#: Conditions over ``t``, each a case of the one query (a UNION ALL: one Spark job, not six).
CONDITIONS = [
    # IN under OR and NOT, a NULL among the subquery's values
    "a IN (SELECT b FROM t WHERE b > 2) OR g = 1",
    "NOT (a IN (SELECT b FROM t)) OR g = 3",
    "NOT (a IN (SELECT b FROM t s WHERE s.g = t.g)) OR g = 3",
    "EXISTS (SELECT 1 FROM t s WHERE s.b = t.a) OR NOT EXISTS (SELECT 1 FROM t s WHERE s.g = t.a AND s.b > 2)",
    # the COUNT bug: a missing group counts 0
    "(SELECT count(*) FROM t s WHERE s.b = t.a) = 0",
    "(SELECT count(*) FROM t s WHERE (s.g = t.g AND s.b > 2) OR (s.g = t.g AND s.a = 1)) > 0",
]
QUERY = " UNION ALL ".join(f"SELECT {i} AS c, g, a FROM t WHERE {c}" for i, c in enumerate(CONDITIONS))


@pytest.mark.slow
def test_subqueries_under_or_not_and_case_match_pyspark(spark, sessions) -> None:
    assert_same(sql(QUERY), [DATA], spark, sessions)


#: EXISTS and IN in the SELECT list (marks kept as values), where Spark 4.3 and SQL agree: no
#: NULL probe and no NULL among the subquery's values (see the module docstring); correlated
#: scalar subqueries there, a missing group's count 0.
SELECT_LIST = (
    "SELECT g, a, EXISTS (SELECT 1 FROM t s WHERE s.b = t.a) AS e, "
    "coalesce(a, 0) IN (SELECT b FROM t WHERE b IS NOT NULL) AS i, "
    "CASE WHEN EXISTS (SELECT 1 FROM t s WHERE s.g = t.g AND s.b > 4) THEN 'many' ELSE 'few' END AS c, "
    "NOT EXISTS (SELECT 1 FROM t s WHERE s.a = t.b) AS n, "
    "(SELECT count(*) FROM t s WHERE s.g = t.g) AS cnt, "
    "(SELECT max(s.b) FROM t s WHERE s.g = t.g AND s.a > 1) + a AS m FROM t"
)


@pytest.mark.slow
def test_subqueries_in_the_select_list_match_pyspark(spark, sessions) -> None:
    assert_same(sql(SELECT_LIST), [DATA], spark, sessions)
