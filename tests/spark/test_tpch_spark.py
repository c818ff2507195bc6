"""All 22 TPC-H queries on workers hosted in Spark executors (real local[2]) over Flight,
against DuckDB on the same files (scale factor 0.1)."""

from __future__ import annotations

import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.tpch import TPCH_TABLES, ensure_tpch
from tests.e2e.tpch import expected_answers, run_all

pytestmark = pytest.mark.slow


def test_every_tpch_query_on_spark_hosted_flight_workers(spark, tmp_path_factory) -> None:
    tpch = ensure_tpch(0.1, tables=TPCH_TABLES, parts=4, root=tmp_path_factory.mktemp("tpch"))
    expected = expected_answers(tpch)
    with Session(cluster="spark", spark=spark, workers=2, transport="flight") as session:
        wrong, idle = run_all(session, tpch, expected)
    assert wrong == []
    assert idle == []
