"""Quirks of the Flight transport that the conformance suite does not cover."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.flight as flight
import pytest

from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import ConfigError, ConnectionLost, PlanRejected, ProtocolError
from sparkwire.transport.flight import FlightTransport
from sparkwire.transport.stream import PartitionReader
from tests.credentials import AUTH, SECURITY, stock_flight_client

REPO = Path(__file__).resolve().parents[2]
KEY = PartitionKey("q1", 0, 0, 0)


class BatchesService:
    """Serves every partition from ``make_batches()``; records when a reader is released."""

    def __init__(self, make_batches: object) -> None:
        self.make_batches = make_batches
        self.released = threading.Event()
        self.plans: list[bytes] = []

    def submit(self, plan: bytes) -> None:
        if not plan.startswith(b"{"):
            raise PlanRejected("task plan is not valid JSON")
        self.plans.append(plan)

    def open(self, key: PartitionKey, timeout: float) -> PartitionReader:
        batches = self.make_batches()  # type: ignore[operator]
        return PartitionReader(SCHEMA, iter(batches), self.released.set)

    def cancel(self, query_id: str) -> None:
        pass


SCHEMA = pa.schema([("a", pa.int64())])


def endless() -> Iterator[pa.RecordBatch]:
    while True:
        yield pa.record_batch({"a": pa.array(range(1000), pa.int64())})


@pytest.fixture
def transport() -> Iterator[FlightTransport]:
    with FlightTransport(security=SECURITY) as instance:
        yield instance


def test_stock_flight_client_reads_partition_by_ticket(transport):
    batch = pa.record_batch({"a": [1, 2, 3]})
    server = transport.serve(BatchesService(lambda: [batch, batch]))
    client = stock_flight_client(server.address)
    ticket = flight.Ticket(json.dumps({"partition": "q1/0/0/0", "timeout": 5}).encode())
    table = client.do_get(ticket, AUTH).read_all()
    assert table.column("a").to_pylist() == [1, 2, 3, 1, 2, 3]
    list(client.do_action(flight.Action("deliver", b'{"v": 1}'), AUTH))
    client.close()


def test_large_batch_is_sliced_and_arrives_intact(transport):
    big = pa.record_batch({"a": pa.array(range(8 << 20), pa.int64())})  # 64 MiB
    server = transport.serve(BatchesService(lambda: [big]))
    stream = stock_flight_client(server.address).do_get(
        flight.Ticket(json.dumps({"partition": str(KEY), "timeout": 5}).encode()), AUTH)
    sizes = [chunk.data.nbytes for chunk in stream]
    assert len(sizes) >= 8 and max(sizes) <= transport.options.max_message_bytes
    got = transport.connect(server.address).read(KEY, 5).read_all()
    assert got.combine_chunks().to_batches()[0].equals(big)


def test_malformed_requests_are_refused_and_server_keeps_serving():
    with FlightTransport(security=SECURITY, max_plan_bytes=1024) as transport:
        service = BatchesService(lambda: [pa.record_batch({"a": [1]})])
        server = transport.serve(service)
        stock = stock_flight_client(server.address)
        for ticket in (b"garbage", b'{"partition": "q1/0/0/0"}',
                       b'{"partition": "a/b", "timeout": 1}',
                       b'{"partition": "q1/0/0/0", "timeout": true}', b"{" * 5000):
            with pytest.raises(flight.FlightServerError) as info:
                stock.do_get(flight.Ticket(ticket), AUTH).read_all()
            assert json.loads(info.value.extra_info)["code"] == "protocol"
        with pytest.raises(flight.FlightServerError, match="unknown action"):
            list(stock.do_action(flight.Action("drop_tables", b""), AUTH))
        client = transport.connect(server.address)
        with pytest.raises(ProtocolError, match="exceeds 1024"):
            client.deliver(b"{" + b" " * 2000 + b"}")
        with pytest.raises(ProtocolError, match="malformed query id"):
            client.cancel("../etc")
        client.deliver(b"{}")
        assert service.plans == [b"{}"]
        assert client.read(KEY, 5).read_all().num_rows == 1


def test_early_close_releases_the_server_side_reader(transport):
    service = BatchesService(endless)
    server = transport.serve(service)
    reader = transport.connect(server.address).read(KEY, 5)
    assert reader.read_next_batch() is not None
    reader.close()
    assert service.released.wait(5)


def test_closed_server_is_connection_lost_fast(transport):
    server = transport.serve(BatchesService(lambda: []))
    client = transport.connect(server.address)
    server.close()
    started = time.monotonic()
    with pytest.raises(ConnectionLost):
        client.deliver(b"{}")
    with pytest.raises(ConnectionLost):
        client.read(KEY, 5)
    assert time.monotonic() - started < 2


def test_options_are_validated_and_plain_grpc_is_refused_under_tls():
    assert FlightTransport(security=SECURITY, call_timeout="2.5").options.call_timeout == 2.5  # env vars are strings
    with pytest.raises(ConfigError):
        FlightTransport(security=SECURITY, max_message_bytes=-1)
    with pytest.raises(ConfigError):
        FlightTransport(security=SECURITY, colour="blue")
    with FlightTransport(security=SECURITY) as transport:
        with pytest.raises(ConfigError, match="grpc\\+tls"):
            transport.connect("grpc://127.0.0.1:1")  # no downgrade to plain gRPC
        with pytest.raises(ConfigError):
            transport.serve(BatchesService(list), "tcp://127.0.0.1:0")


_WORKER = """
import sys, time
import pyarrow as pa
from sparkwire.transport.flight import FlightTransport
from sparkwire.transport.security import Security
from sparkwire.transport.stream import PartitionReader

