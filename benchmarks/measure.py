"""The shape of a transport benchmark run and the instruments every measurement reads.

Shared by ``benchmarks.references`` and ``benchmarks.measurements`` so that a transport and
the reference it is judged against move the same bytes in the same batches and are timed,
summarised and checked the same way; a ratio between them is only meaningful if they do.

GB/s are 10^9 bytes per second of Arrow buffer bytes (``RecordBatch.nbytes``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import math
import os
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

COLUMNS = 4
BATCH_ROWS = 1 << 18                      # 4 x 2^18 x 8 B = 8 MiB batches
BATCH_BYTES = COLUMNS * BATCH_ROWS * 8
STREAMS = 4
READ_TIMEOUT = 60.0
START_TIMEOUT = 90.0                      # a child importing pyarrow on a busy 2-core box


@dataclass(frozen=True)
class Config:
    """Sizes and counts of one run; ``--quick`` shrinks them so a smoke run takes a minute."""

    quick: bool
    size: int                 # bytes of the one-stream partition, the shuffle and references
    repeats: int
    shuffle_width: int        # M = N
    latency_calls: int
    read_calls: int
    tiny_batches_local: int   # per-batch overhead, in-process transports
    tiny_batches_remote: int
    deadline: float           # watchdog per transport, seconds

    @classmethod
    def make(cls, quick: bool) -> Config:
        # 4 x 4 busy processes on 2 cores would measure the scheduler, not the transport.
        width = 4 if (os.cpu_count() or 1) >= 4 else 2
        if quick:
            return cls(True, 128 << 20, 2, width, 300, 100, 20_000, 2_000, 90.0)
        return cls(False, 1 << 30, 3, width, 2_000, 500, 100_000, 10_000, 240.0)


# -- rates and their summaries --------------------------------------------------------------

def gbps(nbytes: int, seconds: float) -> float:
    """10^9 bytes per second."""
    return nbytes / seconds / 1e9


def summary(rates: list[float]) -> dict[str, Any]:
    """Best and median of the timed rounds: best is the machine's capability, median its
    noise; and the rounds, in order."""
    return {"gbps": max(rates), "median_gbps": statistics.median(rates), "rates": rates}


def median_interval(values: list[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """A distribution-free confidence interval for the median of what ``values`` sample:
    their k-th smallest and k-th largest, for the largest k whose coverage is at least
    ``confidence`` (the true median lies outside only if fewer than k values fall on one
    side of it, a binomial tail of n fair coins), or the whole range where even that falls
    short.
    Returns (low, high, coverage): 9 values give the 2nd and 8th, at 96 %; 7 only their
    range, at 98 %."""
    ordered, n = sorted(values), len(values)

    def coverage(k: int) -> float:
        return 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2 ** n

    k = 1
    while 2 * (k + 1) <= n and coverage(k + 1) >= confidence:
        k += 1
    return ordered[k - 1], ordered[n - k], coverage(k)


def micros(samples_ns: list[int]) -> dict[str, float]:
    """p50 and p99 of per-call latencies, in microseconds."""
    ordered = sorted(samples_ns)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return {"p50_us": statistics.median(ordered) / 1e3, "p99_us": p99 / 1e3, "calls": len(ordered)}


def expect_rows(got: int, want: int, what: str) -> None:
    """A rate over lost rows would flatter the transport: fail the measurement instead."""
    if got != want:
        raise RuntimeError(f"{what}: read {got} rows, {want} were written")


def run_threads(fns: list[Callable[[], Any]], timeout: float) -> tuple[list[Any], float]:
    """Run ``fns`` at once; (their results, wall seconds). Re-raises the first failure, and
    bounds the wait so a stuck reader becomes an error rather than a hung benchmark."""
    results: list[Any] = [None] * len(fns)
    failures: list[BaseException] = []

    def run(i: int) -> None:
        try:
            results[i] = fns[i]()
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(fns))]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    elapsed = time.perf_counter() - started
    if failures:
        raise failures[0]
    if any(thread.is_alive() for thread in threads):
        raise TimeoutError(f"reader threads still running after {timeout:g}s")
    return results, elapsed


# -- reader memory --------------------------------------------------------------------------

def _status_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


try:
    _libc: Any = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    _libc.malloc_trim  # glibc only
except (OSError, AttributeError):
    _libc = None


class PeakRss:
    """Peak resident set growth of this process inside the ``with`` block, in MiB.

    ``VmHWM`` after resetting it through ``/proc/self/clear_refs`` (exact), or a 1 ms
    ``VmRSS`` sampler where that is refused; minus ``VmRSS`` at the start. For a zero-copy
    transport it includes the mapped shared pages.
    """

    def __enter__(self) -> PeakRss:
        # Return freed memory to the OS first, or pages the allocators kept from the warm-up
        # are reused and hide the reader's peak.
        gc.collect()
        pa.default_memory_pool().release_unused()
        if _libc is not None:
            _libc.malloc_trim(0)
        try:
            with open("/proc/self/clear_refs", "w") as refs:
                refs.write("5")  # reset VmHWM to the current RSS
            self.exact = True
        except OSError:
            self.exact = False
        self.base = _status_kib("VmRSS")
        self._peak = self.base
        self._stop = threading.Event()
        if not self.exact:
            self._sampler = threading.Thread(target=self._sample, daemon=True)
            self._sampler.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.001):
            self._peak = max(self._peak, _status_kib("VmRSS"))

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self.exact:
            self._peak = _status_kib("VmHWM")
        else:
            self._sampler.join(1.0)
        self.delta_mib = max(0, self._peak - self.base) / 1024
