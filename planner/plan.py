"""Relational operators and the staged plan.

One set of operator models serves two plans: the *logical* plan a DataFrame or SQL query
builds, and the *fragments* of a staged plan, which travel to workers inside task plans.
They differ in which operators they may hold (``LOGICAL_OPERATORS`` and ``TASK_OPERATORS``):
only a fragment reads an ``Exchange`` (the output of an earlier stage crossing a network
boundary), and logical-only operators are rewritten before stages are cut. Each model names
its input fields in ``INPUTS``; ``children`` and ``with_children`` are the one way every
walker (optimizer rules, the stage cutter, explain, the compiler) reaches a node's inputs,
so an operator with two inputs is handled wherever one with one input is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Annotated, ClassVar, Final, Literal, Union, assert_never

from pydantic import Field, model_validator

from sparkwire.planner.expressions import Expr, Identifier, NamedExpr, Node, SortKey
from sparkwire.planner.limits import MAX_PARTITIONS, MAX_STAGES, MAX_TASKS

PLAN_VERSION: Final = 1


class FileSplit(Node):
    """A Parquet file, or some of its row groups, read by one task."""

    path: str = Field(min_length=1, max_length=4096)
    row_groups: tuple[Annotated[int, Field(ge=0)], ...] | None = None


class ParquetScan(Node):
    INPUTS: ClassVar[tuple[str, ...]] = ()
    op: Literal["parquet_scan"] = "parquet_scan"
    splits: tuple[FileSplit, ...]
    columns: tuple[Identifier, ...]


class LocalSource(Node):
    """Rows the session holds in memory (``createDataFrame``), published by the driver."""

    INPUTS: ClassVar[tuple[str, ...]] = ()
    op: Literal["local_source"] = "local_source"
    source_id: Identifier
    chunks: int = Field(ge=1)
    columns: tuple[Identifier, ...]
    # The table's Arrow size and rows, for the planner's estimates.
    bytes: int = Field(default=0, ge=0)
    rows: int = Field(default=0, ge=0)


class Exchange(Node):
    """The output of producer stage ``stage`` arriving across a network boundary."""

    INPUTS: ClassVar[tuple[str, ...]] = ()
    op: Literal["exchange"] = "exchange"
    stage: int = Field(ge=0)
    columns: tuple[Identifier, ...]


class Filter(Node):
    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["filter"] = "filter"
    input: Operator
    predicate: Expr


class Project(Node):
    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["project"] = "project"
    input: Operator
    columns: tuple[NamedExpr, ...] = Field(min_length=1)


class Aggregate(Node):
    """Group by ``keys`` (empty: one global group) computing ``aggregates``."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["aggregate"] = "aggregate"
    input: Operator
    keys: tuple[NamedExpr, ...]
    aggregates: tuple[NamedExpr, ...]


class Sort(Node):
    """Order by ``keys``; with ``limit`` it is a top-k."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["sort"] = "sort"
    input: Operator
    keys: tuple[SortKey, ...] = Field(min_length=1)
    limit: int | None = Field(default=None, ge=0)


class Limit(Node):
    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["limit"] = "limit"
    input: Operator
    n: int = Field(ge=0)


class Sample(Node):
    """About ``rows`` rows of the input, drawn at random (a reservoir per task): the stage
    cutter samples sort keys with it to choose range bounds."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["sample"] = "sample"
    input: Operator
    rows: int = Field(ge=1, le=1_000_000)


JoinType = Literal["inner", "left", "right", "full", "semi", "anti", "cross"]


