"""The shared-memory transport: workers are processes on one host, batches are mapped zero-copy.

Capabilities: zero copy, crosses processes, not hosts; ``max_inflight_bytes`` is a reader's
credit window. Options are the zmq transport's (``credit_bytes``, ``idle_timeout``,
``heartbeat``, ``max_streams``) without ``host``. Addresses are ``shm://PATH``, PATH a Unix
socket in a private directory (0700, socket 0600) under the temp dir, removed on close.

Control (plans, opens, credit, end of stream, errors) is ``transport.wire`` over ZeroMQ
``ipc://``, through ``ZmqServer``/``ZmqClient``; only the ``PayloadCodec`` differs. A batch of
at least ``INLINE_BELOW`` bytes is written as Arrow IPC (``wire.write_ipc``) into shared memory,
segments ``/dev/shm/sparkwire-<pid>-<server>-<n>`` (0600, ``O_EXCL``), and its frame names
where; smaller batches travel inline (``ipc``: a mapping costs more than their copy); a client
of the same transport instance gets the producer's own batch (``mem NAME``).

Segments: a stream writes its batches into an *arena*, a ring of ``1.5 x credit_bytes`` in one
segment (frame ``arena NAME ARENA_SIZE OFFSET SIZE``), because on small VMs mapping a fresh
page costs more than copying it: both sides map the arena once and the producer writes into
pages already mapped. Each allocation starts with a state word; the reader clears it when its
batch is garbage-collected (``pa.foreign_buffer``'s base), and the producer reuses released
space in order. When the ring is full (the consumer holds on to batches) a batch gets a
segment of its own (``shm NAME SIZE``), pages allocated up front (``posix_fallocate``,
``MAP_POPULATE``). The arena's header holds a retired flag and the number of allocations
sent, so the reader drops its mapping once the stream is over and all were seen.

Lifecycle: the reader unlinks a segment as soon as it has mapped it; ``read_ipc`` gives a
batch whose buffers point into the mapping, so the memory is freed with the last mapping.
What a reader never maps is freed by whoever learns of it first: a reader that closes drops what
reaches it (``discard``); the server keeps, per peer, the names it sent that still exist, pings
such peers, and unlinks them when the peer is gone (a failed send); a closing server unlinks
everything under its prefix. Segments and socket directories of processes that died are
swept, by pid, whenever a server starts or closes (``sweep``).
"""

from __future__ import annotations

import contextlib
import itertools
import mmap
import os
import re
import secrets
import shutil
import stat
import tempfile
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from transport import wire
from transport.base import Capabilities, WorkerService
from transport.errors import ConfigError, ConnectionLost, ProtocolError, TransportError
from transport.zmq import ZmqClient, ZmqServer, ZmqTransport

SHM_DIR = Path("/dev/shm")
INLINE_BELOW = 64 << 10
_PREFIX = "sparkwire-"
_NAME = re.compile(r"sparkwire-([0-9]{1,10})-[0-9a-f]{8}-[0-9]{1,19}")
_FRAME = re.compile(rb"(shm|mem|arena) (sparkwire-[0-9]{1,10}-[0-9a-f]{8}-[0-9]{1,19})((?: [0-9]{1,15}){0,3})")
_HEADER = 64  # an arena's header (retired, sent) and each allocation's (state); Arrow's alignment
_ADDRESS = re.compile(r"shm://(/[^\x00]{1,100})")
_SOCKET_DIRS = "sparkwire-shm-"
_POPULATE = getattr(mmap, "MAP_POPULATE", 0)
_INLINE = wire.InlineCodec()


