"""One run's task plan: the stage's fragment narrowed to the task, its inputs as routed,
and the query's settings. Kept apart from ``execution`` so that what a worker is told is
built in one place, whichever path delivers it (the first delivery, a stage released at its
barrier, a recovery).
"""

from __future__ import annotations

from sparkwire.coordinator.scheduler import Run, Scheduler
from sparkwire.coordinator.taskplan import TaskPlan
from sparkwire.planner.logical.plan import Operator, operators, transform_up
from sparkwire.planner.logical.sources import FILE_SCANS, FileSplit, ParquetScan, RangeSource
from sparkwire.planner.logical.ranges import task_slice
from sparkwire.planner.logical.staged import Stage


def task_plan(scheduler: Scheduler, run: Run, query_id: str, report_to: str,
              cores: int) -> TaskPlan:
    """The plan a worker runs for ``run`` of the query ``scheduler`` places, on a cluster of
    ``cores``: a task of a stage running fewer tasks than the cores (as released, after
    adaptivity: ``Scheduler.plan``) is ``narrow``, and may run on its worker's wide database."""
    plan = scheduler.plan
    stage = plan.stages[run.stage]
    return TaskPlan(query_id=query_id, stage=run.stage, task=run.task,
                    attempt=run.attempt, fragment=narrow(stage, run.task),
                    inputs=scheduler.inputs(run), output=stage.output, keep=stage.keep,
                    ansi=plan.ansi, time_zone=plan.time_zone,
                    narrow=stage.tasks < cores,
                    report_to=report_to)


def narrow(stage: Stage, task: int) -> Operator:
    """The stage's fragment as task ``task`` runs it: each file scan restricted to the
    task's splits that are its own (two scans of a co-located join share a stage, and the
    two sides of a UNION ALL), a generated range to the task's slice."""

    def narrow(op: Operator) -> Operator:
        if isinstance(op, FILE_SCANS) and stage.splits:
            own = set(op.splits)
            mine = tuple(s for s in stage.splits[task] if s in own)
            if not mine and isinstance(op, ParquetScan):
                # a task of the other side of a UNION ALL stage: none of this scan's rows,
                # its schema from its first file (``planner.physical.stages``)
                mine = (FileSplit(path=op.splits[0].path, row_groups=()),)
            return op.model_copy(update={"splits": mine})
        if isinstance(op, RangeSource):
            return task_slice(op, task, stage.tasks)
        return op

    if not stage.splits and not any(isinstance(op, RangeSource) for op in operators(stage.fragment)):
        return stage.fragment
    return transform_up(stage.fragment, narrow)
