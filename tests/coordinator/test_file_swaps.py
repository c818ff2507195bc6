"""A file swapped for a FIFO after its task's plan was checked must not wedge the worker's slot:
the task is refused when it starts, and a task already stuck opening the FIFO is freed by its
cancel. One worker with one slot, so a wedged slot would hold up every later query."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.worker import service
from sparkwire.coordinator.worker.files import unblock_fifos
from sparkwire.planner.api import functions as F
from sparkwire.transport.errors import SparkwireError
from tests.transport.conftest import wait_until

WITHIN = 3.0


@pytest.fixture
def swapped(tmp_path: Path) -> Iterator[Path]:
    """A Parquet file under the worker's data root; a FIFO left there is unblocked at the end,
    so that a slot stuck on it (the failure this module looks for) cannot hang the suite."""
    path = tmp_path / "data" / "part.parquet"
    path.parent.mkdir()
    pq.write_table(pa.table({"x": pa.array(range(100), pa.int64())}), path)
    yield path
    unblock_fifos([str(path)])


def _in_thread(call: Callable[[], object]) -> tuple[threading.Event, list[object]]:
    done, outcome = threading.Event(), []

    def run() -> None:
        try:
            outcome.append(call())
        except Exception as exc:  # noqa: BLE001 - the outcome is the test's subject
            outcome.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, daemon=True).start()
    return done, outcome


def _swap_for_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _serves_next(session: Session) -> None:
    done, outcome = _in_thread(lambda: session.range(0, 1000).agg(F.sum("id")).collect()[0][0])
    assert done.wait(WITHIN), "the next query waits for a wedged slot"
    assert outcome == [sum(range(1000))]


def _queued_read_of_a_swapped_file(s: Session, path: Path) -> tuple[threading.Event, list[object]]:
    """A read of ``path`` whose task was checked and accepted while a long query held the
    only slot; then the file is swapped for a FIFO and the long query interrupted, so the
    read's task starts."""
    worker = s.cluster.workers[0]
    right = s.range(200_000).withColumnRenamed("id", "j")

    def long() -> object:
        s.addTag("long")  # a thread's own tags, as Spark's
        return s.range(200_000).crossJoin(right).agg(F.count("*")).collect()

    long_done, _ = _in_thread(long)
    assert wait_until(lambda: bool(worker._running), 30)  # the slot is taken
    read = _in_thread(lambda: s.read.parquet(str(path)).agg(F.sum("x")).collect())
    # its task checked, accepted and waiting: a query queued that is not the running one
    assert wait_until(lambda: bool(worker._queue._queues.keys() - worker._running.keys()), 30)
    _swap_for_fifo(path)
    assert s.interruptTag("long") and long_done.wait(WITHIN)
    return read


def test_a_file_swapped_while_its_task_waits_is_refused_when_the_task_starts(swapped: Path) -> None:
    with Session(workers=1, worker={"task_slots": 1, "engine": {"data_roots": [swapped.parent]}}) as s:
        read_done, read = _queued_read_of_a_swapped_file(s, swapped)
        assert read_done.wait(WITHIN), "the task blocked opening the FIFO"
        assert isinstance(read[0], SparkwireError) and "not a regular file" in str(read[0])
        _serves_next(s)


def test_a_task_stuck_opening_a_fifo_is_freed_by_its_cancel(swapped: Path, monkeypatch) -> None:
    """The moment between the task's own check and DuckDB's open, widened: the check is
    skipped, so DuckDB opens the FIFO and blocks, which no DuckDB interrupt reaches."""
    monkeypatch.setattr(service, "recheck_files", lambda files, roots: None)
    with Session(workers=1, worker={"task_slots": 1}) as s:
        read_done, read = _queued_read_of_a_swapped_file(s, swapped)
        worker = s.cluster.workers[0]
        assert wait_until(lambda: bool(worker._running), WITHIN)
        time.sleep(0.3)  # its DuckDB is in open() now
        assert not read_done.is_set()
        started = time.monotonic()
        assert len(s.interruptAll()) == 1
        assert read_done.wait(WITHIN) and isinstance(read[0], SparkwireError)
        assert wait_until(lambda: not worker._running, WITHIN), "the slot is still stuck"
        assert time.monotonic() - started < 2 * WITHIN
        _serves_next(s)
