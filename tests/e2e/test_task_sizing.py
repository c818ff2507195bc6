"""Task counts sized by input bytes (``task_bytes``), and the one-stage plan for queries
whose whole input is small: the 22 TPC-H queries still equal DuckDB's answers, small ones
run as one task, and a scan gets one task per ``task_bytes`` of the columns it reads.

(The rest of the suite runs with ``task_bytes=0``, every query fanned out: tests/conftest.py.)
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from benchmarks.queries import QUERY_NAMES, sql_query
from sparkwire.coordinator import Session
from sparkwire.coordinator.config import Settings
from sparkwire.coordinator.tpch import TPCH_TABLES, ensure_tpch
from sparkwire.planner.api import functions as F
from sparkwire.coordinator.clusters import base as clusters_base
from sparkwire.planner.physical import sizing
from sparkwire.planner.optimizer.estimates import estimate_bytes
from sparkwire.planner.logical.plan import operators
from sparkwire.planner.logical.sources import ParquetScan
from tests.e2e.tpch import expected_answers, same

MIB = 1024 * 1024


@pytest.fixture(scope="module")
def tpch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_tpch(0.1, tables=TPCH_TABLES, parts=4, root=tmp_path_factory.mktemp("tpch"))


def test_default_is_16_mib_as_datafusion_distributed_sizes_partitions(monkeypatch) -> None:
    monkeypatch.delenv("SPARKWIRE_TASK_BYTES", raising=False)
    assert Settings().task_bytes == 16 * MIB


@pytest.mark.slow
def test_every_query_sized_by_bytes_matches_duckdb(tpch: Path) -> None:
    expected = expected_answers(tpch)
    task_bytes = 2 * MIB  # at SF0.1: some queries in one task, others cut into stages
    single, cut = [], []
    with Session(workers=2, task_bytes=task_bytes) as session:
        for table in TPCH_TABLES:
            session.read.parquet(str(tpch / table)).createOrReplaceTempView(table)
        for name in QUERY_NAMES:
            df = session.sql(sql_query(name))
            plan = df.staged_plan()
            scans = [n for s in plan.stages for n in operators(s.fragment) if isinstance(n, ParquetScan)]
            if len(plan.stages) == 1:
                assert plan.stages[0].tasks == 1
                assert (sum(estimate_bytes(s) for s in scans) <= task_bytes
                        or plan.stages[0].notes == (
                            "one stage: the stages cut would run at most one task more than one each",))
                single.append(name)
            else:
                cut.append(name)
                for stage in plan.stages:  # sized by its largest scan (a co-located join has two)
                    sizes = [estimate_bytes(n) for n in operators(stage.fragment) if isinstance(n, ParquetScan)]
                    if sizes:
                        assert stage.tasks <= max(1, math.ceil(max(sizes) / task_bytes))
            got = df.toArrow()
            assert same(got, expected[name]), name
            assert len(session.last_metrics.stages) == len(plan.stages)
    assert single and cut  # both paths were taken


def test_a_scan_gets_a_task_per_task_bytes_up_to_one_per_core(
        tpch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lineitem = str(tpch / "lineitem")
    one_core_each = {"cores": 1}
    with Session(workers=2, task_bytes=1, worker=one_core_each) as session:
        df = session.read.parquet(lineitem).select("l_orderkey", "l_quantity")
        total = estimate_bytes(df.staged_plan().stages[0].fragment)
        assert total <= sizing.MAX_TASK_BYTES
        assert df.staged_plan().stages[0].tasks == 2  # capped: one per core
        monkeypatch.setattr(sizing, "MAX_TASK_BYTES", -(-total // 4))  # a task's share is over
        assert df.staged_plan().stages[0].tasks == 4  # beyond the cores, for memory's sake
        monkeypatch.undo()
    half = total // 2 + 1
    with Session(workers=2, task_bytes=half, worker=one_core_each) as session:
        df = session.read.parquet(lineitem).select("l_orderkey", "l_quantity")
        plan = df.staged_plan()
        assert [s.tasks for s in plan.stages][0] == 2
        assert df.toArrow().num_rows == ds.dataset(lineitem).count_rows()
    with Session(workers=2, task_bytes=total, worker=one_core_each) as session:
        df = session.read.parquet(lineitem).select("l_orderkey", "l_quantity")
        plan = df.staged_plan()
        assert len(plan.stages) == 1 and plan.stages[0].tasks == 1
        assert "one stage" in df.explain_string()


def test_the_same_cores_plan_alike_whatever_the_workers(
        tpch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers on one machine share its CPUs, which are the cluster's cores: 2 or 16
    workers on 4 CPUs plan the 22 queries alike (issue 33: at 16 workers the plans had
    switched shape and grown from 122 tasks to 392)."""
    monkeypatch.delenv("SPARKWIRE_WORKER__CORES")
    monkeypatch.setattr(clusters_base, "_machine_cpus", lambda: 4)
    plans = {}
    for workers in (2, 16):
        with Session(workers=workers, task_bytes=2 * MIB) as session:
            assert session.cores == 4
            for table in TPCH_TABLES:
                session.read.parquet(str(tpch / table)).createOrReplaceTempView(table)
            # subqueries are numbered process-wide, so each planning names them anew
            plans[workers] = [re.sub(r"_sq\d+_", "_sq_", session.sql(sql_query(name)).explain_string())
                              for name in QUERY_NAMES]
    assert plans[2] == plans[16]


