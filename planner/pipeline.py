"""The planning pipeline every query takes: analyze, optimize, cut.

Analysis happens as a DataFrame (or, later, a SQL statement) is built, in
``planner.logical.analyzer``; this module runs the rest: the ordered rewrites of
``planner.optimizer.rules.RULES``, then ``planner.physical.stages.plan_stages``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sparkwire.planner.errors import PlanError
from sparkwire.planner.limits import MAX_PLAN_DEPTH
from sparkwire.planner.optimizer.estimates import planning
from sparkwire.planner.logical.plan import Operator
from sparkwire.planner.logical.staged import StagedPlan
from sparkwire.planner.optimizer.rules import optimize
from sparkwire.planner.physical.stages import plan_stages
from sparkwire.planner.spark.timezones import DEFAULT_TIME_ZONE

if TYPE_CHECKING:
    from sparkwire.planner.api.executor import Executor


def plan_query(
    plan: Operator, columns: Sequence[str], workers: int, broadcast_threshold: int,
    range_sort_rows: int = 0, task_bytes: int = 0, ansi: bool = True,
    time_zone: str = DEFAULT_TIME_ZONE,
) -> StagedPlan:
    """The staged plan of ``plan``; ``ansi`` (Spark's ANSI mode) and ``time_zone`` (the
    session zone) travel in it to every task."""
    try:
        with planning():
            staged = plan_stages(optimize(plan), columns, workers, broadcast_threshold,
                                 range_sort_rows, task_bytes)
    except RecursionError:
        raise PlanError(
            f"the query nests too deep to plan (at most {MAX_PLAN_DEPTH} levels); break it into "
            f"steps, e.g. write an intermediate result"
        ) from None
    return staged.model_copy(update={"ansi": ansi, "time_zone": time_zone})


def plan_on(executor: Executor, plan: Operator, columns: Sequence[str]) -> StagedPlan:
    """``plan_query`` with every setting from the session that will run the plan, so a
    query, a cache and a write all run in the session's ANSI mode and time zone."""
    return plan_query(plan, columns, executor.workers, executor.broadcast_threshold,
                      executor.range_sort_rows, executor.task_bytes, executor.ansi,
                      executor.time_zone)
