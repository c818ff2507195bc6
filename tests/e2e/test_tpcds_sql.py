"""The 99 TPC-DS queries through ``session.sql``, against DuckDB's answers on the same files
(``tests/e2e/tpcds.py``), on one and four in-process workers and two ZeroMQ workers; a
handful on Spark-hosted workers (tests/spark/test_tpcds_spark.py).

Every query gives DuckDB's rows, except those in ``NOT_YET``: they must still stop before
running with a "not supported" error naming the construct (issue 34 lists what is missing),
and one that starts to pass must leave the list, so it only shrinks. Every configuration,
here and on Spark, reads this one list.

All three run at SF 0.01, where all 99 cost about a third of SF 0.1 and the data and
DuckDB's answers are made in seconds (measured on 2 loaded cores: 4 workers at SF 0.1, 64 s
with its data and answers, ~20 s; 1 worker 26 s, 2 ZeroMQ workers 20 s at SF 0.01). SF 0.1
on 4 workers passed too (all 99) and is the stronger check: at SF 0.01, 27 queries have an
empty answer, at SF 0.1 18 (q04 q08 q24 q25 q29 q37 q41 q44 q54 q58 q64 q65 q73 q82 q83 q85
q91 q93); it waits for the suite to run in parallel, within its 20-minute budget on 2 cores.
SF 0.05 is not used: there q78's ``round(43 * 1.00 / 40, 2)`` is 1.08 in Spark and sparkwire
(decimal, half up) and 1.07 in DuckDB (decimal division gives a double, 1.07499...), the
oracle's difference, not ours."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from benchmarks.queries.tpcds import TPCDS_QUERY_NAMES
from sparkwire.coordinator import Session
from tests.e2e.tpcds import Tpcds, misjudged

#: Queries whose SQL sparkwire does not plan yet: none now; a query sparkwire stops planning
#: would have to be named here with its construct.
NOT_YET: frozenset[str] = frozenset()

#: (transport, workers, scale factor): one session each, all 99 queries on it.
CLUSTERS = [("memory", 1, 0.01), ("memory", 4, 0.01), ("zmq", 2, 0.01)]


@pytest.mark.slow
@pytest.mark.parametrize(("transport", "workers", "scale"), CLUSTERS,
                         ids=[f"{t}-{w}-sf{s:g}" for t, w, s in CLUSTERS])
def test_tpcds_queries_match_duckdb_or_say_what_is_missing(
        tpcds: Callable[[float], Tpcds], transport: str, workers: int, scale: float) -> None:
    with Session(workers=workers, transport=transport) as session:
        assert misjudged(session, tpcds(scale), TPCDS_QUERY_NAMES, NOT_YET) == {}
