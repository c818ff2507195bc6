"""The typed expression tree that travels inside task plans.

Expressions are data, not code: every node is a frozen pydantic model, every function name
comes from a closed allow-list, every identifier is checked before it can reach a SQL
generator, and every type name is drawn from a small grammar. A plan that names anything
else fails validation before a worker compiles or runs a single operator. The worker turns
these trees into SQL with a quoting generator; nothing here is ever formatted into SQL text.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from sparkwire.planner.logical import typenames
from sparkwire.planner.logical.identifiers import check_identifier
from sparkwire.planner.limits import MAX_IN_LIST, MAX_WINDOW_KEYS, MAX_WINDOW_OFFSET
# The allow-lists live in ``function_names``; plans and function families read them here.
from sparkwire.planner.logical.function_names import (
    LISTAGGS as LISTAGGS,
    MAX_PERCENTAGES as MAX_PERCENTAGES,
    ORDERED_PICKS as ORDERED_PICKS,
    PAIR_AGGREGATES as PAIR_AGGREGATES,
    AggregateAlias as AggregateAlias,
    AggregateFunction as AggregateFunction,
    ScalarFunction as ScalarFunction,
    WindowFunction as WindowFunction,
)
from sparkwire.planner.logical.literal_args import CHECKS, NOT_LITERAL, check_literal_args


def check_type_name(name: str) -> str:
    """Accept only the type names sparkwire knows how to cast to on every engine: the
    grammar of ``planner.logical.typenames`` (leaves, ``decimal(p,s)``, bounded ``array<T>``,
    ``map<K,V>``, ``struct<name:T,...>``)."""
    typenames.parse(name)
    return name


Identifier = Annotated[str, AfterValidator(check_identifier)]
TypeName = Annotated[str, AfterValidator(check_type_name)]


class Node(BaseModel):
    """Base of every plan node: immutable, hashable and strict about unknown fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Column(Node):
    kind: Literal["column"] = "column"
    name: Identifier


class Ref(Node):
    """A column taken from a particular DataFrame (``df["x"]``, ``df.x``), before analysis.

    ``F.col("x")`` names a column of whatever DataFrame it is used with; ``df.x`` names that
    DataFrame's column even after a join puts two ``x`` side by side, which is how
    ``df1.id == df2.id`` tells its sides apart. The analyzer replaces every Ref by a
    ``Column``; a Ref never reaches a worker (the compiler refuses it).
    """

    kind: Literal["ref"] = "ref"
    name: Identifier
    plan_id: int = Field(ge=0)


class Lit(Node):
    """A constant. Decimals, dates and timestamps travel as ISO/decimal strings with a type."""

    kind: Literal["literal"] = "literal"
    value: bool | int | float | str | None
    type: TypeName | None = None


class Call(Node):
    """A scalar function call. Arguments that are user-written patterns (regular
    expressions, datetime patterns, format strings, units) must be literals and are checked
    here, so a worker validating a plan refuses a bad one before compiling it
    (``planner.logical.literal_args``)."""

    kind: Literal["call"] = "call"
    fn: ScalarFunction
    args: tuple[Expr, ...] = Field(max_length=MAX_IN_LIST + 1)  # the longest: x IN (v1, ...)

    @model_validator(mode="after")
    def _literal_arguments(self) -> Call:
        # Most calls (comparisons, arithmetic) have no pattern-like argument: listing their
        # arguments' literal values on every build was 5% of planning a TPC-DS query.
        if self.fn in CHECKS:
            check_literal_args(self.fn, [_literal_value(a) for a in self.args])
        return self


