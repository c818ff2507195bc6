"""The live UI in a real browser (``conftest.page``: the OS's Chromium through Playwright),
and what only a process cluster shows.

A query run while the list of queries is open appears there live (server-sent events, no
reload), and its page draws its stages, the bytes read over each edge of the stage graph,
and a task timeline with a bar per task run.

On a real process cluster (``Session(workers=2, transport="zmq")``, one for the module,
after the tests above): each worker's memory in use in ``/api/workers`` and ``/metrics``,
and a worker SIGKILLed mid-query with the query's page open.

Memory: what each worker's accounting held (``TaskStatus.memory_bytes``) and its process's
resident set, as its latest task run ended. The oracle is the query's own task runs: a
worker's partition store keeps every output of a query until the query ends (a lost
worker's outputs are read again from there), so as a worker's last run of it ended, its
accounting held at least the bytes of every run of that query that had ended there. Once
the query is closed and a query writing nothing has run, those bytes are gone. Not a
browser test: it runs without Chromium too.

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
from sparkwire.coordinator.config import UiSettings
from sparkwire.coordinator.scheduler import Run
from sparkwire.coordinator.ui import Recorder, UiServer
from tests.coordinator.test_retry import KillOnFirstTask
from tests.ui.test_recorder import METRICS, PLAN, RUNS, STATUSES


def test_a_query_appears_live_and_its_page_draws_stages_and_the_timeline(page: Any) -> None:
    with Session(workers=2, ui=True) as session:
        assert session.ui_url is not None
        page.goto(session.ui_url)
        page.wait_for_selector("#live:text('live')", timeout=10_000)  # the event stream is open
        df = session.createDataFrame(pa.table({"k": [i % 7 for i in range(500)], "v": range(500)}))
        df.groupBy("k").agg(F.sum("v").alias("s")).orderBy("k").toArrow()
        metrics = session.last_metrics
        assert metrics is not None
        row = page.wait_for_selector(f"#q-{metrics.query_id} td.finished", timeout=10_000)
        assert row.inner_text() == "finished"

        page.click(f"#q-{metrics.query_id} a")
        page.wait_for_selector("#gantt-svg rect.task", timeout=10_000)
        stages = page.locator("#stages tr.stage")
        assert stages.count() == len(metrics.stages)
        assert [stages.nth(i).locator("td").nth(4).inner_text() for i in range(stages.count())] == [
            f"{m.done}/{m.tasks}" for m in metrics.stages.values()]
        bars = page.locator("#gantt-svg rect.task")
        assert bars.count() == sum(m.tasks for m in metrics.stages.values())
        assert {int(bars.nth(i).get_attribute("data-stage")) for i in range(bars.count())} == set(metrics.stages)
        assert page.locator("#gantt-svg text").first.text_content() in set(session.cluster.names.values())
        assert page.locator("#stage-graph rect").count() == len(metrics.stages)
        recorded = session.ui.recorder.query(metrics.query_id)
        assert page.locator("#stage-graph line").count() == sum(  # an arrow per stage read
            len(stage["inputs"]) for stage in recorded["stages"])
        # each arrow says the bytes read over it by route, as recorded (exact in its title)
        assert recorded["edges"] and all(edge["bytes"] > 0 for edge in recorded["edges"])
        for stage in recorded["stages"]:
            for producer in stage["inputs"]:
                label = page.locator(f"#stage-graph g.edge-bytes[data-from='{producer}'][data-to='{stage['id']}']")
                routes = [e for e in recorded["edges"] if (e["producer"], e["consumer"]) == (producer, stage["id"])]
                assert label.locator("title").text_content() == "; ".join(
                    f"{e['route']}: {e['bytes']} bytes" for e in routes)
                assert [line.split(" ")[0] for line in label.locator("text").all_text_contents()] == [
                    e["route"] for e in routes]

        page.goto(session.ui_url + "workers")  # a row per worker and the driver, as /api has them
        page.wait_for_selector("#workers tbody tr", timeout=10_000)
        assert session.ui is not None
        rows = session.ui.workers()
        shown = page.locator("#workers tbody tr")
        assert shown.count() == len(rows)
        assert {shown.nth(i).locator("td").first.inner_text(): shown.nth(i).locator("td").nth(5).inner_text()
                for i in range(shown.count())} == {w["name"]: str(w["tasks"]) for w in rows}
        # memory in use beside the bound, exact on hover: the workers that ran a task told it
        assert {shown.nth(i).locator("td").first.inner_text(): shown.nth(i).locator("td.memory").get_attribute("title")
                for i in range(shown.count())} == {
            w["name"]: f"{'none heard' if w['memory_used'] is None else w['memory_used']} of {w['memory_bound']} bytes"
            for w in rows}
        assert all(w["memory_used"] is not None for w in rows if w["tasks"])


def test_a_querys_reruns_are_drawn_apart(page: Any) -> None:
    """Runs again after a lost worker (attempt 1, as ``tests/coordinator/test_retry.py``'s
    kill makes them, where the query's JSON is checked) are drawn with the class ``rerun``
    and counted in the status line. Fed to a real recorder and server as a query's threads
    tell them, so no second cluster is started for it."""
    recorder = Recorder(UiSettings())
    recorder.query_started("killed", PLAN, frozenset())
    recorder.runs_delivered("killed", RUNS)
    again = [Run(r.stage, r.task, 1, "mem://worker-1") for r in RUNS[:2]]
    recorder.runs_delivered("killed", again)
    for status in [*STATUSES, *(s.model_copy(update={"attempt": 1}) for s in STATUSES[:2])]:
        recorder.task_ended("killed", status)
    recorder.query_ended("killed", METRICS, None)
    with UiServer(UiSettings(port=0), recorder, list).start() as server:
        page.goto(server.url + "query/killed")
        page.wait_for_selector("#gantt-svg rect.task", timeout=10_000)
        assert page.locator("#gantt-svg rect.rerun").count() == len(again)
        assert page.locator("#gantt-svg rect.task").count() == len(RUNS) + len(again)
        assert f"{len(again)} re-runs" in page.locator("#status").inner_text()
        # a query an older driver wrote to ui.history_dir, before edges and lost workers were
        # kept: its page still draws
        old = recorder.query("killed")
        assert old is not None
        del old["edges"], old["lost_workers"]
        old["id"] = "older"
        recorder.load([(old, json.dumps(old).encode())])
        page.goto(server.url + "query/older")
        page.wait_for_selector("#gantt-svg rect.task", timeout=10_000)
        assert page.locator("#stage-graph g.edge-bytes").count() == len(PLAN.stages) - 1
        assert page.locator("#lost").inner_text() == ""


ROWS = 1_000_000


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("process-ui") / "t.parquet"
    keys = np.arange(ROWS, dtype=np.int64) * 7919 % 100_003
    pq.write_table(pa.table({"k": keys, "v": np.arange(ROWS, dtype=np.int64)}), path,
                   row_group_size=ROWS // 8)
    return path


@pytest.fixture(scope="module")
def processes() -> Iterator[Session]:
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


def test_each_worker_reports_its_memory_in_use(processes: Session, data: Path) -> None:
    assert processes.ui_url is not None
    bound = int(processes.settings.worker.memory)
    names = [processes.cluster.names[address] for address in processes.cluster.addresses]
    # a shuffle held open: its outputs stay in the workers' stores until it closes
    batches = processes.read.parquet(str(data)).repartition(4, "k").toBatches()
    next(batches)
    query_id = get(processes.ui_url + "api/queries")[0]["id"]
    held = wait_for(lambda: (q := get(processes.ui_url + f"api/query/{query_id}"))["done"] == q["tasks"] and q)
    rows = {w["name"]: w for w in get(processes.ui_url + "api/workers")}
    for name in names:
        row = rows[name]
        written = sum(t["bytes"] for t in held["task_runs"]
                      if t["worker"] == name and t["ended"] <= row["memory_at"])
        assert written > 1 << 20, (name, written)  # each worker ran part of the shuffle
        assert written <= row["memory_used"] <= bound, (name, row)
        assert 32 << 20 < row["rss"] < bound + (1 << 30), row  # a process of its own
    assert rows["driver"]["rss"] is None  # the driver's worker has no process of its own

    metrics = {(family.name, sample.labels.get("worker")): sample.value
               for family in text_string_to_metric_families(get(processes.ui_url + "metrics"))
               for sample in family.samples}
    for name in names:
        assert metrics["sparkwire_worker_memory_used_bytes", name] == rows[name]["memory_used"]
        assert metrics["sparkwire_worker_rss_bytes", name] == rows[name]["rss"]
    assert ("sparkwire_worker_rss_bytes", "driver") not in metrics

    batches.close()  # cancels the query: its outputs are dropped everywhere
    scan = processes.read.parquet(str(data)).filter(F.col("v") % 7 == 9)  # no split pruned
    assert scan.toArrow().num_rows == 0  # a run on each worker, writing nothing
    after = {w["name"]: w for w in get(processes.ui_url + "api/workers")}
    for name in names:
        assert after[name]["memory_at"] > rows[name]["memory_at"]
        assert after[name]["memory_used"] < 1 << 20 < rows[name]["memory_used"], (after[name], rows[name])


def test_a_worker_killed_while_the_query_page_is_open(processes: Session, data: Path, page: Any) -> None:
    assert processes.ui_url is not None
    victim = processes.cluster.announcements[1]
    processes.progress = killer = KillOnFirstTask()
    killer.pid = victim.pid
    page.goto(processes.ui_url)
    page.wait_for_selector("#live:text('live')", timeout=10_000)
    answer: list[pa.Table] = []
    query = threading.Thread(target=lambda: answer.append(
        processes.read.parquet(str(data)).groupBy("k").agg(F.sum("v").alias("s")).toArrow()))
    query.start()
    try:
        # the running query's page, opened from the list as the query starts: the kill comes
        # as its first task ends, the replacement takes a second or so to start
        page.click("#queries tr:has(td.running) a", timeout=10_000)
        page.wait_for_selector("#status.finished", timeout=20_000)  # live: no reload
    finally:
        query.join(30)
        processes.progress = None
    assert killer.fired.is_set() and answer
    want = duckdb.sql(f"SELECT k, sum(v) AS s FROM '{data}' GROUP BY k").to_arrow_table()
    assert answer[0].sort_by("k").to_pydict() == want.sort_by("k").to_pydict()
    metrics = processes.last_metrics
    assert metrics is not None and metrics.reruns > 0
    page.wait_for_selector(f"#status:has-text('{metrics.reruns} re-runs')", timeout=5_000)
    assert page.locator("#gantt-svg rect.rerun").count() == metrics.reruns
    assert page.locator("#lost").inner_text() == (
        f"Workers lost: {victim.worker_id} ({victim.address}); what they held ran again")
    assert page.locator("#gantt-svg text.lost").all_text_contents() == [f"{victim.worker_id} (lost)"]
    assert sum(event.endswith(f"worker lost: {victim.worker_id}")
               for event in page.locator("#events li").all_text_contents()) == 1