def _unlink(path: Path | str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a killed child its parent has not reaped yet is dead too
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def sweep() -> int:
    """Unlink the segments and socket directories of processes that no longer exist."""
    freed = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir(SHM_DIR):
            found = _NAME.fullmatch(entry.name)
            if found and not _alive(int(found[1])):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    freed += 1
    with contextlib.suppress(OSError):
        for entry in os.scandir(tempfile.gettempdir()):
            pid = entry.name[len(_SOCKET_DIRS):].split("-", 1)[0]
            if entry.name.startswith(_SOCKET_DIRS) and pid.isdigit() and not _alive(int(pid)):
                shutil.rmtree(entry.path, ignore_errors=True)
    return freed


@dataclass
class _Local:
    """One transport instance's handover table: batches for its own clients, by name."""

    token: bytes = field(default_factory=lambda: f"shm-{secrets.token_hex(6)}-".encode())
    batches: dict[str, pa.RecordBatch] = field(default_factory=dict)
    clients: itertools.count[int] = field(default_factory=itertools.count)


class _Arena:
    """The producer's side of one stream's ring: allocations are reused in order once released."""

    def __init__(self, name: str, size: int) -> None:
        self.name, self.size = name, size
        fd = os.open(SHM_DIR / name, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.ftruncate(fd, size)
            self.map = mmap.mmap(fd, size)
        finally:
            os.close(fd)
        self.writable = memoryview(self.map)
        self.words = self.writable.cast("q")
        self.live: deque[int] = deque()
        self.head = _HEADER

    def allocate(self, nbytes: int) -> int | None:
        """The offset of a free allocation for ``nbytes`` (state: in use), or ``None``."""
        need = _HEADER + -(-nbytes // _HEADER) * _HEADER
        while self.live and self.words[self.live[0] // 8] == 0:
            self.live.popleft()
        if not self.live:
            start = _HEADER if _HEADER + need <= self.size else None
        elif self.live[-1] >= self.live[0]:  # free: [head, size) and [_HEADER, oldest)
            start = self.head if self.head + need <= self.size else (
                _HEADER if _HEADER + need <= self.live[0] else None)
        else:  # wrapped: free is [head, oldest)
            start = self.head if self.head + need <= self.live[0] else None
        if start is not None:
            self.words[start // 8] = 1
            self.live.append(start)
            self.head = start + need
        return start


class _Mapped:
    """The reader's side of an arena: its mapping, and how many of its allocations it saw."""

    def __init__(self, mapped: mmap.mmap) -> None:
        self.words, self.buffer, self.seen = memoryview(mapped).cast("q"), pa.py_buffer(mapped), 0


class _Release:
    """The base of a batch's buffer in an arena: marks the allocation free when Arrow drops it."""

    __slots__ = ("words", "at")

    def __init__(self, words: memoryview, at: int) -> None:
        self.words, self.at = words, at

    def __del__(self) -> None:
        self.words[self.at] = 0


@dataclass
class _Stream:
    peer: bytes
    arena: _Arena | None = None


class ShmCodec:
    """A ``wire.PayloadCodec`` over segments in /dev/shm; a server's codec also tracks, per
    peer, what it sent and the peer has not mapped yet. ``current.stream`` is the stream being
    packed on this thread (``pack`` runs on the stream's worker thread, see ``ShmServer``)."""

    def __init__(self, local: _Local, prefix: str = "", arena_bytes: int = 0) -> None:
        self._local, self._prefix, self._arena_bytes = local, prefix, arena_bytes
        self._arenas: dict[str, _Mapped] = {}
        self._count = itertools.count()
        self._lock = threading.Lock()
        self._held: dict[bytes, set[str]] = {}
        self._closed = False
        self.current = threading.local()

    # -- producer side ----------------------------------------------------------------------
    def pack(self, batch: pa.RecordBatch) -> list[wire.Frame]:
        stream: _Stream = getattr(self.current, "stream", None) or _Stream(b"")
        if stream.peer.startswith(self._local.token):
            name = self._hold(stream.peer)
            self._local.batches[name] = batch
            return [f"mem {name}".encode()]
        if batch.nbytes < INLINE_BELOW:
            return [b"ipc", *_INLINE.pack(batch)]
        if stream.arena is None and self._arena_bytes:
            stream.arena = _Arena(self._hold(stream.peer), self._arena_bytes)
        arena, placed = stream.arena, []

        def allocate(size: int) -> pa.Buffer:
            start = arena.allocate(size) if arena is not None else None
            if start is not None:
                placed.append((start, f"arena {arena.name} {arena.size} {start} {size}"))
                return pa.py_buffer(arena.writable[start + _HEADER:start + _HEADER + size])
            name = self._hold(stream.peer)
            fd = os.open(SHM_DIR / name, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            placed.append((-1, f"shm {name} {size}"))
            try:
                os.posix_fallocate(fd, 0, size)  # tmpfs pages now, not one fault at a time
                return pa.py_buffer(mmap.mmap(fd, size, flags=mmap.MAP_SHARED | _POPULATE))
            finally:
                os.close(fd)

        try:
            wire.write_ipc(batch, allocate)
            with self._lock:
                if self._closed:  # close() may have swept before this segment existed
                    raise TransportError("the shm server is closed")
        except BaseException:
            for start, descriptor in placed:
                if start >= 0:
                    arena.words[start // 8] = 0  # type: ignore[union-attr]
                else:
                    _unlink(SHM_DIR / descriptor.split()[1])
            raise
        start, descriptor = placed[0]
        if start >= 0:
            arena.words[1] += 1  # type: ignore[union-attr]  # sent
        return [descriptor.encode()]

    def finish(self, stream: _Stream) -> None:
        """The stream is over: no more allocations in its arena, the reader may drop it."""
        if stream.arena is not None:
            stream.arena.words[0] = 1
            stream.arena = None

    def _hold(self, peer: bytes) -> str:
        with self._lock:
            if self._closed or not self._prefix:
                raise TransportError("the shm server is closed")
            name = f"{self._prefix}-{next(self._count)}"
            self._held.setdefault(peer, set()).add(name)
        return name

    def _exists(self, name: str) -> bool:
        return name in self._local.batches or (SHM_DIR / name).exists()

    def _free(self, names: Sequence[str] | set[str]) -> None:
        for name in names:
            self._local.batches.pop(name, None)
            _unlink(SHM_DIR / name)

    def waiting(self) -> list[bytes]:
        """Forget what peers mapped; the peers that still have segments to map."""
        with self._lock:
            held = {peer: set(names) for peer, names in self._held.items()}
        mapped = {peer: {n for n in names if not self._exists(n)} for peer, names in held.items()}
        with self._lock:
            for peer, names in mapped.items():
                self._held[peer] -= names
                if not self._held[peer]:
                    del self._held[peer]
            return list(self._held)

    def release(self, peer: bytes) -> None:
        """The peer is gone: free everything it was sent and never mapped."""
        with self._lock:
            names = self._held.pop(peer, set())
        self._free(names)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            held, self._held = self._held, {}
        self._free([name for names in held.values() for name in names])
        if self._prefix:
            self._free([p.name for p in SHM_DIR.glob(f"{self._prefix}-*")])
        with self._lock:
            self._arenas.clear()

    # -- reader side ------------------------------------------------------------------------
    @staticmethod
    def _parse(frames: Sequence[wire.Frame]) -> tuple[bytes, str, list[int]]:
        if len(frames) == 2 and bytes(frames[0]) == b"ipc":
            return b"ipc", "", []
        found = _FRAME.fullmatch(bytes(frames[0])) if len(frames) == 1 and len(frames[0]) < 160 else None
        numbers = [int(n) for n in found[3].split()] if found else []
        if found is None or len(numbers) != {b"mem": 0, b"shm": 1, b"arena": 3}[found[1]]:
            raise ProtocolError("malformed shm batch descriptor")
        return found[1], found[2].decode(), numbers

    @staticmethod
    def _map(name: str, size: int, writable: bool) -> mmap.mmap:
        """Map a segment of ours and unlink it: from now on it lives as long as its mappings."""
        path = SHM_DIR / name
        try:
            fd = os.open(path, (os.O_RDWR if writable else os.O_RDONLY) | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            raise ConnectionLost(f"segment {name} is gone: its worker closed or died") from None
        try:
            info = os.fstat(fd)
            if info.st_uid != os.getuid() or not stat.S_ISREG(info.st_mode) or not 0 < size <= info.st_size:
                raise ProtocolError(f"segment {name} is not a segment of {size} bytes of ours")
            prot = mmap.PROT_READ | (mmap.PROT_WRITE if writable else 0)
            return mmap.mmap(fd, size, flags=mmap.MAP_SHARED | (0 if writable else _POPULATE), prot=prot)
        finally:
            os.close(fd)
            _unlink(path)  # mapped or not, nobody else will

    def _arena(self, name: str, size: int, start: int, nbytes: int) -> _Mapped:
        """The reader's mapping of an arena, counting one more allocation seen; drops the
        mappings of arenas whose streams are over once all their allocations were seen."""
        with self._lock:
            arena = self._arenas.get(name)
            if arena is None:
                arena = self._arenas[name] = _Mapped(self._map(name, size, writable=True))
            if not (_HEADER <= start and start % _HEADER == 0 and start + _HEADER + nbytes <= len(arena.buffer)):
                raise ProtocolError(f"allocation {start}+{nbytes} outside arena {name}")
            arena.seen += 1
            for done in [n for n, a in self._arenas.items() if a.words[0] and a.seen >= a.words[1]]:
                del self._arenas[done]
        return arena

    def unpack(self, frames: Sequence[wire.Frame], schema: pa.Schema) -> pa.RecordBatch:
        kind, name, numbers = self._parse(frames)
        if kind == b"ipc":
            return wire.read_ipc(frames[1], schema)
        if kind == b"mem":
            batch = self._local.batches.pop(name, None)
            if batch is None:
                raise ConnectionLost(f"batch {name} is gone: its worker closed")
            return batch
        if kind == b"shm":
            return wire.read_ipc(pa.py_buffer(self._map(name, numbers[0], writable=False)), schema)
        size, start, nbytes = numbers
        arena = self._arena(name, size, start, nbytes)
        release = _Release(arena.words, start // 8)  # frees the allocation with the batch
        return wire.read_ipc(pa.foreign_buffer(arena.buffer.address + start + _HEADER, nbytes, release), schema)

    def discard(self, frames: Sequence[wire.Frame]) -> None:
        with contextlib.suppress(ProtocolError, ConnectionLost):
            kind, name, numbers = self._parse(frames)
            if kind == b"arena":
                self._arena(name, *numbers).words[numbers[1] // 8] = 0
            elif kind != b"ipc":
                self._free([name])


class ShmServer(ZmqServer):
    """A ``ZmqServer`` on a Unix socket whose batches travel in shared memory."""

    def __init__(self, context: Any, service: WorkerService, path: Path, own_dir: bool,
                 local: _Local, options: Any) -> None:
        self._path, self._own_dir = path, own_dir
        self._shm = ShmCodec(local, f"{_PREFIX}{os.getpid()}-{secrets.token_hex(4)}",
                             options.credit_bytes * 3 // 2)
        self._local_token = local.token
        sweep()
        try:
            super().__init__(context, service, f"ipc://{path}", self._shm, options)
            os.chmod(path, 0o600)
        except BaseException:
            if own_dir:
                shutil.rmtree(path.parent, ignore_errors=True)
            raise
        self.address = f"shm://{path}"

    def _stream(self, peer: bytes, request: wire.Open, pump: wire.StreamPump) -> None:
        self._shm.current.stream = stream = _Stream(peer)
        try:
            super()._stream(peer, request, pump)
        finally:
            self._shm.current.stream = None
            self._shm.finish(stream)

    def _ping_peers(self) -> None:
        super()._ping_peers()
        for peer in self._shm.waiting():  # a gone one fails the send: _on_unsendable
            self._io.send([peer, *self._ping])

    def _on_unsendable(self, frames: list[wire.Frame]) -> None:
        self._shm.release(bytes(frames[0]))
        super()._on_unsendable(frames)

    def _remove_socket(self) -> None:
        _unlink(self._path)
        if self._own_dir:
            shutil.rmtree(self._path.parent, ignore_errors=True)

    def close(self) -> None:
        super().close()
        self._shm.close()
        self._remove_socket()
        sweep()


class ShmTransport(ZmqTransport):
    """Workers as processes on one host; see the module docstring."""

    name = "shm"
    capabilities = Capabilities(zero_copy=True, crosses_processes=True, crosses_hosts=False,
                                max_inflight_bytes=ZmqTransport.capabilities.max_inflight_bytes)

    def __init__(self, **options: Any) -> None:
        if "host" in options:
            raise ConfigError("the shm transport has no host option: it serves on Unix sockets")
        if not SHM_DIR.is_dir():
            raise ConfigError(f"the shm transport needs {SHM_DIR}")
        super().__init__(**options)
        self._local = _Local()
        self._codec: ShmCodec = ShmCodec(self._local)  # type: ignore[assignment]

    def address_on(self, host: str) -> str | None:
        return None

    def _server(self, service: WorkerService, address: str | None) -> ShmServer:
        if address is None:
            directory = Path(tempfile.mkdtemp(prefix=f"{_SOCKET_DIRS}{os.getpid()}-"))  # 0700
            return ShmServer(self._context, service, directory / "worker.sock", True, self._local,
                             self._options)
        path = self._checked(address)
        own_dir = not path.parent.exists()
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.parent.stat()
        if info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise ConfigError(f"{path.parent} must be a directory of this user's alone (0700)")
        return ShmServer(self._context, service, path, own_dir, self._local, self._options)

    def _client(self, address: str) -> ZmqClient:
        routing_id = self._local.token + str(next(self._local.clients)).encode()
        return ZmqClient(self._context, f"ipc://{self._checked(address)}", self._codec,
                         self._options, routing_id=routing_id)

    def close(self) -> None:
        super().close()
        self._codec.close()  # its readers' cached arena mappings
        self._local.batches.clear()

    @staticmethod
    def _checked(address: str) -> Path:  # type: ignore[override]
        found = _ADDRESS.fullmatch(address)
        if found is None:
            raise ConfigError(f"shm transport address must look like shm:///PATH: {address!r}")
        return Path(found[1])
