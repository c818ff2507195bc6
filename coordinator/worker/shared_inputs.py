"""Producer partitions that several of a worker's tasks read, fetched once per worker.

Every consumer task of a broadcast reads every producer task's partition, and a stage read
whole (``Exchange.whole``) is read in full by each of its readers; so a worker running k such
tasks fetched each of those partitions k times (TPC-H Q21 at SF10: tasks read 501 MB for
172 MB produced). Here the first of them to open such a partition starts one fetch of it
into a copy in the worker's partition store, and every task of the worker that reads it,
that one included, streams the copy, following the fetch while it runs: Spark's executors
fetch a broadcast once into their block manager and share it among their tasks the same way.

**What is shared** follows from what the worker was given, not from the plan's words: a
partition named by the inputs of more than one of its tasks (``expect``, called for all the
plans of one delivery before any of them is queued, so no task starts believing it reads a
partition alone). A partition read by partition by one stage and whole by another on the
same worker is shared too (Q21's stage 2, read by stages 3, 4 and 5).

**Why a copy in the store, filled by a thread of its own:**

- memory: the copy counts against the store's budget once, whatever the number of readers,
  and spills beyond it, so a broadcast larger than memory stays bounded; a task that reads
  a copy whole adds nothing to the worker's ``whole_input`` share for the batches the store
  holds in memory (``ExchangeInputs.whole``), only for those read back from its spill file;
- independence: the fetch runs to the end of the partition whoever reads it, so a task that
  stops early (a LIMIT, DuckDB skipping a probe side, a failure of its own, a cancel) leaves
  the others a whole partition; streams in flight stay as they were, since a fetch starts
  when a task opens the partition, and a task opens an input's next partition after the last;
- lifetime: a copy is dropped when the last task that expected it ends (``release``), and
  with its query in any case (``PartitionStore.drop_query``): no leak on error, cancel or a
  lost worker. Never earlier: a task whose input is dropped under it sees ``QueryCancelled``
  and ends without a word, which only a cancelled query may do;
- failure: a failed fetch fails the readers of that copy with the fetch's own error (a lost
  producer, a producer's ``QueryError`` passed on), as a direct read would have, and the copy
  is no longer handed out: a later reader (a task run again after a loss) fetches anew.

**Not copied**: a partition read through a client that ``reads_in_place`` (the memory
transport; a worker reading its own partitions) is the producer's own stored batches, already
counted by the producer's store and shared by every reader: each task reads it directly.

**What DuckDB does not share**: a registered Arrow table or a view belongs to the cursor (one
per task) that made it, and a join's hash table to one query: DuckDB has no way to build a
hash table once and probe it from several queries, and no index join (an ART index serves
point lookups, never a join's build side). So the tasks of a worker share the fetch and the
Arrow batches; each still registers them and builds its own hash table. Materialising the
copy into a table of the worker's database, visible to every cursor, was measured: the
build-side scan of a join then costs less (2M integer rows: 35 against 61 ms), but the copy
into DuckDB costs 17-70 ms once per worker, per-task registration about the same as the
view that would replace it (0.28 against 0.37 ms), and DuckDB's memory would hold the table
outside the store's budget; the Arrow copy is what is shared.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import pyarrow as pa

from sparkwire.coordinator.worker.store import PartitionStore, TaskOutput
from sparkwire.transport.base import PartitionKey, TransportClient
from sparkwire.transport.closing import Closeable
from sparkwire.transport.errors import QueryCancelled, SparkwireError, TaskFailed
from sparkwire.transport.stream import PartitionReader

__all__ = ["SHARED_ROUTE", "Provenance", "SharedInputs"]

_log = logging.getLogger(__name__)

#: The route (``TransportClient.route``, bytes read per route in the metrics) of a batch a
#: task read from its worker's copy after another task of the worker had read it: it did not
#: travel. The first reader of each batch counts it under the route the fetch took, so the
#: metrics' other routes still sum to the bytes that moved.
SHARED_ROUTE = "shared"

#: How the batch a reader just handed out came: its route, and whether the worker's store
#: holds it in memory (so holding it whole costs the worker nothing more).
Provenance = tuple[str, bool]


@dataclass(eq=False)  # identity: one fetch of one partition
class _Copy:
    key: PartitionKey
    output: TaskOutput
    route: str
    failed: bool = False
    stopped: bool = False  # dropped: its fetch ends, and must not pass for the whole partition
    claimed: int = 0  # leading batches some reader has counted under ``route``
    fetching: PartitionReader | None = None  # the fetch's own reader, closed on drop
    lock: threading.Lock = field(default_factory=threading.Lock)

    def claim(self, index: int) -> str:
        """The route to count batch ``index`` under: the fetch's for its first reader (the
        batches are read in order, so that is the reader reaching ``claimed``)."""
        with self.lock:
            if index == self.claimed:
                self.claimed += 1
                return self.route
            return SHARED_ROUTE


class SharedInputs(Closeable):
    """The worker's shared partitions: who expects them, and the copies being read.

    Thread-safe; the worker calls ``expect`` when it accepts tasks, ``read`` from the tasks'
    slots, ``release`` when a task ends however it ends, and ``drop_query`` on cancel.
    """

    def __init__(self, store: PartitionStore) -> None:
        self._store = store
        self._lock = threading.Lock()
        #: Tasks accepted and not yet ended that read each partition.
        self._expected: Counter[PartitionKey] = Counter()
        #: Copies made of each partition, the one handed out last (failed ones stay until
        #: their readers are gone, then go with the others).
        self._copies: dict[PartitionKey, list[_Copy]] = {}
        self._closed = False

    def expect(self, keys: Iterable[PartitionKey]) -> None:
        """One more task will read each of ``keys`` (a task's inputs, each once)."""
        with self._lock:
            self._expected.update(set(keys))

    def release(self, keys: Iterable[PartitionKey]) -> None:
        """A task that ``expect``-ed ``keys`` ended (ran, failed, was cancelled or never
        ran): the copies nobody expects any more are dropped."""
        dropped: list[_Copy] = []
        with self._lock:
            for key in set(keys):
                if self._expected[key] > 1:
                    self._expected[key] -= 1
                    continue
                self._expected.pop(key, None)
                dropped += self._copies.pop(key, [])
        self._drop(dropped)

    def read(self, key: PartitionKey, client: TransportClient, timeout: float,
             ) -> tuple[PartitionReader, Callable[[], Provenance]]:
        """A reader of partition ``key`` for one task, waiting up to ``timeout`` s for the
        producer as ``TransportClient.read`` does, and a function telling how the batch it
        handed out last came. The worker's copy when another of its tasks reads ``key``
        too (started here if there is none yet), else the producer's partition directly
        through ``client``."""
        copy = None
        if not client.reads_in_place:
            with self._lock:
                copies = self._copies.get(key, [])
                if copies and not copies[-1].failed:
                    copy = copies[-1]  # the others that expected it may have ended already
                elif not self._closed and self._expected[key] > 1:
                    copy = self._start(key, client, timeout)
                    self._copies.setdefault(key, []).append(copy)
        if copy is None:
            direct: Provenance = (client.route, False)
            return client.read(key, timeout), lambda: direct
        return self._read(copy)

    def _start(self, key: PartitionKey, client: TransportClient, timeout: float) -> _Copy:
        """A new copy of ``key`` and the thread that fills it (called holding the lock)."""
        copy = _Copy(key, self._store.create_copy(key), client.route)
        thread = threading.Thread(target=self._fetch, args=(copy, client, timeout), daemon=True,
                                  name=f"sparkwire-fetch-{key}")
        thread.start()
        return copy

    def _fetch(self, copy: _Copy, client: TransportClient, timeout: float) -> None:
        """Fill ``copy`` from the producer to the end, or fail it with what went wrong. Ends
        quietly when the copy is dropped (its query ended, or nobody expects it any more)."""
        output = copy.output
        try:
            reader = client.read(copy.key, timeout)
            with self._lock:
                copy.fetching = reader
            if copy.stopped:  # stopped while opening: ``_stop`` found no reader to close
                reader.close()
            with reader:
                output.start(reader.schema)
                for batch in reader:
                    output.write(0, batch)
            if copy.stopped:  # ``_stop`` closed the reader: its end is no end of stream
                raise QueryCancelled(f"query {copy.key.query_id} was cancelled")
            output.finish()
        except QueryCancelled as exc:
            if not output.dropped:  # not dropped yet: its readers must not wait for more
                self._failed(copy, exc)
        except SparkwireError as exc:
            self._failed(copy, exc)
        except Exception as exc:  # noqa: BLE001 - every failure must reach the readers
            _log.exception("fetching %s failed", copy.key)
            self._failed(copy, TaskFailed(f"fetching partition {copy.key} failed: {exc}"))

    def _failed(self, copy: _Copy, error: SparkwireError) -> None:
        with self._lock:
            copy.failed = True
        copy.output.fail(error)

    def _read(self, copy: _Copy) -> tuple[PartitionReader, Callable[[], Provenance]]:
        """A reader of ``copy`` from its first batch, and the provenance of its last batch."""
        last: list[Provenance] = [(copy.route, False)]
        schema, entries = copy.output.iterate_entries(0, self._store.idle_timeout)

        def batches() -> Iterator[pa.RecordBatch]:
            for index, (batch, held) in enumerate(entries):
                last[0] = (copy.claim(index), held)
                yield batch

        return PartitionReader(schema, batches()), lambda: last[0]

    def drop_query(self, query_id: str) -> None:
        """Forget the query's expectations and stop its fetches; the store drops the copies
        themselves with the query's outputs."""
        with self._lock:
            for key in [k for k in self._expected if k.query_id == query_id]:
                del self._expected[key]
            copies = [c for key in [k for k in self._copies if k.query_id == query_id]
                      for c in self._copies.pop(key)]
        for copy in copies:
            self._stop(copy)

    def _drop(self, copies: list[_Copy]) -> None:
        for copy in copies:
            self._store.drop_output(copy.output)
            self._stop(copy)

    def _stop(self, copy: _Copy) -> None:
        """Close the fetch's reader, releasing the producer side at once rather than when its
        next batch meets the dropped copy."""
        with self._lock:
            copy.stopped = True
            reader = copy.fetching
        if reader is not None:
            with contextlib.suppress(SparkwireError):
                reader.close()

    def close(self) -> None:
        """Stop every fetch (the store drops the copies when it closes); idempotent."""
        with self._lock:
            self._closed = True
            copies = [c for held in self._copies.values() for c in held]
            self._copies.clear()
            self._expected.clear()
        for copy in copies:
            self._stop(copy)
