"""``Column``, the PySpark-style expression being built; ``planner.api.functions`` holds the
functions that build columns and re-exports these, as PySpark's ``functions`` module does.
Python values become typed literals by ``planner.logical.literals``, functions are built by
the registry (``planner.logical.functions``).

A ``Column`` is a thin, immutable wrapper around an ``expressions.Expr`` plus an optional
alias. Nothing is resolved here: ``F.col("x")`` names a column of whatever DataFrame it is
used with, which checks it when the expression is attached (PySpark's behaviour). Where an
operator or ``when``/``otherwise``/``isin``/``between`` expects a value, a ``str`` is a
literal, as in PySpark.
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, Union

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical import render, struct_updates
from sparkwire.planner.logical.functions import casts, registry
from sparkwire.planner.logical.functions.base import alias as checked_alias
from sparkwire.planner.logical.literals import literal
from sparkwire.planner.limits import check_in_list
from sparkwire.planner.errors import AnalysisError, plain_message
from sparkwire.planner.api.pyspark_names import COLUMN
from sparkwire.planner.api.quoting import name_parts
from sparkwire.planner.api.unsupported import missing_attribute

_literal = literal  # the name ``planner.api.na`` imports

ColumnOrName = Union["Column", str]
Value = Union["Column", bool, int, float, str, decimal.Decimal, dt.date, dt.datetime, None]
#: ``DataFrame.join``'s ``on``: column names, or Column conditions (ANDed), or None.
JoinOn = Union[str, Sequence[str], "Column", Sequence["Column"], None]


class SupportsOver(Protocol):
    """A window a column can be computed over (``planner.api.window.WindowSpec``)."""

    def over(self, column: Column) -> Column: ...


class Column:
    """An expression being built; combine with operators, finish with ``alias``/``desc``."""

    __slots__ = ("_expr", "_alias")

    def __init__(self, expr: ex.Expr, alias: str | None = None) -> None:
        self._expr = expr
        self._alias = alias

    @property
    def expr(self) -> ex.Expr:
        return self._expr

    @property
    def is_aliased(self) -> bool:
        return self._alias is not None

    @property
    def output_name(self) -> str:
        """The alias, or the name PySpark would give the expression."""
        return self._alias if self._alias is not None else render.output_name(self._expr)

    def __repr__(self) -> str:
        return f"Column<'{self.output_name}'>"

    def __bool__(self) -> bool:
        raise TypeError(
            "cannot convert a Column to bool: use '&' for 'and', '|' for 'or', '~' for 'not' "
            "and parenthesise comparisons, e.g. (F.col('a') > 1) & (F.col('b') < 2)"
        )

    def _call(self, fn: ex.ScalarFunction, *others: Value) -> Column:
        return Column(ex.Call(fn=fn, args=(self._expr, *(_value(o) for o in others))))

    def _rcall(self, fn: ex.ScalarFunction, other: Value) -> Column:
        return Column(ex.Call(fn=fn, args=(_value(other), self._expr)))

    def _function(self, name: str, *args: ex.Expr) -> Column:
        """The registry's function ``name`` of this column and ``args``
        (``planner.logical.functions``)."""
        return Column(registry.call(name, self._expr, *args))

    def __add__(self, other: Value) -> Column:
        return self._call("add", other)

    def __radd__(self, other: Value) -> Column:
        return self._rcall("add", other)

    def __sub__(self, other: Value) -> Column:
        return self._call("sub", other)

    def __rsub__(self, other: Value) -> Column:
        return self._rcall("sub", other)

    def __mul__(self, other: Value) -> Column:
        return self._call("mul", other)

    def __rmul__(self, other: Value) -> Column:
        return self._rcall("mul", other)

    def __truediv__(self, other: Value) -> Column:
        return self._call("div", other)

    def __rtruediv__(self, other: Value) -> Column:
        return self._rcall("div", other)

    def __mod__(self, other: Value) -> Column:
        return self._call("mod", other)

    def __rmod__(self, other: Value) -> Column:
        return self._rcall("mod", other)

    def __neg__(self) -> Column:
        return self._call("neg")

    # Comparisons build expressions, as in PySpark; so Column is unhashable.
    def __eq__(self, other: Value) -> Column:  # type: ignore[override]
        return self._call("eq", other)

    def __ne__(self, other: Value) -> Column:  # type: ignore[override]
        return self._call("ne", other)

    __hash__ = None  # type: ignore[assignment]

    def __lt__(self, other: Value) -> Column:
        return self._call("lt", other)

    def __le__(self, other: Value) -> Column:
        return self._call("le", other)

    def __gt__(self, other: Value) -> Column:
        return self._call("gt", other)

    def __ge__(self, other: Value) -> Column:
        return self._call("ge", other)

    def __and__(self, other: Value) -> Column:
        return self._call("and", other)

    def __rand__(self, other: Value) -> Column:
        return self._rcall("and", other)

    def __or__(self, other: Value) -> Column:
        return self._call("or", other)

    def __ror__(self, other: Value) -> Column:
        return self._rcall("or", other)

    def __invert__(self) -> Column:
        return self._call("not")

    def isNull(self) -> Column:
        return self._call("is_null")

    def isNotNull(self) -> Column:
        return self._call("is_not_null")

    def isin(self, *values: Value | list[Value] | tuple[Value, ...] | set[Value]) -> Column:
        """``isin(1, 2)`` or ``isin([1, 2])``."""
        first = values[0] if len(values) == 1 else None
        items = tuple(first) if isinstance(first, list | tuple | set) else values
        check_in_list(len(items))
        return self._call("in", *items)  # type: ignore[arg-type]

    def like(self, pattern: str) -> Column:
        """SQL LIKE: ``%`` any run of characters, ``_`` one character."""
        return self._call("like", pattern)

    def rlike(self, pattern: str) -> Column:
        """A Java regular expression found anywhere in the string (``planner.spark.regex``)."""
        return self._function("rlike", _value(pattern))

    def startswith(self, other: Value) -> Column:
        return self._function("startswith", _value(other))

    def endswith(self, other: Value) -> Column:
        return self._function("endswith", _value(other))

    def contains(self, other: Value) -> Column:
        return self._function("contains", _value(other))

    def ilike(self, other: str) -> Column:
        """SQL ILIKE: ``like`` ignoring case."""
        return self._function("ilike", _value(other))

    def isNaN(self) -> Column:  # noqa: N802 - PySpark's name
        """True for NaN, false for NULL and every other value (``F.isnan``)."""
        return self._call("isnan")

    def bitwiseAND(self, other: Value) -> Column:  # noqa: N802 - PySpark's name
        """``(a & b)`` of two integers, typed as the wider (``planner.logical.functions.bits``)."""
        return self._function("bitwise_and", _value(other))

    def bitwiseOR(self, other: Value) -> Column:  # noqa: N802 - PySpark's name
        return self._function("bitwise_or", _value(other))

    def bitwiseXOR(self, other: Value) -> Column:  # noqa: N802 - PySpark's name
        return self._function("bitwise_xor", _value(other))

    def transform(self, f: Callable[[Column], Column]) -> Column:
        """``f(self)``, PySpark 4.1's way to chain a function of a column."""
        result = f(self)
        if not isinstance(result, Column):
            raise AnalysisError(f"transform's function must return a Column, got {type(result).__name__}")
        return result

    def eqNullSafe(self, other: Value) -> Column:  # noqa: N802 - PySpark's name
        """``<=>``: true when both are NULL, false when one is."""
        return self._call("eq_null_safe", other)

    def substr(self, startPos: int | Column, length: int | Column) -> Column:  # noqa: N803
        """1-based; a negative start counts from the end (``planner.logical.functions.strings``)."""
        return self._function("substr", _value(startPos), _value(length))

    def between(self, lower: Value, upper: Value) -> Column:
        return self._call("between", lower, upper)

    def cast(self, to: str | object) -> Column:
        """``to`` is a type name (``"int"``, ``"decimal(10,2)"``) or a type object, ours
        (``sparkwire.types``) or PySpark's, read through its ``simpleString()``."""
        if not isinstance(to, str):
            simple = getattr(to, "simpleString", None)
            if simple is None:
                raise AnalysisError(f"cast takes a type name or a DataType, got {type(to).__name__}")
            to = str(simple())
        return Column(casts.cast(self._expr, to))

    def getItem(self, key: Value) -> Column:  # noqa: N802 - PySpark's name
        """An array's element (0-based) or a map's value."""
        return self._function("get_item", _value(key))

    def __getitem__(self, key: Value) -> Column:
        return self.getItem(key)

    def __iter__(self) -> None:
        # __getitem__ would otherwise make a Column iterable without end
        raise TypeError("Column is not iterable")

    def getField(self, name: str) -> Column:  # noqa: N802 - PySpark's name
        return self._function("get_field", lit(name).expr)

    def withField(self, fieldName: str, col: Column) -> Column:  # noqa: N802, N803 - PySpark's names
        """This struct with ``fieldName`` (dotted: nested) set (``planner.logical.struct_updates``)."""
        if not isinstance(col, Column):
            raise AnalysisError(f"withField takes a Column, got {type(col).__name__}")
        return Column(struct_updates.with_field(self._expr, fieldName, col.expr))

    def dropFields(self, *fieldNames: str) -> Column:  # noqa: N802, N803 - PySpark's names
        return Column(struct_updates.drop_fields(self._expr, *fieldNames))

    def __getattr__(self, name: str) -> Column:
        # Only called for missing attributes: a PySpark Column method sparkwire lacks says
        # so; any other name is a struct field (``F.col("s").field``), as in PySpark.
        if name.startswith("_") or name in COLUMN:
            raise missing_attribute("Column", name, COLUMN)
        return self.getField(name)

    astype = cast

    def over(self, window: SupportsOver) -> Column:
        """This aggregate or window function computed over ``window`` (``planner.api.window``)."""
        return window.over(self)

    def try_cast(self, to: str) -> Column:
        """``cast`` that gives NULL where the value cannot be cast, in ANSI mode too."""
        return Column(casts.cast(self._expr, to, safe=True))

    def alias(self, name: str) -> Column:
        return Column(self._expr, checked_alias(name))

    name = alias

    def asc(self) -> SortOrder:
        return SortOrder(self, ascending=True, nulls_first=True)

    def asc_nulls_first(self) -> SortOrder:
        return SortOrder(self, ascending=True, nulls_first=True)

    def asc_nulls_last(self) -> SortOrder:
        return SortOrder(self, ascending=True, nulls_first=False)

    def desc(self) -> SortOrder:
        return SortOrder(self, ascending=False, nulls_first=False)

    def desc_nulls_first(self) -> SortOrder:
        return SortOrder(self, ascending=False, nulls_first=True)

    def desc_nulls_last(self) -> SortOrder:
        return SortOrder(self, ascending=False, nulls_first=False)

    def when(self, condition: Column, value: Value) -> Column:
        case = self._open_case("when")
        branches = (*case.branches, (condition.expr, _value(value)))
        return Column(ex.Case(branches=branches))

    def otherwise(self, value: Value) -> Column:
        case = self._open_case("otherwise")
        return Column(ex.Case(branches=case.branches, otherwise=_value(value)))

    def _open_case(self, method: str) -> ex.Case:
        if isinstance(self._expr, ex.Case) and self._expr.otherwise is None and self._alias is None:
            return self._expr
        raise AnalysisError(f"{method}() can only follow F.when(...) or .when(...)")



