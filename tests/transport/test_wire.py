"""The socket transports' message protocol (``transport/wire.py``), Arrow IPC payloads
(``transport/ipc.py``) and flow-controlled streams (``transport/flow.py``), without any socket."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator

import pyarrow as pa
import pytest

from tests.transport.conftest import wait_until
from tests.transport.test_conformance import all_types_batch
from sparkwire.transport import flow, ipc, wire
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import (
    ConnectionLost,
    PartitionNotFound,
    ProtocolError,
    TaskFailed,
    TransportError,
)
from sparkwire.transport.stream import PartitionReader

KEY = PartitionKey("q1", 2, 3, 4)


# -- headers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("header, payload", [
    (wire.Deliver(id=1), [b'{"plan": 1}']),
    (wire.Cancel(id=2, query_id="q-1_x"), []),
    (wire.Open(id=3, key=KEY, timeout=2.5, credit=1 << 20), []),
    (wire.Credit(id=3, bytes=4096), []),
    (wire.Close(id=3), []),
])
def test_requests_round_trip(header, payload):
    assert wire.parse_request(wire.encode(header, *payload)) == (header, payload)


@pytest.mark.parametrize("header, payload", [
    (wire.Ok(id=1), []),
    (wire.Error(id=None, code="protocol", message="é" * 100), []),
    (wire.Schema(id=3), [b"schema"]),
    (wire.Batch(id=3, charge=4096), [b"a", b"b"]),
    (wire.End(id=3), []),
    (wire.Ping(), []),
])
def test_replies_round_trip(header, payload):
    assert wire.parse_reply(wire.encode(header, *payload)) == (header, payload)


def _open(**fields: object) -> bytes:
    return json.dumps({"type": "open", "id": 1, "key": "q/0/0/0", "timeout": 1, "credit": 65536,
                       **fields}).encode()


@pytest.mark.parametrize("frames, complaint", [
    ([], "empty"),
    ([b"\x80\xff garbage"], "malformed"),
    ([b"{"], "malformed"),
    ([b"[1, 2]"], "malformed"),
    ([b'{"type": "rm -rf", "id": 1}'], "type"),
    ([b'{"id": 1}'], "type"),
    ([b'{"type": "ok", "id": 1}'], "type"),  # a reply is no request
    ([_open(id="1")], "id"),
    ([_open(id=True)], "id"),
    ([_open(id=-1)], "id"),
    ([_open(id=1 << 64)], "id"),
    ([_open(key="q/0/0")], "key"),
    ([_open(key="../etc/passwd/0/0/0")], "key"),
    ([_open(key="q/0/0/0" + "x" * 300)], "key"),
    ([_open(timeout=-1)], "timeout"),
    ([_open(timeout="5")], "timeout"),
    ([_open(credit=1)], "credit"),
    ([_open(extra="field")], "extra"),
    ([_open(), b"unexpected payload"], "payload frames"),
    ([b'{"type": "deliver", "id": 1}'], "payload frames"),
    ([b'{"type": "cancel", "id": 1, "query_id": "a/b"}'], "query"),
    ([b'{"type": "credit", "id": 1, "bytes": 0}'], "bytes"),
    ([b'{"type": "open", "pad": "' + b"x" * wire.MAX_HEADER_BYTES + b'"}'], "exceeds"),
])
def test_malformed_requests_are_protocol_errors(frames, complaint):
    with pytest.raises(ProtocolError, match=complaint):
        wire.parse_request(frames)


def test_oversize_plan_is_refused():
    with pytest.raises(ProtocolError, match="plan exceeds"):
        wire.parse_request([b'{"type": "deliver", "id": 1}', bytes(wire.MAX_PLAN_BYTES + 1)])


def test_request_the_caller_cannot_send_is_a_protocol_error():
    with pytest.raises(ProtocolError, match="query_id"):
        wire.Cancel.of(id=1, query_id="../../etc")
    forged = object.__new__(PartitionKey)  # a key that skipped its own checks
    for name, value in (("query_id", "a/b"), ("stage", 0), ("task", 0), ("partition", 0),
                        ("attempt", 0)):
        object.__setattr__(forged, name, value)
    with pytest.raises(ProtocolError, match="key"):
        wire.Open.of(id=1, key=forged, timeout=1.0, credit=65536)


@pytest.mark.parametrize("head, expected", [
    (_open(timeout="bad"), 1),
    (b'{"type": "open", "id": 7, "pad": "' + b"x" * 100_000, 7),  # oversize and cut short
    (b'{"id": "7"}', None),
    (b'{"id": -7}', None),
    (b"\x80 garbage", None),
    (b"[7]", None),
])
def test_salvage_id_finds_the_caller_of_a_malformed_request(head, expected):
    assert wire.salvage_id([head]) == expected


def test_error_reply_carries_code_and_message_of_library_error():
    header, _ = wire.parse_reply(wire.error_reply(5, PartitionNotFound("no such partition")))
    assert (header.id, header.code, header.message) == (5, "partition_not_found", "no such partition")
    header, _ = wire.parse_reply(wire.error_reply(6, KeyError("bug")))
    assert (header.code, header.message) == ("task_failed", "KeyError: 'bug'")
    header, _ = wire.parse_reply(wire.error_reply(None, TaskFailed("x" * 100_000)))
    assert len(header.message) == wire.MAX_MESSAGE_CHARS


# -- Arrow IPC -------------------------------------------------------------------------------


def _addresses(batch: pa.RecordBatch) -> list[int]:
    return [buf.address for col in batch.columns for buf in col.buffers() if buf is not None]


def test_ipc_round_trip_of_every_type_with_dictionaries_and_nesting():
    batch = all_types_batch()
    nested = pa.record_batch({
        "list_of_dict": pa.array([["a", "b"], None, ["a"]], pa.list_(pa.dictionary(pa.int8(), pa.string()))),
        "struct_of_dict": pa.array([{"d": "x"}, {"d": None}, {"d": "y"}],
                                   pa.struct([("d", pa.dictionary(pa.int32(), pa.string()))])),
    })
    for original in (batch, batch.slice(1, 3), nested, nested.slice(1)):
        got = ipc.read_ipc(ipc.write_ipc(original), original.schema)
        assert got.equals(original) and got.schema.equals(original.schema)
        assert got.column(0).to_pylist() == original.column(0).to_pylist()


def test_dictionaries_arrive_with_every_batch_even_when_they_change():
    schema = pa.schema([("d", pa.dictionary(pa.int32(), pa.string()))])
    first = pa.record_batch([pa.array(["a", "b", "a"]).dictionary_encode()], schema=schema)
    second = pa.record_batch([pa.array(["z", None]).dictionary_encode()], schema=schema)
    for batch in (first, second):
        got = ipc.read_ipc(ipc.write_ipc(batch), schema)
        assert got.column(0).dictionary.equals(batch.column(0).dictionary)
        assert got.column(0).to_pylist() == batch.column(0).to_pylist()


def test_decoded_batch_shares_the_frame_memory():
    batch = pa.record_batch({"a": pa.array(range(100_000), pa.int64()), "s": ["x"] * 100_000})
    frame = ipc.write_ipc(batch)
    got = ipc.read_ipc(memoryview(frame), batch.schema)  # as a socket hands it over
    assert all(frame.address <= a < frame.address + frame.size for a in _addresses(got))


def test_write_ipc_into_given_memory_as_the_shm_codec_does():
    segment = bytearray(1 << 20)
    batch = all_types_batch()
    data = ipc.write_ipc(batch, lambda size: pa.py_buffer(memoryview(segment)[:size]))
    assert data.address == pa.py_buffer(segment).address
    assert ipc.read_ipc(bytes(segment[:data.size]), batch.schema).equals(batch)


@pytest.mark.parametrize("data", [b"", b"\x00" * 64, b"\xff\xff\xff\xff\x10\x00\x00\x00garbage"],
                         ids=["empty", "zeros", "garbage"])
def test_malformed_payloads_and_schemas_are_protocol_errors(data):
    with pytest.raises(ProtocolError):
        ipc.read_ipc(data, pa.schema([("a", pa.int64())]))
    with pytest.raises(ProtocolError):
        ipc.read_schema(data)


def test_inline_codec_is_one_frame():
    codec = ipc.InlineCodec()
    batch = all_types_batch()
    (frame,) = codec.pack(batch)
    assert codec.unpack([frame], batch.schema).equals(batch)
    with pytest.raises(ProtocolError, match="one frame"):
        codec.unpack([frame, frame], batch.schema)


# -- flow control, without sockets -----------------------------------------------------------


class Producer:
    """A partition of ``count`` batches of ``rows`` int64 rows that counts what it did."""

    def __init__(self, count: int, rows: int = 1024, fail_after: int | None = None) -> None:
        self.schema = pa.schema([("a", pa.int64())])
        self.count, self.rows, self.fail_after = count, rows, fail_after
        self.pulled = 0
        self.released = threading.Event()

    def open(self) -> PartitionReader:
        def batches() -> Iterator[pa.RecordBatch]:
            for i in range(self.count):
                if i == self.fail_after:
                    raise TaskFailed("disk on fire")
                self.pulled += 1
                yield pa.record_batch({"a": pa.array([i] * self.rows, pa.int64())})
        return PartitionReader(self.schema, batches(), self.released.set)


class Link:
    """One pump and one receiver joined by in-memory 'sockets' (what the transports do)."""

    def __init__(self, producer: Producer, window: int, idle_timeout: float = 5.0) -> None:
        self.to_client: queue.Queue[list[wire.Frame]] = queue.Queue()
        self.sent_batches = 0
        self.pump = flow.StreamPump(1, window, ipc.InlineCodec(), self._server_send)
        self.inbox = flow.Inbox(flow.Liveness("test server", idle_timeout), window)
        self.receiver = flow.StreamReceiver(1, self.inbox, window, ipc.InlineCodec(),
                                            self._client_send, lambda _id: None)
        threading.Thread(target=self.pump.run, args=(producer.open,), daemon=True).start()
        threading.Thread(target=self._deliver, daemon=True).start()

    def _server_send(self, frames: list[wire.Frame]) -> None:
        header, _ = wire.parse_reply(frames)
        self.sent_batches += isinstance(header, wire.Batch)
        self.to_client.put(frames)

    def _deliver(self) -> None:
        while True:
            header, payload = wire.parse_reply(self.to_client.get())
            self.inbox.put(header, payload)

    def _client_send(self, frames: list[wire.Frame]) -> None:
        request, _ = wire.parse_request(frames)
        if isinstance(request, wire.Credit):
            self.pump.grant(request.bytes)
        elif isinstance(request, wire.Close):
            self.pump.close()


def test_stream_arrives_in_order_and_credit_flows_back():
    producer = Producer(200)
    link = Link(producer, window=64 * 1024)
    with link.receiver.open() as reader:
        values = [batch.column(0)[0].as_py() for batch in reader]
    assert values == list(range(200))
    assert producer.released.is_set()


def test_a_reader_that_reads_nothing_lets_at_most_the_window_be_sent():
    producer = Producer(100, rows=1024)  # 8 KiB per batch
    link = Link(producer, window=40 * 1024)
    reader = link.receiver.open()
    time.sleep(0.3)
    assert link.sent_batches == 5  # 5 * 8 KiB fit the window, the 6th waits for credit
    assert producer.pulled == 6
    for _ in range(2):  # credit goes back in quarters of the window: the producer moves on
        assert reader.read_next_batch() is not None
    assert wait_until(lambda: link.sent_batches == 7, 5)
    time.sleep(0.1)
    assert link.sent_batches == 7
    reader.close()
    assert producer.released.wait(5), "early close must release the producer"
    assert producer.pulled < 100


def test_a_batch_larger_than_the_window_still_passes_alone():
    producer = Producer(3, rows=64 * 1024)  # 512 KiB per batch
    link = Link(producer, window=wire.MIN_CHARGE)
    reader = link.receiver.open()
    time.sleep(0.2)
    assert link.sent_batches == 1
    assert [b.num_rows for b in reader] == [64 * 1024] * 3


def test_producer_failure_reaches_the_reader_as_its_error():
    link = Link(Producer(10, fail_after=2), window=1 << 20)
    reader = link.receiver.open()
    assert reader.read_next_batch() is not None and reader.read_next_batch() is not None
    with pytest.raises(TaskFailed, match="disk on fire"):
        reader.read_next_batch()


def test_open_failure_is_raised_by_open():
    def fail() -> PartitionReader:
        raise PartitionNotFound("partition q/0/0/0 did not appear")

    frames: list[list[wire.Frame]] = []
    flow.StreamPump(1, 65536, ipc.InlineCodec(), frames.append).run(fail)
    inbox = flow.Inbox(flow.Liveness("test server", 5.0))
    inbox.put(*wire.parse_reply(frames[0]))
    with pytest.raises(PartitionNotFound, match="did not appear"):
        inbox.take()


def test_a_silent_server_is_a_lost_connection():
    inbox = flow.Inbox(flow.Liveness("test server", idle_timeout=0.2))
    started = time.monotonic()
    with pytest.raises(ConnectionLost, match="silent"):
        inbox.take()
    assert 0.15 < time.monotonic() - started < 2


def test_a_server_that_overruns_the_window_is_a_protocol_error():
    inbox = flow.Inbox(flow.Liveness("test server", 5.0), window=8192)
    assert inbox.put(wire.Batch(id=1, charge=8192), [b""])  # alone, may exceed
    assert not inbox.put(wire.Batch(id=1, charge=4096), [b""])
    inbox.take()
    with pytest.raises(ProtocolError, match="overran"):
        inbox.take()


def test_closing_an_inbox_wakes_its_waiter():
    inbox = flow.Inbox(flow.Liveness("test server", 30.0))
    threading.Timer(0.1, inbox.close).start()
    with pytest.raises(TransportError, match="closed"):
        inbox.take()


@pytest.mark.parametrize("key", [PartitionKey("q", 1, 2, 3), PartitionKey("q", 1, 2, -1, 3)])
def test_partition_keys_carry_their_attempt_on_the_wire(key: PartitionKey) -> None:
    text = str(key)
    assert text.count("/") == (4 if key.attempt else 3)  # the first attempt keeps the old form
    assert PartitionKey.parse(text) == key
    assert wire.parse_request(wire.encode(wire.Open.of(id=1, key=key, timeout=1.0, credit=65536)))[0].key == key


@pytest.mark.parametrize("text", ["q/1/2", "q/1/2/3/4/5", "q/1/2/3/-1", "q/1/2/3/x", "q/1/2/3/"])
def test_malformed_partition_keys_are_protocol_errors(text: str) -> None:
    with pytest.raises(ProtocolError):
        PartitionKey.parse(text)
