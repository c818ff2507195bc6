"""The message protocol of sparkwire's socket transports, independent of the socket library.

A message is a list of frames. Frame 0 is a JSON header (at most ``MAX_HEADER_BYTES``,
validated field by field by the pydantic models below; nothing is unpickled or evaluated);
the frames after it are the payload, whose count the header's ``type`` fixes. A socket layer
may put routing frames in front (a ZeroMQ ROUTER's peer identity); this module never sees them.

Client → server::

    deliver {"type":"deliver","id":I}                              [task plan JSON bytes]
    cancel  {"type":"cancel","id":I,"query_id":Q}
    open    {"type":"open","id":I,"key":"Q/STAGE/TASK/PART","timeout":T,"credit":W}
    credit  {"type":"credit","id":I,"bytes":N}        the reader consumed N bytes: send more
    close   {"type":"close","id":I}                   the reader stopped early: release producer

Server → client::

    ok      {"type":"ok","id":I}                      deliver or cancel done
    error   {"type":"error","id":I|null,"code":C,"message":M}     final; id null: unparseable
    schema  {"type":"schema","id":I}                  [Arrow IPC schema message]
    batch   {"type":"batch","id":I,"charge":N}        [payload frames of the codec]
    end     {"type":"end","id":I}                     explicit end of stream
    ping    {"type":"ping"}                           alive and still working for you

Headers are JSON objects (key order free). ``id`` is chosen by the client, unique per
connection; a stream is named by its ``open``'s id
and answered by ``schema`` (or ``error``), then ``batch``… and ``end`` or ``error``. Errors
carry a ``transport.errors`` code and are rebuilt with ``error_from_code``.

The ``schema`` frame is ``Schema.serialize()``. A batch travels as its ``PayloadCodec``
packs it. ``InlineCodec`` sends one frame of Arrow IPC (``write_ipc``): the bare record-batch
message, or, when the schema has dictionaries anywhere, a self-contained IPC stream (schema,
dictionaries, batch) so that dictionaries always arrive, replacements included. It is written
once, in C++; ZeroMQ sends that buffer as it is and the reader maps the received frame. A
shared-memory codec writes the same bytes into a segment and sends only its descriptor: the
protocol never assumes that a batch's bytes are in its frames.

Flow control: ``charge`` (the size of the batch's buffers, about what the reader will hold,
and at least ``MIN_CHARGE`` so that tiny batches still bound the queue length) is counted
against the reader's window ``W``. The server sends a batch while nothing is in flight or
in-flight + charge <= W, so at most max(W, one batch) is in flight; the reader grants charges
back once its consumer has taken their batches (in quarters of the window, or all at once
when it is about to wait).
"""

from __future__ import annotations

import functools
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Annotated, Any, ClassVar, Literal, Protocol, Self, TypeAlias

import pyarrow as pa
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    TypeAdapter,
    ValidationError,
)
from pydantic_core import from_json

from transport.base import PartitionKey
from transport.errors import (
    ConnectionLost,
    ProtocolError,
    SparkwireError,
    TransportError,
    as_library_error,
    error_from_code,
)
from transport.stream import PartitionReader

MAX_HEADER_BYTES = 64 * 1024
MAX_PLAN_BYTES = 64 * 1024 * 1024
MAX_PAYLOAD_FRAMES = 16
MAX_MESSAGE_CHARS = 8 * 1024
MIN_CHARGE = 4096
MAX_TIMEOUT = 86_400.0

# An outgoing or incoming frame: anything with the buffer protocol that ZeroMQ can send.
Frame: TypeAlias = bytes | memoryview | pa.Buffer


def _valid(build: Callable[[], PartitionKey]) -> PartitionKey:
    """``PartitionKey``'s own checks, reported the way pydantic expects (``ValueError``)."""
    try:
        return build()
    except ProtocolError as exc:
        raise ValueError(str(exc)) from None


def _parse_key(value: object) -> PartitionKey:
    if isinstance(value, PartitionKey):  # checked again: a key can be built around its checks
        value = str(value)
    if not isinstance(value, str) or len(value) > 256:
        raise ValueError("a partition key is a string of at most 256 characters")
    return _valid(lambda: PartitionKey.parse(value))


def _check_query_id(value: str) -> str:
    return _valid(lambda: PartitionKey(value, 0, 0, 0)).query_id


