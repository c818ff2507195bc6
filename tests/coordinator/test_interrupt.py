"""``interruptAll``/``interruptTag``/``interruptOperation`` stop a running query from another
thread, as PySpark's do: the caller gets Spark's ``SPARK_JOB_CANCELLED``, the worker process
stops computing at once (its CPU goes quiet) and serves the next query. One worker process
with one task slot, so that a task the cancel failed to stop would hold up the next query."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from sparkwire.coordinator import Session
from sparkwire.planner.api import functions as F
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.transport.errors import QueryCancelled, QueryError
from tests.transport.conftest import wait_until

#: Seconds a stopped query and a quiet worker get; the target is 1 s, slack for a loaded CI.
STOPS_WITHIN = 3.0


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with Session(workers=1, cluster="process", transport="zmq", worker={"task_slots": 1}) as s:
        yield s


def _cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


class Running:
    """``make(session)`` collected on a thread of its own, under ``tag`` when given."""

    def __init__(self, session: Session, make: Callable[[Session], DataFrame], tag: str | None = None):
        self.session, self.error, self.finished = session, None, threading.Event()
        self.worker = session.cluster.announcements[0].pid
        self._thread = threading.Thread(target=self._run, args=(make, tag), daemon=True)
        self._thread.start()

    def _run(self, make: Callable[[Session], DataFrame], tag: str | None) -> None:
        if tag is not None:
            self.session.addTag(tag)
        try:
            make(self.session).collect()
        except Exception as exc:  # noqa: BLE001 - what the caller saw is the test's subject
            self.error = exc
        finally:
            self.finished.set()

    def busy(self) -> bool:
        """The worker process is computing: over a sixth of a core for 0.3 s (a loaded CI
        machine shares its two cores with the suite's other worker; an idle worker only
        beats its heart)."""
        before = _cpu_seconds(self.worker)
        time.sleep(0.3)
        return _cpu_seconds(self.worker) - before > 0.05


def _cross_join(s: Session) -> DataFrame:  # 4e10 rows: minutes, unless stopped
    return s.range(200_000).crossJoin(s.range(200_000).withColumnRenamed("id", "j")).agg(F.count("*"))


def _long_sum(s: Session) -> DataFrame:  # 1e11 rows generated and summed
    return s.range(0, 10**11, numPartitions=2).agg(F.sum(F.col("id") % 7))


def _stops(query: Running, interrupt: Callable[[], list[str]]) -> list[str]:
    """Interrupt ``query`` once its worker computes; the ids interrupted, once the caller was
    freed with Spark's error and the worker went quiet, each within ``STOPS_WITHIN``."""
    assert wait_until(query.busy, 30), "the query never got going"
    started = time.monotonic()
    ids = interrupt()
    assert ids, f"nothing was running to interrupt: the query ended with {query.error!r}"
    assert query.finished.wait(STOPS_WITHIN), "the caller still waits"
    assert isinstance(query.error, QueryCancelled), query.error
    assert query.error.getCondition() == "SPARK_JOB_CANCELLED"
    assert wait_until(lambda: not query.busy(), STOPS_WITHIN), "the worker still computes"
    assert time.monotonic() - started < 2 * STOPS_WITHIN
    return ids


def _serves_next(session: Session) -> None:
    started = time.monotonic()
    assert session.range(0, 5000, numPartitions=2).agg(F.sum("id")).collect()[0][0] == sum(range(5000))
    assert time.monotonic() - started < STOPS_WITHIN


@pytest.mark.parametrize("make", [_cross_join, _long_sum], ids=["cross join", "long sum"])
def test_interrupt_all_stops_the_query_and_its_worker(session, make):
    query = Running(session, make)
    ids = _stops(query, session.interruptAll)
    assert len(ids) == 1 and ids[0] in str(query.error)
    _serves_next(session)
    assert session.interruptAll() == []  # nothing runs any more


def test_interrupt_tag_stops_only_the_queries_under_that_tag(session):
    query = Running(session, _cross_join, tag="nightly")
    assert wait_until(query.busy, 30)
    assert session.interruptTag("adhoc") == []  # another tag: left running
    assert not query.finished.wait(0.5)
    ids = _stops(query, lambda: session.interruptTag("nightly"))
    assert len(ids) == 1 and "nightly" in str(query.error)
    assert session.interruptOperation(ids[0]) == []  # over already
    assert session.getTags() == set()  # tags are the adding thread's
    _serves_next(session)


def test_interrupt_operation_stops_the_query_by_its_id(session):
    before = set(session._coordinator._running)  # noqa: SLF001 - the ids interruptAll would give
    query = Running(session, _long_sum, tag="by-id")
    assert wait_until(query.busy, 30)
    assert session.interruptOperation("no-such-query") == []
    (running,) = set(session._coordinator._running) - before  # noqa: SLF001
    ids = _stops(query, lambda: session.interruptOperation(running))
    assert ids == [running]
    _serves_next(session)


def test_a_task_past_its_deadline_is_stopped_and_fails_its_query():
    with Session(workers=1, worker={"task_slots": 1}, timeouts={"task": 1.0}) as s:
        started = time.monotonic()
        with pytest.raises(QueryError, match=r"ran longer than timeouts.task \(1 s\)"):
            _cross_join(s).collect()
        assert time.monotonic() - started < 1 + STOPS_WITHIN
        assert wait_until(lambda: not s.cluster.workers[0]._running, STOPS_WITHIN)
        _serves_next(s)