def test_row_group_scans_running_at_once_on_one_worker_read_their_own_rows(tmp_path) -> None:
    """Each row-group scan task reads through a view of its own cursor; tasks running at
    once on one worker must never see another's row groups (a shared view once did)."""
    path = tmp_path / "groups.parquet"
    pq.write_table(pa.table({"v": pa.array(range(800_000), pa.int64())}), path,
                   row_group_size=50_000)
    expected = duckdb.sql(f"SELECT count(*), sum(v), min(v), max(v) FROM '{path}'").fetchall()[0]
    with Session(workers=2, task_bytes=0, worker={"task_slots": 4}) as session:
        df = session.read.parquet(str(path)).agg(F.count("*"), F.sum("v"), F.min("v"), F.max("v"))
        for _ in range(3):
            assert tuple(df.collect()[0]) == expected


def test_only_tasks_of_narrow_stages_run_with_the_threads_of_every_slot(tpch: Path) -> None:
    """The task of a one-task plan runs on its worker's wide database, with both slots'
    threads (``Databases``); in a query cut into stages only tasks of stages with fewer
    tasks than the cluster's cores (as run) may, the others share one thread's database. Answers
    are DuckDB's."""
    oracle = duckdb.connect()
    for table in TPCH_TABLES:
        oracle.execute(f"create view {table} as select * from read_parquet('{tpch / table}/*.parquet')")
    with Session(workers=2, task_bytes=2 * MIB, worker={"task_slots": 2}) as session:
        for table in TPCH_TABLES:
            session.read.parquet(str(tpch / table)).createOrReplaceTempView(table)
        for name, stages_ in (("q09", "cut"), ("q22", "one")):
            df = session.sql(sql_query(name))
            plan = df.staged_plan()
            assert (len(plan.stages) == 1) == (stages_ == "one"), name
            assert same(df.toArrow(), oracle.sql(sql_query(name)).to_arrow_table()), name
            metrics = session.last_metrics
            assert metrics is not None
            threads = {(int(done["stage"]), int(done["threads"]))
                       for worker in session.cluster.workers for done in worker.completed
                       if done["query_id"] == metrics.query_id}
            # as run: adaptive execution may give a stage fewer tasks than planned
            narrow = {i for i, stage in metrics.stages.items() if stage.tasks < session.cores}
            assert {stage for stage, count in threads if count == 2} <= narrow, name
            assert {count for _, count in threads} <= {1, 2}, name
        assert threads == {(0, 2)}  # q22's only task
