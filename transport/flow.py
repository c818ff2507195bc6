"""Flow-controlled partition streams over the wire protocol: the server's pump, the client's
receiver and inbox, and the credit accounting between them, independent of the socket library.

A batch's ``charge`` (the size of its buffers, about what the reader will hold, and at least
``MIN_CHARGE`` so that tiny batches still bound the queue length) is counted against the
reader's window ``W`` (its ``open``'s ``credit``). The server sends a batch while nothing is in
flight or in-flight + charge <= W, so at most max(W, one batch) is in flight; the reader grants
charges back once its consumer has taken their batches (in quarters of the window, or all at
once when it is about to wait).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterator

import pyarrow as pa

from sparkwire.transport.errors import (
    ConnectionLost,
    ProtocolError,
    SparkwireError,
    TransportError,
    error_from_code,
)
from sparkwire.transport.ipc import PayloadCodec, read_schema
from sparkwire.transport.stream import PartitionReader
from sparkwire.transport.wire import (
    MIN_CHARGE,
    Batch,
    Close,
    Credit,
    End,
    Error,
    Frame,
    Ok,
    Reply,
    Schema,
    encode,
    error_reply,
)



class Liveness:
    """When a client last heard from its server; written by the I/O thread, read by waiters.

    A server pings every peer it is working for, so silence longer than ``idle_timeout``
    means the server is gone even when the socket layer has not noticed.
    """

    def __init__(self, peer: str, idle_timeout: float) -> None:
        self.peer = peer
        self.idle_timeout = idle_timeout
        self.heard = time.monotonic()


class Inbox:
    """The replies of one call or stream: the I/O thread puts, the caller takes.

    With a ``window`` it also checks the server's side of flow control: batches queued here
    were never granted back, so together they may not exceed the window.
    """

    def __init__(self, liveness: Liveness, window: int | None = None) -> None:
        self._liveness = liveness
        self._window = window
        self._since = time.monotonic()
        self._cond = threading.Condition()
        self._items: deque[tuple[Reply, list[Frame]]] = deque()
        self._queued = 0
        self._error: SparkwireError | None = None
        self.ended = False

    def put(self, header: Reply, payload: list[Frame]) -> bool:
        """Queue a reply; ``False`` if the inbox no longer takes any (the caller discards it)."""
        with self._cond:
            if self._error is not None:
                return False
            if isinstance(header, Batch) and self._window is not None:
                if self._queued and self._queued + header.charge > self._window:
                    self._fail(ProtocolError(f"{self._liveness.peer} overran the credit window"))
                    return False
                self._queued += header.charge
            self.ended = isinstance(header, (Ok, Error, End))
            self._items.append((header, payload))
            self._cond.notify()
            return True

    def fail(self, error: SparkwireError) -> None:
        """Raise ``error`` to the caller once the replies already queued are taken."""
        with self._cond:
            self._fail(error)

    def _fail(self, error: SparkwireError) -> None:
        if self._error is None:
            self._error = error
            self._cond.notify_all()

    def close(self) -> list[tuple[Reply, list[Frame]]]:
        """Stop taking replies, wake a caller still waiting, and hand back what was queued."""
        with self._cond:
            self._fail(TransportError("the reader was closed"))
            items, self._items = list(self._items), deque()
            return items

    def take(self) -> tuple[Reply, list[Frame]]:
        """The next reply; an ``error`` reply, a lost peer or silence raises instead."""
        with self._cond:
            while not self._items:
                if self._error is not None:
                    raise error_from_code(self._error.code, str(self._error))
                silent = time.monotonic() - max(self._liveness.heard, self._since)
                if silent >= self._liveness.idle_timeout:
                    raise ConnectionLost(f"{self._liveness.peer} silent for {silent:.1f}s")
                self._cond.wait(self._liveness.idle_timeout - silent)
            header, payload = self._items.popleft()
            if isinstance(header, Batch) and self._window is not None:
                self._queued -= header.charge
        if isinstance(header, Error):
            raise error_from_code(header.code, header.message)
        return header, payload

    def empty(self) -> bool:
        return not self._items


class StreamPump:
    """The server side of one partition stream, run on a worker thread."""

    def __init__(self, stream_id: int, window: int, codec: PayloadCodec,
                 send: Callable[[list[Frame]], None]) -> None:
        self._id, self._window, self._codec, self._send = stream_id, window, codec, send
        self._cond = threading.Condition()
        self._inflight = 0
        self._closed = False

    def grant(self, nbytes: int) -> None:
        with self._cond:
            self._inflight = max(0, self._inflight - nbytes)
            self._cond.notify()

    def close(self) -> None:
        """Stop sending (reader closed, peer gone, server closing); ``run`` releases the reader."""
        with self._cond:
            self._closed = True
            self._cond.notify()

    def _acquire(self, charge: int) -> bool:
        with self._cond:
            while not self._closed and self._inflight and self._inflight + charge > self._window:
                self._cond.wait()
            self._inflight += charge
            return not self._closed

    def run(self, open_reader: Callable[[], PartitionReader]) -> None:
        """Open the partition, send schema, batches within the window, then end or error."""
        try:
            with open_reader() as reader:
                self._send(encode(Schema(id=self._id), reader.schema.serialize()))
                for batch in reader:
                    charge = max(MIN_CHARGE, batch.get_total_buffer_size())
                    if not self._acquire(charge):
                        return
                    self._send(encode(Batch(id=self._id, charge=charge), *self._codec.pack(batch)))
            self._send(encode(End(id=self._id)))
        except Exception as exc:
            if not self._closed:
                self._send(error_reply(self._id, exc))


class StreamReceiver:
    """The client side of one partition stream: decodes batches and grants credit back."""

    def __init__(self, stream_id: int, inbox: Inbox, window: int, codec: PayloadCodec,
                 send: Callable[[list[Frame]], None], forget: Callable[[int], None]) -> None:
        self._id, self._inbox, self._window, self._codec = stream_id, inbox, window, codec
        self._send, self._forget = send, forget
        self._ungranted = 0

    def open(self) -> PartitionReader:
        """Wait for the ``schema`` reply and return the reader (or raise the worker's error)."""
        try:
            header, payload = self._inbox.take()
            if not isinstance(header, Schema):
                raise ProtocolError(f"expected schema for stream {self._id}, got {header.type}")
            schema = read_schema(payload[0])
        except BaseException:
            self._release()
            raise
        return PartitionReader(schema, self._batches(schema), self._release)

    def _batches(self, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
        while True:
            header, payload = self._inbox.take()
            if isinstance(header, End):
                return
            if not isinstance(header, Batch):
                raise ProtocolError(f"unexpected {header.type} in stream {self._id}")
            batch = self._codec.unpack(payload, schema)
            self._ungranted += header.charge
            # Grant in quarters of the window, or at once when the consumer is about to wait:
            # holding back credit while the queue is empty could stall the producer for good.
            if self._ungranted * 4 >= self._window or self._inbox.empty():
                self._send(encode(Credit(id=self._id, bytes=self._ungranted)))
                self._ungranted = 0
            yield batch

    def _release(self) -> None:
        self._forget(self._id)
        for header, payload in self._inbox.close():
            if isinstance(header, Batch):
                self._codec.discard(payload)
        if not self._inbox.ended:
            self._send(encode(Close(id=self._id)))