_Id = Annotated[int, Field(ge=0, lt=1 << 63)]
_Bytes = Annotated[int, Field(gt=0, le=1 << 40)]
_Key = Annotated[PartitionKey, PlainValidator(_parse_key), PlainSerializer(str, return_type=str)]


class Header(BaseModel):
    """Frame 0 of every message; ``payload`` is the (min, max) count of frames after it."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    payload: ClassVar[tuple[int, int]] = (0, 0)

    @classmethod
    def of(cls, **fields: Any) -> Self:
        """An outgoing header; a field no peer would accept is the caller's ``ProtocolError``."""
        try:
            return cls(**fields)
        except ValidationError as exc:
            raise ProtocolError(f"cannot send {cls.__name__.lower()}: {_describe(exc)}") from None


class _Addressed(Header):
    """A message about one call or stream, named by the id its client chose."""

    id: _Id


class Deliver(_Addressed):
    payload: ClassVar[tuple[int, int]] = (1, 1)
    type: Literal["deliver"] = "deliver"


class Cancel(_Addressed):
    type: Literal["cancel"] = "cancel"
    query_id: Annotated[str, AfterValidator(_check_query_id)]


class Open(_Addressed):
    type: Literal["open"] = "open"
    key: _Key
    timeout: Annotated[float, Field(ge=0, le=MAX_TIMEOUT)]
    credit: Annotated[int, Field(ge=MIN_CHARGE, le=1 << 40)]


class Credit(_Addressed):
    type: Literal["credit"] = "credit"
    bytes: _Bytes


class Close(_Addressed):
    type: Literal["close"] = "close"


class Ok(_Addressed):
    type: Literal["ok"] = "ok"


class Error(Header):
    type: Literal["error"] = "error"
    id: _Id | None
    code: Annotated[str, Field(pattern=r"^[a-z_]{1,64}$")]
    message: Annotated[str, Field(max_length=MAX_MESSAGE_CHARS)]


class Schema(_Addressed):
    payload: ClassVar[tuple[int, int]] = (1, 1)
    type: Literal["schema"] = "schema"


class Batch(_Addressed):
    payload: ClassVar[tuple[int, int]] = (1, MAX_PAYLOAD_FRAMES)
    type: Literal["batch"] = "batch"
    charge: _Bytes


class End(_Addressed):
    type: Literal["end"] = "end"


class Ping(Header):
    type: Literal["ping"] = "ping"


Request = Deliver | Cancel | Open | Credit | Close
Reply = Ok | Error | Schema | Batch | End | Ping
_REQUEST: TypeAdapter[Request] = TypeAdapter(Annotated[Request, Field(discriminator="type")])
_REPLY: TypeAdapter[Reply] = TypeAdapter(Annotated[Reply, Field(discriminator="type")])


def _describe(exc: ValidationError) -> str:
    first = exc.errors()[0]
    return f"{'.'.join(str(p) for p in first['loc']) or 'header'}: {first['msg']}"


def _parse(adapter: TypeAdapter[Any], frames: Sequence[Frame]) -> tuple[Any, list[Frame]]:
    if not frames:
        raise ProtocolError("empty message")
    if len(frames[0]) > MAX_HEADER_BYTES:
        raise ProtocolError(f"header of {len(frames[0])} bytes exceeds {MAX_HEADER_BYTES}")
    try:
        header = adapter.validate_json(bytes(frames[0]))
    except ValidationError as exc:
        raise ProtocolError(f"malformed header: {_describe(exc)}") from None
    low, high = header.payload
    if not low <= len(frames) - 1 <= high:
        raise ProtocolError(f"{header.type} takes {low}..{high} payload frames, got {len(frames) - 1}")
    if isinstance(header, Deliver) and len(frames[1]) > MAX_PLAN_BYTES:
        raise ProtocolError(f"task plan exceeds {MAX_PLAN_BYTES} bytes")
    return header, list(frames[1:])


def parse_request(frames: Sequence[Frame]) -> tuple[Request, list[Frame]]:
    """Validate a client's message; raises ``ProtocolError`` saying what is wrong."""
    return _parse(_REQUEST, frames)


def parse_reply(frames: Sequence[Frame]) -> tuple[Reply, list[Frame]]:
    """Validate a server's message; raises ``ProtocolError`` saying what is wrong."""
    return _parse(_REPLY, frames)


