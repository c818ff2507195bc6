"""Relational operators, and the walkers every pass reaches them with.

One set of operator models serves two plans: the *logical* plan a DataFrame or SQL query
builds, and the *fragments* of a staged plan, which travel to workers inside task plans.
They differ in which operators they may hold (``LOGICAL_OPERATORS`` and ``TASK_OPERATORS``):
only a fragment reads an ``Exchange`` (the output of an earlier stage crossing a network
boundary), and logical-only operators are rewritten before stages are cut
(``planner.logical.staged`` holds the staged plan). The leaves that read data are in
``planner.logical.sources``. Each model names
its input fields in ``INPUTS``; ``children`` and ``with_children`` are the one way every
walker (optimizer rules, the stage cutter, explain, the compiler) reaches a node's inputs,
so an operator with two inputs is handled wherever one with one input is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Annotated, ClassVar, Final, Literal, TypeVar, Union, assert_never

from pydantic import Field, model_validator

from sparkwire.planner.logical.expressions import Expr, Identifier, NamedExpr, Node, SortKey, WindowItem
from sparkwire.planner.limits import (
    MAX_GROUPING_KEYS,
    MAX_GROUPING_SETS,
    MAX_PARTITIONS,
    MAX_STRUCT_FIELDS,
    MAX_WINDOW_KEYS,
)
from sparkwire.planner.logical.tree import has_aggregate
from sparkwire.planner.logical.sources import (CachedSource, CacheId, CsvScan, JsonScan, LocalSource,
                                               ParquetScan, RangeSource)

PLAN_VERSION: Final = 1


class Keep(Node):
    """Keep ``input``'s result as cache ``cache_id``: the stage cutter ends a stage here
    whose tasks' outputs the workers hold after the query (``Stage.keep``). Logical only."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["keep"] = "keep"
    input: Operator
    cache_id: CacheId


class Exchange(Node):
    """The output of producer stage ``stage`` arriving across a network boundary; ``whole``:
    every partition of every producer task, as a broadcast is read, from a stage that
    another consumer reads by partition (``planner.physical.sharing``)."""

    INPUTS: ClassVar[tuple[str, ...]] = ()
    op: Literal["exchange"] = "exchange"
    stage: int = Field(ge=0)
    columns: tuple[Identifier, ...]
    whole: bool = False


def _per_row(exprs: Iterable[Expr], where: str) -> None:
    """Only an ``Aggregate`` computes aggregate calls (a window its functions): one in a
    filter, projection or sort key is a planner bug, refused here, on the driver and by the
    worker's validation, so DuckDB never receives SQL it rejects or, worse, reads as a
    global aggregate."""
    for expr in exprs:
        if has_aggregate(expr):
            raise ValueError(f"an aggregate call in {where}, which computes per row")


class Filter(Node):
    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["filter"] = "filter"
    input: Operator
    predicate: Expr

    @model_validator(mode="after")
    def _no_aggregates(self) -> Filter:
        _per_row((self.predicate,), "a filter")
        return self


