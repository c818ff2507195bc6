"""The planning pipeline every query takes: analyze, optimize, cut.

Analysis happens as a DataFrame (or, later, a SQL statement) is built, in
``planner.analyzer``; this module runs the rest: the ordered rewrites of
``planner.rules.RULES``, then ``planner.stages.plan_stages``.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparkwire.planner.plan import Operator, StagedPlan
from sparkwire.planner.rules import optimize
from sparkwire.planner.stages import plan_stages


def plan_query(
    plan: Operator, columns: Sequence[str], workers: int, broadcast_threshold: int,
    range_sort_rows: int = 0, task_bytes: int = 0,
) -> StagedPlan:
    return plan_stages(optimize(plan), columns, workers, broadcast_threshold, range_sort_rows,
                       task_bytes)
