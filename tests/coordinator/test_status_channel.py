"""One status channel per session: workers tell the driver how each task ended, and one thread
hands the statuses on and watches the cluster's losses, in place of a thread per worker per
query, each reading its tasks' status partitions in turn."""

from __future__ import annotations

import threading
import time

import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.status import LIVENESS_TICK, StatusChannel
from sparkwire.coordinator.taskplan import TaskPlan, TaskStatus, encode_message
from sparkwire.planner.api import functions as F
from sparkwire.planner.logical.sources import LocalSource
from sparkwire.planner.logical.staged import Boundary
from sparkwire.transport.errors import PlanRejected
from tests.transport.conftest import wait_until


def _status(query_id: str, task: int = 0) -> TaskStatus:
    return TaskStatus(query_id=query_id, stage=0, task=task, worker="w0")


def _status_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("sparkwire-status")]


class _Listener:
    """Records what the channel hands it; ``on_status`` may raise, once, to test that the
    channel survives its listeners."""

    def __init__(self, raise_first: bool = False) -> None:
        self.statuses: list[TaskStatus] = []
        self.losses = 0
        self._raise = raise_first

    def on_status(self, status: TaskStatus) -> None:
        if self._raise:
            self._raise = False
            raise RuntimeError("a listener's bug")
        self.statuses.append(status)

    def on_loss(self) -> None:
        self.losses += 1


def test_statuses_reach_their_query_in_order_and_others_are_dropped() -> None:
    with StatusChannel(lambda: 0) as channel:
        first, second = _Listener(raise_first=True), _Listener()
        channel.listen("q1", first)
        channel.listen("q2", second)
        for task in range(4):
            channel.put(_status("q1", task))
        channel.put(_status("q2"))
        channel.put(_status("nobody"))
        assert channel.flush(5)
        assert [s.task for s in first.statuses] == [1, 2, 3]  # 0 raised, and the rest came
        assert [s.query_id for s in second.statuses] == ["q2"]


def test_a_loss_reaches_every_listener_within_a_tick() -> None:
    losses = [0]
    with StatusChannel(lambda: losses[0]) as channel:
        listener = _Listener()
        channel.listen("q1", listener)
        assert wait_until(lambda: listener.losses == 1, 5)  # the first look tells
        time.sleep(3 * LIVENESS_TICK)
        assert listener.losses == 1  # nothing new: no news
        losses[0] += 1
        started = time.monotonic()
        assert wait_until(lambda: listener.losses == 2, 5, interval=0.005)
        assert time.monotonic() - started < 10 * LIVENESS_TICK


def test_the_thread_runs_only_while_a_query_listens() -> None:
    with StatusChannel(lambda: 0) as channel:
        assert channel.flush(0.1)  # no thread: nothing to wait for
        channel.listen("q1", _Listener())
        channel.listen("q2", _Listener())
        assert _status_threads() == ["sparkwire-status"]
        channel.forget("q1")
        channel.forget("q2")
        assert wait_until(lambda: not _status_threads(), 5)
        channel.listen("q3", _Listener())  # a new one when needed
        assert _status_threads() == ["sparkwire-status"]
    assert not _status_threads()  # closed: ended
    channel.close()  # twice is fine


@pytest.mark.parametrize("transport", ["memory", "zmq"])
def test_a_query_holds_one_status_thread_whatever_the_workers(transport: str) -> None:
    """Eight workers, three tasks each: the driver holds one status thread while the query
    runs, none once it ended, and the metrics count every task (from the statuses)."""
    with Session(workers=8, transport=transport, task_bytes=0) as session:
        df = (session.range(0, 8000, numPartitions=8)
              .groupBy((F.col("id") % 7).alias("k")).agg(F.count("*").alias("n")))
        seen: list[list[str]] = []
        session.progress = lambda metrics: seen.append(_status_threads())
        assert sorted(r["n"] for r in df.collect()) == [1142] + [1143] * 6
        assert seen and all(threads == ["sparkwire-status"] for threads in seen)
        metrics = session.last_metrics
        assert metrics is not None
        assert all(s.done == s.tasks for s in metrics.stages.values())
        assert sum(metrics.tasks_per_worker.values()) == sum(s.tasks for s in metrics.stages.values())
        assert len(metrics.tasks_per_worker) == 8
        assert wait_until(lambda: not _status_threads(), 5)


def test_statuses_go_to_the_driver_only(sparkwire_session: Session) -> None:
    """A worker takes no statuses (only the driver's does), and a plan may report only to
    a member of the cluster."""
    worker = sparkwire_session.cluster.workers[0]
    with pytest.raises(PlanRejected, match="takes no task statuses"):
        worker.submit(encode_message(_status("q1")))
    membership = sparkwire_session.cluster.membership
    assert membership is not None
    worker.submit(encode_message(membership.notice(("mem://elsewhere",))))
    plan = TaskPlan(query_id="q1", stage=0, task=0, output=Boundary(kind="result"),
                    fragment=LocalSource(source_id="s", chunks=1, columns=("a",)),
                    report_to="tcp://10.1.2.3:22")
    with pytest.raises(PlanRejected, match="not members of the cluster"):
        worker.submit(encode_message(plan))


def test_a_lost_status_costs_a_bounded_wait() -> None:
    """A status that never comes (its push failed) delays the end of the result by the
    shutdown timeout at most, and the rows are all there."""
    with Session(workers=2, timeouts={"shutdown": 0.5}) as session:
        driver = session.cluster.driver
        dropped = []
        driver.take_statuses(lambda status: dropped.append(status) if not dropped else
                             session._coordinator.statuses.put(status))
        table = pa.table({"a": list(range(100))})
        started = time.monotonic()
        assert session.createDataFrame(table).count() == 100
        assert len(dropped) == 1 and time.monotonic() - started < 5
