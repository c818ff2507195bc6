"""A file swapped after its task's plan was checked never reaches DuckDB: one swapped for a
FIFO while the task waits is refused when the task starts; one swapped for a FIFO, a symlink
out of the data roots or another file after the task opened it is not what DuckDB reads
(``worker.opened``). One worker with one slot, so a wedged slot would hold up every later
query."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.worker.engine import BatchStream, TaskEngine
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
    _unblock_fifo(path)


def _unblock_fifo(path: Path) -> None:
    """Open and close the writing end of ``path`` if it is a FIFO: a reader blocked opening
    it gets it and reads its end at once."""
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC))


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


def _open_to(path: Path) -> bool:
    """Whether this process holds a descriptor of ``path`` (or of what was there)."""
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{fd}").removesuffix(" (deleted)") == str(path):
                return True
    return False


def _swap_at_run(monkeypatch: pytest.MonkeyPatch, swap: Callable[[], None],
                 reading: str) -> threading.Event:
    """Run ``swap`` as the task that reads the file ending in ``reading`` hands DuckDB its
    query: after every check the worker makes, before DuckDB opens anything. That task is
    known by its query's text (a path in it) or the files its file list is bound to
    (``sparkwire_files_0``, descriptors and links to them): another task swapping it first would leave this one to check, and
    rightly read, what was swapped in."""
    run, swapped = TaskEngine.run, threading.Event()

    def swapping_run(self: TaskEngine, sql: str, bounded_calls: int = 0) -> BatchStream:
        [(bound,)] = self.connection.execute("SELECT getvariable('sparkwire_files_0')").fetchall()
        files = [os.path.realpath(path) for path in bound or ()]  # each descriptor's file
        if not swapped.is_set() and reading in sql + str(files):
            swapped.set()
            swap()
        return run(self, sql, bounded_calls)

    monkeypatch.setattr(TaskEngine, "run", swapping_run)
    return swapped


def _sum_and_count(path: Path) -> tuple[int, int]:
    """The oracle: DuckDB's own answer over the file as it is now."""
    [(total, count)] = duckdb.execute("SELECT sum(x), count(*) FROM read_parquet(?)",
                                      [str(path)]).fetchall()
    return int(total), int(count)


def _swaps(path: Path) -> dict[str, Callable[[], None]]:
    root, outside = path.parent, path.parent.parent
    pq.write_table(pa.table({"x": pa.array([42], pa.int64())}), outside / "secret.parquet")
    pq.write_table(pa.table({"x": pa.array([7, 7], pa.int64())}), root / "other.parquet")
    return {
        "fifo": lambda: _swap_for_fifo(path),
        "symlink out of the roots": lambda: (path.unlink(), path.symlink_to(outside / "secret.parquet")),
        "another regular file": lambda: os.replace(root / "other.parquet", path),
    }


@pytest.mark.parametrize("swap", ["fifo", "symlink out of the roots", "another regular file"])
def test_duckdb_reads_the_file_its_task_checked_whatever_replaced_it(
        swapped: Path, monkeypatch: pytest.MonkeyPatch, swap: str) -> None:
    """The file is swapped after the task opened and checked it, just before DuckDB runs:
    DuckDB still reads the checked file, neither blocking on a FIFO, nor reading (or
    failing on) a file out of the roots, nor reading the other file; and the task lets go
    of the file once it ends."""
    want = _sum_and_count(swapped)
    done_swap = _swap_at_run(monkeypatch, _swaps(swapped)[swap], f"/{swapped.name}")
    with Session(workers=1, worker={"task_slots": 1, "engine": {"data_roots": [swapped.parent]}}) as s:
        done, outcome = _in_thread(
            lambda: s.read.parquet(str(swapped)).agg(F.sum("x"), F.count("*")).collect())
        assert done.wait(WITHIN), "DuckDB blocked opening the FIFO"
        assert not isinstance(outcome[0], Exception), outcome[0]
        assert done_swap.is_set() and tuple(outcome[0][0]) == want  # type: ignore[index]
        assert wait_until(lambda: not _open_to(swapped), WITHIN)
        _serves_next(s)


def test_a_partitioned_read_gets_its_partition_values_from_the_checked_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hive partitioning reads ``k=v`` directories of the path, which a descriptor lacks:
    the values, their types, NULL for ``__HIVE_DEFAULT_PARTITION__`` and the pruning of a
    filter on them are still DuckDB's, and a file swapped at run is still not read."""
    table = tmp_path / "data" / "t"
    for k, xs in (("1", [1, 2]), ("2", [10]), ("__HIVE_DEFAULT_PARTITION__", [100, 200])):
        (table / f"k={k}").mkdir(parents=True)
        pq.write_table(pa.table({"x": pa.array(xs, pa.int64())}), table / f"k={k}" / "part.parquet")
    oracle = ("SELECT k, sum(x) AS s FROM read_parquet(?, hive_partitioning = true) "
              "WHERE k = 1 OR k IS NULL GROUP BY k ORDER BY k NULLS LAST")
    want = duckdb.execute(oracle, [str(table / "*" / "*.parquet")]).fetchall()
    pq.write_table(pa.table({"x": pa.array([5000], pa.int64())}), tmp_path / "other.parquet")
    done_swap = _swap_at_run(
        monkeypatch, lambda: os.replace(tmp_path / "other.parquet", table / "k=1" / "part.parquet"),
        "/k=1/part.parquet")
    with Session(workers=1, worker={"engine": {"data_roots": [tmp_path / "data"]}}) as s:
        got = s.read.parquet(str(table)).where("k = 1 OR k IS NULL").groupBy("k").agg(F.sum("x")).collect()
    assert done_swap.is_set()
    assert sorted((tuple(row) for row in got), key=lambda row: row[0] is None) == want
