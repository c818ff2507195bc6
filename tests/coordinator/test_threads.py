"""A worker's DuckDB threads follow its cores (``WorkerSettings.threads``), and a task of a
narrow stage, its inputs in hand, runs on every thread its worker has while nothing else
runs there (``worker.engine.Databases``), observed as DuckDB's ``threads`` setting of the
database each task ran on."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.clusters import base
from sparkwire.coordinator.clusters.local import LocalCluster
from sparkwire.coordinator.config import load_settings
from sparkwire.planner.api import functions as F


@pytest.fixture
def four_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SPARKWIRE_WORKER__CORES", raising=False)  # tests/conftest.py pins it
    monkeypatch.setattr(base, "_machine_cpus", lambda: 4)


@pytest.mark.parametrize(("workers", "worker", "threads"), [
    (1, {}, 3),  # 4 CPUs, 2 slots busy: 2 threads of DuckDB's own and the 2 slots' own
    (2, {}, 1),  # 2 CPUs each
    (8, {}, 1),  # more workers than CPUs: still one each
    (1, {"task_slots": 4}, 1),
    (1, {"cores": 16}, 15),  # the worker's configured cores, not this machine's
    (1, {"engine": {"threads": 6}}, 6),  # an explicit count wins
])
def test_workers_on_this_machine_divide_its_cpus(four_cpus: None, workers: int,
                                                 worker: dict[str, object], threads: int) -> None:
    with LocalCluster(load_settings(workers=workers, worker=worker)) as cluster:
        assert cluster.settings.worker.engine.threads == threads


def test_a_worker_that_knows_nothing_of_its_machine_runs_a_thread_per_slot() -> None:
    assert load_settings(worker={"cores": 0}).worker.threads() == 1


def _threads_by_stage(session: Session) -> dict[int, set[int]]:
    """The threads of the database each task of the last query ran on, by stage."""
    metrics = session.last_metrics
    assert metrics is not None
    query = metrics.query_id
    found: dict[int, set[int]] = {}
    for worker in session.cluster.workers:  # type: ignore[attr-defined]
        for done in worker.completed:
            if done["query_id"] == query:
                found.setdefault(int(done["stage"]), set()).add(int(done["threads"]))
    return found


def test_a_narrow_stage_runs_on_every_thread_of_its_worker() -> None:
    """One worker of two cores and two slots: the wide stages' tasks share one thread's
    database, two at a time; the final sort, one task reading what the aggregate wrote,
    runs alone on the worker's two cores. The answer is DuckDB's."""
    data = pa.table({"k": [i % 97 for i in range(20_000)], "v": list(range(20_000))})
    with Session(workers=1, local_chunk_rows=5000, worker={"cores": 2, "task_slots": 2}) as session:
        df = session.createDataFrame(data)
        got = (df.groupBy("k").agg(F.sum("v").alias("s")).orderBy(F.col("s").desc())
               .toArrow())
        stages = _threads_by_stage(session)
    oracle = duckdb.sql("SELECT k, sum(v) AS s FROM data GROUP BY k ORDER BY s DESC")
    expected = oracle.to_arrow_table()
    assert got.column("k").to_pylist() == expected.column("k").to_pylist()
    assert got.column("s").to_pylist() == expected.column("s").to_pylist()
    final = max(stages)
    assert stages[final] == {2}
    assert {threads for stage, seen in stages.items() if stage != final for threads in seen} == {1}
