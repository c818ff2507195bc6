"""``PartitionReader``: the one stream type every transport hands to a reader.

Transports differ in where batches come from (a list in the same process, a mapped segment,
frames off a socket); they agree on what a reader sees, so that the coordinator and the
worker consume every transport with the same code. A transport builds a reader from a schema,
an iterator of batches and a release callback.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pyarrow as pa
from sparkwire.transport.closing import Closeable


class PartitionReader(Closeable):
    """An ordered stream of record batches with an explicit end and an idempotent close.

    Iterating yields batches until the producer's end of stream. ``close()`` tells the
    producer side the reader is done (early or not) so it can release what it holds; it is
    safe to call twice and is called automatically when iteration ends or fails.
    """

    def __init__(
        self,
        schema: pa.Schema,
        batches: Iterator[pa.RecordBatch],
        release: Callable[[], None] | None = None,
    ) -> None:
        self.schema = schema
        self._batches = batches
        self._release = release
        self._lock = threading.Lock()
        self._closed = False
        self._reading = False  # a thread is inside next(self._batches)
        self._batches_closed = False

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        try:
            while True:
                batch = self.read_next_batch()
                if batch is None:
                    return
                yield batch
        finally:
            self.close()

    def read_next_batch(self) -> pa.RecordBatch | None:
        """The next batch, or ``None`` at end of stream (or after ``close``)."""
        # No lock on this path (with one, a read took 425 instead of 93 ns): ``_reading``
        # is set before ``_closed`` is read here, and ``close`` sets ``_closed`` before it
        # reads ``_reading``, so one of the two sees the other and the generator is closed
        # while no thread runs it (the GIL orders these reads and writes).
        self._reading = True
        try:
            if self._closed:
                return None
            return next(self._batches)
        except StopIteration:
            self.close()
            return None
        except BaseException:
            self.close()
            raise
        finally:
            self._reading = False
            if self._closed:
                self._close_batches()

    def read_all(self) -> pa.Table:
        return pa.Table.from_batches(list(self), schema=self.schema)

    def to_reader(self) -> pa.RecordBatchReader:
        """A ``pyarrow.RecordBatchReader`` view, e.g. to register with DuckDB."""
        return pa.RecordBatchReader.from_batches(self.schema, iter(self))

    def close(self) -> None:
        """Done reading: release the producer side. The batch iterator is closed here unless
        another thread is inside it, which then closes it when its ``next`` returns."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            if not self._reading:
                self._close_batches()
        finally:
            if self._release is not None:
                self._release()

    def _close_batches(self) -> None:
        """Close the batch iterator (a generator's ``finally`` runs), once, never while a
        thread runs it: CPython 3.11 can crash closing a generator another thread is
        running (``gen.close()`` reads the running frame's stack; seen in 1 of 10 runs of
        ``test_reads_of_one_peer_take_its_channels_in_turn``)."""
        with self._lock:
            if self._batches_closed:
                return
            self._batches_closed = True
        close_batches = getattr(self._batches, "close", None)
        if close_batches is not None:
            close_batches()

    @property
    def closed(self) -> bool:
        return self._closed

