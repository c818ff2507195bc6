"""How many tasks a stage runs and how many partitions a shuffle cuts: from the bytes
it moves and the cluster's cores, never from how many workers share those cores.

The rule (``Sizing.tasks``), for a scan's tasks and a shuffle's partitions alike:

- one per ``task_bytes`` of estimated input (the columns a scan reads, compressed, from the
  footers; for a shuffle, the estimate of the rows it moves, in the same units), at least
  one;
- at most one per core of the cluster (``cores``: all workers' together), since tasks
  beyond the cores only queue, and each costs a DuckDB query, its inputs' registration and
  its own hash table of every broadcast it joins;
- whatever the cores, at least one per ``MAX_TASK_BYTES``, so that no task builds hash
  tables beyond its share of a worker's memory on large inputs;
- ``task_bytes`` 0 fans out to one per core (the tests of distribution use it);
- a shuffle at most ``MAX_SHUFFLE_PARTITIONS``; a scan as many as it has units to give
  (``planner.physical.splits``).

Why not per worker: partitions were ``2 * workers`` (one per worker below ``128 MiB`` scanned
per worker), so each of ``T`` producer tasks cut every batch into ``P`` pieces and a
consumer stage opened ``T * P`` inputs, growing as the square of the workers, and the plan
changed shape as workers were added to the same data on the same cores (issue 33: TPC-H
SF1 on 2 cores took 392 tasks and 2448 shuffle pieces at 16 in-process workers, 122 and
74 at 2). Sized by bytes and cores, a cluster of 2 or 16 workers on the same cores runs
the same plan, and a small shuffle stays a few partitions on any cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Whatever the cores, a task takes at most this many estimated bytes, for its hash tables'
#: sake. It keeps what the per-worker rule this one replaced measured: a worker scanning
#: over 128 MiB ran two tasks, not one (TPC-H SF10 Q7: 0.94 s with two tasks per worker,
#: 1.51 s with one), so 64 MiB a task.
MAX_TASK_BYTES = 64 << 20
#: Shuffle partitions at most, whatever the bytes and cores.
MAX_SHUFFLE_PARTITIONS = 256


@dataclass(frozen=True)
class Sizing:
    """The settings the rule reads: the cluster's ``cores``, and ``task_bytes`` per task
    (0: one task per core)."""

    cores: int
    task_bytes: int = 0

    def tasks(self, nbytes: int) -> int:
        """Tasks for ``nbytes`` of estimated input (the module's rule)."""
        wanted = self.cores if not self.task_bytes else min(self.cores, -(-nbytes // self.task_bytes))
        return max(1, wanted, -(-nbytes // MAX_TASK_BYTES))

    def partitions(self, nbytes: int) -> int:
        """Shuffle partitions for ``nbytes`` of estimated rows moved."""
        return min(self.tasks(nbytes), MAX_SHUFFLE_PARTITIONS)
