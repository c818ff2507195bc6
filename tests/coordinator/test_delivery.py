"""Plan delivery: every worker's plans go out at once, not one worker after another, and a
delivery that fails still fails the query with its own error after the others were tried;
the calls' threads (``delivery.FanOut``) are kept from one query to the next."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.delivery import FAN_OUT, FanOut
from sparkwire.planner.api import functions as F
from sparkwire.transport.errors import PlanRejected

WORKERS = 3
DATA = pa.table({"k": pa.array([i % 11 for i in range(3300)], pa.int64()),
                 "v": pa.array(range(3300), pa.int64())})


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """``DATA`` in a file per worker, so that each worker scans one."""
    for part in range(WORKERS):
        pq.write_table(DATA.slice(part * 1100, 1100), tmp_path / f"part-{part}.parquet")
    return tmp_path


def _query(session: Session, files: Path) -> dict[int, int]:
    rows = session.read.parquet(str(files)).groupBy("k").agg(F.sum("v").alias("s")).collect()
    return {row["k"]: row["s"] for row in rows}


def _expected() -> dict[int, int]:
    grouped = DATA.group_by("k").aggregate([("v", "sum")])
    return dict(zip(grouped["k"].to_pylist(), grouped["v_sum"].to_pylist()))


def _wrap_submits(session: Session, around: Callable[[int, Callable[[bytes], None], bytes], None]) -> None:
    """Each worker's ``submit`` through ``around(worker index, submit, plan)``."""
    for index, worker in enumerate(session.cluster.workers):
        submit = worker.submit
        worker.submit = lambda plan, i=index, s=submit: around(i, s, plan)


def test_every_worker_is_delivered_to_at_once(files: Path) -> None:
    """A barrier every worker's delivery must reach before any returns: one worker after
    another, the first would wait for the others in vain and the barrier break."""
    with Session(workers=WORKERS) as session:
        assert _query(session, files) == _expected()  # the members are told: only plans follow
        barrier = threading.Barrier(WORKERS, timeout=10)
        reached: list[int] = []

        def around(index: int, submit: Callable[[bytes], None], plan: bytes) -> None:
            if index not in reached:
                reached.append(index)
                barrier.wait()
            submit(plan)

        _wrap_submits(session, around)
        assert _query(session, files) == _expected()
        assert sorted(reached) == list(range(WORKERS))
        assert not barrier.broken


def test_a_refused_delivery_fails_the_query_after_the_others_were_tried(files: Path) -> None:
    with Session(workers=WORKERS) as session:
        assert _query(session, files) == _expected()
        tried: list[int] = []

        def around(index: int, submit: Callable[[bytes], None], plan: bytes) -> None:
            tried.append(index)
            if index == 1:
                raise PlanRejected("worker 1 refuses this plan")
            submit(plan)

        _wrap_submits(session, around)
        with pytest.raises(PlanRejected, match="worker 1 refuses this plan"):
            _query(session, files)
        assert sorted(set(tried)) == list(range(WORKERS))
        for worker in session.cluster.workers:
            del worker.submit  # the class's own again
        assert _query(session, files) == _expected()  # nothing of the failed query is left in the way
        calls = [t for t in threading.enumerate() if t.name.startswith("sparkwire-call_")]
        assert len(calls) <= FAN_OUT  # the coordinator's pool, kept between queries


def test_fan_out_within_waits_its_timeout_and_names_who_missed_it() -> None:
    answer = threading.Event()

    def call(address: str) -> None:
        if address == "slow":
            answer.wait(5)
        elif address == "failing":
            raise PlanRejected("no")

    with FanOut() as fan_out:
        started = time.monotonic()
        assert fan_out.within(["slow", "ok", "failing", "fine"], call, 0.2) == ["slow", "failing"]
        assert time.monotonic() - started < 2
        answer.set()
        assert fan_out.within(["slow", "ok"], call, 5) == []


def test_fan_out_at_once_makes_every_call_and_raises_the_first_failure() -> None:
    made: list[str] = []

    def call(address: str) -> None:
        made.append(address)
        if address in ("b", "c"):
            raise PlanRejected(f"{address} refuses")

    fan_out = FanOut()
    with pytest.raises(PlanRejected, match="b refuses"):
        fan_out.at_once(["a", "b", "c", "d"], call)
    assert sorted(made) == ["a", "b", "c", "d"]
    fan_out.close()
    fan_out.close()
    made.clear()
    assert fan_out.within(["a", "d"], call, 1) == []  # closed: made on the caller's thread
    assert made == ["a", "d"]
