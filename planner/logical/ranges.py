"""``session.range`` as a source the workers generate (``RangeSource``), split as Spark splits it.

Spark's ``RangeExec``: a range has ``n`` elements, ``ceil((end - start) / step)`` when
``step`` points from ``start`` towards ``end`` and none otherwise; slice ``i`` of ``k`` holds
elements ``i * n // k`` up to (not including) ``(i + 1) * n // k``, so slices differ by at
most one element and the rows come out in order, slice after slice. ``range(n)`` counts
from 0; every bound is a Java ``long``. The driver sends each task its slice as a range of
one partition (``task_slice``), so a billion rows cost a plan of four numbers.
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.limits import MAX_TASKS
from sparkwire.planner.logical.sources import RangeSource

_LONG = (-(2**63), 2**63)
#: Rows a task generates at least, unless ``numPartitions`` asks for more tasks: DuckDB
#: makes a million bigints in about a millisecond, less than a task costs to run.
ROWS_PER_TASK = 1_000_000


def range_source(start: int, end: int | None, step: int, partitions: int | None) -> RangeSource:
    """The source of ``session.range(start, end, step, numPartitions)``, its arguments
    checked as PySpark's signature allows them."""
    if end is None:
        start, end = 0, start
    for name, value in (("start", start), ("end", end), ("step", step)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise AnalysisError(f"range's {name} must be an int, got {value!r}")
        if not _LONG[0] <= value < _LONG[1]:
            raise AnalysisError(f"range's {name} {value} does not fit a bigint")
    if step == 0:
        raise AnalysisError("range's step must not be 0")
    if partitions is not None and (isinstance(partitions, bool) or not isinstance(partitions, int)
                                   or not 1 <= partitions <= MAX_TASKS):
        raise AnalysisError(f"range's numPartitions must be an int from 1 to {MAX_TASKS}, got {partitions!r}")
    return RangeSource(start=start, end=end, step=step, partitions=partitions)


def range_rows(op: RangeSource) -> int:
    """How many rows ``op`` yields."""
    if (op.end > op.start) != (op.step > 0) or op.end == op.start:
        return 0
    return -(-(op.end - op.start) // op.step)


def range_tasks(op: RangeSource, most: int) -> int:
    """How many tasks generate ``op``: its ``partitions`` when given, else one per
    ``ROWS_PER_TASK`` rows, at most ``most`` (the cluster's scan parallelism)."""
    if op.partitions is not None:
        return op.partitions
    return max(1, min(most, -(-range_rows(op) // ROWS_PER_TASK)))


def task_slice(op: RangeSource, task: int, tasks: int) -> RangeSource:
    """Slice ``task`` of ``tasks`` of ``op``, as a range of one partition. The last slice
    ends at ``op.end``: the element after the range's last may not fit a bigint."""
    n = range_rows(op)
    first = op.start + task * n // tasks * op.step
    end = op.end if task == tasks - 1 else op.start + (task + 1) * n // tasks * op.step
    return op.model_copy(update={"start": first, "end": end, "partitions": 1})
