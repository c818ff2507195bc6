"""Relational operators and the staged plan.

One set of operator models serves three roles: the logical plan a DataFrame builds, the
fragment of one stage, and the fragment inside a task plan on the wire. Leaves are what make
the roles differ: a logical plan reads ``ParquetScan`` (all files) and ``LocalSource``
(a table the session holds); a stage fragment reads ``Exchange`` (the output of an earlier
stage crossing a network boundary); a task's fragment has its scan narrowed to its own splits.
Adding an operator (joins, unions) means adding a model here and a case in the compiler.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Final, Literal, Union

from pydantic import Field, model_validator

from sparkwire.planner.expressions import Expr, Identifier, NamedExpr, Node, SortKey

PLAN_VERSION: Final = 1


class FileSplit(Node):
    """A Parquet file, or some of its row groups, read by one task."""

    path: str = Field(min_length=1, max_length=4096)
    row_groups: tuple[Annotated[int, Field(ge=0)], ...] | None = None


class ParquetScan(Node):
    op: Literal["parquet_scan"] = "parquet_scan"
    splits: tuple[FileSplit, ...]
    columns: tuple[Identifier, ...]


class LocalSource(Node):
    """Rows the session holds in memory (``createDataFrame``), published by the driver."""

    op: Literal["local_source"] = "local_source"
    source_id: Identifier
    chunks: int = Field(ge=1)
    columns: tuple[Identifier, ...]


class Exchange(Node):
    """The output of producer stage ``stage`` arriving across a network boundary."""

    op: Literal["exchange"] = "exchange"
    stage: int = Field(ge=0)
    columns: tuple[Identifier, ...]


class Filter(Node):
    op: Literal["filter"] = "filter"
    input: Operator
    predicate: Expr


class Project(Node):
    op: Literal["project"] = "project"
    input: Operator
    columns: tuple[NamedExpr, ...] = Field(min_length=1)


class Aggregate(Node):
    """Group by ``keys`` (empty: one global group) computing ``aggregates``."""

    op: Literal["aggregate"] = "aggregate"
    input: Operator
    keys: tuple[NamedExpr, ...]
    aggregates: tuple[NamedExpr, ...]


class Sort(Node):
    """Order by ``keys``; with ``limit`` it is a top-k."""

    op: Literal["sort"] = "sort"
    input: Operator
    keys: tuple[SortKey, ...] = Field(min_length=1)
    limit: int | None = Field(default=None, ge=0)


class Limit(Node):
    op: Literal["limit"] = "limit"
    input: Operator
    n: int = Field(ge=0)


Operator = Annotated[
    Union[ParquetScan, LocalSource, Exchange, Filter, Project, Aggregate, Sort, Limit],
    Field(discriminator="op"),
]


def operators(root: Operator) -> Iterator[Operator]:
    """Every operator of a tree, root first; the one walk the planner, compiler and
    coordinator share, so a new operator with more inputs is handled in one place."""
    stack: list[Operator] = [root]
    while stack:
        node = stack.pop()
        yield node
        child = getattr(node, "input", None)
        if child is not None:
            stack.append(child)


class Boundary(Node):
    """How a stage's output reaches its consumer (routing formula: ``coordinator.routing``).

    ``shuffle`` hashes ``keys`` into ``partitions`` partitions; ``coalesce`` and ``broadcast``
    write one partition per task; ``result`` is the final stage's output, read by the
    coordinator task by task in order.
    """

    kind: Literal["shuffle", "coalesce", "broadcast", "result"]
    keys: tuple[Expr, ...] = ()
    partitions: int = Field(default=1, ge=1)


class Stage(Node):
    """A fragment that runs as ``tasks`` parallel tasks.

    ``splits[i]`` are the file splits task ``i`` scans (empty when the stage has no scan).
    A stage whose fragment is a bare ``LocalSource`` is published by the driver, not run.
    """

    id: int = Field(ge=0)
    fragment: Operator
    tasks: int = Field(ge=1)
    splits: tuple[tuple[FileSplit, ...], ...] = ()
    output: Boundary


class StagedPlan(Node):
    """Stages in dependency order: every stage comes after the stages it reads."""

    version: Literal[1] = PLAN_VERSION
    stages: tuple[Stage, ...] = Field(min_length=1)
    columns: tuple[Identifier, ...]

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


for _model in (Filter, Project, Aggregate, Sort, Limit):
    _model.model_rebuild()
