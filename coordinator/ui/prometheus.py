"""``/metrics``: the recorder's totals in Prometheus' text format (``prometheus-client``).

A collector of its own reads the totals when scraped, into a ``CollectorRegistry`` of the
server's own (never the process-wide default, which a second session, or the user's own
metrics, would collide with): the query path counts plain integers under the recorder's
lock and never calls into the client library.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from sparkwire.coordinator.ui.recorder import Recorder

#: Counters straight from ``Recorder.totals``: name, help, the total's key.
_COUNTERS = (
    ("sparkwire_tasks_succeeded", "Task runs that ended well.", "tasks_succeeded"),
    ("sparkwire_tasks_failed", "Task runs that failed.", "tasks_failed"),
    ("sparkwire_task_reruns", "Task runs beyond the first, after a lost worker.", "task_reruns"),
    ("sparkwire_rows_out", "Rows written by task runs that ended well.", "rows_out"),
    ("sparkwire_bytes_out", "Bytes written by task runs that ended well.", "bytes_out"),
    ("sparkwire_spill_bytes", "Bytes of task output spilled to disk.", "spill_bytes"),
    ("sparkwire_queries_loaded", "Finished queries read back from ui.history_dir.", "queries_loaded"),
    ("sparkwire_history_skipped", "Finished queries the history thread was too far behind "
     "to compact or write.", "history_skipped"),
)
#: Per worker, from the workers page's rows (``workers.worker_rows``): name, help, the row's
#: key, and whether it is a counter (else a gauge).
_PER_WORKER = (
    ("sparkwire_worker_tasks", "Task runs that ended well, by worker.", "tasks", True),
    ("sparkwire_worker_tasks_failed", "Task runs that failed, by worker.", "failed", True),
    ("sparkwire_worker_bytes_out", "Bytes written by a worker's task runs.", "bytes_out", True),
    ("sparkwire_worker_bytes_in", "Bytes a worker's task runs read from producers.", "bytes_in", True),
    ("sparkwire_worker_spill_bytes", "Bytes of a worker's task output spilled to disk.", "spill", True),
    ("sparkwire_worker_live", "1 while the worker is live, 0 once known dead.", "live", False),
    ("sparkwire_worker_slots", "Tasks a worker runs at once.", "slots", False),
    ("sparkwire_worker_tasks_open", "Task runs delivered to a worker and not ended.", "open", False),
    ("sparkwire_worker_tasks_queued", "Of those, the ones beyond its slots (waiting).", "queued", False),
    ("sparkwire_worker_memory_bound_bytes", "The memory a worker holds to (worker.memory).",
     "memory_bound", False),
)
#: Per worker, gauges only for the workers that reported them (``workers._memory``).
_HEARD = (
    ("sparkwire_worker_memory_used_bytes", "Bytes a worker's memory accounting held (partition "
     "store, whole inputs) as its latest task run ended.", "memory_used"),
    ("sparkwire_worker_rss_bytes", "A worker process's resident set as its latest task run "
     "ended (not for workers inside the driver).", "rss"),
)
_STATES = ("started", "finished", "failed", "closed")


class _Totals(Collector):
    """The recorder's totals at the time of the scrape."""

    def __init__(self, recorder: Recorder, workers: Callable[[], list[dict[str, Any]]]) -> None:
        self._recorder = recorder
        self._workers = workers

    def collect(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily]:
        counts = self._recorder.counts()
        totals = counts.totals
        queries = CounterMetricFamily("sparkwire_queries", "Queries, by how they ended "
                                      "(started counts every start).", labels=["state"])
        for state in _STATES:
            queries.add_metric([state], totals[f"queries_{state}"])
        yield queries
        for name, text, key in _COUNTERS:
            yield CounterMetricFamily(name, text, value=totals[key])
        read = CounterMetricFamily("sparkwire_bytes_in", "Bytes tasks read from producers, "
                                   "by the way they travelled.", labels=["route"])
        for route, value in sorted(counts.bytes_in.items()):
            read.add_metric([route], value)
        yield read
        rows = self._workers()
        for name, text, key, counter in _PER_WORKER:
            family = (CounterMetricFamily if counter else GaugeMetricFamily)(name, text, labels=["worker"])
            for row in rows:
                family.add_metric([row["name"]], int(row[key]))
            yield family
        for name, text, key in _HEARD:
            gauge = GaugeMetricFamily(name, text, labels=["worker"])
            for row in rows:
                if row[key] is not None:
                    gauge.add_metric([row["name"]], row[key])
            yield gauge
        yield CounterMetricFamily("sparkwire_worker_losses", "Workers found lost, ever.",
                                  value=rows[0]["losses"] if rows else 0)
        yield GaugeMetricFamily("sparkwire_queries_running", "Queries running now.", value=counts.running)
        yield GaugeMetricFamily("sparkwire_queries_kept", "Finished queries the UI keeps.", value=counts.kept)


def registry_for(recorder: Recorder, workers: Callable[[], list[dict[str, Any]]]) -> CollectorRegistry:
    """A registry of its own holding the collector of the recorder's totals and the
    ``workers`` rows."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Totals(recorder, workers))
    return registry
