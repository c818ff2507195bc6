"""The UI's recorder (``coordinator.ui.recorder``) on synthetic queries: cheap, no cluster.

It is fed what a query's threads tell it (``metrics.QueryObserver``); here a two-stage plan
built from the plan models, runs and statuses stand in for a query, so 10,000 of them take
about a second, and the memory the history really holds is measured by walking every
object the recorder reaches (``held``).
"""

from __future__ import annotations

import gc
import sys
import types

import pytest

from sparkwire.coordinator.config import UiSettings
from sparkwire.coordinator.metrics import QueryMetrics
from sparkwire.coordinator.scheduler import Run
from sparkwire.coordinator.taskplan import TaskStatus
from sparkwire.coordinator.ui.records import LOST
from sparkwire.coordinator.ui.recorder import FEED, Recorder
from sparkwire.planner.logical.plan import Exchange
from sparkwire.planner.logical.sources import RangeSource
from sparkwire.planner.logical.staged import Boundary, Stage, StagedPlan
from sparkwire.transport.errors import QueryError

TASKS = 2
PLAN = StagedPlan(columns=("id",), stages=(
    Stage(id=0, fragment=RangeSource(start=0, end=100, step=1), tasks=TASKS,
          output=Boundary(kind="coalesce")),
    Stage(id=1, fragment=Exchange(stage=0, columns=("id",)), tasks=1,
          output=Boundary(kind="result")),
))
RUNS = [Run(0, t, 0, f"mem://worker-{t}") for t in range(TASKS)] + [Run(1, 0, 0, "mem://worker-0")]
STATUSES = [TaskStatus(query_id="q", stage=r.stage, task=r.task, worker=f"worker-{r.task}",
                       rows_out=25, bytes_out=200, seconds=0.01, bytes_in={"memory": 100},
                       stage_bytes_in=((0, "memory", 100),) if r.stage else (), memory_bytes=1000 + r.task)
            for r in RUNS]
METRICS = QueryMetrics("q", {})


def run_query(recorder: Recorder, query_id: str, error: BaseException | None = None) -> None:
    """What one query's threads tell the recorder, start to end."""
    recorder.query_started(query_id, PLAN, frozenset({"nightly"}))
    recorder.runs_delivered(query_id, RUNS)
    for status in STATUSES:
        recorder.task_ended(query_id, status)
    recorder.query_ended(query_id, METRICS, error)


def test_a_query_is_recorded_with_its_stages_tasks_and_events() -> None:
    recorder = Recorder(UiSettings())
    run_query(recorder, "q1")
    recorder.query_started("q2", PLAN, frozenset())
    recorder.runs_delivered("q2", [*RUNS[:1], Run(0, 0, 1, "mem://worker-1")])
    failed = STATUSES[0].model_copy(update={"attempt": 1, "error": "boom"})
    recorder.task_ended("q2", failed)
    recorder.query_ended("q2", QueryMetrics("q2", {}), QueryError("boom"))

    (second, first) = recorder.queries()  # newest first
    assert (first["id"], first["state"], first["done"], first["tasks"]) == ("q1", "finished", len(RUNS), len(RUNS))
    assert first["tags"] == ["nightly"]
    assert (second["state"], second["reruns"]) == ("failed", 1)
    assert "boom" in second["error"]
    view = recorder.query("q1")
    assert view is not None
    assert [(s["id"], s["kind"], s["boundary"], s["inputs"]) for s in view["stages"]] == [
        (0, "range_source", "coalesce", []), (1, "exchange", "result", [0])]
    assert view["stages"][0]["rows"] == 25 * TASKS
    assert view["bytes_in"] == {"memory": 100 * len(STATUSES)}
    assert {(t["stage"], t["task"], t["worker"]) for t in view["task_runs"]} == {
        (s.stage, s.task, s.worker) for s in STATUSES}
    assert all(t["ended"] - t["started"] == pytest.approx(0.01) for t in view["task_runs"])
    assert (view["events"][0]["what"], view["events"][-1]["what"]) == ("started", "finished")
    totals = recorder.counts().totals
    assert (totals["queries_finished"], totals["queries_failed"], totals["task_reruns"]) == (1, 1, 1)



