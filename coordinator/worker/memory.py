"""One worker's memory setting (``worker.memory``), shared out among what holds memory.

A worker holds data in four places that each have a limit of their own: the partition
store (beyond its share, batches spill to disk), DuckDB (``memory_limit``; beyond it, its
joins, aggregates and sorts spill to its temp directory), the transport's read-ahead
(each stream a task reads has a window of bytes sent but not yet consumed) and small
inputs read whole. Setting those apart invited a sum nobody checked; one setting cut into
fixed shares cannot over-commit. The shares, and why:

- **store 15 %** and **DuckDB 40 %**: DuckDB runs the joins, aggregates and sorts, so it
  gets the larger part (at 30 % a 128 MiB worker's joins ran out of memory); the store only
  has to hold what consumers have not read yet, and spills the rest.
- **read-ahead 10 %**, split over the streams a worker reads at once: each task slot reads
  one partition of each input stage at a time, and tasks read at most two stages (a join).
  A transport whose window can be set (``Capabilities.window_option``) gets that window;
  Flight's is fixed by gRPC (``Capabilities.max_inflight_bytes``).
- **whole inputs 5 %**, shared by the worker's tasks (``ByteBudget``): an exchange input
  that ends within what is left of it is read whole before its task's query starts, so
  DuckDB knows its rows when it orders the fragment's joins (``ExchangeInputs.whole``); its
  bytes are given back when the task ends. Split per stream, 5 % (12.8 MiB of 2 GiB each)
  kept TPC-H Q9's 24 MiB ``partsupp`` a stream, and DuckDB joined it first: 0.29 s became
  0.7 s; shared, 5 % holds it. At 10 % the 128 MiB worker of ``test_memory`` peaked within
  2-7 MiB of its bound.
- **a task's gathered output**, out of the store's share, not beside it: a task gathers its
  output's batches before cutting them into partitions (``worker.pieces``), counted in the
  store like written output, at most half the store's share over the task slots, so that
  the slots gathering at once leave the store half its share for what they wrote.
- **30 % headroom** for what no limit counts: allocator retention (Arrow's mimalloc and
  glibc keep freed pages for reuse), DuckDB's allocations outside its buffer manager,
  batches being split or serialised, Python objects. Measured on a shuffle 5x the
  cluster's memory, a 128 MiB worker peaked at 0.95 of its baseline plus the setting (at
  0.97-0.99 with a 20 % store share: too close to hold in every run); see
  ``benchmarks/reliability.py``.

A worker process sets its allocators once (``tune_process_memory``):

- it gives freed Arrow memory back to the system at once: with pyarrow's default mimalloc
  pool, pages freed by a finished batch stayed resident, and a worker with 128 MiB of memory
  peaked 90 MiB higher than with jemalloc purging immediately (393 against 300 MiB on the
  shuffle above), for no measurable difference in that query's time;
- it keeps up to one stream window of freed C heap: ZeroMQ receives every frame into a
  fresh ``malloc``, and glibc's adaptive trim threshold handed those pages back after each
  batch and faulted them in again for the next, about 15 % of a reader's CPU. Kept, 1 GiB
  zmq streams read at a median of 4.9-5.3 instead of 3.7-3.8 GB/s, and TPC-H SF1 over zmq
  took 2 % less. One window, not the whole read-ahead share: kept
  at the share (12.8 MiB), the 128 MiB workers above peaked at up to 127.8 MiB over their
  baseline, against 107.6-117.4 without keeping and 113.6-117.4 at one window (3.2 MiB).

The process's idle footprint (interpreter, libraries: ~115 MiB resident here) is the
baseline outside the setting, like a JVM's own memory outside Spark's executor memory.
"""

from __future__ import annotations

import ctypes
import os
import threading
from dataclasses import dataclass

import pyarrow as pa

from sparkwire.coordinator.config import WorkerSettings
from sparkwire.transport.wire import MIN_CHARGE

