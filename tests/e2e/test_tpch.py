"""TPC-H Q1 and Q6 on generated Parquet: distributed result equals DuckDB on the same files."""

from __future__ import annotations

import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.tpch import ensure_tpch, q1, q6
from tests.e2e.conftest import rows_close
from sparkwire.transport.registry import available_transports

Q1_SQL = """
select l_returnflag, l_linestatus, sum(l_quantity) sum_qty, sum(l_extendedprice) sum_base_price,
  sum(l_extendedprice * (1 - l_discount)) sum_disc_price,
  sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) sum_charge,
  avg(l_quantity) avg_qty, avg(l_extendedprice) avg_price, avg(l_discount) avg_disc,
  count(*) count_order
from read_parquet('{path}/*.parquet') where l_shipdate <= date '1998-09-02'
group by all order by l_returnflag, l_linestatus
"""
Q6_SQL = """
select sum(l_extendedprice * l_discount) revenue from read_parquet('{path}/*.parquet')
where l_shipdate >= date '1994-01-01' and l_shipdate < date '1995-01-01'
  and l_discount between 0.05 and 0.07 and l_quantity < 24
"""


@pytest.fixture(scope="module")
def lineitem_dir(tmp_path_factory):
    return ensure_tpch(0.01, root=tmp_path_factory.mktemp("tpch")) / "lineitem"


CASES = [("memory", 1), ("memory", 4)] + [
    (name, 3) for name in sorted(available_transports()) if name != "memory"
]


@pytest.mark.parametrize(("transport", "workers"), CASES)
def test_q1_q6_match_duckdb_and_run_on_every_worker(lineitem_dir, transport, workers):
    import duckdb

    with Session(workers=workers, transport=transport) as session:
        lineitem = session.read.parquet(str(lineitem_dir))
        got1 = q1(lineitem).toArrow()
        metrics = session.last_metrics
        got6 = q6(lineitem).toArrow()
    expected1 = duckdb.sql(Q1_SQL.format(path=lineitem_dir)).to_arrow_table()
    expected6 = duckdb.sql(Q6_SQL.format(path=lineitem_dir)).to_arrow_table()
    assert got1.column_names == expected1.column_names
    # Q1 is ordered: the keys in order, then every value (Spark's types: within 1e-6)
    keys = ["l_returnflag", "l_linestatus"]
    assert got1.select(keys).to_pylist() == expected1.select(keys).to_pylist()
    assert rows_close(got1, expected1)
    assert rows_close(got6, expected6)
    assert set(metrics.tasks_per_worker) == {f"worker-{i}" for i in range(workers)}
    assert sum(metrics.tasks_per_worker.values()) == sum(s.tasks for s in metrics.stages.values())
    first = metrics.stages[0]
    assert first.tasks > 1 and first.done == first.tasks
    if transport != "memory":  # worker processes read their own partitions in-process
        assert metrics.bytes_in["local"] > 0, metrics.bytes_in
        assert sum(metrics.bytes_in.values()) > metrics.bytes_in["local"], metrics.bytes_in
