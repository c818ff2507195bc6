"""A task slot outlives whatever a task raises, also outside the task's own error handling:
the error is logged, a task whose output was complete keeps its answer, and every later
query still finds every slot."""

from __future__ import annotations

import logging
import time

import pyarrow as pa

from sparkwire.coordinator import Session
from sparkwire.planner.api import functions as F


class _Exploding:
    """Stands in for a worker's record of completed tasks; recording one raises."""

    def append(self, item: object) -> None:
        raise MemoryError("recording a finished task failed")


def test_an_exception_outside_the_run_fails_the_task_not_the_slot(caplog) -> None:
    data = pa.table({"k": pa.array([i % 7 for i in range(700)], pa.int64())})
    with Session(workers=1, worker={"task_slots": 2}) as session:
        worker = session.cluster.workers[0]
        kept, worker.completed = worker.completed, _Exploding()
        caplog.set_level(logging.ERROR)
        got = session.createDataFrame(data).groupBy("k").agg(F.count("k")).collect()
        assert sorted(r[1] for r in got) == [100] * 7  # outputs were complete: no data lost
        deadline = time.monotonic() + 10
        while "failed outside its run" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.01)  # recorded after the output finished, so maybe after the result
        assert "failed outside its run" in caplog.text
        worker.completed = kept
        assert all(slot.is_alive() for slot in worker._slots)
        for _ in range(4):  # more queries than slots: a dead slot would leave tasks queued
            got = session.createDataFrame(data).groupBy("k").count().collect()
            assert sorted(r[1] for r in got) == [100] * 7
