"""The planning pipeline every query takes: analyze, optimize, cut.

Analysis happens as a DataFrame (or, later, a SQL statement) is built, in
``planner.logical.analyzer``; this module runs the rest: the ordered rewrites of
``planner.optimizer.rules.RULES``, then ``planner.physical.stages.plan_stages``.

What planning needs from the session that will run a plan is ``PlanSettings``, stated here
in the pipeline's own terms: the pipeline sits below the API, whose ``Executor`` (the
coordinator's Session) is one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sparkwire.planner.errors import PlanError
from sparkwire.planner.garbage import collection_paused
from sparkwire.planner.limits import MAX_PLAN_DEPTH
from sparkwire.planner.optimizer.estimates import planning
from sparkwire.planner.logical.plan import Operator
from sparkwire.planner.logical.staged import StagedPlan
from sparkwire.planner.optimizer.rules import optimize
from sparkwire.planner.physical.stages import plan_stages
from sparkwire.planner.spark.timezones import DEFAULT_TIME_ZONE


class PlanSettings(Protocol):
    """The session's settings a plan is cut by and carries to every task."""

    @property
    def cores(self) -> int:
        """CPU cores of the cluster, all workers' together: a stage runs at most one task
        per core, a shuffle at most one partition per core (``planner.physical.sizing``).
        Plans read cores, never the number of workers, so the same data on the same cores
        gets the same plan whether 2 or 16 workers share them."""

    @property
    def broadcast_threshold(self) -> int:
        """A join side estimated at most this many bytes is broadcast."""

    @property
    def range_sort_rows(self) -> int:
        """A full sort of at least this many (estimated) rows is range-partitioned; 0 never."""

    @property
    def task_bytes(self) -> int:
        """Estimated bytes per scan task and per shuffle partition; a query reading at most
        this is one stage; 0: a task per core and never one stage."""

    @property
    def ansi(self) -> bool:
        """Spark's ANSI mode (``spark.sql.ansi.enabled``): errors for division by zero,
        overflow and invalid casts; off, NULL. Carried to workers in the plan."""

    @property
    def time_zone(self) -> str:
        """Spark's session time zone (``spark.sql.session.timeZone``, ``planner.spark.timezones``):
        naive timestamps given to ``createDataFrame`` are wall clocks there; carried to
        workers in the plan."""


def plan_query(
    plan: Operator, columns: Sequence[str], cores: int, broadcast_threshold: int,
    range_sort_rows: int = 0, task_bytes: int = 0, ansi: bool = True,
    time_zone: str = DEFAULT_TIME_ZONE,
) -> StagedPlan:
    """The staged plan of ``plan``; ``ansi`` (Spark's ANSI mode) and ``time_zone`` (the
    session zone) travel in it to every task."""
    try:
        with collection_paused(), planning():
            staged = plan_stages(optimize(plan), columns, cores, broadcast_threshold,
                                 range_sort_rows, task_bytes)
    except RecursionError:
        raise PlanError(
            f"the query nests too deep to plan (at most {MAX_PLAN_DEPTH} levels); break it into "
            f"steps, e.g. write an intermediate result"
        ) from None
    return staged.model_copy(update={"ansi": ansi, "time_zone": time_zone})


def plan_on(session: PlanSettings, plan: Operator, columns: Sequence[str]) -> StagedPlan:
    """``plan_query`` with every setting from the session that will run the plan, so a
    query, a cache and a write all run in the session's ANSI mode and time zone."""
    return plan_query(plan, columns, session.cores, session.broadcast_threshold,
                      session.range_sort_rows, session.task_bytes, session.ansi,
                      session.time_zone)
