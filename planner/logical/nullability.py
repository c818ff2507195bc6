"""Which columns may hold NULL, as Spark's analyzer reports it (``df.schema``, ``printSchema``).

Spark gives every attribute a ``nullable`` flag, and nested types their own
(``ArrayType.containsNull``, ``MapType.valueContainsNull``, a struct field's ``nullable``);
users compare schemas with them (``df.schema == other.schema``) and hand them back to
``createDataFrame``. The planner needs none of this to run a query, so the flags are derived
here, on demand, by one walk over the logical plan as built, rather than carried on every
attribute by every operator.

Only what is certain is marked not nullable, the rules Spark's expressions follow: a
``range``'s ``id``; a column the user's table or schema declared not null; a non-NULL literal;
``count`` and its kin, ``row_number`` and the other ranks, ``grouping``; null tests; arrays,
maps and structs built from parts (their own flags from the parts'); ``collect_list``/
``collect_set`` (never NULL, no NULL element); arithmetic and comparisons of columns that are
not nullable; a cast that cannot fail. Everything else, and every column of a file, is
nullable, as Spark reports it; an outer join makes its optional side's columns nullable,
grouping sets their keys. Where a rule is missing the answer is "nullable", never a false
"not null".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sparkwire.planner.logical.expressions import (
    AggCall,
    Call,
    Case,
    Cast,
    Column,
    Expr,
    Grouping,
    Lit,
    Over,
    WindowCall,
)
from sparkwire.planner.logical.plan import (
    Aggregate,
    Expand,
    Filter,
    Generate,
    Join,
    Keep,
    Limit,
    Operator,
    Project,
    Repartition,
    RowSample,
    Sample,
    SetOperation,
    Sort,
    Window,
    output_columns,
)
from sparkwire.planner.logical.sources import LocalSource, RangeSource


@dataclass(frozen=True)
class Nulls:
    """A value's flags: ``nullable`` itself, and ``parts`` for its nested types in Arrow's
    order (an array's element; a map's key and value; a struct's fields), or none where
    nothing is known of them (then every nested part is nullable)."""

    nullable: bool = True
    parts: tuple[Nulls, ...] = ()

    def part(self, index: int) -> Nulls:
        return self.parts[index] if index < len(self.parts) else UNKNOWN

    def either(self, other: Nulls) -> Nulls:
        """Nullable where either is: a value that may come from both (a union's column)."""
        parts = tuple(a.either(b) for a, b in zip(self.parts, other.parts, strict=True)) \
            if len(self.parts) == len(other.parts) else ()
        return Nulls(self.nullable or other.nullable, parts)


UNKNOWN = Nulls()
NOT_NULL = Nulls(False)
Columns = Mapping[str, Nulls]

#: Null in, null out, and never null otherwise (Spark's null-intolerant expressions whose
#: ``nullable`` is their children's): arithmetic that cannot divide by zero, comparisons,
#: logic, and string functions of that kind.
_PROPAGATING = frozenset({
    "add", "sub", "mul", "neg", "abs", "eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not",
    "lower", "upper", "length", "concat", "trim", "ltrim", "rtrim", "initcap", "like", "rlike",
    "startswith", "endswith", "contains", "substring", "substr", "split",
})
_NEVER_NULL_CALLS = frozenset({"is_null", "is_not_null", "isnan", "eq_null_safe", "session_value", "collation",
                               "rand", "randn", "monotonically_increasing_id",
                               "spark_partition_id"})
_NEVER_NULL_AGGREGATES = frozenset({"count", "count_distinct", "count_if", "approx_count_distinct",
                                    "regr_count"})
_COLLECTING = frozenset({"collect_list", "collect_set"})
_RANKS = frozenset({"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile"})
_INTEGERS = ("int8", "int16", "int32", "int64")
_DIGITS = {"int8": 3, "int16": 5, "int32": 10, "int64": 20}


def column_nulls(plan: Operator) -> dict[str, Nulls]:
    """The flags of each output column of ``plan``, by its (internal) name."""
    return _operator(plan)


def _operator(op: Operator) -> dict[str, Nulls]:
    match op:
        case RangeSource():
            return {name: NOT_NULL for name in op.columns}
        case LocalSource():
            return {name: NOT_NULL if name in op.not_null else UNKNOWN for name in op.columns}
        case Project():
            given = _operator(op.input)
            return {c.name: expression_nulls(c.expr, given) for c in op.columns}
        case Aggregate():
            given = _operator(op.input)
            return {c.name: expression_nulls(c.expr, given) for c in (*op.keys, *op.aggregates)}
        case Expand():
            # every key is NULL in the sets that leave it out
            return {**_operator(op.input), **{k.name: UNKNOWN for k in op.keys}, op.grouping_id: NOT_NULL}
        case Window():
            given = _operator(op.input)
            return {**given, **{f.name: expression_nulls(f.function, given) for f in op.functions}}
        case Generate():
            return {**_operator(op.input), **_generated(op)}
        case Join():
            return _joined(op)
        case SetOperation():
            return _set_operation(op)
        case Filter() | Sort() | Limit() | Sample() | RowSample() | Repartition() | Keep():
            return _operator(op.input)
        case _:
            # files (nullable, as Spark reports every file column), caches, exchanges
            return {name: UNKNOWN for name in output_columns(op)}


def _generated(op: Generate) -> dict[str, Nulls]:
    """``explode`` and its kin: the position is never NULL, a map's key neither; an element
    or a value is NULL where the collection holds NULLs; ``_outer`` emits a row of NULLs."""
    source = expression_nulls(op.expr, _operator(op.input))
    if op.kind == "structs":  # inline: a field of an element, which may be NULL
        return {name: UNKNOWN for name in op.names}
    parts = [NOT_NULL] if op.position else []
    parts += [NOT_NULL, source.part(1)] if op.kind == "map" else [source.part(0)]
    return {name: UNKNOWN if op.outer else part for name, part in zip(op.names, parts, strict=True)}


def _joined(op: Join) -> dict[str, Nulls]:
    left, right = _operator(op.left), _operator(op.right)
    if op.how in ("semi", "anti"):
        return left
    if op.how in ("right", "full"):
        left = {name: UNKNOWN for name in left}
    if op.how in ("left", "full"):
        right = {name: UNKNOWN for name in right}
    return {**left, **right}


def _set_operation(op: SetOperation) -> dict[str, Nulls]:
    left = _operator(op.left)
    if op.kind != "union":
        return left if op.kind == "except" else {name: UNKNOWN for name in left}
    right = list(_operator(op.right).values())
    return {name: nulls.either(other) for (name, nulls), other in zip(left.items(), right, strict=True)}


def expression_nulls(expr: Expr | AggCall | WindowCall, columns: Columns) -> Nulls:
    """The flags of ``expr`` over columns with the given flags."""
    match expr:
        case Column():
            return columns.get(expr.name, UNKNOWN)
        case Lit():
            return Nulls(expr.value is None)
        case Grouping():
            return NOT_NULL
        case Cast():
            inner = expression_nulls(expr.expr, columns)
            return Nulls(inner.nullable) if _cannot_fail(expr) else UNKNOWN
        case Case():
            values = [v for _, v in expr.branches] + ([expr.otherwise] if expr.otherwise is not None else [])
            may_miss = expr.otherwise is None
            return Nulls(may_miss or any(expression_nulls(v, columns).nullable for v in values))
        case Call():
            return _call(expr, columns)
        case AggCall():
            return _aggregate(expr, columns)
        case WindowCall():
            return NOT_NULL if expr.fn in _RANKS else UNKNOWN
        case Over():
            return expression_nulls(expr.function, columns)
        case _:
            return UNKNOWN


def _call(call: Call, columns: Columns) -> Nulls:
    args = [expression_nulls(a, columns) for a in call.args]
    if call.fn in _NEVER_NULL_CALLS:
        return NOT_NULL
    if call.fn == "coalesce":
        return Nulls(all(a.nullable for a in args))
    if call.fn == "array":
        return Nulls(False, (Nulls(any(a.nullable for a in args)),))
    if call.fn == "named_struct":
        return Nulls(False, tuple(args[1::2]))
    if call.fn == "create_map":
        return Nulls(False, (NOT_NULL, Nulls(any(a.nullable for a in args[1::2]))))
    if call.fn == "split":
        return Nulls(any(a.nullable for a in args), (NOT_NULL,))
    if call.fn == "map_keys":
        return Nulls(args[0].nullable, (NOT_NULL,))
    if call.fn in _PROPAGATING:
        return Nulls(any(a.nullable for a in args))
    return UNKNOWN


def _aggregate(call: AggCall, columns: Columns) -> Nulls:
    if call.fn in _NEVER_NULL_AGGREGATES:
        return NOT_NULL
    if call.fn in _COLLECTING:
        element = expression_nulls(call.arg, columns) if call.arg is not None else UNKNOWN
        return Nulls(False, (Nulls(False, element.parts),))
    return UNKNOWN


def _cannot_fail(cast: Cast) -> bool:
    """A cast that gives a value for every value: to a string, or an integer widened (to a
    wider integer, a double, or a decimal with room for all its digits)."""
    if cast.to == "string":
        return True
    if cast.source not in _INTEGERS:
        return False
    if cast.to.startswith("decimal("):
        precision, scale = (int(n) for n in cast.to[len("decimal("):-1].split(","))
        return precision - scale >= _DIGITS[cast.source]
    return cast.to in _INTEGERS[_INTEGERS.index(cast.source):] or cast.to == "float64"
