"""What only the ZeroMQ transport has: options, its window, one connection, raw frames, liveness."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator

import pyarrow as pa
import pytest
import zmq

from tests.transport.conftest import remote_process, wait_until
from tests.transport.remote_service import Produce, command
from sparkwire.transport import wire
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import ConfigError, ConnectionLost, ProtocolError, TransportError
from sparkwire.transport.registry import create_transport
from sparkwire.transport.stream import PartitionReader
from sparkwire.transport.zmq import ZmqTransport
from tests.credentials import SECURITY
from sparkwire.transport.zmq_auth import Curve
from sparkwire.transport.zmq_io import auto_io_threads

MiB = 1 << 20
KEY = PartitionKey("q", 0, 0, 0)
FAST = {"heartbeat": 0.1, "idle_timeout": 1.0}  # liveness in about a second


class CountingService:
    """Every partition is ``batches`` batches of ``rows`` int64 rows, generated when pulled."""

    def __init__(self, batches: int = 64, rows: int = MiB // 8) -> None:
        self.batches, self.rows = batches, rows
        self.pulled = 0
        self.released = threading.Event()
        self.plans: list[bytes] = []

    def submit(self, plan: bytes) -> None:
        self.plans.append(plan)

    def cancel(self, query_id: str) -> None:
        pass

    def open(self, key: PartitionKey, timeout: float) -> PartitionReader:
        def batches() -> Iterator[pa.RecordBatch]:
            for i in range(self.batches):
                self.pulled += 1
                yield pa.record_batch({"a": pa.array([key.partition * 1000 + i] * self.rows, pa.int64())})
        return PartitionReader(pa.schema([("a", pa.int64())]), batches(), self.released.set)


@pytest.fixture
def zmq_transport() -> Iterator[ZmqTransport]:
    with ZmqTransport(security=SECURITY, credit_bytes=4 * MiB, **FAST) as transport:
        yield transport


def test_options_are_validated_and_the_window_is_declared():
    with create_transport("zmq", {"credit_bytes": "1048576", "host": "127.0.0.1"}) as transport:
        assert transport.capabilities.max_inflight_bytes == MiB  # env vars arrive as text
        assert not transport.capabilities.zero_copy and transport.capabilities.crosses_hosts
    for bad in ({"credit_bytes": 0}, {"idle_timeout": -1}, {"heartbeat": 10, "idle_timeout": 5},
                {"host": "0.0.0.0; rm"}, {"colour": "blue"}):
        with pytest.raises(ConfigError):
            create_transport("zmq", bad)


def test_addresses_are_checked_and_a_dead_port_fails_fast(zmq_transport):
    with pytest.raises(ConfigError, match="tcp://HOST:PORT"):
        zmq_transport.connect("mem://worker")
    with pytest.raises(ConfigError, match="tcp://HOST:PORT"):
        zmq_transport.serve(CountingService(), "ipc:///tmp/x")
    started = time.monotonic()
    with pytest.raises(ConnectionLost):
        zmq_transport.connect("tcp://127.0.0.1:1")
    assert time.monotonic() - started < 2


def test_server_binds_loopback_on_an_os_chosen_port(zmq_transport):
    first, second = zmq_transport.serve(CountingService()), zmq_transport.serve(CountingService())
    assert first.address.startswith("tcp://127.0.0.1:") and first.address != second.address


def test_a_reader_that_reads_nothing_stops_the_producer_after_the_window(zmq_transport):
    service = CountingService(batches=64)  # 1 MiB batches, a 4 MiB window
    server = zmq_transport.serve(service)
    client = zmq_transport.connect(server.address)
    reader = client.read(KEY, 5)
    assert wait_until(lambda: service.pulled >= 5, 10)  # under load it may take a while
    time.sleep(0.5)  # and no further: 4 sent, 1 waiting for credit
    assert service.pulled == 5
    assert [b.column(0)[0].as_py() for b in reader] == list(range(64))
    assert service.pulled == 64 and service.released.is_set()


def test_early_close_releases_the_producer(zmq_transport):
    service = CountingService(batches=10**6, rows=1024)
    server = zmq_transport.serve(service)
    client = zmq_transport.connect(server.address)
    reader = client.read(KEY, 5)
    assert reader.read_next_batch() is not None
    reader.close()
    assert service.released.wait(5)
    pulled = service.pulled
    time.sleep(0.2)
    assert service.pulled == pulled


def _established(port: int) -> int:
    """TCP connections in state ESTABLISHED whose local port is ``port`` (Linux)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            next(lines)
            for line in lines:
                local, state = line.split()[1], line.split()[3]
                count += int(local.rsplit(":", 1)[1], 16) == port and state == "01"
    return count


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="counts connections in /proc")
def test_many_concurrent_streams_share_one_connection(zmq_transport):
    service = CountingService(batches=20, rows=10_000)
    server = zmq_transport.serve(service)
    client = zmq_transport.connect(server.address)
    readers = [client.read(PartitionKey("q", 0, 0, p), 5) for p in range(64)]
    results: dict[int, list[int]] = {}

    def read(p: int) -> None:
        results[p] = [b.column(0)[0].as_py() for b in readers[p]]

    threads = [threading.Thread(target=read, args=(p,)) for p in range(64)]
    for thread in threads:
        thread.start()
    assert _established(int(server.address.rsplit(":", 1)[1])) == 1
    for thread in threads:
        thread.join(30)
    assert results == {p: [p * 1000 + i for i in range(20)] for p in range(64)}


