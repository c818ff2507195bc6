"""What only the shared-memory transport has: batches through /dev/shm across processes, copied
out before they are checked,
segments reclaimed whoever stops first (reader, cancel, a killed worker, a vanished reader),
private sockets and segments, and nothing left in /dev/shm after the suite."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest

from tests.transport.conftest import remote_process, wait_until
from tests.transport.remote_service import command
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import ConfigError, ConnectionLost, ProtocolError, QueryCancelled, Timeout
from sparkwire.transport.registry import create_transport
from sparkwire.transport.shm import ShmTransport
from sparkwire.transport.shm_arena import HEADER
from sparkwire.transport.shm_codec import Handover, ProducerStream, ShmCodec
from sparkwire.transport.shm_segments import SHM_DIR, sweep
from sparkwire.coordinator.worker.opened import LINKS_PREFIX
from sparkwire.transport.stream import PartitionReader
from tests.credentials import SECURITY

MiB = 1 << 20
pytestmark = pytest.mark.skipif(not SHM_DIR.is_dir(), reason="no /dev/shm")


def segments(pid: int | None = None) -> list[Path]:
    """The shm transport's segments (of ``pid``): not a worker's links directory, which lives
    as long as its database, maybe in a session of a test beside this one (``worker.opened``)."""
    found = SHM_DIR.glob("sparkwire-*" if pid is None else f"sparkwire-{pid}-*")
    return sorted(p for p in found if not p.name.startswith(LINKS_PREFIX))


def big(query: str, batches: int, **fields: object) -> bytes:
    """A partition of 1 MiB batches: large enough to travel in shared memory."""
    return command(produce={"query": query, "batches": batches, "rows": MiB // 8, **fields})


def mappings() -> list[tuple[int, int, str]]:
    spans = []
    for line in Path("/proc/self/maps").read_text().splitlines():
        fields = line.split(maxsplit=5)
        low, high = (int(x, 16) for x in fields[0].split("-"))
        spans.append((low, high, fields[5] if len(fields) > 5 else ""))
    return spans


class BigService:
    """Every partition is endless 1 MiB batches, generated when pulled."""

    def submit(self, plan: bytes) -> None: ...
    def cancel(self, query_id: str) -> None: ...

    def open(self, key: PartitionKey, timeout: float) -> PartitionReader:
        batch = pa.record_batch({"a": pa.array(range(MiB // 8), pa.int64())})
        return PartitionReader(batch.schema, iter(lambda: batch, None))


def test_options_addresses_and_capabilities(tmp_path):
    with create_transport("shm", {"credit_bytes": "1048576"}) as transport:
        caps = transport.capabilities
        assert caps.zero_copy and caps.crosses_processes and not caps.crosses_hosts
        assert caps.max_inflight_bytes == MiB and transport.address_on("10.0.0.1") is None
        for bad in ("tcp://127.0.0.1:5555", "shm://relative/path", "mem://x"):
            with pytest.raises(ConfigError):
                transport.connect(bad)
        with pytest.raises(ConnectionLost):
            transport.connect(f"shm://{tmp_path}/nobody.sock")
        public = tmp_path / "public"
        public.mkdir(mode=0o755)
        public.chmod(0o755)
        with pytest.raises(ConfigError, match="0700"):
            transport.serve(BigService(), f"shm://{public}/worker.sock")
    with pytest.raises(ConfigError, match="host"):
        create_transport("shm", {"host": "127.0.0.1"})


@pytest.mark.parametrize("credit", [MiB + 1, 25 * MiB // 3])
def test_a_credit_window_of_any_size_streams(credit: int) -> None:
    """The ring is 1.5x the window, rounded up to whole words: a window whose 1.5x was not
    a multiple of 8 bytes failed every read of a worker whose memory plan gave it one."""
    with ShmTransport(security=SECURITY, credit_bytes=credit) as transport, \
            ShmTransport(security=SECURITY, credit_bytes=credit) as other:
        server = transport.serve(BigService())
        with other.connect(server.address).read(PartitionKey("w", 0, 0, 0), 5) as reader:
            stream = iter(reader)
            batches = [next(stream) for _ in range(3)]
        assert [b.num_rows for b in batches] == [MiB // 8] * 3
        server.close()


def test_socket_and_segments_are_private_and_removed_on_close():
    with ShmTransport(security=SECURITY) as transport, ShmTransport(security=SECURITY) as other:
        server = transport.serve(BigService())
        path = Path(server.address.removeprefix("shm://"))
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        client = other.connect(server.address)  # another instance: batches go through /dev/shm
        reader = client.read(PartitionKey("q", 0, 0, 0), 5)
        assert wait_until(lambda: segments(os.getpid()), 5)
        modes = {stat.S_IMODE(p.stat().st_mode) for p in segments(os.getpid()) if p.exists()}
        assert modes <= {0o600}
        server.close()
        assert not path.exists() and not path.parent.exists()
        assert not segments(os.getpid()), "a closed server left its segments"
        reader.close()


def test_batches_from_another_process_are_copied_out_of_shared_memory():
    with ShmTransport(security=SECURITY) as transport, remote_process("shm") as (proc, address):
        client = transport.connect(address)
        client.deliver(big("z", 3))
        batches = list(client.read(PartitionKey("z", 0, 0, 0), 10))
        assert [b.num_rows for b in batches] == [MiB // 8] * 3
        rows = MiB // 8  # value = row number (one column, one partition: remote_service)
        assert [b.column(0).to_pylist() for b in batches] == [
            list(range(b * rows, (b + 1) * rows)) for b in range(3)]
        mapped = [name for _, _, name in mappings() if "/dev/shm/sparkwire-" in name]
        assert not mapped, f"the reader maps what its producer can still write: {mapped}"
        client.close()


def _producer_and_reader(arena_bytes: int = 8 * MiB) -> tuple[ShmCodec, ShmCodec]:
    producer = ShmCodec(Handover(), f"sparkwire-{os.getpid()}-{os.urandom(4).hex()}", arena_bytes)
    producer.current.stream = ProducerStream(b"another process")
    return producer, ShmCodec(Handover())


def test_a_producer_cannot_change_or_fault_a_batch_after_the_reader_checked_it():
    """A producer is another process that can still write the segment: rewriting a batch the
    reader validated (a double fetch) or truncating the segment under it must neither change
    the batch nor crash the reader."""
    producer, reader = _producer_and_reader()
    batch = pa.record_batch({"s": [f"row {i}" for i in range(20_000)], "n": pa.array(range(20_000))})
    frames = producer.pack(batch)
    assert bytes(frames[0]).startswith(b"arena ")
    arena = producer.current.stream.arena
    held = os.open(SHM_DIR / arena.name, os.O_RDWR)  # as the producer's process could
    got = reader.unpack(frames, batch.schema)
    arena.writable[:] = b"\xff" * arena.size  # everything, the batch's offsets included
    got.validate(full=True)
    assert got.equals(batch)

    second = producer.pack(batch)  # the reader holds this arena open now: cut it short
    os.ftruncate(held, 0)
    os.close(held)
    with pytest.raises(ProtocolError, match="ended .* early"):
        reader.unpack(second, batch.schema)
    producer.close()
    reader.close()


_FLIPPER = """
import mmap, os, signal, sys
path, start = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_RDWR)
view = memoryview(mmap.mmap(fd, os.fstat(fd).st_size))
true = bytes(view[start:])
noise = os.urandom(len(true))
stopping = []
signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
print("ready", flush=True)
while not stopping:
    view[start:] = noise
    view[start:] = true
