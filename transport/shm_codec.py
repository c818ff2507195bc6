"""The shm transport's ``PayloadCodec``: where a batch travels, and what is freed when.

A batch's payload is one descriptor frame naming where its Arrow IPC bytes
(``ipc.write_ipc``) are:

- ``ipc`` + one frame: a batch under ``INLINE_BELOW`` bytes travels inline (a mapping costs
  more than its copy);
- ``mem NAME``: a client of the same transport instance gets the producer's own batch;
- ``arena NAME ARENA_SIZE OFFSET SIZE``: an allocation in the stream's arena
  (``transport.shm_arena``);
- ``shm NAME SIZE``: a segment of its own (``transport.shm_segments``), when the arena is
  full because the consumer holds on to batches.

The reader opens a segment and unlinks it, and copies the batch's bytes out before it
validates them (``read_ipc``): a producer is another process, and what it writes into the
segment after the check must not reach a batch the reader already trusts (a double fetch),
nor may a segment it truncates fault the reader, as a mapping would. The copy costs about a
memcpy; an arena allocation is the producer's again as soon as it is copied. What a reader never maps is freed
by whoever learns of it first: a reader that closes drops what reaches it (``discard``); a
server's codec keeps, per peer, the names it sent that still exist (``waiting``), and unlinks
them when the peer is gone (``release``) or everything under its prefix when it closes.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import pyarrow as pa

from sparkwire.transport.errors import ConnectionLost, ProtocolError, TransportError
from sparkwire.transport.ipc import InlineCodec, read_ipc, write_ipc
from sparkwire.transport.shm_arena import Arena, ReadArena
from sparkwire.transport.shm_segments import SHM_DIR, new_segment, open_and_unlink, read_at, unlink
from sparkwire.transport.wire import Frame

INLINE_BELOW = 64 << 10
#: Idle arenas a server keeps per peer for that peer's next stream, and for how long: writing
#: into pages already faulted runs at memory speed, into fresh tmpfs pages at a fraction of it.
IDLE_ARENAS_PER_PEER = 1
ARENA_IDLE_SECONDS = 5.0
_FRAME = re.compile(rb"(shm|mem|arena) (sparkwire-[0-9]{1,10}-[0-9a-f]{8}-[0-9]{1,19})((?: [0-9]{1,15}){0,3})")
_INLINE = InlineCodec()
T = TypeVar("T")


@dataclass
class Handover:
    """One transport instance's handover table: batches for its own clients, by name."""

    token: bytes = field(default_factory=lambda: f"shm-{secrets.token_hex(6)}-".encode())
    batches: dict[str, pa.RecordBatch] = field(default_factory=dict)
    clients: itertools.count[int] = field(default_factory=itertools.count)


@dataclass
class ProducerStream:
    """What ``pack`` needs of the stream it packs for: the peer, and the stream's arena."""

    peer: bytes
    arena: Arena | None = None


