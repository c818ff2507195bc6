"""The live UI of a real process cluster (``Session(workers=2, transport="zmq")``, one for
the module): each worker's memory in use, and, in the browser, a worker killed mid-query.

Memory: ``/api/workers`` and ``/metrics`` show what each worker's accounting held
(``TaskStatus.memory_bytes``) and its process's resident set, as its latest task run ended.
The oracle is the query's own task runs: a worker's partition store keeps every output of a
query until the query ends (a lost worker's outputs are read again from there), so as a
worker's last run of it ended, its accounting held at least the bytes of every run of that
query that had ended there. Once the query is closed and a query writing nothing has run,
those bytes are gone.

The kill (``test_retry``'s, as the query's first task ends): the query's page, opened from
the list of queries as the query starts, shows without a reload the lost worker and the runs
that ran again, and the query's answer is DuckDB's.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from prometheus_client.parser import text_string_to_metric_families

from sparkwire import Session
from sparkwire import functions as F
from tests.coordinator.test_retry import KillOnFirstTask

ROWS = 1_000_000


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("process-ui") / "t.parquet"
    keys = np.arange(ROWS, dtype=np.int64) * 7919 % 100_003
    pq.write_table(pa.table({"k": keys, "v": np.arange(ROWS, dtype=np.int64)}), path,
                   row_group_size=ROWS // 8)
    return path


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with Session(workers=2, transport="zmq", ui=True) as session:
        yield session


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        body = response.read()
        return json.loads(body) if response.headers["Content-Type"] == "application/json" else body.decode()


def wait_for(check: Any, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)
    return found


def test_each_worker_reports_its_memory_in_use(session: Session, data: Path) -> None:
    assert session.ui_url is not None
    bound = int(session.settings.worker.memory)
    names = [session.cluster.names[address] for address in session.cluster.addresses]
    # a shuffle held open: its outputs stay in the workers' stores until it closes
    batches = session.read.parquet(str(data)).repartition(4, "k").toBatches()
    next(batches)
    query_id = get(session.ui_url + "api/queries")[0]["id"]
    held = wait_for(lambda: (q := get(session.ui_url + f"api/query/{query_id}"))["done"] == q["tasks"] and q)
    rows = {w["name"]: w for w in get(session.ui_url + "api/workers")}
    for name in names:
        row = rows[name]
        written = sum(t["bytes"] for t in held["task_runs"]
                      if t["worker"] == name and t["ended"] <= row["memory_at"])
        assert written > 1 << 20, (name, written)  # each worker ran part of the shuffle
        assert written <= row["memory_used"] <= bound, (name, row)
        assert 32 << 20 < row["rss"] < bound + (1 << 30), row  # a process of its own
    assert rows["driver"]["rss"] is None  # the driver's worker has no process of its own

    metrics = {(family.name, sample.labels.get("worker")): sample.value
               for family in text_string_to_metric_families(get(session.ui_url + "metrics"))
               for sample in family.samples}
    for name in names:
        assert metrics["sparkwire_worker_memory_used_bytes", name] == rows[name]["memory_used"]
        assert metrics["sparkwire_worker_rss_bytes", name] == rows[name]["rss"]
    assert ("sparkwire_worker_rss_bytes", "driver") not in metrics

    batches.close()  # cancels the query: its outputs are dropped everywhere
    scan = session.read.parquet(str(data)).filter(F.col("v") % 7 == 9)  # no split pruned
    assert scan.toArrow().num_rows == 0  # a run on each worker, writing nothing
    after = {w["name"]: w for w in get(session.ui_url + "api/workers")}
    for name in names:
        assert after[name]["memory_at"] > rows[name]["memory_at"]
        assert after[name]["memory_used"] < 1 << 20 < rows[name]["memory_used"], (after[name], rows[name])


def test_a_worker_killed_while_the_query_page_is_open(session: Session, data: Path, page: Any) -> None:
    assert session.ui_url is not None
    victim = session.cluster.announcements[1]
    session.progress = killer = KillOnFirstTask()
    killer.pid = victim.pid
    page.goto(session.ui_url)
    page.wait_for_selector("#live:text('live')", timeout=10_000)
    answer: list[pa.Table] = []
    query = threading.Thread(target=lambda: answer.append(
        session.read.parquet(str(data)).groupBy("k").agg(F.sum("v").alias("s")).toArrow()))
    query.start()
    try:
        # the running query's page, opened from the list as the query starts: the kill comes
        # as its first task ends, the replacement takes a second or so to start
        page.click("#queries tr:has(td.running) a", timeout=10_000)
        page.wait_for_selector("#status.finished", timeout=20_000)  # live: no reload
    finally:
        query.join(30)
        session.progress = None
    assert killer.fired.is_set() and answer
    want = duckdb.sql(f"SELECT k, sum(v) AS s FROM '{data}' GROUP BY k").to_arrow_table()
    assert answer[0].sort_by("k").to_pydict() == want.sort_by("k").to_pydict()
    metrics = session.last_metrics
    assert metrics is not None and metrics.reruns > 0
    page.wait_for_selector(f"#status:has-text('{metrics.reruns} re-runs')", timeout=5_000)
    assert page.locator("#gantt-svg rect.rerun").count() == metrics.reruns
    assert page.locator("#lost").inner_text() == (
        f"Workers lost: {victim.worker_id} ({victim.address}); what they held ran again")
    assert page.locator("#gantt-svg text.lost").all_text_contents() == [f"{victim.worker_id} (lost)"]
    assert sum(event.endswith(f"worker lost: {victim.worker_id}")
               for event in page.locator("#events li").all_text_contents()) == 1
