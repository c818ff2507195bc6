"""All 22 TPC-H queries in their standard text (validation parameters) through
``session.sql``, on in-process and ZeroMQ clusters, against DuckDB on the same files at
scale factor 0.1 (tpchgen-cli, four files per table). Every multi-worker run must have
placed tasks on every worker. (Spark-hosted workers over Flight: tests/spark.)"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from benchmarks.queries import QUERY_NAMES
from sparkwire.coordinator import Session
from sparkwire.coordinator.tpch import TPCH_TABLES, ensure_tpch
from tests.e2e.tpch import expected_answers, run_all


@pytest.fixture(scope="module")
def tpch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_tpch(0.1, tables=TPCH_TABLES, parts=4, root=tmp_path_factory.mktemp("tpch"))


@pytest.fixture(scope="module")
def expected(tpch: Path) -> dict[str, pa.Table]:
    return expected_answers(tpch)


#: In-process at 1, 2, 4 and 16 workers: at 16, more workers than each table has files, so
#: scans cut files into runs of row groups and co-located plans rest on their ranges.
CLUSTERS = [("memory", 1), ("memory", 2), ("memory", 4), ("memory", 16), ("zmq", 2)]


@pytest.mark.slow
@pytest.mark.parametrize(("transport", "workers"), CLUSTERS, ids=[f"{t}-{w}" for t, w in CLUSTERS])
def test_every_tpch_query_matches_duckdb(tpch: Path, expected: dict[str, pa.Table],
                                         transport: str, workers: int) -> None:
    assert len(QUERY_NAMES) == 22
    with Session(workers=workers, transport=transport) as session:
        wrong, idle = run_all(session, tpch, expected)
    assert wrong == []
    assert idle == []
