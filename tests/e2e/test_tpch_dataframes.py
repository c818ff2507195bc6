"""The TPC-H queries written with the DataFrame API (``benchmarks.queries.dataframes``) equal
DuckDB running the standard SQL text (``benchmarks.queries.sql_query``) on the same files.

Scale factor 0.1 (tpchgen-cli, four files per table), generated once for the module, on a
two-worker in-process cluster. Column names must match exactly; rows are compared sorted,
numbers (ints, floats, decimals) equal to 1e-6 relative (or to the last place of a
decimal), since the engines may type a result differently: sparkwire follows Spark
(``avg`` of a decimal is a decimal), DuckDB returns a double. Every ORDER BY in
these queries is a total order on this data, so ordered results must also match in order.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from benchmarks.queries import QUERY_NAMES, sql_query
from benchmarks.queries.dataframes import QUERIES
from sparkwire.coordinator import Session
from sparkwire.coordinator.tpch import ensure_tpch
from sparkwire.planner.api.dataframe import DataFrame

TABLES = ("lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region")
WORKERS = 2
#: Queries whose SQL has an ORDER BY (all but the single-row global aggregates).
ORDERED = {"q01", "q03", "q05", "q10", "q12"}


@pytest.fixture(scope="module")
def tpch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_tpch(0.1, tables=TABLES, parts=4, root=tmp_path_factory.mktemp("tpch"))


@pytest.fixture(scope="module")
def duck(tpch: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect()
    for table in TABLES:
        con.execute(f"create view {table} as select * from read_parquet('{tpch / table}/*.parquet')")
    yield con
    con.close()


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with Session(workers=WORKERS) as s:
        yield s


@pytest.fixture(scope="module")
def tables(session: Session, tpch: Path) -> dict[str, DataFrame]:
    return {table: session.read.parquet(str(tpch / table)) for table in TABLES}


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | decimal.Decimal) and not isinstance(value, bool)


def _same_value(a: object, b: object) -> bool:
    """Numbers to 1e-6 relative, or within one unit in the last place of a decimal side:
    sparkwire types ``avg`` of ``decimal(p,s)`` as ``decimal(p+4,s+4)`` (as Spark does),
    where DuckDB returns a double."""
    if _is_number(a) and _is_number(b):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        ulp = max((10.0 ** v.as_tuple().exponent for v in (a, b)  # type: ignore[union-attr]
                   if isinstance(v, decimal.Decimal)), default=0.0)
        return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=ulp)  # type: ignore[arg-type]
    return a == b


def _sort_key(row: tuple) -> tuple:
    """Numbers by value to 6 significant digits (so the two engines' last-bit differences
    cannot reorder rows), everything else by itself; None last."""
    def key(v: object) -> tuple:
        if v is None:
            return (2, "")
        if _is_number(v):
            return (0, float(f"{float(v):.6g}"))  # type: ignore[arg-type]
        return (1, str(type(v)), v)
    return tuple(key(v) for v in row)


def _rows(table: pa.Table) -> list[tuple]:
    return list(zip(*(c.to_pylist() for c in table.columns), strict=True))


def _mismatches(got: list[tuple], want: list[tuple]) -> list[tuple[tuple, tuple]]:
    return [(g, w) for g, w in zip(got, want, strict=True)
            if not all(_same_value(a, b) for a, b in zip(g, w, strict=True))]


def test_the_catalogue() -> None:
    assert QUERY_NAMES == tuple(f"q{n:02d}" for n in range(1, 23))
    assert set(QUERIES) == {"q01", "q03", "q05", "q06", "q10", "q12", "q14", "q19"}
    assert sql_query("q06").lstrip().startswith("select")
    with pytest.raises(ValueError):
        sql_query("q23")


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_dataframe_query_matches_duckdb_sql(
    name: str, session: Session, tables: dict[str, DataFrame], duck: duckdb.DuckDBPyConnection,
) -> None:
    got = QUERIES[name](tables).toArrow()
    used = session.last_metrics.tasks_per_worker if session.last_metrics else {}
    want = duck.sql(sql_query(name)).to_arrow_table()

    assert got.column_names == want.column_names
    assert got.num_rows == want.num_rows > 0
    got_rows, want_rows = _rows(got), _rows(want)
    assert _mismatches(sorted(got_rows, key=_sort_key), sorted(want_rows, key=_sort_key)) == []
    if name in ORDERED:
        assert _mismatches(got_rows, want_rows) == []
    assert set(used) == {f"worker-{i}" for i in range(WORKERS)}
