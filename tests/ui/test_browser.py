"""The live UI in a real browser (``conftest.page``: the OS's Chromium through Playwright).

A query run while the list of queries is open appears there live (server-sent events, no
reload), and its page draws its stages, the bytes read over each edge of the stage graph,
and a task timeline with a bar per task run. A real kill in the browser:
``test_process_cluster.py``.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from sparkwire import Session
from sparkwire import functions as F
from sparkwire.coordinator.config import UiSettings
from sparkwire.coordinator.scheduler import Run
from sparkwire.coordinator.ui import Recorder, UiServer
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
                label = page.locator(f"#stage-graph text.edge-bytes[data-from='{producer}'][data-to='{stage['id']}']")
                routes = [e for e in recorded["edges"] if (e["producer"], e["consumer"]) == (producer, stage["id"])]
                assert label.locator("title").text_content() == "; ".join(
                    f"{e['route']}: {e['bytes']} bytes" for e in routes)
                assert [part.split(" ")[0] for part in label.text_content().split(" · ") if part] == [
                    e["route"] for e in routes]

        page.goto(session.ui_url + "workers")  # a row per worker and the driver, as /api has them
        page.wait_for_selector("#workers tbody tr", timeout=10_000)
        assert session.ui is not None
        rows = session.ui.workers()
        shown = page.locator("#workers tbody tr")
        assert shown.count() == len(rows)
        assert {shown.nth(i).locator("td").first.inner_text(): shown.nth(i).locator("td").nth(5).inner_text()
                for i in range(shown.count())} == {w["name"]: str(w["tasks"]) for w in rows}


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