class ShmCodec:
    """A ``ipc.PayloadCodec`` over segments in /dev/shm; a server's codec also tracks, per
    peer, what it sent and the peer has not opened yet. ``current.stream`` is the stream being
    packed on this thread (``pack`` runs on the stream's worker thread, see ``shm.ShmServer``)."""

    def __init__(self, local: Handover, prefix: str = "", arena_bytes: int = 0) -> None:
        self._local, self._prefix, self._arena_bytes = local, prefix, arena_bytes
        self._arenas: dict[str, ReadArena] = {}
        self._count = itertools.count()
        self._lock = threading.Lock()
        self._held: dict[bytes, set[str]] = {}
        self._idle: dict[bytes, list[tuple[Arena, float]]] = {}  # peer -> (arena, since)
        self._closed = False
        self.current = threading.local()

    # -- producer side ----------------------------------------------------------------------
    def pack(self, batch: pa.RecordBatch) -> list[Frame]:
        stream: ProducerStream = getattr(self.current, "stream", None) or ProducerStream(b"")
        if stream.peer.startswith(self._local.token):
            name = self._hold(stream.peer)
            self._local.batches[name] = batch
            return [f"mem {name}".encode()]
        if batch.nbytes < INLINE_BELOW:
            return [b"ipc", *_INLINE.pack(batch)]
        if stream.arena is None and self._arena_bytes:
            stream.arena = self._reuse(stream.peer) or Arena(self._hold(stream.peer), self._arena_bytes)
        arena = stream.arena
        # Each allocation, in order: the arena and offset it took, or (None, -1) for a segment
        # of its own; and the frame that names it.
        placed: list[tuple[Arena | None, int, str]] = []

        def allocate(size: int) -> pa.Buffer:
            if arena is not None and (start := arena.allocate(size)) is not None:
                placed.append((arena, start, f"arena {arena.name} {arena.size} {start} {size}"))
                return arena.buffer(start, size)
            name = self._hold(stream.peer)
            segment = new_segment(name, size)  # removed again if it cannot be made
            placed.append((None, -1, f"shm {name} {size}"))
            return pa.py_buffer(segment)

        try:
            write_ipc(batch, allocate)
            with self._lock:
                if self._closed:  # close() may have swept before this segment existed
                    raise TransportError("the shm server is closed")
        except BaseException:
            for owner, start, descriptor in placed:
                if owner is not None:
                    owner.free(start)
                else:
                    unlink(SHM_DIR / descriptor.split()[1])
            raise
        owner, _, descriptor = placed[0]
        if owner is not None:
            owner.sent()
        return [descriptor.encode()]

    def finish(self, stream: ProducerStream) -> None:
        """The stream is over: its arena waits for the peer's next stream (its pages stay
        faulted, and the peer keeps its descriptor), or is retired so the reader may drop it."""
        arena, stream.arena = stream.arena, None
        if arena is None:
            return
        with self._lock:
            idle = self._idle.setdefault(stream.peer, [])
            if not self._closed and len(idle) < IDLE_ARENAS_PER_PEER:
                idle.append((arena, time.monotonic()))
                return
        arena.retire()

    def _reuse(self, peer: bytes) -> Arena | None:
        with self._lock:
            idle = self._idle.get(peer)
            return idle.pop()[0] if idle else None

    def _retire_idle(self, keep: Callable[[bytes, float], bool]) -> None:
        with self._lock:
            retired = []
            for peer, idle in list(self._idle.items()):
                retired += [arena for arena, since in idle if not keep(peer, since)]
                idle[:] = [(arena, since) for arena, since in idle if keep(peer, since)]
                if not idle:
                    del self._idle[peer]
        for arena in retired:
            arena.retire()

    def expire(self) -> None:
        """Retire the arenas idle for longer than ``ARENA_IDLE_SECONDS``."""
        deadline = time.monotonic() - ARENA_IDLE_SECONDS
        self._retire_idle(lambda _peer, since: since > deadline)

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
            unlink(SHM_DIR / name)

    def waiting(self) -> list[bytes]:
        """Forget what peers opened; the peers that still have segments to open."""
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
        self._retire_idle(lambda other, _since: other != peer)
        self._free(names)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            held, self._held = self._held, {}
        self._retire_idle(lambda _peer, _since: False)
        self._free([name for names in held.values() for name in names])
        if self._prefix:
            self._free([p.name for p in SHM_DIR.glob(f"{self._prefix}-*")])
        with self._lock:
            idle = [n for n, a in self._arenas.items() if not a.users]  # a reader closes its own
            for name in idle:
                self._arenas.pop(name).close()

    # -- reader side ------------------------------------------------------------------------
    @staticmethod
    def _parse(frames: Sequence[Frame]) -> tuple[bytes, str, list[int]]:
        if len(frames) == 2 and bytes(frames[0]) == b"ipc":
            return b"ipc", "", []
        found = _FRAME.fullmatch(bytes(frames[0])) if len(frames) == 1 and len(frames[0]) < 160 else None
        numbers = [int(n) for n in found[3].split()] if found else []
        if found is None or len(numbers) != {b"mem": 0, b"shm": 1, b"arena": 3}[found[1]]:
            raise ProtocolError("malformed shm batch descriptor")
        return found[1], found[2].decode(), numbers

    def _use(self, name: str, numbers: list[int], use: Callable[[ReadArena, int, int], T]) -> T:
        """``use(arena, start, nbytes)`` on the reader's descriptor of arena ``name``, counting
        one more allocation seen; then closes the descriptors of arenas whose streams are over
        and all of whose allocations were seen, never one that another thread reads."""
        size, start, nbytes = numbers
        with self._lock:
            arena = self._arenas.get(name)
            if arena is None:
                arena = self._arenas[name] = ReadArena(open_and_unlink(name, size, writable=True), size)
            if not arena.holds(start, nbytes):
                raise ProtocolError(f"allocation {start}+{nbytes} outside arena {name}")
            arena.seen += 1
            arena.users += 1
        try:
            return use(arena, start, nbytes)
        finally:
            with self._lock:
                arena.users -= 1
                for done in [n for n, a in self._arenas.items() if not a.users and (self._closed or a.over())]:
                    self._arenas.pop(done).close()

    def unpack(self, frames: Sequence[Frame], schema: pa.Schema) -> pa.RecordBatch:
        kind, name, numbers = self._parse(frames)
        if kind == b"ipc":
            return read_ipc(frames[1], schema)
        if kind == b"mem":
            batch = self._local.batches.pop(name, None)
            if batch is None:
                raise ConnectionLost(f"batch {name} is gone: its worker closed")
            return batch
        if kind == b"shm":
            fd = open_and_unlink(name, numbers[0], writable=False)
            try:
                return read_ipc(read_at(fd, 0, numbers[0]), schema)
            finally:
                os.close(fd)
        # Validated on our own copy: what the producer writes into the arena later cannot
        # reach it (a double fetch), and the allocation is the producer's again at once.
        return read_ipc(self._use(name, numbers, ReadArena.read), schema)

    def discard(self, frames: Sequence[Frame]) -> None:
        with contextlib.suppress(ProtocolError, ConnectionLost):
            kind, name, numbers = self._parse(frames)
            if kind == b"arena":
                self._use(name, numbers, lambda arena, start, _nbytes: arena.free(start))
            elif kind != b"ipc":
                self._free([name])