def test_a_lost_worker_its_open_runs_the_edges_and_each_workers_memory() -> None:
    """What the query page and the workers page draw from: a lost worker ends its open runs
    (``LOST``) and is named once; a stage's reads count on the edge from their producer;
    each worker's memory is its latest status's."""
    recorder = Recorder(UiSettings(), clock=lambda: 5.0)
    recorder.query_started("q", PLAN, frozenset())
    recorder.runs_delivered("q", RUNS)
    recorder.task_ended("q", STATUSES[0])
    recorder.workers_lost("q", {"mem://worker-1": "worker-1"})
    recorder.runs_delivered("q", [Run(0, 1, 1, "mem://worker-0")])
    for status in [STATUSES[2], STATUSES[1].model_copy(update={"attempt": 1, "worker": "worker-0"})]:
        recorder.task_ended("q", status)
    view = recorder.query("q")
    assert view is not None
    assert view["lost_workers"] == [{"address": "mem://worker-1", "name": "worker-1"}]
    runs = {(t["stage"], t["task"], t["attempt"]): t for t in view["task_runs"]}
    assert (runs[0, 1, 0]["ended"], runs[0, 1, 0]["error"]) == (5.0, LOST)
    assert runs[0, 0, 0]["error"] is None and runs[1, 0, 0]["error"] is None
    assert [e["what"] for e in view["events"]].count("worker lost: worker-1") == 1
    assert view["edges"] == [{"producer": 0, "consumer": 1, "route": "memory", "bytes": 100}]
    memory = recorder.counts().memory
    assert {name: (m.tracked, m.rss) for name, m in memory.items()} == {"worker-0": (1001, None)}


def test_per_query_bounds_keep_the_latest_events_and_count_dropped_tasks() -> None:
    recorder = Recorder(UiSettings(events_per_query=3, tasks_per_query=2))
    run_query(recorder, "q")
    view = recorder.query("q")
    assert view is not None
    assert len(view["task_runs"]) == 2 and view["tasks_dropped"] == len(RUNS) - 2
    assert [e["what"] for e in view["events"]] == ["task ended", "task ended", "finished"]
    assert view["stages"][0]["done"] == TASKS  # stage totals count every run, kept or not


def test_10000_queries_keep_memory_within_the_bounds() -> None:
    """Past the count bound the oldest go; past the byte bound too; and what the recorder
    really holds (traced) stays within the byte bound plus its fixed-size feed."""
    by_count = Recorder(UiSettings(history_queries=100))
    by_bytes = Recorder(UiSettings(history_queries=100_000, history_bytes=1 << 20))
    for i in range(300):
        run_query(by_count, f"c{i}")
    assert by_count.counts().kept == 100
    assert [q["id"] for q in by_count.queries()[:2]] == ["c299", "c298"]

    for i in range(10_000):
        run_query(by_bytes, f"q{i}", QueryError("x" * 100) if i % 10 == 0 else None)
    counts = by_bytes.counts()
    assert counts.totals["queries_started"] == 10_000
    assert 0 < counts.kept < 10_000 and counts.running == 0
    assert by_bytes.history_bytes <= 1 << 20
    # the feed: FEED entries of (sequence number, query id), ids the evicted queries' own
    feed = FEED * 200
    assert held(by_bytes) <= (1 << 20) + feed, (held(by_bytes), counts.kept)


def held(root: object) -> int:
    """The bytes of every object ``root`` reaches, each once (its class, functions and
    modules left out: shared with everything else)."""
    seen = {id(root)}
    todo = [root]
    total = 0
    while todo:
        obj = todo.pop()
        total += sys.getsizeof(obj)
        for ref in gc.get_referents(obj):
            if id(ref) not in seen and not isinstance(ref, (type, types.FunctionType, types.ModuleType)):
                seen.add(id(ref))
                todo.append(ref)
    return total


def test_a_client_behind_the_feed_is_told_it_fell_behind() -> None:
    recorder = Recorder(UiSettings())
    start = recorder.seq
    run_query(recorder, "q")
    seq, changed = recorder.changes_since(start, 0.01)
    assert changed == {"q"} and seq > start
    assert recorder.changes_since(seq, 0.01) == (seq, set())  # nothing new: waited, empty
    recorder.query_started("busy", PLAN, frozenset())
    for _ in range(FEED):
        recorder.stage_planned("busy", 1, 1, ())
    assert recorder.changes_since(seq, 0.01)[1] is None
