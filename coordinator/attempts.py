"""A query survives the loss of a worker: it runs again, as a new attempt, on the live ones.

Ballista re-runs the tasks whose outputs died with a worker. Here stages are pipelined (every
task is delivered up front and consumers stream from producers while they run), so when a
worker is lost, every consumer that was reading from it has consumed part of a partition
that is gone, and so has every task downstream of those: re-running "just the lost tasks" is
re-running nearly the whole query, with bookkeeping that is easy to get wrong. So the unit of
retry is the query. An attempt is a fresh run under its own query id (``<id>-<attempt>``),
which every partition key carries, so no reader of one attempt can see another's partitions;
the failed attempt is cancelled everywhere first.

An attempt is retried when it failed and the cluster has lost a worker since the attempt
began (``Cluster.losses``, a count that only grows: a lost worker may be back before the
failure is looked at), within a short grace, up to ``MAX_ATTEMPTS`` attempts in all; before each, the cluster
replaces the workers it can (``ensure_workers``) and placement skips those it cannot. A
failure without a lost worker (a task's own error, a bad plan) is never retried: it would
fail again. Rows the caller already received cannot be taken back, so a worker lost after
the result began to return rows fails the query clearly instead of re-running it, which
would return those rows twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pyarrow as pa

from sparkwire.transport.closing import Closeable
from sparkwire.transport.errors import SparkwireError, TaskFailed

if TYPE_CHECKING:
    from sparkwire.coordinator.clusters.base import Cluster
    from sparkwire.coordinator.execution import QueryMetrics, QueryResult

MAX_ATTEMPTS = 4
# How long a failure waits for the cluster to notice a dead worker. By then the failed
# attempt has been cancelled (which waits for its watchers), a killed process is reaped at
# the first poll and a Spark lifeline is polled every 0.2 s; a failure of the query's own
# pays this once.
_LIVENESS_GRACE = 0.5


class RetriedResult(Closeable):
    """The result of the attempt that succeeds; see the module docstring."""

    def __init__(self, start: Callable[[int], QueryResult], cluster: Cluster) -> None:
        self._start, self._cluster = start, cluster
        self._attempt = 0
        self._losses_before = 0
        self._result = self._next(None)

    @property
    def schema(self) -> pa.Schema:
        return self._result.schema

    @property
    def metrics(self) -> QueryMetrics:
        return self._result.metrics

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        returned = False
        while True:
            try:
                for batch in self._result:
                    returned = returned or batch.num_rows > 0
                    yield batch
                return
            except SparkwireError as exc:
                self._result.close()
                if returned and self._worker_lost():
                    raise TaskFailed(
                        f"{exc} — a worker was lost after the query had returned rows, so it "
                        "is not run again (that would return those rows twice)"
                    ) from exc
                if returned:
                    raise
                self._result = self._next(exc)

    def _next(self, failure: SparkwireError | None) -> QueryResult:
        """A started attempt, retrying while attempts fail for a lost worker."""
        while True:
            if failure is not None and (self._attempt >= MAX_ATTEMPTS or not self._worker_lost()):
                raise failure
            self._attempt += 1
            self._losses_before = self._cluster.losses()
            try:
                result = self._start(self._attempt)
            except SparkwireError as exc:
                failure = exc
                continue
            result.metrics.attempts = self._attempt
            return result

    def _worker_lost(self) -> bool:
        """Whether a worker died during the current attempt (waiting a grace for news)."""
        deadline = time.monotonic() + _LIVENESS_GRACE
        while self._cluster.losses() <= self._losses_before:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)
        return True

    def close(self) -> None:
        self._result.close()