def salvage_id(frames: Sequence[Frame]) -> int | None:
    """The id of a malformed request, when its header starts like JSON with one, so that its
    error reaches the caller waiting for it (read as partial JSON: it may be cut short)."""
    try:
        header = from_json(bytes(frames[0][:4096]), allow_partial=True)
    except (ValueError, IndexError):
        return None
    found = header.get("id") if isinstance(header, dict) else None
    return found if type(found) is int and 0 <= found < 1 << 63 else None


def encode(header: Header, *payload: Frame) -> list[Frame]:
    return [header.model_dump_json().encode(), *payload]


def error_reply(request_id: int | None, exc: BaseException) -> list[Frame]:
    """The ``error`` message for anything a service raised (see ``as_library_error``)."""
    error = as_library_error(exc)
    return encode(Error(id=request_id, code=error.code, message=str(error)[:MAX_MESSAGE_CHARS]))


# -- Arrow IPC ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _has_dictionaries(schema: pa.Schema) -> bool:
    def walk(t: pa.DataType) -> bool:
        return pa.types.is_dictionary(t) or any(walk(t.field(i).type) for i in range(t.num_fields))
    return any(walk(field.type) for field in schema)


def _write_stream(sink: pa.NativeFile, batch: pa.RecordBatch) -> None:
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)


def write_ipc(batch: pa.RecordBatch,
              allocate: Callable[[int], pa.Buffer] | None = None) -> pa.Buffer:
    """One batch as Arrow IPC bytes, written in C++ with the GIL released; ``read_ipc`` maps
    them back without a copy.

    Without dictionaries and ``allocate`` it is one bare record-batch message (the reader has
    the schema). Otherwise it is a self-contained IPC stream (schema, dictionaries, batch, end),
    so dictionaries always arrive, replacements included; it is sized first and written
    straight into ``allocate(size)`` (default: the memory pool; a shared-memory segment for
    the shm transport).
    """
    if allocate is None and not _has_dictionaries(batch.schema):
        return batch.serialize()
    sizer = pa.MockOutputStream()
    _write_stream(sizer, batch)
    buffer = (allocate or pa.allocate_buffer)(sizer.size())
    _write_stream(pa.FixedSizeBufferWriter(buffer), batch)
    return buffer.slice(0, sizer.size())


def read_ipc(data: Frame, schema: pa.Schema) -> pa.RecordBatch:
    """The batch of ``write_ipc`` bytes, sharing their memory."""
    buffer = data if isinstance(data, pa.Buffer) else pa.py_buffer(data)
    try:
        message = pa.ipc.read_message(buffer)
        if message.type == "record batch":
            return pa.ipc.read_record_batch(message, schema)
        batches = list(pa.ipc.open_stream(buffer))
    except (pa.ArrowException, ValueError, EOFError) as exc:
        raise ProtocolError(f"malformed batch payload: {exc}") from None
    if len(batches) != 1:
        raise ProtocolError(f"a batch payload holds {len(batches)} batches")
    return batches[0]


def read_schema(data: Frame) -> pa.Schema:
    try:
        return pa.ipc.read_schema(data if isinstance(data, pa.Buffer) else pa.py_buffer(data))
    except (pa.ArrowException, ValueError, EOFError) as exc:
        raise ProtocolError(f"malformed schema frame: {exc}") from None


class PayloadCodec(Protocol):
    """How one batch travels: IPC bytes in the frames (``InlineCodec``) or out of band, e.g.
    in a shared-memory segment named by the frames (the shm transport)."""

    def pack(self, batch: pa.RecordBatch) -> list[Frame]:
        """Payload frames for ``batch``; called on the producer's thread once the batch's
        charge is granted, so what a codec allocates for it stays within the window."""

    def unpack(self, frames: Sequence[Frame], schema: pa.Schema) -> pa.RecordBatch:
        """The batch back from its payload frames, zero-copy where possible."""

    def discard(self, frames: Sequence[Frame]) -> None:
        """A payload received but never unpacked (its reader closed early): free it."""


class InlineCodec:
    """The IPC stream of a batch as one frame, sent as it is (``copy=False``)."""

    def pack(self, batch: pa.RecordBatch) -> list[Frame]:
        return [write_ipc(batch)]

    def unpack(self, frames: Sequence[Frame], schema: pa.Schema) -> pa.RecordBatch:
        if len(frames) != 1:
            raise ProtocolError(f"an inline batch is one frame, got {len(frames)}")
        return read_ipc(frames[0], schema)

    def discard(self, frames: Sequence[Frame]) -> None:
        """Inline frames are plain memory; dropping them frees them."""


# -- flow-controlled streams -------------------------------------------------------------------


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
