"""The workers page's rows and ``/metrics``' worker gauges: what the driver already knows.

Nothing here asks a worker anything: the rows come from the cluster (who is live, the
workers lost so far, the slots and memory bound every worker was started with) and from
the recorder (what each worker's task runs reported when they ended; the runs delivered to
it and not ended yet). A worker's memory in use rides on those reports too
(``TaskStatus.memory_bytes``, ``rss_bytes``): what its accounting held and its process's
resident set as its latest task run ended, shown with when that was. Polling each worker
for it would add a round trip per worker per look, and a new channel beside the one every
worker already reports on; the price is that an idle worker's numbers are as old as its
last task.
"""

from __future__ import annotations

from typing import Any

from sparkwire.coordinator.clusters.base import Cluster
from sparkwire.coordinator.ui.recorder import Memory, Recorder

#: The per-worker totals a row carries (``Recorder.per_worker``'s second key).
TOTALS = ("tasks", "failed", "bytes_out", "bytes_in", "spill")


def worker_rows(cluster: Cluster, recorder: Recorder) -> list[dict[str, Any]]:
    """One row per worker, the driver last (it runs the tasks over local data): address,
    name, live, slots, task runs open there and how many of them wait beyond its slots, its
    totals, the memory bound and its memory in use as last heard (``_memory``), and the
    workers the cluster lost so far (the same on each)."""
    dead = set(cluster.dead())
    counts = recorder.counts()
    slots = cluster.settings.worker.task_slots
    memory = int(cluster.settings.worker.memory)
    losses = cluster.losses()
    rows = []
    for address in [*cluster.addresses, cluster.driver_address]:
        name = cluster.names.get(address, address)
        open_runs = counts.open_runs.get(address, 0)
        rows.append({"address": address, "name": name, "live": address not in dead,
                     "slots": slots, "open": open_runs, "queued": max(0, open_runs - slots),
                     **{what: counts.per_worker.get((name, what), 0) for what in TOTALS},
                     "memory_bound": memory, "losses": losses, **_memory(counts.memory.get(name))})
    return rows


def _memory(heard: Memory | None) -> dict[str, Any]:
    """A row's memory in use: tracked bytes and RSS as its latest task run ended, and when
    (None for a worker that has run no task yet; RSS None for one inside the driver)."""
    if heard is None:
        return {"memory_used": None, "rss": None, "memory_at": None}
    return {"memory_used": heard.tracked, "rss": heard.rss, "memory_at": heard.at}