__all__ = ["ByteBudget", "MemoryPlan", "STREAMS_PER_SLOT", "resident_bytes", "tune_process_memory"]

STORE_SHARE = 0.15
ENGINE_SHARE = 0.40
READ_AHEAD_SHARE = 0.10
WHOLE_INPUT_SHARE = 0.05
#: Input streams a task reads at once: one partition of each of at most two stages.
STREAMS_PER_SLOT = 2
#: glibc's mallopt parameters, and the largest mmap threshold its adaptive rule would reach.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_GLIBC_MMAP_CEILING = 32 << 20
#: The smallest window the wire takes, and the unit windows are rounded down to; a batch
#: larger than a window still goes, alone.
MIN_WINDOW = MIN_CHARGE
#: Bytes of a memory page, the unit ``/proc/self/statm`` counts in (``resident_bytes``).
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass(frozen=True, slots=True)
class MemoryPlan:
    """Bytes for each holder of a worker's memory; ``window`` is per input stream,
    ``gather`` per task (and part of ``store``)."""

    store: int
    engine: int
    window: int
    whole_input: int
    gather: int

    @classmethod
    def of(cls, worker: WorkerSettings) -> MemoryPlan:
        total = int(worker.memory)
        streams = worker.task_slots * STREAMS_PER_SLOT
        store = int(total * STORE_SHARE)
        return cls(
            store=store,
            engine=int(total * ENGINE_SHARE),
            window=max(MIN_WINDOW, int(total * READ_AHEAD_SHARE) // streams // MIN_WINDOW * MIN_WINDOW),
            whole_input=int(total * WHOLE_INPUT_SHARE),
            gather=store // 2 // worker.task_slots,
        )


class ByteBudget:
    """A share of the worker's memory its tasks hold parts of at once: ``take`` what fits,
    ``give`` it back when done. Thread-safe."""

    def __init__(self, total: int) -> None:
        self._total = self._left = total
        self._lock = threading.Lock()

    @property
    def held(self) -> int:
        """Bytes taken and not given back: what the worker reports of this share."""
        with self._lock:
            return self._total - self._left

    def take(self, size: int) -> bool:
        """Hold ``size`` more bytes if they fit what is left; False (nothing taken) if not."""
        with self._lock:
            if size > self._left:
                return False
            self._left -= size
            return True

    def give(self, size: int) -> None:
        with self._lock:
            self._left += size


def resident_bytes() -> int | None:
    """This process's resident set now (``/proc/self/statm``'s second field, in pages): what
    a worker process reports beside its tracked bytes, to show what no share counts (the
    baseline, allocator retention). None where there is no ``/proc`` (not Linux). A read of
    one small file, ~10 us: cheap enough for every task's status, and the current size,
    where ``getrusage`` gives only the peak."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def tune_process_memory(plan: MemoryPlan) -> None:
    """Set this process's allocators for a worker (see the module docstring): Arrow's memory
    is jemalloc's, purged as soon as it is freed (pyarrow's system pool where jemalloc is not
    built in), and glibc keeps up to ``plan.window`` of freed heap for the next frames.
    For worker processes only: an embedding application's allocators are its business."""
    try:
        pool = pa.jemalloc_memory_pool()
        pa.jemalloc_set_decay_ms(0)
    except NotImplementedError:
        pool = pa.system_memory_pool()
    pa.set_memory_pool(pool)
    _keep_freed_heap(plan.window)


def _keep_freed_heap(nbytes: int) -> None:
    """glibc's ``mallopt``: allocations under ``nbytes`` come from the heap, and up to
    ``nbytes`` of free heap stays mapped, both at most glibc's ceiling for its own adaptive
    thresholds (which setting either one turns off). Elsewhere than glibc, nothing."""
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    mallopt(_M_MMAP_THRESHOLD, min(nbytes, _GLIBC_MMAP_CEILING))
    mallopt(_M_TRIM_THRESHOLD, min(nbytes, _GLIBC_MMAP_CEILING))
