"""TPC-DS without the network at run time: ``dsdgen`` in its pinned environment writes every
table as Parquet at SF 0.01 in seconds, the committed Spark texts are what the generator
prints (in Spark's dialect), and DuckDB, the oracle, answers all 99 on that data."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from benchmarks.queries.tpcds import TPCDS_QUERY_NAMES, duckdb_text, spark_text, tpcds_query
from benchmarks.tpcds_data import TPCDS_TABLES, ensure_tpcds, write_queries
from tests.e2e.tpcds import Tpcds


@pytest.fixture(scope="module")
def sf001(tpcds: Callable[[float], Tpcds]) -> Tpcds:
    return tpcds(0.01)  # shared with the query tests (tests/conftest.py)


@pytest.mark.slow
def test_every_table_is_written_once_and_found_again(sf001: Tpcds) -> None:
    tpcds = sf001.data
    rows = {t: pq.read_table(tpcds / t).num_rows for t in TPCDS_TABLES}
    assert rows["store_sales"] > 20_000 and rows["date_dim"] == 73_049
    assert all(n > 0 for n in rows.values())
    stamp = (tpcds / "store_sales" / "store_sales.parquet").stat().st_mtime_ns
    assert ensure_tpcds(0.01, root=tpcds.parent) == tpcds
    assert (tpcds / "store_sales" / "store_sales.parquet").stat().st_mtime_ns == stamp
    assert not list(tpcds.glob(".dsdgen-*"))


@pytest.mark.slow
def test_committed_queries_are_the_generators_in_sparks_dialect(tmp_path: Path) -> None:
    write_queries(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{n}.sql" for n in TPCDS_QUERY_NAMES]
    for name in TPCDS_QUERY_NAMES:
        assert (tmp_path / f"{name}.sql").read_text() == tpcds_query(name)
    assert '"' not in "".join(tpcds_query(n) for n in TPCDS_QUERY_NAMES)


def test_dialect_conversion_round_trips() -> None:
    duck = 'SELECT count(*) AS "order count" FROM t WHERE s = \'a\';\n'
    assert spark_text(duck) == "SELECT count(*) AS `order count` FROM t WHERE s = 'a'\n"
    assert duckdb_text(spark_text(duck)) == duck.rstrip().rstrip(";") + "\n"


@pytest.mark.slow
def test_duckdb_answers_every_query(sf001: Tpcds) -> None:
    assert list(sf001.answers) == list(TPCDS_QUERY_NAMES)
    # At SF 0.01, 27 of the 99 have no rows (their filters select nothing so small).
    assert len(sf001.empty) <= 27
