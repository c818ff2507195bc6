"""PySpark's array, map, struct and collection-aggregate functions, and the ``explode``
family: re-exported by ``planner.api.functions`` (``F.split``, ``F.collect_list`` ...).

Arguments follow PySpark: a ``str`` where a column is expected names a column, a plain
value where a value is expected is a literal. Regex patterns are user data: they travel as
string literals and are compiled here first (Python's ``re``, close to Spark's Java
dialect), so an invalid one is an ``AnalysisError`` naming it rather than a worker failure.

A generator (``explode`` ...) is a ``GeneratorColumn``: it may only stand as an item of
``select``, which plans it as a ``Generate`` operator; anything else built on it is refused.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Sequence

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.identifiers import check_identifier
from sparkwire.planner.logical import typenames
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import MAX_PERCENTAGES
from sparkwire.planner.api.column import Column, ColumnOrName, Value, _value, to_column
from sparkwire.planner.logical.render import struct_field_name

_DEFAULT_ACCURACY = 10000


def _call(fn: ex.ScalarFunction, *args: ex.Expr) -> Column:
    return Column(ex.Call(fn=fn, args=args))


def _columns(cols: tuple[ColumnOrName | Sequence[ColumnOrName], ...]) -> list[Column]:
    """PySpark accepts ``f(a, b)`` and ``f([a, b])``."""
    items = cols[0] if len(cols) == 1 and isinstance(cols[0], list | tuple) else cols
    return [to_column(c) for c in items]  # type: ignore[arg-type]


def split(str: ColumnOrName, pattern: str, limit: int = -1) -> Column:  # noqa: A002
    """Spark's ``split``: ``pattern`` is a regex; ``limit > 0`` gives at most ``limit``
    pieces, the last holding the rest; ``limit <= 0`` splits everywhere."""
    if not isinstance(pattern, builtins.str):
        raise AnalysisError("split takes its pattern as a string")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise AnalysisError(f"invalid regex pattern {pattern!r} for split: {exc}") from None
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise AnalysisError(f"split takes an int limit, got {limit!r}")
    return _call("split", to_column(str).expr, ex.Lit(value=pattern), ex.Lit(value=limit))


def array(*cols: ColumnOrName | Sequence[ColumnOrName]) -> Column:
    columns = _columns(cols)
    if not columns:
        raise AnalysisError("array() without columns is not supported by sparkwire")
    return _call("array", *(c.expr for c in columns))


def array_contains(col: ColumnOrName, value: Value) -> Column:
    return _call("array_contains", to_column(col).expr, _value(value))


def size(col: ColumnOrName) -> Column:
    """NULL for a NULL array or map (Spark 4 with ANSI on)."""
    return _call("size", to_column(col).expr)


def element_at(col: ColumnOrName, extraction: Value) -> Column:
    """1-based, negative from the end, for arrays (out of bounds fails); a key for maps."""
    return _call("element_at", to_column(col).expr, _value(extraction))


def get_item(col: Column, key: Value) -> Column:
    """``col[key]``: 0-based for arrays (out of bounds fails), a key for maps."""
    return _call("get_item", col.expr, _value(key))


def get_field(col: Column, name: str) -> Column:
    if not isinstance(name, builtins.str):
        raise AnalysisError("getField takes a field name")
    return _call("get_field", col.expr, ex.Lit(value=name))


def struct(*cols: ColumnOrName | Sequence[ColumnOrName]) -> Column:
    """Fields named by alias, by the column's or the struct field's own name, else
    ``col<position>`` (Spark)."""
    columns = _columns(cols)
    if not columns:
        raise AnalysisError("struct() without columns is not supported by sparkwire")
    args: list[ex.Expr] = []
    for position, c in enumerate(columns, start=1):
        if c.is_aliased or isinstance(c.expr, ex.Column | ex.Ref):
            name = c.output_name.rsplit(".", 1)[-1] if not c.is_aliased else c.output_name
        else:
            name = struct_field_name(c.expr, position)
        try:
            typenames.check_field_name(name)
        except ValueError as exc:
            raise AnalysisError(f"{exc}: such a field name is not supported by sparkwire") from None
        args += [ex.Lit(value=name), c.expr]
    return _call("named_struct", *args)


def create_map(*cols: ColumnOrName | Sequence[ColumnOrName]) -> Column:
    columns = _columns(cols)
    if not columns or len(columns) % 2:
        raise AnalysisError("create_map takes key, value pairs")
    return _call("create_map", *(c.expr for c in columns))


def map_keys(col: ColumnOrName) -> Column:
    return _call("map_keys", to_column(col).expr)


def map_values(col: ColumnOrName) -> Column:
    return _call("map_values", to_column(col).expr)


def array_distinct(col: ColumnOrName) -> Column:
    return _call("array_distinct", to_column(col).expr)


def sort_array(col: ColumnOrName, asc: bool = True) -> Column:
    """NULLs first ascending, last descending, as in Spark."""
    if not isinstance(asc, bool):
        raise AnalysisError("sort_array takes a bool asc")
    return _call("sort_array", to_column(col).expr, ex.Lit(value=asc))


def array_sort(col: ColumnOrName, comparator: object = None) -> Column:
    """Ascending with NULLs last, as Spark's ``array_sort`` without a comparator."""
    if comparator is not None:
        raise AnalysisError("array_sort with a comparator is not supported by sparkwire")
    return _call("array_sort", to_column(col).expr)


# -- aggregates ----------------------------------------------------------------------------
def _agg(fn: ex.AggregateFunction, col: ColumnOrName) -> Column:
    return Column(ex.AggCall(fn=fn, arg=to_column(col).expr))


