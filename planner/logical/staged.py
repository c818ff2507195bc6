"""The staged plan: a query cut at network boundaries into stages, each a fragment of
operators (``planner.logical.plan``) run as parallel tasks, and how each stage's output reaches its
consumer (``Boundary``). ``planner.physical.stages`` cuts it; the coordinator runs it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from sparkwire.planner.logical.expressions import Expr, Identifier, Node
from sparkwire.planner.limits import MAX_PARTITIONS, MAX_STAGES, MAX_TASKS
from sparkwire.planner.logical.plan import PLAN_VERSION, Operator
from sparkwire.planner.logical.sources import CacheId, FileSplit
from sparkwire.planner.spark.timezones import DEFAULT_TIME_ZONE, TimeZone


class Boundary(Node):
    """How a stage's output reaches its consumer (routing formula: ``coordinator.routing``).

    ``shuffle`` hashes ``keys`` into ``partitions`` partitions; ``range`` has one key whose
    value is the partition (a range of sort keys, computed by the plan); ``coalesce`` and
    ``broadcast`` write one partition per task; ``result`` is the final stage's output,
    read by the coordinator task by task in order.
    """

    kind: Literal["shuffle", "range", "coalesce", "broadcast", "result"]
    keys: tuple[Expr, ...] = ()
    partitions: int = Field(default=1, ge=1, le=MAX_PARTITIONS)


class Stage(Node):
    """A fragment that runs as ``tasks`` parallel tasks.

    ``splits[i]`` are the file splits task ``i`` scans (empty when the stage has no scan).
    A stage whose fragment is a bare ``LocalSource`` is published by the driver, not run.
    """

    id: int = Field(ge=0)
    fragment: Operator
    tasks: int = Field(ge=1, le=MAX_TASKS)
    splits: tuple[tuple[FileSplit, ...], ...] = ()
    output: Boundary
    # The cache whose chunks this stage's task outputs become (``Keep``); kept by the workers.
    keep: CacheId | None = None
    # For explain: the planner's row estimate and why it chose what it did (join strategies).
    estimated_rows: int = Field(default=0, ge=0)
    notes: tuple[str, ...] = ()


class StagedPlan(Node):
    """Stages in dependency order: every stage comes after the stages it reads."""

    version: Literal[1] = PLAN_VERSION
    stages: tuple[Stage, ...] = Field(min_length=1, max_length=MAX_STAGES)
    columns: tuple[Identifier, ...]
    #: Spark's ANSI mode: runtime errors (``DIVIDE_BY_ZERO``, ``CAST_INVALID_INPUT`` ...)
    #: where, off, Spark gives NULL; every task of the plan runs in this mode.
    ansi: bool = True
    #: The session time zone (``planner.spark.timezones``): how every task reads instants as
    #: wall clocks and back.
    time_zone: TimeZone = DEFAULT_TIME_ZONE

    @model_validator(mode="after")
    def _ids_are_positions(self) -> StagedPlan:
        """Stage ``i`` is ``stages[i]``, so routing can index stages by id."""
        for position, stage in enumerate(self.stages):
            if stage.id != position:
                raise ValueError(f"stage at position {position} has id {stage.id}")
        return self

    @property
    def final(self) -> Stage:
        return self.stages[-1]
