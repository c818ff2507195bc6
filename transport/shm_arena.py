"""A stream's arena: one shared-memory segment used as a ring of batch allocations.

On small VMs mapping a fresh page costs more than copying it, so a stream writes its batches
into one segment of ``1.5 x credit_bytes`` that the producer maps once and the reader opens
once: the producer writes into pages already mapped, the reader copies each batch out. A finished stream's arena serves the same peer's next stream
(``shm_codec.ShmCodec.finish``): its pages stay faulted and the peer keeps its descriptor, since
faulting a fresh tmpfs page costs about ten times writing it. Layout, in 64-byte words (``HEADER``, also Arrow's alignment)::

    [retired, sent | allocation: state, IPC bytes | allocation | ...]

``retired`` says the stream is over, ``sent`` counts the allocations sent, so the reader closes
its descriptor once the stream is over and it saw them all. Each allocation's state word is set
by the producer and cleared by the reader once it has copied the batch out, and the producer
reuses released space in order.
"""

from __future__ import annotations

import mmap
import os
import struct
from collections import deque

import pyarrow as pa

from sparkwire.transport.shm_segments import create, read_at

HEADER = 64  # an arena's header (retired, sent) and each allocation's (state); Arrow's alignment


class Arena:
    """The producer's side of one stream's ring: allocations are reused in order once released."""

    def __init__(self, name: str, size: int) -> None:
        self.name, self.size = name, size
        fd = create(name)
        try:
            os.ftruncate(fd, size)
            self.map = mmap.mmap(fd, size)
        finally:
            os.close(fd)
        self.writable = memoryview(self.map)
        self.words = self.writable.cast("q")
        self.live: deque[int] = deque()
        self.head = HEADER

    def allocate(self, nbytes: int) -> int | None:
        """The offset of a free allocation for ``nbytes`` (state: in use), or ``None``."""
        need = HEADER + -(-nbytes // HEADER) * HEADER
        while self.live and self.words[self.live[0] // 8] == 0:
            self.live.popleft()
        if not self.live:
            start = HEADER if HEADER + need <= self.size else None
        elif self.live[-1] >= self.live[0]:  # free: [head, size) and [HEADER, oldest)
            start = self.head if self.head + need <= self.size else (
                HEADER if HEADER + need <= self.live[0] else None)
        else:  # wrapped: free is [head, oldest)
            start = self.head if self.head + need <= self.live[0] else None
        if start is not None:
            self.words[start // 8] = 1
            self.live.append(start)
            self.head = start + need
        return start

    def buffer(self, start: int, nbytes: int) -> pa.Buffer:
        """The writable bytes of the allocation at ``start``."""
        return pa.py_buffer(self.writable[start + HEADER:start + HEADER + nbytes])

    def free(self, start: int) -> None:
        """Give back an allocation that was never sent."""
        self.words[start // 8] = 0

    def sent(self) -> None:
        """One more allocation is on its way to the reader."""
        self.words[1] += 1

    def retire(self) -> None:
        """The stream is over: no more allocations, the reader may close its descriptor."""
        self.words[0] = 1


class ReadArena:
    """The reader's side of an arena: a descriptor, never a mapping. Each batch is copied out
    (``read_at``) and its allocation released at once, so the producer cannot change a batch
    after the reader validated it, nor fault the reader by truncating the segment; the copy
    is the price (about a memcpy: 0.6 of the shm transport's rate was one)."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd, self.size = fd, size
        self.seen = 0  # allocations the reader was sent
        self.users = 0  # threads reading it now: its descriptor stays open meanwhile

    def holds(self, start: int, nbytes: int) -> bool:
        """Whether an allocation of ``nbytes`` at ``start`` lies within the arena."""
        return HEADER <= start and start % HEADER == 0 and start + HEADER + nbytes <= self.size

    def over(self) -> bool:
        """The stream is over and every allocation it sent was seen: the descriptor can go."""
        header = os.pread(self.fd, 16, 0)
        if len(header) < 16:
            return True  # cut short by its producer: nothing more can be read from it
        retired, sent = struct.unpack("qq", header)
        return bool(retired) and self.seen >= sent

    def read(self, start: int, nbytes: int) -> pa.Buffer:
        """A copy of the ``nbytes`` allocated at ``start``, given back to the producer."""
        try:
            return read_at(self.fd, start + HEADER, nbytes)
        finally:
            self.free(start)

    def free(self, start: int) -> None:
        """Give back an allocation to the producer."""
        os.pwrite(self.fd, _FREE, start)

    def close(self) -> None:
        os.close(self.fd)


_FREE = bytes(8)