class Project(Node):
    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["project"] = "project"
    input: Operator
    columns: tuple[NamedExpr, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _no_aggregates(self) -> Project:
        _per_row((c.expr for c in self.columns), "a projection")
        return self


class Generate(Node):
    """PySpark's ``explode`` family in a ``select``: one output row per element of the
    array (``kind="array"``) or entry of the map (``kind="map"``) ``expr``, carrying the
    input row's columns, then ``names``: the element's 0-based position first when
    ``position``, then the element (an array) or its key and value (a map), or each field
    of the struct element in order (``kind="structs"``, ``inline``). A row whose
    collection is NULL or empty yields nothing, or with ``outer`` one row of NULLs."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["generate"] = "generate"
    input: Operator
    expr: Expr
    kind: Literal["array", "map", "structs"]
    position: bool = False
    outer: bool = False
    names: tuple[Identifier, ...] = Field(min_length=1, max_length=MAX_STRUCT_FIELDS)

    @model_validator(mode="after")
    def _one_name_per_output(self) -> Generate:
        if self.kind == "structs":  # inline: a name per field, the fields taken in order
            if self.position:
                raise ValueError("inline gives no positions")
            return self
        wanted = int(self.position) + (2 if self.kind == "map" else 1)
        if len(self.names) != wanted:
            raise ValueError(f"this generator makes {wanted} column(s), named {len(self.names)}")
        return self


class Expand(Node):
    """Grouping sets (Spark's ``Expand``): each input row once per set in ``sets``, with the
    input's columns passed through (aggregate calls read them), then ``keys`` (the group
    keys, each NULL in the sets that leave it out), then the set's grouping id under
    ``grouping_id`` (a bigint: bit ``len(keys) - 1 - i`` set when key ``i`` is not in the
    set, as Spark's ``spark_grouping_id``). An ``Aggregate`` on the keys and the id above
    it computes every set at once, in the ordinary two phases; the id tells a key NULLed
    here from a NULL key value. Each set's id appears once: two equal sets would merge in
    the aggregate."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["expand"] = "expand"
    input: Operator
    keys: tuple[NamedExpr, ...] = Field(min_length=1, max_length=MAX_GROUPING_KEYS)
    sets: tuple[int, ...] = Field(min_length=1, max_length=MAX_GROUPING_SETS)
    grouping_id: Identifier

    @model_validator(mode="after")
    def _sets_are_distinct_ids(self) -> Expand:
        if len(set(self.sets)) != len(self.sets):
            raise ValueError("each grouping set appears once")
        if not all(0 <= s < 1 << len(self.keys) for s in self.sets):
            raise ValueError(f"a grouping id of {len(self.keys)} keys is below {1 << len(self.keys)}")
        return self


class Aggregate(Node):
    """Group by ``keys`` (empty: one global group) computing ``aggregates``; ``local``: within
    each task only, its groups merged by an aggregate above (the stage cutter neither splits
    nor shuffles it: ``planner.optimizer.rules.expand``)."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["aggregate"] = "aggregate"
    input: Operator
    keys: tuple[NamedExpr, ...]
    aggregates: tuple[NamedExpr, ...]
    local: bool = False


class Sort(Node):
    """Order by ``keys``; with ``limit`` it is a top-k; ``local``: each task's rows sorted
    where they are, no shuffle (``df.sortWithinPartitions``)."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["sort"] = "sort"
    input: Operator
    keys: tuple[SortKey, ...] = Field(min_length=1)
    limit: int | None = Field(default=None, ge=0)
    local: bool = False

    @model_validator(mode="after")
    def _no_aggregates(self) -> Sort:
        _per_row((k.expr for k in self.keys), "a sort key")
        return self


class Limit(Node):
    """The input's first ``n`` rows after skipping ``offset`` (``LIMIT n OFFSET offset``);
    ``n`` None keeps every row past the offset (``df.offset``)."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["limit"] = "limit"
    input: Operator
    n: int | None = Field(ge=0)
    offset: int = Field(default=0, ge=0)

    @property
    def reach(self) -> int | None:
        """How many of the input's first rows the answer can come from: what each task
        keeps before the rows are gathered (None: all)."""
        return None if self.n is None else self.n + self.offset


class Sample(Node):
    """About ``rows`` rows of the input, drawn at random (a reservoir per task): the stage
    cutter samples sort keys with it to choose range bounds."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["sample"] = "sample"
    input: Operator
    rows: int = Field(ge=1, le=1_000_000)


class Window(Node):
    """Window functions over partitions of the input (Spark's ``Window`` operator): every
    input row, its columns passed through, then one column per item, computed over the
    rows sharing its ``partition_by`` values, ordered by ``order_by`` (no keys: one
    partition of every row). All items share the keys; each has its own frame. A task
    computing it must hold whole partitions (the stage cutter shuffles on the keys)."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["window"] = "window"
    input: Operator
    partition_by: tuple[Expr, ...] = Field(default=(), max_length=MAX_WINDOW_KEYS)
    order_by: tuple[SortKey, ...] = Field(default=(), max_length=MAX_WINDOW_KEYS)
    functions: tuple[WindowItem, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _no_aggregates(self) -> Window:
        _per_row((*self.partition_by, *(k.expr for k in self.order_by)), "a window key")
        return self


class RowSample(Node):
    """Each row of the input kept with probability ``fraction`` (``df.sample``), decided by
    a hash of the seed and the row's position in its task: the same input in the same
    tasks keeps the same rows. With ``lower``, the rows whose draw falls in
    ``[lower, fraction)``: the splits of ``df.randomSplit`` are disjoint and cover the input."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["row_sample"] = "row_sample"
    input: Operator
    fraction: float = Field(ge=0.0, le=1.0)
    seed: int = Field(ge=-(2**63), lt=2**63)
    lower: float = Field(default=0.0, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _ordered_bounds(self) -> RowSample:
        if self.lower > self.fraction:
            raise ValueError("a row sample's lower bound is above its fraction")
        return self


class Repartition(Node):
    """A stage boundary the user asked for: ``repartition(n, *keys)`` hashes rows on
    ``keys`` (all columns when none) into ``partitions`` tasks; ``coalesce(n)`` merges
    the input's tasks into at most ``partitions``. Logical only: the stage cutter turns
    it into a boundary."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["repartition"] = "repartition"
    input: Operator
    partitions: int = Field(ge=1, le=MAX_PARTITIONS)
    keys: tuple[Expr, ...] = ()
    coalesce: bool = False


class ParquetWrite(Node):
    """Each task writes its input rows to one Parquet file ``part-<task>-<job>.parquet``
    in ``directory`` (under the worker's data roots when it has any), the columns named
    ``names``, and outputs one row: the file's name and its row count."""

    INPUTS: ClassVar[tuple[str, ...]] = ("input",)
    op: Literal["parquet_write"] = "parquet_write"
    input: Operator
    directory: str = Field(min_length=1, max_length=4096)
    job: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    names: tuple[Identifier, ...] = Field(min_length=1)
    #: Columns (of ``names``) written as ``k=v`` directories, not into the files
    #: (``planner.spark.hive``); each task writes a file per directory it has rows for.
    partition_by: tuple[Identifier, ...] = ()

    @model_validator(mode="after")
    def _partitions_are_some_columns(self) -> ParquetWrite:
        if not set(self.partition_by) <= set(self.names) or len(set(self.partition_by)) != len(self.partition_by):
            raise ValueError("a write partitions by distinct columns it writes")
        if len(self.partition_by) == len(self.names):
            raise ValueError("a write cannot partition by every column")
        return self


#: The columns a ``ParquetWrite`` outputs.
WRITE_COLUMNS: Final = ("file", "rows")


JoinType = Literal["inner", "left", "right", "full", "semi", "anti", "cross"]


class Join(Node):
    """Rows of ``left`` and ``right`` where every ``left_keys[i] = right_keys[i]`` (SQL
    equality: a NULL key matches nothing) and the residual ``condition`` (over both sides'
    columns) holds.

    Output: the left columns then the right ones for inner, outer and cross joins; the left
    columns alone for ``semi`` and ``anti``. Column names are unique across both sides
    (the analyzer renames), so expressions name columns without qualifiers. ``null_aware``
    (an anti join with one key) has ``NOT IN`` semantics: a NULL among the right keys keeps
    no row, and a NULL left key is kept only when ``right`` is empty. ``broadcast`` names
    a side the user hinted to broadcast (``df.hint("broadcast")``, ``F.broadcast(df)``),
    broadcast whatever its estimated size where the join type allows
    (``planner.physical.join_strategy``).
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
    broadcast: Literal["left", "right"] | None = None

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


#: The set operations, as ``SetOperation.kind`` names them.
SetKind = Literal["union", "intersect", "except"]


class SetOperation(Node):
    """``union``, ``intersect`` or ``except`` of two inputs with the same number of columns,
    matched by position; the output has the left input's names. Without ``all``, the result
    has no duplicate rows; rows compare NULL-equal, as in SQL set operations."""

    INPUTS: ClassVar[tuple[str, ...]] = ("left", "right")
    op: Literal["set_operation"] = "set_operation"
    left: Operator
    right: Operator
    kind: SetKind
    all: bool = False


Operator = Annotated[
    Union[
        ParquetScan, CsvScan, JsonScan, LocalSource, Exchange, Filter, Project, Aggregate,
        Sort, Limit, Join, SetOperation, Sample, RowSample, Repartition, ParquetWrite,
        CachedSource, Keep, Window, Generate, RangeSource, Expand,
    ],
    Field(discriminator="op"),
]
#: One kind of operator, kept by ``with_children``.
OperatorT = TypeVar("OperatorT", bound=Operator)

#: What a logical plan may hold; an ``Exchange`` exists only once stages are cut.
LOGICAL_OPERATORS: Final = (
    ParquetScan, CsvScan, JsonScan, LocalSource, Filter, Project, Aggregate, Sort, Limit, Join,
    SetOperation, RowSample, Repartition, ParquetWrite, CachedSource, Keep, Window, Generate,
    RangeSource, Expand,
)
#: What a task's fragment may hold on the wire.
TASK_OPERATORS: Final = (
    ParquetScan, CsvScan, JsonScan, LocalSource, Exchange, Filter, Project, Aggregate, Sort,
    Limit, Join, SetOperation, Sample, RowSample, ParquetWrite, CachedSource, Window, Generate,
    RangeSource, Expand,
)


def children(op: Operator) -> tuple[Operator, ...]:
    """The inputs of ``op``, left to right."""
    names = op.INPUTS
    if len(names) == 1:  # most operators: no generator for every node of every rule's walk
        return (getattr(op, names[0]),)
    return tuple(getattr(op, name) for name in names)


def with_children(op: OperatorT, inputs: Sequence[Operator]) -> OperatorT:
    """``op`` over new inputs, everything else kept."""
    if len(inputs) != len(op.INPUTS):
        raise ValueError(f"{type(op).__name__} takes {len(op.INPUTS)} input(s), got {len(inputs)}")
    if len(inputs) == 1 and inputs[0] is getattr(op, op.INPUTS[0]):
        return op  # rebuilding trees bottom-up mostly hands each node its own inputs back
    if all(new is getattr(op, name) for name, new in zip(op.INPUTS, inputs, strict=True)):
        return op
    # Node's model_copy, called with op: the checker then keeps op's own operator class
    return Node.model_copy(op, update=dict(zip(op.INPUTS, inputs, strict=True)))


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
        case (ParquetScan() | CsvScan() | JsonScan() | LocalSource() | Exchange() | CachedSource()
              | RangeSource()):
            return list(op.columns)
        case ParquetWrite():
            return list(WRITE_COLUMNS)
        case Project():
            return [c.name for c in op.columns]
        case Aggregate():
            return [k.name for k in op.keys] + [a.name for a in op.aggregates]
        case Generate():
            return output_columns(op.input) + list(op.names)
        case Expand():
            return output_columns(op.input) + [k.name for k in op.keys] + [op.grouping_id]
        case Filter() | Sort() | Limit() | Sample() | RowSample() | Repartition() | Keep():
            return output_columns(op.input)
        case Join(how="semi" | "anti"):
            return output_columns(op.left)
        case Join():
            return output_columns(op.left) + output_columns(op.right)
        case SetOperation():
            return output_columns(op.left)
        case Window():
            return output_columns(op.input) + [f.name for f in op.functions]
        case _:
            assert_never(op)


def transform_up(root: Operator, rewrite: Callable[[Operator], Operator]) -> Operator:
    """Rebuild ``root`` bottom-up, applying ``rewrite`` to each node after its inputs."""
    return rewrite(with_children(root, [transform_up(c, rewrite) for c in children(root)]))


def disallowed(root: Operator, allowed: tuple[type, ...]) -> list[str]:
    """Names of operators in ``root`` that are not of the ``allowed`` kinds."""
    return sorted({type(node).__name__ for node in operators(root) if not isinstance(node, allowed)})


for _model in (Filter, Project, Aggregate, Sort, Limit, Join, SetOperation, Sample, RowSample,
               Repartition, ParquetWrite, Keep, Window, Generate, Expand):
    _model.model_rebuild()
