"""A worker lost mid-query: the query runs again on a full (or the surviving) cluster and
gives the oracle's answer; rows already returned are never returned twice."""

from __future__ import annotations

import json
import os
import signal
import threading
import urllib.request
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.metrics import QueryMetrics
from sparkwire.coordinator.scheduler import Scheduler
from sparkwire.coordinator.taskplan import Tasks, decode_message
from sparkwire.planner.api import functions as F
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.transport.errors import TaskFailed

ROWS = 2_000_000


def retry_data(directory: Path) -> Path:
    """A Parquet file of ``ROWS`` rows whose aggregation takes long enough to kill amid."""
    path = directory / "t.parquet"
    k = pa.array([(i * 7919) % 200_003 for i in range(ROWS)], pa.int64())
    pq.write_table(pa.table({"k": k, "v": pa.array(range(ROWS), pa.int64())}), path,
                   row_group_size=ROWS // 8)
    return path


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return retry_data(tmp_path_factory.mktemp("retry"))


def oracle(path: Path) -> list[tuple[int, int]]:
    return sorted(duckdb.sql(f"SELECT k, sum(v) FROM '{path}' GROUP BY k").fetchall())


class KillOnFirstTask:
    """A progress callback that SIGKILLs ``pid`` when the query's first task finishes, so
    the worker dies mid-query, before the result (an aggregate) has any row."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.fired = threading.Event()

    def __call__(self, metrics: QueryMetrics) -> None:
        if self.pid is not None and not self.fired.is_set():
            self.fired.set()
            os.kill(self.pid, signal.SIGKILL)


def run_with_a_kill(session: Session, killer: KillOnFirstTask, victim_pid: int, path: Path):
    killer.pid = victim_pid
    df = session.read.parquet(str(path)).groupBy("k").sum("v")
    got = sorted(tuple(row) for row in df.collect())
    killer.pid = None
    return got


@pytest.mark.slow
def test_a_worker_process_killed_mid_query_runs_its_tasks_again(data: Path) -> None:
    """Ballista's model: what the dead worker took with it, and what was still reading from
    it, runs again as attempt 1; what finished elsewhere is kept."""
    killer = KillOnFirstTask()
    with Session(workers=2, transport="zmq", task_bytes=0, progress=killer, ui=True) as session:
        victim = session.cluster.announcements[1]
        assert run_with_a_kill(session, killer, victim.pid, data) == oracle(data)
        assert killer.fired.is_set()
        metrics = session.last_metrics
        assert metrics is not None and metrics.attempts == 2
        tasks = sum(stage.tasks for stage in metrics.stages.values())
        assert 0 < metrics.reruns < tasks, (metrics.reruns, tasks)
        # the live UI shows the re-runs (the browser draws them: tests/ui/test_browser.py)
        with urllib.request.urlopen(f"{session.ui_url}api/query/{metrics.query_id}", timeout=10) as r:
            shown = json.loads(r.read())
        assert (shown["state"], shown["reruns"]) == ("finished", metrics.reruns)
        again = [t for t in shown["task_runs"] if t["attempt"] > 0]
        assert len(again) == metrics.reruns and all(t["ended"] and not t["error"] for t in again)
        assert sum(e["what"] == "rerun" for e in shown["events"]) == metrics.reruns
        with urllib.request.urlopen(f"{session.ui_url}api/workers", timeout=10) as r:
            assert {w["losses"] for w in json.loads(r.read())} == {1}
        assert session.cluster.alive() == [True, True]  # replaced under its worker id
        assert session.cluster.announcements[1].pid != victim.pid
        # and the session goes on: the next query is a first attempt again
        assert sorted(tuple(r) for r in session.read.parquet(str(data)).groupBy("k").sum("v")
                      .collect()) == oracle(data)
        assert session.last_metrics.attempts == 1 and session.last_metrics.reruns == 0


def test_a_query_failing_on_its_own_is_not_run_again(sparkwire_session) -> None:
    coordinator = sparkwire_session._coordinator
    delivered: list[tuple[int, int, int]] = []
    deliver = coordinator.deliver

    def counted(address, message, what):
        if isinstance(message, bytes) and isinstance(tasks := decode_message(message), Tasks):
            delivered.extend((p.stage, p.task, p.attempt) for p in tasks.plans)
        return deliver(address, message, what)

    coordinator.deliver = counted
    try:
        df = sparkwire_session.createDataFrame(pa.table({"a": [1, 2], "b": [0, 0]}))
        with pytest.raises(TaskFailed, match=r"\[REMAINDER_BY_ZERO\]"):
            df.withColumn("c", F.col("a") % F.col("b")).toArrow()
    finally:
        del coordinator.deliver
    assert delivered and len(delivered) == len(set(delivered))  # each task once: no re-run
    assert {attempt for *_, attempt in delivered} == {0}


class KillEach:
    """A progress callback that SIGKILLs worker ``index`` of the cluster at each of the
    ``at`` finished tasks, whichever process serves it then (a replacement too)."""

    def __init__(self, at: tuple[int, ...], session: Session, index: int) -> None:
        self.at, self.session, self.index = at, session, index
        self.seen = 0
        self.kills = 0

    def __call__(self, metrics: QueryMetrics) -> None:
        self.seen += 1
        if self.seen in self.at:
            try:
                os.kill(self.session.cluster.announcements[self.index].pid, signal.SIGKILL)
            except ProcessLookupError:
                return  # dead already, its replacement not announced yet
            self.kills += 1


@pytest.fixture(scope="module")
def tpch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sparkwire.coordinator.tpch import TPCH_TABLES, ensure_tpch

    return ensure_tpch(0.1, tables=TPCH_TABLES, parts=4, root=tmp_path_factory.mktemp("tpch"))


def final_worker(session: Session, df: DataFrame) -> int:
    """The index of the worker the scheduler puts ``df``'s final task on. That worker is
    needed until the query's last row: a worker whose tasks all finished, their outputs read
    to the end, can die without costing anything (q03 has 9 tasks; after the 6th the other
    worker may be done)."""
    plan = df.staged_plan()
    cluster = session.cluster
    run = Scheduler(plan, cluster.addresses, cluster.driver_address).run(plan.final.id, 0)
    return cluster.addresses.index(run.address)


@pytest.mark.slow
@pytest.mark.parametrize("query", ["q03", "q21"])
def test_joins_survive_a_worker_lost_at_any_stage(tpch: Path, query: str) -> None:
    """Multi-stage joins (q03: broadcast and coalesce; q21: semi and anti joins) with the
    final task's worker killed after the 1st and 6th finished task, and killed twice (the
    replacement too): DuckDB's answer every time, and only part of the query runs again.
    (q09 and a kill after the 3rd task ran here too, passing; left out for the suite's
    time, 45 of 1,100 s.)"""
    from benchmarks.queries import sql_query
    from sparkwire.coordinator.tpch import TPCH_TABLES
    from tests.e2e.tpch import expected_answers, same

    want = expected_answers(tpch)[query]
    for at in ((1,), (6,), (1, 8)):
        with Session(workers=2, transport="zmq") as session:
            for table in TPCH_TABLES:
                session.read.parquet(str(tpch / table)).createOrReplaceTempView(table)
            df = session.sql(sql_query(query))
            session.progress = killer = KillEach(at, session, final_worker(session, df))
            got = df.toArrow()
            metrics = session.last_metrics
        assert same(got, want), (query, at)
        assert killer.kills >= 1, at
        tasks = sum(stage.tasks for stage in metrics.stages.values())
        # a second kill may land after the last task the query needed: not every kill costs
        assert 2 <= metrics.attempts <= 1 + killer.kills, (at, metrics.attempts)
        assert 0 < metrics.reruns < tasks * killer.kills, (at, metrics.reruns, tasks)