class Join(Node):
    """Rows of ``left`` and ``right`` where every ``left_keys[i] = right_keys[i]`` (SQL
    equality: a NULL key matches nothing) and the residual ``condition`` (over both sides'
    columns) holds.

    Output: the left columns then the right ones for inner, outer and cross joins; the left
    columns alone for ``semi`` and ``anti``. Column names are unique across both sides
    (the analyzer renames), so expressions name columns without qualifiers. ``null_aware``
    (an anti join with one key) has ``NOT IN`` semantics: a NULL among the right keys keeps
    no row, and a NULL left key is kept only when ``right`` is empty.
    """

    INPUTS: ClassVar[tuple[str, ...]] = ("left", "right")
    op: Literal["join"] = "join"
    left: Operator
    right: Operator
    how: JoinType
    left_keys: tuple[Expr, ...] = ()
    right_keys: tuple[Expr, ...] = ()
    condition: Expr | None = None
    null_aware: bool = False

    @model_validator(mode="after")
    def _keys_pair_up(self) -> Join:
        if len(self.left_keys) != len(self.right_keys):
            raise ValueError(
                f"{len(self.left_keys)} left keys but {len(self.right_keys)} right keys"
            )
        if self.how == "cross" and (self.left_keys or self.condition is not None):
            raise ValueError("a cross join has no keys and no condition")
        if self.null_aware and (self.how != "anti" or len(self.left_keys) != 1):
            raise ValueError("only an anti join on one key can be null-aware")
        return self


class SetOperation(Node):
    """``union``, ``intersect`` or ``except`` of two inputs with the same number of columns,
    matched by position; the output has the left input's names. Without ``all``, the result
    has no duplicate rows; rows compare NULL-equal, as in SQL set operations."""

    INPUTS: ClassVar[tuple[str, ...]] = ("left", "right")
    op: Literal["set_operation"] = "set_operation"
    left: Operator
    right: Operator
    kind: Literal["union", "intersect", "except"]
    all: bool = False


Operator = Annotated[
    Union[
        ParquetScan, LocalSource, Exchange, Filter, Project, Aggregate, Sort, Limit, Join,
        SetOperation, Sample,
    ],
    Field(discriminator="op"),
]


#: What a logical plan may hold; an ``Exchange`` exists only once stages are cut.
LOGICAL_OPERATORS: Final = (
    ParquetScan, LocalSource, Filter, Project, Aggregate, Sort, Limit, Join, SetOperation,
)
#: What a task's fragment may hold on the wire.
TASK_OPERATORS: Final = (
    ParquetScan, LocalSource, Exchange, Filter, Project, Aggregate, Sort, Limit, Join,
    SetOperation, Sample,
)


def children(op: Operator) -> tuple[Operator, ...]:
    """The inputs of ``op``, left to right."""
    return tuple(getattr(op, name) for name in op.INPUTS)


def with_children(op: Operator, inputs: Sequence[Operator]) -> Operator:
    """``op`` over new inputs, everything else kept."""
    if len(inputs) != len(op.INPUTS):
        raise ValueError(f"{type(op).__name__} takes {len(op.INPUTS)} input(s), got {len(inputs)}")
    if not inputs:
        return op
    return op.model_copy(update=dict(zip(op.INPUTS, inputs, strict=True)))


def operators(root: Operator) -> Iterator[Operator]:
    """Every operator of a tree, root first, then each input's subtree left to right;
    iterative, so a deep plan cannot overflow the stack."""
    stack: list[Operator] = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def output_columns(op: Operator) -> list[str]:
    """The names of ``op``'s output columns, in order."""
    match op:
        case ParquetScan() | LocalSource() | Exchange():
            return list(op.columns)
        case Project():
            return [c.name for c in op.columns]
        case Aggregate():
            return [k.name for k in op.keys] + [a.name for a in op.aggregates]
        case Filter() | Sort() | Limit() | Sample():
            return output_columns(op.input)
        case Join(how="semi" | "anti"):
            return output_columns(op.left)
        case Join():
            return output_columns(op.left) + output_columns(op.right)
        case SetOperation():
            return output_columns(op.left)
        case _:
            assert_never(op)


def transform_up(root: Operator, rewrite: Callable[[Operator], Operator]) -> Operator:
    """Rebuild ``root`` bottom-up, applying ``rewrite`` to each node after its inputs."""
    return rewrite(with_children(root, [transform_up(c, rewrite) for c in children(root)]))


def disallowed(root: Operator, allowed: tuple[type, ...]) -> list[str]:
    """Names of operators in ``root`` that are not of the ``allowed`` kinds."""
    return sorted({type(node).__name__ for node in operators(root) if not isinstance(node, allowed)})


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


for _model in (Filter, Project, Aggregate, Sort, Limit, Join, SetOperation, Sample):
    _model.model_rebuild()