def test_io_threads_follow_the_cpus_and_streams_over_several_connections_read_right():
    """libzmq pins a connection to one I/O thread: the context gets a thread per four CPUs
    (1 to 4) unless ``io_threads`` says otherwise, and streams over connections spread on
    several threads arrive whole and in order."""
    with create_transport("zmq", {}) as default:
        assert default._context.get(zmq.IO_THREADS) == auto_io_threads()
    assert auto_io_threads() == max(1, min(4, len(os.sched_getaffinity(0)) // 4))
    with pytest.raises(ConfigError):
        create_transport("zmq", {"io_threads": -1})
    with ZmqTransport(security=SECURITY, io_threads=3, **FAST) as transport:
        assert transport._context.get(zmq.IO_THREADS) == 3
        server = transport.serve(CountingService(batches=8, rows=50_000))
        clients = [transport.connect(server.address) for _ in range(4)]
        results: dict[int, list[int]] = {}

        def read(p: int) -> None:
            results[p] = [b.column(0)[0].as_py() for b in clients[p].read(PartitionKey("q", 0, 0, p), 5)]

        threads = [threading.Thread(target=read, args=(p,)) for p in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert _established(int(server.address.rsplit(":", 1)[1])) == 4
        assert results == {p: [p * 1000 + i for i in range(8)] for p in range(4)}


def test_more_streams_than_the_server_runs_are_refused_not_queued():
    with ZmqTransport(security=SECURITY, max_streams=2, credit_bytes=MiB, **FAST) as transport:
        client = transport.connect(transport.serve(CountingService()).address)
        open_readers = [client.read(PartitionKey("q", 0, 0, p), 5) for p in range(2)]
        with pytest.raises(TransportError, match="busy"):
            client.read(PartitionKey("q", 0, 0, 2), 5)
        for reader in open_readers:
            reader.close()
        assert wait_until(lambda: _read_one(client), 5)


def _read_one(client) -> bool:
    try:
        return client.read(PartitionKey("q", 0, 0, 9), 5).read_next_batch() is not None
    except Exception:  # noqa: BLE001 - still busy
        return False


def test_garbage_frames_are_answered_and_the_server_keeps_serving(zmq_transport):
    service = CountingService(batches=3, rows=10)
    server = zmq_transport.serve(service)
    context = zmq.Context()
    raw = context.socket(zmq.DEALER)
    raw.setsockopt(zmq.LINGER, 0)
    raw.setsockopt(zmq.RCVTIMEO, 5000)
    Curve(SECURITY.credentials()).connect(raw)  # a cluster member gone rogue
    raw.connect(server.address)
    try:
        for frames, expected_id in (
            ([b"\x80\xff not json"], None),
            ([b""], None),
            ([b"{", b"more", b"frames"], None),
            ([b'{"type": "launch", "id": 7}'], 7),
            ([b'{"type": "open", "id": 8}'], 8),
            ([b'{"type": "open", "id": 9, "pad": "' + b"x" * (wire.MAX_HEADER_BYTES + 1) + b'"}'], 9),
            ([b'{"type": "deliver", "id": 10}'], 10),  # its plan frame is missing
            ([b'{"type": "cancel", "id": 11, "query_id": "../../etc"}'], 11),
        ):
            raw.send_multipart(frames)
            header, _ = wire.parse_reply(raw.recv_multipart())
            assert isinstance(header, wire.Error), header
            assert (header.code, header.id) == (ProtocolError.code, expected_id), header
        # A frame beyond MAXMSGSIZE is not read at all: ZeroMQ drops that peer.
        raw.send_multipart([b'{"type": "deliver", "id": 12}', bytes(wire.MAX_PLAN_BYTES + 1)])
    finally:
        raw.close()
        context.term()
    with zmq_transport.connect(server.address) as client:
        client.deliver(b'{"plan": 1}')
        assert service.plans == [b'{"plan": 1}']
        assert [b.num_rows for b in client.read(KEY, 5)] == [10, 10, 10]


def test_a_server_that_never_answers_is_lost_within_the_idle_timeout(zmq_transport):
    context = zmq.Context()
    mute = context.socket(zmq.ROUTER)  # accepts connections, answers ZMTP heartbeats, no more
    mute.setsockopt(zmq.LINGER, 0)
    Curve(SECURITY.credentials()).serve(mute)  # it completes the handshake, then is silent
    port = mute.bind_to_random_port("tcp://127.0.0.1")
    try:
        client = zmq_transport.connect(f"tcp://127.0.0.1:{port}")
        started = time.monotonic()
        with pytest.raises(ConnectionLost, match="silent"):
            client.read(KEY, 60)
        assert time.monotonic() - started < 3
        client.close()
    finally:
        mute.close()
        context.term()


def test_a_frozen_server_process_is_lost_mid_stream_within_the_timeout(zmq_transport):
    with remote_process("zmq", FAST) as (process, address):
        client = zmq_transport.connect(address)
        spec = Produce(query="q", batches=10**6, rows=1024, lazy=True)
        client.deliver(command(produce=spec.model_dump()))
        reader = client.read(KEY, 10)
        assert reader.read_next_batch() is not None
        os.kill(process.pid, signal.SIGSTOP)  # no FIN, no RST: only silence tells
        try:
            started = time.monotonic()
            with pytest.raises(ConnectionLost):
                while reader.read_next_batch() is not None:
                    pass
            assert time.monotonic() - started < 5
            with pytest.raises(ConnectionLost):
                client.deliver(command(report={"query": "r"}))
        finally:
            os.kill(process.pid, signal.SIGCONT)
        client.close()


def test_a_gone_client_is_noticed_and_its_streams_released(zmq_transport):
    service = CountingService(batches=10**6, rows=1024)
    server = zmq_transport.serve(service)
    with ZmqTransport(security=SECURITY, **FAST) as other:
        reader = other.connect(server.address).read(KEY, 5)
        assert reader.read_next_batch() is not None
    # The client vanished without a close message: the server's next ping fails.
    assert service.released.wait(5)


def test_close_joins_threads_and_closing_twice_is_safe():
    before = {t.name for t in threading.enumerate()}
    transport = ZmqTransport(security=SECURITY, **FAST)
    server = transport.serve(CountingService())
    reader = transport.connect(server.address).read(KEY, 5)
    assert reader.read_next_batch() is not None
    transport.close()
    transport.close()
    leftover = {t.name for t in threading.enumerate()} - before
    assert not [name for name in leftover if "zmq-server" in name or "zmq-client" in name]
    with pytest.raises(ConfigError, match="closed"):
        transport.serve(CountingService())


def test_plans_travel_as_bytes(zmq_transport):
    service = CountingService()
    client = zmq_transport.connect(zmq_transport.serve(service).address)
    plan = json.dumps({"x": "é" * 1000}).encode() + b"\x00\xff"
    client.deliver(plan)
    assert service.plans == [plan]
