"""A partition that several of a worker's tasks read (a broadcast, a stage read whole) is
fetched once per worker and shared by those tasks (``worker.shared_inputs``), on a real
cluster over every transport: counted at the producer, results equal DuckDB's, and nothing
is held once the query ends; a worker lost meanwhile (the producer, or a consumer) costs a
rerun. Its life alone, against a scripted producer: kept until the last task that expects
it ends, whole for the others when one stops early, counted once and spilled beyond the
store's budget, failed with the fetch's own error and fetched anew by a later reader,
stopped by a cancel."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.worker.service import Worker
from sparkwire.coordinator.worker.shared_inputs import SHARED_ROUTE, SharedInputs
from sparkwire.coordinator.worker.store import PARTITION_BYTES, PartitionStore
from sparkwire.planner.logical.plan import Exchange, operators
from sparkwire.transport.base import PartitionKey, TransportClient
from sparkwire.transport.errors import ConnectionLost, QueryCancelled
from sparkwire.transport.registry import available_transports, create_transport
from sparkwire.transport.stream import PartitionReader
from tests.credentials import SECURITY
from tests.e2e.conftest import rows_close

QUERY = "SELECT v, count(*) AS n, sum(w) AS s FROM big JOIN small ON k = k2 GROUP BY v"


def _write_tables(root: Path, rows: int, keys: int) -> Path:
    """``big`` in 4 files of ``rows`` rows (so 2 workers run 4 join tasks) over ``keys``
    keys, and ``small`` in one, every other key: QUERY's tables, under ``root``."""
    (root / "big").mkdir()
    for part in range(4):
        k = pa.array([(i * 7 + part) % keys for i in range(rows)], pa.int64())
        pq.write_table(pa.table({"k": k, "w": pa.array(range(rows), pa.int64())}),
                       root / "big" / f"{part}.parquet", row_group_size=max(rows // 10, 1))
    small = pa.table({"k2": pa.array(range(0, keys, 2), pa.int64()),
                      "v": pa.array([i % 7 for i in range(keys // 2)], pa.int64())})
    pq.write_table(small, root / "small.parquet")
    return root


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_tables(tmp_path_factory.mktemp("shared"), 20_000, 3_000)


def _oracle(root: Path) -> pa.Table:
    con = duckdb.connect()
    con.execute(f"CREATE VIEW big AS SELECT * FROM '{root / 'big'}/*.parquet'")
    con.execute(f"CREATE VIEW small AS SELECT * FROM '{root / 'small.parquet'}'")
    return con.sql(QUERY).to_arrow_table()


@pytest.mark.parametrize("kind", sorted(available_transports()))
def test_a_broadcast_is_fetched_once_per_worker_that_reads_it(tables: Path, kind: str) -> None:
    transport = create_transport(kind, security=SECURITY)
    with Session(workers=2, transport=transport, task_bytes=0) as session:
        session.read.parquet(str(tables / "big")).createOrReplaceTempView("big")
        session.read.parquet(str(tables / "small.parquet")).createOrReplaceTempView("small")
        df = session.sql(QUERY)
        plan = df.staged_plan()
        broadcast = next(s for s in plan.stages if s.output.kind == "broadcast")
        readers = [s for s in plan.stages if any(
            isinstance(op, Exchange) and op.stage == broadcast.id for op in operators(s.fragment))]
        assert len(readers) == 1 and readers[0].tasks == 4, plan  # 2 join tasks per worker
        workers: list[Worker] = session.cluster.workers  # type: ignore[attr-defined]
        opened: Counter[tuple[int, int, int]] = Counter()
        for worker in workers:
            worker.open = _counting(worker, opened)  # type: ignore[method-assign]
        got = df.toArrow()
        metrics = session.last_metrics
        assert rows_close(got, _oracle(tables))
        fetches = {key: n for key, n in opened.items() if key[0] == broadcast.id}
        if transport.connect(session.cluster.addresses[0]).reads_in_place:
            assert sum(fetches.values()) == readers[0].tasks  # the producer's own batches
            assert SHARED_ROUTE not in metrics.bytes_in
        else:
            assert fetches == {(broadcast.id, 0, 0): len(workers)}
            assert metrics.bytes_in[SHARED_ROUTE] > 0
        for worker in workers:
            assert worker.store.partitions_held() == 0 and worker.store.memory_bytes == 0
            assert not worker._shared._copies and not worker._shared._expected


def _counting(worker: Worker, opened: Counter[tuple[int, int, int]]):  # type: ignore[no-untyped-def]
    """``worker.open`` counting the data partitions it serves (not the status ones)."""
    open_partition = worker.open

    def open(key: PartitionKey, timeout: float) -> PartitionReader:
        if key.partition >= 0:
            opened[(key.stage, key.task, key.partition)] += 1
        return open_partition(key, timeout)

    return open


# -- one worker's shared partitions against a scripted producer ----------------------------

KEY = PartitionKey("q1", 0, 0, 0)
BATCHES = [pa.record_batch({"x": pa.array(range(i * 10, i * 10 + 10), pa.int64())}) for i in range(5)]


class Producer(TransportClient):
    """A client whose reads serve ``BATCHES``, one at a time when ``gate`` is given (a batch
    per ``release()``), failing with ``error`` after ``fail_after`` batches; it counts reads
    and the readers it closed."""

    route = "scripted"

    def __init__(self, gate: threading.Semaphore | None = None, error: Exception | None = None,
                 fail_after: int = 0) -> None:
        self.reads = 0
        self.closed_readers = 0
        self._gate, self._error, self._fail_after = gate, error, fail_after

    def read(self, key: PartitionKey, timeout: float) -> PartitionReader:
        self.reads += 1
        error = self._error
        self._error = None  # a read after a failure succeeds

        def batches() -> Iterator[pa.RecordBatch]:
            for index, batch in enumerate(BATCHES):
                if error is not None and index == self._fail_after:
                    raise error
                if self._gate is not None:
                    assert self._gate.acquire(timeout=10)
                yield batch

        return PartitionReader(BATCHES[0].schema, batches(), release=self._closed)

    def _closed(self) -> None:
        self.closed_readers += 1

    def deliver(self, plan: bytes) -> None:
        raise NotImplementedError

    def cancel(self, query_id: str) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass


@pytest.fixture
def store(tmp_path: Path) -> Iterator[PartitionStore]:
    store = PartitionStore(1 << 30, tmp_path, idle_timeout=10.0)
    yield store
    store.close()


def _rows(reader: PartitionReader) -> list[int]:
    return reader.read_all().column("x").to_pylist()


def _expecting(store: PartitionStore, tasks: int) -> SharedInputs:
    """The shared partitions of a worker that accepted ``tasks`` tasks reading ``KEY``."""
    shared = SharedInputs(store)
    for _ in range(tasks):
        shared.expect([KEY])
    return shared


def test_one_fetch_serves_every_task_that_expects_it_and_goes_with_the_last(store: PartitionStore) -> None:
    producer, shared = Producer(), _expecting(store, 2)
    first, provenance = shared.read(KEY, producer, 1.0)
    assert _rows(first) == list(range(50))
    assert provenance() == ("scripted", True)  # the first reader counts what was fetched
    shared.release([KEY])
    second, provenance = shared.read(KEY, producer, 1.0)  # the copy outlives the first task
    assert _rows(second) == list(range(50)) and provenance() == (SHARED_ROUTE, True)
    held = sum(b.nbytes for b in BATCHES) + PARTITION_BYTES  # the copy's one partition
    assert producer.reads == 1 and store.memory_bytes == held
    shared.release([KEY])
    assert store.partitions_held() == 0 and store.memory_bytes == 0


def test_a_partition_one_task_reads_is_read_directly(store: PartitionStore) -> None:
    producer, shared = Producer(), _expecting(store, 1)
    reader, provenance = shared.read(KEY, producer, 1.0)
    assert _rows(reader) == list(range(50)) and provenance() == ("scripted", False)
    assert store.partitions_held() == 0
    shared.release([KEY])


def _under_way(store: PartitionStore) -> tuple[threading.Semaphore, Producer, SharedInputs,
                                               PartitionReader]:
    """A fetch for two tasks under way: the gate that lets its batches through, the
    producer, the worker's shared partitions, and the first task's reader, one batch in."""
    gate = threading.Semaphore(0)
    producer, shared = Producer(gate), _expecting(store, 2)
    reader, _ = shared.read(KEY, producer, 1.0)
    gate.release()
    assert reader.read_next_batch() is not None
    return gate, producer, shared, reader


def test_a_reader_that_stops_early_leaves_the_others_a_whole_partition(store: PartitionStore) -> None:
    gate, producer, shared, quitter = _under_way(store)
    quitter.close()
    shared.release([KEY])
    for _ in BATCHES[1:]:
        gate.release()
    other, _ = shared.read(KEY, producer, 1.0)
    assert _rows(other) == list(range(50)) and producer.reads == 1
    shared.release([KEY])


def test_a_failed_fetch_fails_its_readers_with_its_error_and_the_next_reader_fetches_anew(
        store: PartitionStore) -> None:
    gate = threading.Semaphore(0)
    producer = Producer(gate, error=ConnectionLost("the producer's worker is gone"), fail_after=2)
    shared = _expecting(store, 3)
    readers = [shared.read(KEY, producer, 1.0)[0] for _ in range(2)]  # both on one fetch
    for _ in range(2 + len(BATCHES)):
        gate.release()
    for reader in readers:
        with pytest.raises(ConnectionLost, match="gone"):
            reader.read_all()
    again, _ = shared.read(KEY, producer, 1.0)  # say, a task run again after the loss
    assert _rows(again) == list(range(50)) and producer.reads == 2
    for _ in range(3):
        shared.release([KEY])
    assert store.partitions_held() == 0 and store.memory_bytes == 0


def test_a_cancel_stops_the_fetch_and_fails_its_readers(store: PartitionStore) -> None:
    gate, producer, shared, reader = _under_way(store)
    store.drop_query(KEY.query_id)
    shared.drop_query(KEY.query_id)
    gate.release()  # the fetch meets its dropped copy at the latest on its next batch
    with pytest.raises(QueryCancelled):
        reader.read_all()
    assert producer.closed_readers == 1
    shared.release([KEY])
    shared.release([KEY])
    assert store.partitions_held() == 0 and store.memory_bytes == 0 and not shared._expected


def test_a_copy_over_the_store_budget_spills_and_every_reader_gets_it_whole(tmp_path: Path) -> None:
    """Counted once: two batches fit the store; the rest spill, and readers get them back
    from disk, said to be copies of their own (so a whole read counts them)."""
    store = PartitionStore(2 * BATCHES[0].nbytes + PARTITION_BYTES, tmp_path, idle_timeout=10.0)
    producer, shared = Producer(), _expecting(store, 2)
    for _ in range(2):
        reader, provenance = shared.read(KEY, producer, 1.0)
        read = [(batch, provenance()[1]) for batch in reader]
        assert [batch.column(0).to_pylist() for batch, _ in read] == [
            batch.column(0).to_pylist() for batch in BATCHES]
        assert [in_store for _, in_store in read] == [True, True, False, False, False]
    assert producer.reads == 1 and store.memory_bytes == 2 * BATCHES[0].nbytes + PARTITION_BYTES
    assert store.spilled_bytes > 0
    shared.release([KEY])
    shared.release([KEY])
    assert store.memory_bytes == 0
    store.close()


@pytest.mark.slow
@pytest.mark.parametrize("victim", [0, 1], ids=["producer", "consumer"])
def test_a_worker_lost_while_its_peers_share_a_broadcast_costs_only_a_rerun(
        tmp_path: Path, victim: int) -> None:
    """Two worker processes over zmq, two join tasks each sharing the broadcast; worker 0
    (the broadcast's producer) or worker 1 is killed after the first task ends: the copies
    fail or go with their worker, what was lost runs again, and the answer is DuckDB's."""
    from tests.coordinator.test_retry import KillEach

    root = _write_tables(tmp_path, 500_000, 300_000)
    with Session(workers=2, transport="zmq", task_bytes=0) as session:
        session.read.parquet(str(root / "big")).createOrReplaceTempView("big")
        session.read.parquet(str(root / "small.parquet")).createOrReplaceTempView("small")
        df = session.sql(QUERY)
        session.progress = killer = KillEach((1,), session, victim)
        got = df.toArrow()
        metrics = session.last_metrics
        assert killer.kills == 1
        assert rows_close(got, _oracle(root))
        # Whether a finished run of the killed query read a copy depends on where the kill
        # lands (a worker's first reader fetches, its second reads the copy; a run cut
        # short reports nothing): 1 run in 5 had none under load. The next query shares.
        assert metrics.attempts >= 2
        assert rows_close(session.sql(QUERY).toArrow(), _oracle(root))  # and the session goes on
        assert session.last_metrics.bytes_in[SHARED_ROUTE] > 0