def collect_list(col: ColumnOrName) -> Column:
    """NULLs skipped; the order is not defined (compare sorted)."""
    return _agg("collect_list", col)


def collect_set(col: ColumnOrName) -> Column:
    return _agg("collect_set", col)


def approx_count_distinct(col: ColumnOrName, rsd: float | None = None) -> Column:
    """Exact: a distinct count is within any relative error of itself."""
    if rsd is not None and not (isinstance(rsd, float | int) and 0 < rsd < 0.4):
        raise AnalysisError(f"approx_count_distinct takes an rsd between 0 and 0.4, got {rsd!r}")
    return _agg("approx_count_distinct", col)


approxCountDistinct = approx_count_distinct  # noqa: N816 - PySpark's name


def stddev(col: ColumnOrName) -> Column:
    return _agg("stddev", col)


def std(col: ColumnOrName) -> Column:
    return _agg("std", col)


def stddev_samp(col: ColumnOrName) -> Column:
    return _agg("stddev_samp", col)


def stddev_pop(col: ColumnOrName) -> Column:
    return _agg("stddev_pop", col)


def variance(col: ColumnOrName) -> Column:
    return _agg("variance", col)


def var_samp(col: ColumnOrName) -> Column:
    return _agg("var_samp", col)


def var_pop(col: ColumnOrName) -> Column:
    return _agg("var_pop", col)


def count_if(col: ColumnOrName) -> Column:
    return _agg("count_if", col)


def sum_distinct(col: ColumnOrName) -> Column:
    return _agg("sum_distinct", col)


sumDistinct = sum_distinct  # noqa: N816 - PySpark's name


def any_value(col: ColumnOrName, ignoreNulls: bool | Column | None = None) -> Column:  # noqa: N803
    """Some value of the group, NULLs included (Spark's default); ``ignoreNulls=True`` is
    not supported."""
    if ignoreNulls not in (None, False):
        raise AnalysisError("any_value(ignoreNulls=True) is not supported by sparkwire")
    return _agg("any_value", col)


def percentile_approx(
    col: ColumnOrName, percentage: float | Sequence[float], accuracy: int = _DEFAULT_ACCURACY,
) -> Column:
    """One of the input values (exact here; see ``worker.collections``); a list of
    percentages gives an array."""
    if isinstance(accuracy, bool) or not isinstance(accuracy, int) or not 0 < accuracy < 2**31:
        raise AnalysisError(f"percentile_approx takes a positive int accuracy, got {accuracy!r}")
    several = isinstance(percentage, list | tuple)
    values = list(percentage) if several else [percentage]  # type: ignore[list-item]
    if not values or len(values) > MAX_PERCENTAGES or not all(
        isinstance(p, float | int) and not isinstance(p, bool) and 0.0 <= p <= 1.0 for p in values
    ):
        raise AnalysisError(
            f"percentile_approx takes percentages between 0.0 and 1.0 (at most "
            f"{MAX_PERCENTAGES}), got {percentage!r}"
        )
    fractions = {"fractions": tuple(float(p) for p in values)} if several else {"fraction": float(values[0])}
    return Column(ex.AggCall(fn="percentile_approx", arg=to_column(col).expr, accuracy=accuracy,
                             **fractions))


# -- generators ----------------------------------------------------------------------------
class GeneratorColumn(Column):
    """``explode``/``posexplode`` (``outer``: keep NULL or empty collections as one row of
    NULLs) of the collection ``expr``; only a ``select`` item, named by ``alias(*names)``."""

    __slots__ = ("position", "outer", "names")

    def __init__(self, expr: ex.Expr, position: bool, outer: bool,
                 names: tuple[str, ...] | None = None) -> None:
        super().__init__(expr)
        self.position = position
        self.outer = outer
        self.names = names

    @property
    def function(self) -> str:
        return f"{'pos' if self.position else ''}explode{'_outer' if self.outer else ''}"

    def alias(self, *names: str) -> GeneratorColumn:  # type: ignore[override]
        for name in names:
            try:
                check_identifier(name)
            except ValueError as exc:
                raise AnalysisError(f"invalid column name: {exc}") from None
        return GeneratorColumn(self.expr, self.position, self.outer, tuple(names))

    def _call(self, fn: ex.ScalarFunction, *others: Value) -> Column:
        raise self._refused()

    def _rcall(self, fn: ex.ScalarFunction, other: Value) -> Column:
        raise self._refused()

    def cast(self, to: str) -> Column:
        raise self._refused()

    def _refused(self) -> AnalysisError:
        return AnalysisError(
            f"{self.function} can only be a select item on its own; expressions over a "
            "generator are not supported by sparkwire"
        )


def explode(col: ColumnOrName) -> GeneratorColumn:
    return GeneratorColumn(to_column(col).expr, position=False, outer=False)


def explode_outer(col: ColumnOrName) -> GeneratorColumn:
    return GeneratorColumn(to_column(col).expr, position=False, outer=True)


def posexplode(col: ColumnOrName) -> GeneratorColumn:
    return GeneratorColumn(to_column(col).expr, position=True, outer=False)


def posexplode_outer(col: ColumnOrName) -> GeneratorColumn:
    return GeneratorColumn(to_column(col).expr, position=True, outer=True)


__all__ = [
    "GeneratorColumn", "any_value", "approxCountDistinct", "approx_count_distinct", "array",
    "array_contains", "array_distinct", "array_sort", "collect_list", "collect_set", "count_if",
    "create_map", "element_at", "explode", "explode_outer", "map_keys", "map_values",
    "percentile_approx", "posexplode", "posexplode_outer", "size", "sort_array", "split",
    "std", "stddev", "stddev_pop", "stddev_samp", "struct", "sumDistinct", "sum_distinct",
    "var_pop", "var_samp", "variance",
]
