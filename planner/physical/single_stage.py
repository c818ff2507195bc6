"""When a whole query is one stage of one task, not cut at all.

Distributing a small query only adds stages, hand-offs and a network hop per boundary to
work one DuckDB does in milliseconds. So a plan is one stage when everything it scans is at
most ``task_bytes`` (``small``), or when the stages it would be cut into run one task each,
or one task more than that in all (``serial``): one more task does not buy back the
hand-offs (TPC-DS SF1 on 2 workers: 40 queries cut into 3-25 stages of one task around one
scan of two ran in 0.79 of their time as one stage, CPU 0.78). Rows held by the driver are
published as a stage of their own, so a plan reading them (or repartitioning, keeping or
reading a cache) is always cut. Without ``task_bytes`` (0) plans are always cut.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparkwire.planner.logical.plan import Keep, Operator, Repartition, operators
from sparkwire.planner.logical.sources import FILE_SCANS, CachedSource, LocalSource, RangeSource
from sparkwire.planner.logical.staged import Boundary, Stage
from sparkwire.planner.optimizer.estimates import estimate_bytes, estimate_rows
from sparkwire.planner.physical.join_strategy import size_text

__all__ = ["serial", "small"]


def small(plan: Operator, task_bytes: int) -> Stage | None:
    """``plan`` as one stage when all it scans is at most ``task_bytes``, else None."""
    if not task_bytes:
        return None
    scanned = sum(estimate_bytes(n) for n in operators(plan) if isinstance(n, (*FILE_SCANS, RangeSource)))
    if scanned > task_bytes:
        return None
    return _whole(plan, f"one stage: all input ≈{size_text(scanned)}, at most task_bytes {size_text(task_bytes)}")


def serial(plan: Operator, stages: Sequence[Stage], task_bytes: int) -> Stage | None:
    """``plan`` as one stage when ``stages``, its cut, run at most one task more than one
    each, else None."""
    if not task_bytes or len(stages) < 2 or sum(s.tasks for s in stages) > len(stages) + 1:
        return None
    return _whole(plan, "one stage: the stages cut would run at most one task more than one each")


def _whole(plan: Operator, why: str) -> Stage | None:
    if any(isinstance(n, LocalSource | Repartition | Keep | CachedSource) for n in operators(plan)):
        return None
    return Stage(id=0, fragment=plan, tasks=1, output=Boundary(kind="result"),
                 estimated_rows=estimate_rows(plan), notes=(why,))