view[start:] = noise
"""


def test_a_writer_racing_the_reader_never_gets_an_unchecked_batch_through():
    """Another process flips a sent batch between noise and its true bytes while the reader
    reads it again and again: each read is refused or gives the true batch, which stays so
    after the writer has left noise behind."""
    producer, reader = _producer_and_reader()
    batch = pa.record_batch({"s": [f"value {i}" for i in range(10_000)]})
    frames = producer.pack(batch)
    path = SHM_DIR / producer.current.stream.arena.name
    writer = subprocess.Popen([sys.executable, "-c", _FLIPPER, str(path), str(HEADER)],
                              stdout=subprocess.PIPE, text=True)
    kept, refused, deadline = [], 0, time.monotonic() + 10
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
        while (not kept or not refused) and time.monotonic() < deadline:
            try:
                kept.append(reader.unpack(frames, batch.schema))
            except ProtocolError:
                refused += 1
    finally:
        writer.terminate()
        assert writer.wait(10) == 0
    assert kept and refused, f"the race showed nothing: {len(kept)} read, {refused} refused"
    for got in kept:
        got.validate(full=True)
        assert got.equals(batch)
    producer.close()
    reader.close()


def test_segments_are_freed_after_an_early_close_and_a_cancel():
    with ShmTransport(security=SECURITY) as transport, remote_process("shm") as (proc, address):
        client = transport.connect(address)
        client.deliver(big("e", 10**6, lazy=True))
        reader = client.read(PartitionKey("e", 0, 0, 0), 10)
        for _ in range(3):
            assert reader.read_next_batch() is not None
        reader.close()
        assert wait_until(lambda: not segments(proc.pid), 10), segments(proc.pid)
        client.deliver(big("c", 1000, delay=0.01))
        reader = client.read(PartitionKey("c", 0, 0, 0), 10)
        assert reader.read_next_batch() is not None
        client.cancel("c")
        with pytest.raises(QueryCancelled):
            while reader.read_next_batch() is not None:
                pass
        reader.close()
        assert wait_until(lambda: not segments(proc.pid), 10), segments(proc.pid)
        client.close()


def test_a_killed_worker_s_segments_are_reclaimed():
    with ShmTransport(security=SECURITY) as transport, remote_process("shm") as (proc, address):
        client = transport.connect(address)
        client.deliver(big("k", 10**6, lazy=True))
        reader = client.read(PartitionKey("k", 0, 0, 0), 10)  # read nothing: segments wait
        assert wait_until(lambda: segments(proc.pid), 10)
        socket_dir = Path(address.removeprefix("shm://")).parent
        proc.kill()
        proc.wait(10)
        assert segments(proc.pid), "nothing left to reclaim: the test shows nothing"
        sweep()  # what any server does when it starts or closes
        assert not segments(proc.pid) and not socket_dir.exists()
        with pytest.raises((ConnectionLost, Timeout)):
            while reader.read_next_batch() is not None:
                pass
        reader.close()
        client.close()


def test_a_vanished_reader_s_segments_are_freed_by_the_server():
    with ShmTransport(security=SECURITY, heartbeat=0.1, idle_timeout=1.0) as transport:
        server = transport.serve(BigService())
        reader_side = ShmTransport(security=SECURITY)
        client = reader_side.connect(server.address)
        client.read(PartitionKey("v", 0, 0, 0), 5)  # never read, never closed
        assert wait_until(lambda: segments(os.getpid()), 5)
        reader_side.close()  # its socket goes: the server's next ping fails
        assert wait_until(lambda: not segments(os.getpid()), 10), segments(os.getpid())
        server.close()


def test_nothing_is_left_in_dev_shm_after_the_suite(remote_services):
    remote_services.close()  # the shared workers close their servers (restarted if needed)
    sweep()
    assert wait_until(lambda: not segments(), 10), f"left behind: {segments()}"


class FiniteService(BigService):
    """Every partition is eight 1 MiB batches."""

    def open(self, key: PartitionKey, timeout: float) -> PartitionReader:
        batch = pa.record_batch({"a": pa.array(range(MiB // 8), pa.int64())})
        return PartitionReader(batch.schema, iter([batch] * 8))


def test_a_peer_s_next_stream_reuses_its_arena_until_it_idles(monkeypatch):
    """Faulting fresh tmpfs pages costs far more than writing them: a finished stream's arena,
    already faulted and mapped by its reader, serves the same peer's next stream; another
    peer gets its own; an idle one is retired and the reader drops its mapping."""
    from sparkwire.transport import shm_codec

    made = []
    original = shm_codec.Arena.__init__

    def counting(self, name, size):
        made.append(name)
        original(self, name, size)

    monkeypatch.setattr(shm_codec.Arena, "__init__", counting)
    with ShmTransport(security=SECURITY, credit_bytes=4 * MiB) as transport, \
            ShmTransport(security=SECURITY, credit_bytes=4 * MiB) as other:
        server = transport.serve(FiniteService())
        client, second = other.connect(server.address), other.connect(server.address)
        for task in range(3):
            with client.read(PartitionKey("r", 0, task, 0), 5) as reader:
                assert sum(b.num_rows for b in reader) == 8 * MiB // 8
        assert len(made) == 1
        with second.read(PartitionKey("r", 0, 9, 0), 5) as reader:
            assert sum(b.num_rows for b in reader) == 8 * MiB // 8
        assert len(made) == 2
        monkeypatch.setattr(shm_codec, "ARENA_IDLE_SECONDS", 0.0)
        server._shm.expire()
        assert not server._shm._idle
        with client.read(PartitionKey("r", 0, 10, 0), 5) as reader:  # a new arena; the reader
            assert sum(b.num_rows for b in reader) == 8 * MiB // 8  # drops the retired ones
        assert len(made) == 3 and len(other._codec._arenas) == 1
        server.close()
    assert not segments(os.getpid())