def batches():
    yield pa.record_batch({"a": [1]})
    while True:
        time.sleep(1)

class Service:
    def submit(self, plan): pass
    def cancel(self, query_id): pass
    def open(self, key, timeout):
        return PartitionReader(pa.schema([("a", pa.int64())]), batches())

server = FlightTransport(security=Security.model_validate_json(sys.argv[1])).serve(Service())
print(server.address, flush=True)
time.sleep(600)
"""


@pytest.fixture
def worker_process() -> Iterator[tuple[subprocess.Popen[str], str]]:
    proc = subprocess.Popen([sys.executable, "-c", _WORKER, SECURITY.model_dump_json()],
                            cwd=REPO, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    address = proc.stdout.readline().strip()
    yield proc, address
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSTOP], ids=["killed", "frozen"])
def test_lost_worker_mid_stream_is_connection_lost(worker_process, sig):
    proc, address = worker_process
    with FlightTransport(security=SECURITY, keepalive_seconds=1, keepalive_timeout_seconds=1) as transport:
        reader = transport.connect(address).read(KEY, 5)
        assert reader.read_next_batch() is not None
        os.kill(proc.pid, sig)
        started = time.monotonic()
        with pytest.raises(ConnectionLost):
            reader.read_next_batch()
        assert time.monotonic() - started < 10


def _established_to(port: int) -> int:
    """Established TCP connections whose local end is ``port`` (the server's side)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            count += state == "01" and int(local.rsplit(":", 1)[1], 16) == port
    return count


@pytest.mark.parametrize("channels", [1, 3])
def test_reads_of_one_peer_take_its_channels_in_turn(channels):
    """Concurrent partition reads of one peer spread over ``channels_per_peer`` connections,
    shared by every client of that peer: one HTTP/2 connection would carry them all through
    one socket (4 streams ran at 0.5x stock Flight's 4 connections; with 4 channels, 1.0x)."""
    with FlightTransport(security=SECURITY, channels_per_peer=channels) as transport:
        server = transport.serve(BatchesService(endless))
        readers = [transport.connect(server.address).read(KEY, 5) for _ in range(3)]
        for reader in readers:
            assert reader.read_next_batch() is not None
        assert _established_to(server.port) == channels
        for reader in readers:
            reader.close()
