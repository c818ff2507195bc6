"""Subqueries in SQL, decorrelated into joins, give DuckDB's answers: EXISTS / NOT EXISTS
with residual conditions, IN / NOT IN with NULLs on either side, several scalar subqueries
in one condition, scalar subqueries in HAVING, an alias shared by the subquery and the
outer query; scalar subqueries of one plain row (DISTINCT, a GROUP BY with LIMIT, no row at
all), in the SELECT list, CASE, ORDER BY and over an aggregate; and a scalar subquery of
more than one row failing with Spark's error; EXISTS and IN under OR, NOT and CASE (mark
joins), NULL-sensitive; a correlated count over a missing group (0, not a lost row); a
correlation written inside each branch of an OR."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.transport.errors import QueryError
from tests.e2e.conftest import canonical, rows_close

T = pa.table({"k": pa.array([1, 2, 2, 3, None, 5], pa.int64()), "x": [1.0, 5.0, 2.5, None, 4.0, 9.0]})
U = pa.table({"k": pa.array([2, 2, 3, 4, None], pa.int32()), "w": [3, 1, 7, 2, 8]})
V = pa.table({"k": pa.array([2, 3], pa.int64()), "w": [1, 1]})

QUERIES = {
    "exists_with_residual": "select * from t where exists (select * from u where u.k = t.k and u.w > t.x)",
    "not_exists_with_residual": "select * from t where not exists (select * from u where u.k = t.k and u.w <> 1)",
    "in_uncorrelated": "select * from t where k in (select k from u)",
    "not_in_with_null_on_the_right": "select * from t where k not in (select k from u)",
    "not_in_without_nulls": "select * from t where k not in (select k from v)",
    "in_grouped_having": "select * from t where k in (select k from u group by k having sum(w) > 3)",
    "two_scalar_subqueries": (
        "select * from t where x > (select avg(w) from u where u.k = t.k) "
        "and x < (select max(w) from u where u.k = t.k) + 10"
    ),
    "uncorrelated_scalar": "select k, x from t where x > (select avg(w) from u)",
    "scalar_in_having": "select k, sum(x) s from t group by k having sum(x) > (select min(w) from u)",
    "shared_alias": "select * from t where x < (select max(t.w) from u as t where t.k = 2)",
    "exists_uncorrelated_empty": "select * from t where exists (select * from u where w > 100)",
    "not_exists_uncorrelated": "select * from t where not exists (select * from u where w > 100)",
    # scalar subqueries of one plain row, checked at run time (planner.logical.scalars)
    "scalar_distinct_row": "select * from t where k = (select distinct k from u where w = 3)",
    "scalar_between_rows": (
        "select * from t where k between (select distinct k - 1 from u where w in (3, 1)) "
        "and (select distinct k + 1 from u where w = 1)"
    ),
    "scalar_no_row_is_null": "select * from t where k = (select k from u where w > 100)",
    "scalar_in_an_in_subquery": "select * from t where k in (select k from u where w = (select max(w) from v))",
    "scalar_correlated_plain_row": "select * from t where x > (select w from v where v.k = t.k)",
    "scalar_window_inside": "select * from t where x > (select sum(sum(w)) over () / 10 from u)",
    "scalar_grouped_limited": "select * from t where x < (select sum(w) from u group by k order by k nulls first limit 1)",
    # elsewhere than WHERE: the SELECT list, CASE (TPC-DS q09), aggregates, ORDER BY
    "scalar_select_list_no_row": "select k, (select k from u where w > 100) n, (select max(w) from u) m from t",
    "scalar_in_case": (
        "select k, case when (select count(*) from u where w > 1) > 3 then (select avg(w) from u) "
        "else (select max(w) from u) end b from t"
    ),
    "scalar_over_aggregate": "select k, sum(x) + (select max(w) from v) s from t group by k",
    "scalar_in_order_by": "select k, x from t order by coalesce(x, 0) * (select -1 from v where k = 2) limit 3",
    # mark joins: EXISTS / IN under OR, NOT and CASE (planner.sql.marks)
    "exists_or_exists": (
        "select * from t where exists (select * from u where u.k = t.k and u.w > 5) "
        "or exists (select * from v where v.k = t.k)"
    ),
    "in_or_condition": "select * from t where x > 8 or k in (select k from u where w < 3)",
    "not_in_under_or_with_nulls": "select * from t where not (k in (select k from u where w < 9)) or x > 4",
    "in_is_null": "select * from t where (k in (select k from u)) is null or (x in (select w from u)) is null",
    "correlated_in_under_not": "select * from t where not (x in (select w from u where u.k = t.k) or k = 5)",
    "correlated_not_in": "select * from t where x not in (select w - 2 from u where u.k = t.k)",
    "exists_in_case": (
        "select * from t where case when exists (select * from u where u.k = t.k) then x > 2 else x < 2 end"
    ),
    "uncorrelated_exists_under_or": "select * from t where exists (select * from u where w > 100) or x < 2",
    "grouped_in_under_or": (
        "select * from t where x < 2 or k in (select k from u group by k having count(*) > 1)"
    ),
    # EXISTS and IN in the SELECT list: marks whose NULLs are kept (SQL's three values)
    "exists_in_select_list": "select k, exists (select * from u where u.k = t.k and u.w > 1) e from t",
    "in_in_select_list_with_nulls": "select k, k in (select k from u) i, x not in (select w from u) n from t",
    "correlated_in_in_select_list": "select k, x in (select w + 1 from u where u.k = t.k) i from t",
    "exists_in_case_in_select_list": (
        "select k, case when exists (select * from v where v.k = t.k) then x else -x end c, "
        "k in (select k from v) or x > 4 o from t"
    ),
    # correlated scalar subqueries in the SELECT list: a missing group reads the value over no rows
    "correlated_scalars_in_select_list": (
        "select k, (select count(*) from u where u.k = t.k) n, (select max(w) from u where u.k = t.k) m, "
        "x + (select sum(w) from u where u.k = t.k and u.w > 1) s from t"
    ),
    "correlated_plain_row_in_select_list": "select k, (select w from v where v.k = t.k) w from t",
    # a correlated scalar subquery whose group is missing reads its value over no rows
    "count_of_a_missing_group": "select * from t where (select count(*) from u where u.k = t.k) = 0",
    "count_plus_one_under_or": "select * from t where (select count(w) + 1 from u where u.k = t.k) = 1 or x > 8",
    "sum_under_or_keeps_missing_groups": "select * from t where (select sum(w) from u where u.k = t.k) > 5 or x < 2",
    "correlation_inside_or_branches": (
        "select * from t where (select count(*) from u where (u.k = t.k and u.w > 2) "
        "or (u.k = t.k and u.w < 2)) > 0"
    ),
}


@pytest.fixture(scope="module")
def session():
    with Session(workers=2, local_chunk_rows=2) as s:
        for name, table in (("t", T), ("u", U), ("v", V)):
            s.createDataFrame(table).createOrReplaceTempView(name)
        yield s


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_subquery_matches_duckdb(session, name: str) -> None:
    con = duckdb.connect()
    for table_name, table in (("t", T), ("u", U), ("v", V)):
        con.register(table_name, table)
    got = session.sql(QUERIES[name]).toArrow()
    want = con.sql(QUERIES[name]).to_arrow_table()
    assert got.column_names == want.column_names
    assert rows_close(got, want), (canonical(got), canonical(want))



def test_a_scalar_subquery_of_two_rows_fails_with_spark_s_error(session) -> None:
    """The worker that merges the subquery's row count raises Spark's error; it reaches the
    caller as a ``QueryError`` with Spark's class (through zmq and shm too:
    tests/coordinator/test_fast_failures.py)."""
    query = "select k, (select w from u where k = 2) from t"
    with pytest.raises(QueryError) as caught:
        session.sql(query).toArrow()
    assert caught.value.getCondition() == "SCALAR_SUBQUERY_TOO_MANY_ROWS"
    assert "More than one row returned by a subquery used as an expression." in str(caught.value)
    assert session.sql(query.replace("k = 2", "k = 3")).count() == T.num_rows  # one row: fine
