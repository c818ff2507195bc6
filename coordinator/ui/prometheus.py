"""``/metrics``: the recorder's totals in Prometheus' text format (``prometheus-client``).

A collector of its own reads the totals when scraped, into a ``CollectorRegistry`` of the
server's own (never the process-wide default, which a second session, or the user's own
metrics, would collide with): the query path counts plain integers under the recorder's
lock and never calls into the client library.
"""

from __future__ import annotations

from collections.abc import Iterator

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
)
_STATES = ("started", "finished", "failed", "closed")


class _Totals(Collector):
    """The recorder's totals at the time of the scrape."""

    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder

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
        per_worker = CounterMetricFamily("sparkwire_worker_tasks", "Task runs that ended well, "
                                         "by worker.", labels=["worker"])
        for worker, value in sorted(counts.tasks_by_worker.items()):
            per_worker.add_metric([worker], value)
        yield per_worker
        yield GaugeMetricFamily("sparkwire_queries_running", "Queries running now.", value=counts.running)
        yield GaugeMetricFamily("sparkwire_queries_kept", "Finished queries the UI keeps.", value=counts.kept)


def registry_for(recorder: Recorder) -> CollectorRegistry:
    """A registry of its own holding the recorder's collector."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Totals(recorder))
    return registry