class AggCall(Node):
    """An aggregate call; ``arg=None`` is ``count(*)``; ``quantile`` takes ``fraction``
    (the value at that fraction of the sorted input, one of its values); ``first`` and
    ``last`` may skip NULLs (``ignore_nulls``), as Spark's ``first(x, ignorenulls)``;
    ``percentile_approx`` takes ``accuracy`` and either one ``fraction`` or several
    ``fractions`` (then its result is an array); ``covar_samp``, ``covar_pop`` and ``corr``
    take their second column as ``other`` (``PAIR_AGGREGATES``), ``max_by``/``min_by`` their
    ordering (``ORDERED_PICKS``); ``percentile`` takes one ``fraction`` or several;
    ``listagg``/``listagg_distinct`` (``LISTAGGS``) their ``separator`` (None: Spark's
    NULL delimiter, nothing between values) and, under ``WITHIN GROUP``, the key ordering
    the values as ``other``, sorted ``ascending`` with ``nulls_first`` as told."""

    kind: Literal["aggregate"] = "aggregate"
    fn: AggregateFunction
    arg: Expr | None = None
    fraction: float | None = Field(default=None, ge=0.0, le=1.0)
    ignore_nulls: bool = False
    fractions: tuple[Annotated[float, Field(ge=0.0, le=1.0)], ...] | None = Field(
        default=None, min_length=1, max_length=MAX_PERCENTAGES)
    accuracy: int | None = Field(default=None, ge=1, le=2**31 - 1)
    other: Expr | None = None
    #: how Spark names the call, where not after ``fn`` (the name only, never the value)
    alias: AggregateAlias | None = None
    separator: str | None = None
    ascending: bool = True
    nulls_first: bool = True

    @model_validator(mode="after")
    def _fraction_for_quantile(self) -> AggCall:
        percentile = self.fn in ("percentile_approx", "percentile")
        if self.fn == "quantile" and (self.fraction is None or self.fractions is not None):
            raise ValueError("quantile takes one fraction")
        if percentile and (self.fraction is None) == (self.fractions is None):
            raise ValueError(f"{self.fn} takes one fraction or several fractions")
        if not percentile and self.fn != "quantile" and (
            self.fraction is not None or self.fractions is not None
        ):
            raise ValueError("only quantile, percentile and percentile_approx take fractions")
        if (self.fn == "percentile_approx") != (self.accuracy is not None):
            raise ValueError("percentile_approx takes an accuracy, and only it does")
        if self.ignore_nulls and self.fn not in ("first", "last"):
            raise ValueError("only first and last can ignore NULLs")
        if self.fn not in LISTAGGS and (self.separator is not None or not self.ascending
                                        or not self.nulls_first):
            raise ValueError("only listagg takes a separator and an ordering")
        if self.fn in LISTAGGS:
            return self
        two = self.fn in PAIR_AGGREGATES | ORDERED_PICKS
        if two != (self.other is not None and self.arg is not None):
            raise ValueError(f"{self.fn} takes {'two columns' if two else 'one'}")
        return self


class WindowCall(Node):
    """A ranking or offset function, meaningful only over a window (``Over``).

    ``offset`` is the rows ``lag``/``lead`` look back or ahead (never negative: a
    negative lag is a lead), the buckets of ``ntile`` and the frame's row ``nth_value``
    reads (from 1); ``arg`` belongs to ``lag``/``lead``/``nth_value`` (the value read),
    ``default`` to ``lag``/``lead`` (what a missing row gives), ``ignore_nulls`` to
    ``nth_value`` (count only non-NULL values); ``counter_diff`` reads its counter as
    ``arg`` and may take a ``start`` time (the analyzer expands it into other window
    expressions, ``planner.logical.counter_diffs``, so no worker sees it)."""

    kind: Literal["window_call"] = "window_call"
    fn: WindowFunction
    arg: Expr | None = None
    offset: int = Field(default=1, ge=0, le=MAX_WINDOW_OFFSET)
    default: Expr | None = None
    ignore_nulls: bool = False
    start: Expr | None = None

    @model_validator(mode="after")
    def _arguments_fit(self) -> WindowCall:
        offsets = self.fn in ("lag", "lead")
        if (offsets or self.fn in ("nth_value", "counter_diff")) != (self.arg is not None):
            raise ValueError("lag, lead, nth_value and counter_diff read a column, and only they do")
        if self.start is not None and self.fn != "counter_diff":
            raise ValueError("only counter_diff takes a start time")
        if self.default is not None and not offsets:
            raise ValueError("only lag and lead take a default")
        if self.ignore_nulls and self.fn != "nth_value":
            raise ValueError("only nth_value ignores NULLs")
        if self.fn == "nth_value" and self.offset < 1:
            raise ValueError("nth_value reads a row from 1")
        if self.fn == "ntile" and self.offset < 1:
            raise ValueError("ntile needs at least one bucket")
        return self


class Frame(Node):
    """Which rows of its partition a window aggregate reads, relative to the current row:
    ``rows`` counts rows, ``range`` compares the (one) order key's value; ``None`` is
    unbounded (preceding for ``start``, following for ``end``), negative numbers precede."""

    unit: Literal["rows", "range"]
    start: int | None = Field(default=None, ge=-MAX_WINDOW_OFFSET, le=MAX_WINDOW_OFFSET)
    end: int | None = Field(default=None, ge=-MAX_WINDOW_OFFSET, le=MAX_WINDOW_OFFSET)

    @model_validator(mode="after")
    def _ordered_bounds(self) -> Frame:
        if self.start is not None and self.end is not None and self.start > self.end:
            raise ValueError("the lower bound of a window frame must not exceed its upper bound")
        return self


