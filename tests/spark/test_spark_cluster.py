"""Workers hosted inside Spark executors (a real local[2] Spark), on every out-of-process
transport: same results as in-process workers, clear errors, clean shutdown."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.clusters.spark import SparkCluster
from sparkwire.coordinator.config import load_settings
from sparkwire.coordinator.tpch import ensure_tpch, q1, q6
from sparkwire.planner.api import functions as F
from tests.e2e.conftest import KILL_SETTINGS, canonical, kill_mid_stream, kill_table
from tests.conftest import listening_ports
from tests.coordinator.test_retry import KillOnFirstTask, oracle, retry_data, run_with_a_kill
from sparkwire.transport.errors import ConfigError, Timeout
from sparkwire.transport.registry import available_transports, transport_class

pytestmark = pytest.mark.slow

CROSSING = sorted(n for n in available_transports() if transport_class(n).capabilities.crosses_processes)


def sample_table() -> pa.Table:
    n = 5000
    return pa.table({
        "k": pa.array([i % 7 if i % 11 else None for i in range(n)], pa.int64()),
        "s": pa.array([f"s{i % 5}" for i in range(n)]),
        "x": pa.array([i * 0.5 for i in range(n)], pa.float64()),
    })


def queries(session: Session, lineitem: Path) -> dict[str, pa.Table]:
    df = session.createDataFrame(sample_table())
    items = session.read.parquet(str(lineitem))
    first = q1(items).toArrow()
    assert session.last_metrics is not None
    workers = {session.cluster.names[a] for a in session.cluster.addresses}
    assert set(session.last_metrics.tasks_per_worker) >= workers
    return {
        "q1": first,
        "q6": q6(items).toArrow(),
        "grouped": df.groupBy("k", "s").agg(F.sum("x").alias("sx"), F.count("*").alias("n")).toArrow(),
        "top": df.orderBy(F.col("x").desc()).limit(7).toArrow(),
    }


@pytest.fixture(scope="module")
def lineitem(tmp_path_factory) -> Path:
    return ensure_tpch(0.01, root=tmp_path_factory.mktemp("tpch")) / "lineitem"


@pytest.fixture(scope="module")
def expected(lineitem) -> dict[str, pa.Table]:
    with Session(workers=2) as session:
        return queries(session, lineitem)


@pytest.mark.parametrize("transport", CROSSING)
def test_same_results_on_spark_hosted_workers(spark, lineitem, expected, transport):
    with Session(cluster="spark", spark=spark, workers=2, transport=transport,
                 local_chunk_rows=1000) as session:
        assert len(session.cluster.addresses) == 2
        assert {session.cluster.names[a] for a in session.cluster.addresses} == {"spark-worker-0", "spark-worker-1"}
        got = queries(session, lineitem)  # q1 runs on every worker (checked inside)
        ports = {int(m[1]) for a in session.cluster.addresses if (m := re.search(r":(\d+)$", a))}
    for name, table in expected.items():
        assert got[name].column_names == table.column_names, name
        assert canonical(got[name]) == canonical(table), name
    time.sleep(1.0)
    assert not ports & listening_ports(), "a worker port outlived the cluster"


def test_worker_killed_mid_query_names_it_and_cluster_closes(spark):
    table = kill_table()
    with Session(cluster="spark", spark=spark, workers=2, transport="flight",
                 **KILL_SETTINGS) as session:
        victim = session.cluster.announcements[1]
        df = session.createDataFrame(table).withColumn("b", F.col("a") * 2)
        message = kill_mid_stream(df, victim.pid)
        assert "stage" in message and "task" in message and "spark-worker" in message
        assert "not run again" in message  # rows had been returned: no duplicates
        # Spark retries the lost worker's task; it registers again under its id.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            back = [a for a in session.cluster._registrar.announcements()
                    if a.worker_id == victim.worker_id]
            if back:
                break
            time.sleep(0.1)
        assert back and back[0].pid != victim.pid
        assert victim.worker_id not in session.cluster.lost_workers()


def test_a_worker_killed_before_any_row_means_another_attempt_on_the_survivor(spark, tmp_path):
    data = retry_data(tmp_path)
    killer = KillOnFirstTask()
    with Session(cluster="spark", spark=spark, workers=2, transport="flight", task_bytes=0,
                 progress=killer) as session:
        victim = session.cluster.announcements[1]
        assert run_with_a_kill(session, killer, victim.pid, data) == oracle(data)
        assert killer.fired.is_set() and session.last_metrics.attempts == 2
        # Spark retries the victim's task: the worker registers again, and the next query
        # runs on both workers again.
        deadline = time.monotonic() + 60
        while session.cluster.dead() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not session.cluster.dead()
        again = sorted(tuple(r) for r in session.read.parquet(str(data)).groupBy("k").sum("v").collect())
        assert again == oracle(data)
        assert session.cluster.announcements[1].address != victim.address
        assert set(session.last_metrics.tasks_per_worker) == {"spark-worker-0", "spark-worker-1"}


def test_more_workers_than_slots_is_refused_at_once(spark):
    started = time.monotonic()
    with pytest.raises(ConfigError, match="task slots"):
        Session(cluster="spark", spark=spark, workers=3, transport="flight")
    assert time.monotonic() - started < 5


def test_busy_slots_time_out_with_the_cause(spark):
    settings = load_settings(workers=2, transport="flight")
    with SparkCluster(spark, settings):
        started = time.monotonic()
        with pytest.raises(Timeout, match=r"only 0 of 1 .*task slots busy"):
            SparkCluster(spark, load_settings(workers=1, transport="flight"), start_timeout=3)
        assert time.monotonic() - started < 30


def test_memory_transport_is_refused(spark):
    with pytest.raises(ConfigError, match="memory"):
        Session(cluster="spark", spark=spark, workers=1, transport="memory")


def test_spark_dataframes_in_and_out(spark):
    spark_df = spark.createDataFrame(sample_table())
    with Session(cluster="spark", spark=spark, workers=1, transport="flight") as session:
        df = session.createDataFrame(spark_df)
        result = df.groupBy("s").agg(F.sum("x").alias("sx"))
        back = result.toSpark(spark)
        got = sorted((r["s"], r["sx"]) for r in back.collect())
    expected = sorted((r["s"], r["sx"]) for r in spark_df.groupBy("s").sum("x").withColumnRenamed("sum(x)", "sx").collect())
    assert got == expected