class StandaloneColumn(Column):
    """A column that is a select item (or a grouping key) on its own and nothing else: a
    generator, a time window. Every expression built over it is refused with ``_refused``'s
    reason, as Spark's analyzer refuses them."""

    __slots__ = ()

    def _call(self, fn: ex.ScalarFunction, *others: Value) -> Column:
        raise self._refused()

    def _rcall(self, fn: ex.ScalarFunction, other: Value) -> Column:
        raise self._refused()

    def _function(self, name: str, *args: ex.Expr) -> Column:
        raise self._refused()

    def cast(self, to: str | object) -> Column:
        raise self._refused()

    def _refused(self) -> AnalysisError:
        return AnalysisError("this column can only be a select item on its own; an expression "
                             "over it is not supported by sparkwire")


@dataclass(frozen=True)
class SortOrder:
    """A column with a direction, for ``orderBy``; defaults follow PySpark (asc: nulls
    first, desc: nulls last)."""

    column: Column
    ascending: bool
    nulls_first: bool

    def key(self) -> ex.SortKey:
        return ex.SortKey(
            expr=self.column.expr, ascending=self.ascending, nulls_first=self.nulls_first
        )


def col(name: str) -> Column:
    """The column ``name``; a name in backticks (``"`a.b`"``, ``"`s`.f"``) is read as
    PySpark reads it (``planner.api.quoting``): its parts a column and the struct fields
    below it."""
    if "`" not in name:
        return Column(_named_column(name))
    parts = name_parts(name)
    if not any("." in p for p in parts):
        return Column(_named_column(".".join(parts)))
    expr: ex.Expr = _named_column(parts[0])
    for field in parts[1:]:
        expr = ex.Call(fn="get_field", args=(expr, ex.Lit(value=field)))
    return Column(expr)


def _named_column(name: str) -> ex.Column:
    try:
        return ex.Column(name=name)
    except ValueError as exc:
        raise AnalysisError(f"invalid column name: {plain_message(exc)}") from None


def lit(value: Value) -> Column:
    if isinstance(value, Column):
        return value
    return Column(_literal(value))


def to_column(value: ColumnOrName) -> Column:
    """A column given as a Column or as a column name."""
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return col(value)
    raise AnalysisError(
        f"expected a Column or a column name, got {type(value).__name__}", condition="NOT_EXPECTED_TYPE",
        parameters={"expected_type": "Column or str", "arg_name": "col", "arg_type": type(value).__name__})


def _value(value: Value) -> ex.Expr:
    return value.expr if isinstance(value, Column) else _literal(value)