class Over(Node):
    """``function OVER (PARTITION BY ... ORDER BY ... frame)``, as a user writes it. The
    analyzer (``planner.logical.windowing``) moves every ``Over`` into a ``Window`` operator and
    leaves a column in its place: no ``Over`` reaches a worker (the compiler refuses it)."""

    kind: Literal["over"] = "over"
    function: Annotated[Union[AggCall, WindowCall], Field(discriminator="kind")]
    partition_by: tuple[Expr, ...] = Field(default=(), max_length=MAX_WINDOW_KEYS)
    order_by: tuple[SortKey, ...] = Field(default=(), max_length=MAX_WINDOW_KEYS)
    frame: Frame | None = None


class Grouping(Node):
    """``grouping(col)`` (``fn="grouping"``, one argument) or ``grouping_id(cols...)``, as a
    user writes them under ``ROLLUP``, ``CUBE`` or ``GROUPING SETS``, before analysis. The
    analyzer (``planner.logical.grouping_sets``) rewrites each into an expression over the
    grouping id column that ``Expand`` adds: no ``Grouping`` reaches a worker (the compiler
    refuses it)."""

    kind: Literal["grouping"] = "grouping"
    fn: Literal["grouping", "grouping_id"]
    args: tuple[Expr, ...] = Field(max_length=MAX_WINDOW_KEYS)

    @model_validator(mode="after")
    def _one_column_for_grouping(self) -> Grouping:
        if self.fn == "grouping" and len(self.args) != 1:
            raise ValueError("grouping takes one column")
        return self


class LambdaVar(Node):
    """A parameter of a lambda inside its body (``F.transform(a, lambda x: x + 1)``'s ``x``),
    its type filled in by the analyzer from the collection walked (``planner.logical.lambdas``)."""

    kind: Literal["lambda_var"] = "lambda_var"
    name: Identifier
    type: TypeName | None = None


class Lambda(Node):
    """The function argument of a higher-order function: its parameters, and its body."""

    kind: Literal["lambda"] = "lambda"
    params: tuple[Identifier, ...] = Field(min_length=1, max_length=3)
    body: Expr


class Case(Node):
    kind: Literal["case"] = "case"
    branches: tuple[tuple[Expr, Expr], ...] = Field(min_length=1)
    otherwise: Expr | None = None


class Cast(Node):
    """``CAST(expr AS to)``; ``source`` is the operand's type where the user asked for the
    cast (the analyzer fills it in), so the worker can follow Spark's rules for that pair;
    None for the planner's own casts, which DuckDB computes as Spark would. ``safe`` is
    ``try_cast``: NULL where the cast fails, in ANSI mode too."""

    kind: Literal["cast"] = "cast"
    expr: Expr
    to: TypeName
    source: TypeName | None = None
    safe: bool = False


def _literal_value(expr: Expr) -> object:
    """A literal argument's value, or ``NOT_LITERAL``."""
    return expr.value if isinstance(expr, Lit) else NOT_LITERAL


Expr = Annotated[
    Union[Column, Ref, Lit, Call, AggCall, Case, Cast, WindowCall, Over, Grouping, LambdaVar, Lambda],
    Field(discriminator="kind"),
]


class NamedExpr(Node):
    """An output column: an expression and the name it is given."""

    name: Identifier
    expr: Expr


class SortKey(Node):
    expr: Expr
    ascending: bool = True
    nulls_first: bool = False


class WindowItem(Node):
    """One output column of a ``Window`` operator: a window function or an aggregate
    (over ``frame``; ranking and offset functions have none, ``nth_value`` reads one as an
    aggregate does) under ``name``."""

    name: Identifier
    function: Annotated[Union[AggCall, WindowCall], Field(discriminator="kind")]
    frame: Frame | None = None

    @model_validator(mode="after")
    def _frame_for_aggregates(self) -> WindowItem:
        aggregate = isinstance(self.function, AggCall)
        framed = aggregate or self.function.fn == "nth_value"
        if framed != (self.frame is not None):
            raise ValueError("an aggregate over a window has a frame, a window function none")
        if aggregate and self.function.fn == "count_distinct":
            raise ValueError("count_distinct cannot run over a window")
        if not aggregate and self.function.fn == "counter_diff":
            raise ValueError("counter_diff reaches a plan written out into other window functions")
        return self


for _model in (Call, AggCall, WindowCall, Over, Grouping, Case, Cast, NamedExpr, SortKey, WindowItem):
    _model.model_rebuild()
