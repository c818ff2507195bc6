"""A handful of TPC-DS queries on workers hosted in Spark executors (real local[2]) over
Flight, against DuckDB on the same files at SF 0.01 (the data and answers shared with
tests/e2e/test_tpcds_sql.py, whose ``NOT_YET`` list this test reads too). All 99 run
in-process and over ZeroMQ there; here, one query of each kind of plan TPC-DS adds to
TPC-H's, on the hosted cluster."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sparkwire.coordinator import Session
from tests.e2e.test_tpcds_sql import NOT_YET
from tests.e2e.tpcds import Tpcds, misjudged

pytestmark = pytest.mark.slow

#: A correlated scalar subquery (q01), ROLLUP over a union of channels (q05), EXISTS and
#: NOT EXISTS (q16), a rank over a rolled-up union (q36), a window over an aggregate (q98):
#: each has rows at SF 0.01.
HANDFUL = ("q01", "q05", "q16", "q36", "q98")


def test_a_handful_of_tpcds_queries_on_spark_hosted_flight_workers(
        spark: object, tpcds: Callable[[float], Tpcds]) -> None:
    sf001 = tpcds(0.01)
    assert not sf001.empty & set(HANDFUL)
    with Session(cluster="spark", spark=spark, workers=2, transport="flight") as session:
        assert misjudged(session, sf001, HANDFUL, NOT_YET) == {}
