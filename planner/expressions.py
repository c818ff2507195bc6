"""The typed expression tree that travels inside task plans.

Expressions are data, not code: every node is a frozen pydantic model, every function name
comes from a closed allow-list, every identifier is checked before it can reach a SQL
generator, and every type name is drawn from a small grammar. A plan that names anything
else fails validation before a worker compiles or runs a single operator. The worker turns
these trees into SQL with a quoting generator; nothing here is ever formatted into SQL text.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from sparkwire.planner.limits import MAX_IN_LIST

MAX_IDENTIFIER_LENGTH = 255

_TYPE_NAMES = frozenset(
    {
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "float32",
        "float64",
        "string",
        "binary",
        "date",
        "timestamp",
    }
)
_DECIMAL = re.compile(r"decimal\((\d{1,2}),(\d{1,2})\)")


def check_identifier(name: str) -> str:
    """Refuse names that could escape identifier quoting or confuse a terminal.

    Quoting alone would make a double quote harmless, but a plan that carries one is either
    a bug or an attack, so it is refused outright with a message naming the reason.
    """
    if not name:
        raise ValueError("identifier must not be empty")
    if len(name) > MAX_IDENTIFIER_LENGTH:
        raise ValueError(f"identifier longer than {MAX_IDENTIFIER_LENGTH} characters")
    if '"' in name or "`" in name:
        raise ValueError(f"identifier {name!r} contains a quote character")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise ValueError(f"identifier {name!r} contains a control character")
    return name


def check_type_name(name: str) -> str:
    """Accept only the type names sparkwire knows how to cast to on every engine."""
    if name in _TYPE_NAMES:
        return name
    match = _DECIMAL.fullmatch(name)
    if match and 1 <= int(match[1]) <= 38 and int(match[2]) <= int(match[1]):
        return name
    raise ValueError(f"unknown type {name!r}; known: {sorted(_TYPE_NAMES)} and decimal(p,s)")


Identifier = Annotated[str, AfterValidator(check_identifier)]
TypeName = Annotated[str, AfterValidator(check_type_name)]

ScalarFunction = Literal[
    # arithmetic
    "add",
    "sub",
    "mul",
    "div",
    # exact decimal quotient: (a, b, scale) with a and b cast to their decimal types
    "decimal_div",
    "mod",
    "neg",
    # comparison
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    # logic and null handling
    "and",
    "or",
    "not",
    "is_null",
    "is_not_null",
    "in",
    "between",
    "coalesce",
    # strings
    "like",
    "substring",
    "concat",
    "trim",
    "ltrim",
    "rtrim",
    # dates
    "date_add",
    "add_months",
    # a few scalar helpers users reach for in filters
    "abs",
    "trunc",
    "lower",
    "upper",
    "length",
    "year",
    "month",
    "day",
]
AggregateFunction = Literal[
    "sum", "count", "avg", "min", "max", "count_distinct", "any_value", "quantile",
]


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
    kind: Literal["call"] = "call"
    fn: ScalarFunction
    args: tuple[Expr, ...] = Field(max_length=MAX_IN_LIST + 1)  # the longest: x IN (v1, ...)


class AggCall(Node):
    """An aggregate call; ``arg=None`` is ``count(*)``; ``quantile`` takes ``fraction``
    (the value at that fraction of the sorted input, one of its values)."""

    kind: Literal["aggregate"] = "aggregate"
    fn: AggregateFunction
    arg: Expr | None = None
    fraction: float | None = Field(default=None, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _fraction_for_quantile(self) -> AggCall:
        if (self.fn == "quantile") != (self.fraction is not None):
            raise ValueError("quantile takes a fraction, and only quantile does")
        return self


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


Expr = Annotated[
    Union[Column, Ref, Lit, Call, AggCall, Case, Cast],
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


for _model in (Call, AggCall, Case, Cast, NamedExpr, SortKey):
    _model.model_rebuild()
