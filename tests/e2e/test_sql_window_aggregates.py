"""Windows over aggregates and ORDER BY keys not in the SELECT list, in SQL, give DuckDB's
answers on two workers whose input arrives in many chunks (the aggregate and the window
run in different stages, shuffled on different keys).

Windows over aggregates (TPC-DS q12, q47, q51, q70 ...): the aggregate first, then the
window over its output, ``SUM(SUM(x)) OVER``, ``RANK() OVER (ORDER BY SUM(x))``, a ratio of
a group's sum to its partition's, a running sum, ``LAG`` of a sum, with HAVING, in a CTE
joined to itself. ORDER BY not selected (q16, q79, q84, q96 ...): an input column, an
expression, an aggregate, ``COUNT(DISTINCT ...)``, a column of a subquery; for these the
order is checked too, on an output column the ORDER BY determines."""

from __future__ import annotations

import decimal

import duckdb
import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from tests.e2e.conftest import canonical, rows_close

_N = 60
T = pa.table({
    "id": pa.array(range(_N), pa.int64()),
    "k": pa.array([None if i % 11 == 0 else ["ab", "b", "ca", "d", ""][i % 5] for i in range(_N)]),
    "g": pa.array([None if i % 13 == 0 else i % 7 for i in range(_N)], pa.int32()),
    "x": pa.array([None if i % 9 == 0 else (i * 37) % 23 - 5 for i in range(_N)], pa.int64()),
    "amt": pa.array([decimal.Decimal(f"{(i * 53) % 97}.{i % 100:02d}") for i in range(_N)],
                    pa.decimal128(7, 2)),
})

WINDOWS_OVER_AGGREGATES = {
    "ratio_to_partition": "SELECT k, g, SUM(x) * 100 / SUM(SUM(x)) OVER (PARTITION BY k) AS share "
                          "FROM t GROUP BY k, g",
    "rank_by_sum": "SELECT k, g, RANK() OVER (PARTITION BY k ORDER BY SUM(x) DESC, g) AS rk "
                   "FROM t GROUP BY k, g",
    "avg_of_decimal_sums": "SELECT k, g, SUM(amt) AS s, AVG(SUM(amt)) OVER (PARTITION BY k) AS av "
                           "FROM t GROUP BY k, g",
    "running_sum": "SELECT g, SUM(SUM(x)) OVER (ORDER BY g ROWS BETWEEN UNBOUNDED PRECEDING AND "
                   "CURRENT ROW) AS running FROM t GROUP BY g",
    "whole_result": "SELECT k, SUM(SUM(x)) OVER () AS total, COUNT(*) AS n FROM t GROUP BY k",
    "lag_of_sum": "SELECT g, SUM(x) AS s, LAG(SUM(x), 1) OVER (ORDER BY g) AS prev FROM t "
                  "WHERE g IS NOT NULL GROUP BY g",
    "with_having": "SELECT k, SUM(x) AS s, DENSE_RANK() OVER (ORDER BY SUM(x)) AS r FROM t "
                   "GROUP BY k HAVING COUNT(*) > 10",
    "in_a_cte_joined": "WITH v AS (SELECT k, g, SUM(x) AS s, AVG(SUM(x)) OVER (PARTITION BY k) AS av, "
                       "RANK() OVER (PARTITION BY k ORDER BY g) AS rn FROM t WHERE g IS NOT NULL "
                       "GROUP BY k, g) SELECT a.k, a.g, a.s, a.av, b.s AS prev FROM v a JOIN v b "
                       "ON a.k = b.k AND a.rn = b.rn + 1",
}

#: Each query's first output column is in an order its ORDER BY determines.
ORDER_BY_NOT_SELECTED = {
    "input_column": "SELECT id FROM t ORDER BY x DESC, id",
    "expression_with_limit": "SELECT id * 2 AS d FROM t ORDER BY substring(k, 1, 1), id LIMIT 10",
    "aggregate": "SELECT g, COUNT(*) AS n FROM t GROUP BY g ORDER BY SUM(x) DESC, g",
    "count_distinct": "SELECT g, COUNT(DISTINCT k) AS n FROM t GROUP BY g "
                      "ORDER BY COUNT(DISTINCT k), g",
    "selected_aggregate_again": "SELECT COUNT(*) AS n FROM t WHERE x > 3 ORDER BY COUNT(*) LIMIT 100",
    "group_key_under_an_alias": "SELECT g AS grade, k FROM t GROUP BY k, g ORDER BY g, SUM(amt), k",
    "subquery_column": "SELECT s.id FROM (SELECT id, k, x FROM t) s ORDER BY s.k, s.x DESC, s.id",
}


@pytest.fixture(scope="module")
def session():
    with Session(workers=2, local_chunk_rows=7) as s:
        s.createDataFrame(T).createOrReplaceTempView("t")
        yield s


def _duckdb(query: str) -> pa.Table:
    con = duckdb.connect()
    con.execute("SET default_null_order = 'nulls_first_on_asc_last_on_desc'")  # Spark's
    con.register("t", T)
    return con.sql(query).to_arrow_table()


@pytest.mark.parametrize("name", sorted(WINDOWS_OVER_AGGREGATES))
def test_window_over_aggregate_matches_duckdb(session, name: str) -> None:
    query = WINDOWS_OVER_AGGREGATES[name]
    got, want = session.sql(query).toArrow(), _duckdb(query)
    assert got.column_names == want.column_names
    assert rows_close(got, want), (canonical(got), canonical(want))


@pytest.mark.parametrize("name", sorted(ORDER_BY_NOT_SELECTED))
def test_order_by_not_selected_matches_duckdb(session, name: str) -> None:
    query = ORDER_BY_NOT_SELECTED[name]
    got, want = session.sql(query).toArrow(), _duckdb(query)
    assert got.column_names == want.column_names
    assert rows_close(got, want), (canonical(got), canonical(want))
    assert got.column(0).to_pylist() == want.column(0).to_pylist()

