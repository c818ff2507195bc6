"""A stream's arena: one shared-memory segment used as a ring of batch allocations.

On small VMs mapping a fresh page costs more than copying it, so a stream writes its batches
into one segment of ``1.5 x credit_bytes`` that both sides map once: the producer writes into
pages already mapped. A finished stream's arena serves the same peer's next stream
(``shm_codec.ShmCodec.finish``): its pages stay faulted and the peer keeps its mapping, since
faulting a fresh tmpfs page costs about ten times writing it. Layout, in 64-byte words (``HEADER``, also Arrow's alignment)::

    [retired, sent | allocation: state, IPC bytes | allocation | ...]

``retired`` says the stream is over, ``sent`` counts the allocations sent, so the reader drops
its mapping once the stream is over and it saw them all. Each allocation's state word is set by
the producer and cleared by the reader when its batch is garbage-collected
(``pa.foreign_buffer``'s base), and the producer reuses released space in order.
"""

from __future__ import annotations

import mmap
import os
from collections import deque

import pyarrow as pa

from sparkwire.transport.shm_segments import create

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
        """The stream is over: no more allocations, the reader may drop its mapping."""
        self.words[0] = 1


class MappedArena:
    """The reader's side of an arena: its mapping, and how many of its allocations it saw."""

    def __init__(self, mapped: mmap.mmap) -> None:
        self.words, self.buffer, self.seen = memoryview(mapped).cast("q"), pa.py_buffer(mapped), 0

    def holds(self, start: int, nbytes: int) -> bool:
        """Whether an allocation of ``nbytes`` at ``start`` lies within the arena."""
        return HEADER <= start and start % HEADER == 0 and start + HEADER + nbytes <= len(self.buffer)

    def over(self) -> bool:
        """The stream is over and every allocation it sent was seen: the mapping can go."""
        return bool(self.words[0]) and self.seen >= self.words[1]

    def batch_buffer(self, start: int, nbytes: int) -> pa.Buffer:
        """The bytes of the allocation at ``start``; freed for the producer with the buffer."""
        return pa.foreign_buffer(self.buffer.address + start + HEADER, nbytes, _Release(self.words, start // 8))

    def free(self, start: int) -> None:
        """Give back an allocation whose batch is never read."""
        self.words[start // 8] = 0


class _Release:
    """The base of a batch's buffer in an arena: marks the allocation free when Arrow drops it."""

    __slots__ = ("words", "at")

    def __init__(self, words: memoryview, at: int) -> None:
        self.words, self.at = words, at

    def __del__(self) -> None:
        self.words[self.at] = 0
