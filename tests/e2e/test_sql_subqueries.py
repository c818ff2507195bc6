"""Subqueries in SQL, decorrelated into joins, give DuckDB's answers: EXISTS / NOT EXISTS
with residual conditions, IN / NOT IN with NULLs on either side, several scalar subqueries
in one condition, scalar subqueries in HAVING, an alias shared by the subquery and the
outer query."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
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
