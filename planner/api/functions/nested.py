"""PySpark's array, map, struct and collection-aggregate functions, and the ``explode``
family: re-exported by ``planner.api.functions`` (``F.split``, ``F.collect_list`` ...);
built, and their semantics written down, in ``planner.logical.functions.collections``,
``aggregates`` and ``generators``.

Arguments follow PySpark: a ``str`` where a column is expected names a column, a plain
value where a value is expected is a literal; several percentages of ``percentile_approx``
are an array of literals, as PySpark makes them.

A generator (``explode`` ...) is a ``GeneratorColumn``: it may only stand as an item of
``select``, which plans it as a ``Generate`` operator; anything else built on it is refused.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.functions import registry
from sparkwire.planner.logical.functions.collections import struct_of
from sparkwire.planner.logical.functions.generators import Generator
from sparkwire.planner.api.column import Column, ColumnOrName, StandaloneColumn, Value, _value, lit, to_column
from sparkwire.planner.api.functions.core import call, columns, percentages

_Columns = ColumnOrName | Sequence[ColumnOrName]


def split(str: ColumnOrName, pattern: str, limit: int = -1) -> Column:  # noqa: A002
    return call("split", to_column(str).expr, lit(pattern).expr, lit(limit).expr)


def array(*cols: _Columns) -> Column:
    return call("array", *(c.expr for c in columns(cols)))


def array_contains(col: ColumnOrName, value: Value) -> Column:
    return call("array_contains", to_column(col).expr, _value(value))


def size(col: ColumnOrName) -> Column:
    return call("size", to_column(col).expr)


def element_at(col: ColumnOrName, extraction: Value) -> Column:
    return call("element_at", to_column(col).expr, _value(extraction))


def struct(*cols: _Columns) -> Column:
    """Fields named by alias, by the column's or the struct field's own name, else
    ``col<position>`` (Spark)."""
    fields = [(c.expr, c.output_name if c.is_aliased else None) for c in columns(cols)]
    return Column(struct_of(fields))


def create_map(*cols: _Columns) -> Column:
    return call("create_map", *(c.expr for c in columns(cols)))


def map_keys(col: ColumnOrName) -> Column:
    return call("map_keys", to_column(col).expr)


def map_values(col: ColumnOrName) -> Column:
    return call("map_values", to_column(col).expr)


def array_distinct(col: ColumnOrName) -> Column:
    return call("array_distinct", to_column(col).expr)


def sort_array(col: ColumnOrName, asc: bool = True) -> Column:
    return call("sort_array", to_column(col).expr, lit(asc).expr)


def array_sort(col: ColumnOrName, comparator: object = None) -> Column:
    """Without a comparator only: a Python function has no expression."""
    if comparator is not None:
        raise AnalysisError("array_sort with a comparator is not supported by sparkwire")
    return call("array_sort", to_column(col).expr)


# -- aggregates ----------------------------------------------------------------------------
def collect_list(col: ColumnOrName) -> Column:
    return call("collect_list", to_column(col).expr)


def collect_set(col: ColumnOrName) -> Column:
    return call("collect_set", to_column(col).expr)


def approx_count_distinct(col: ColumnOrName, rsd: float | None = None) -> Column:
    relative = () if rsd is None else (lit(rsd).expr,)
    return call("approx_count_distinct", to_column(col).expr, *relative)


approxCountDistinct = approx_count_distinct  # noqa: N816 - PySpark's name


def count_if(col: ColumnOrName) -> Column:
    return call("count_if", to_column(col).expr)


def sum_distinct(col: ColumnOrName) -> Column:
    return call("sum_distinct", to_column(col).expr)


sumDistinct = sum_distinct  # noqa: N816 - PySpark's name


def any_value(col: ColumnOrName, ignoreNulls: bool | Column | None = None) -> Column:  # noqa: N803
    ignoring = () if ignoreNulls is None else (_value(ignoreNulls),)
    return call("any_value", to_column(col).expr, *ignoring)


def percentile_approx(
    col: ColumnOrName, percentage: float | Sequence[float], accuracy: int = 10000,
) -> Column:
    return call("percentile_approx", to_column(col).expr, percentages(percentage), lit(accuracy).expr)


# -- generators ----------------------------------------------------------------------------
class GeneratorColumn(StandaloneColumn):
    """A generator (``planner.logical.functions.generators``) as a select item; named by
    ``alias(*names)``, one name per column it makes."""

    __slots__ = ("generator",)

    def __init__(self, generator: Generator) -> None:
        super().__init__(generator.expr)
        self.generator = generator

    @property
    def position(self) -> bool:
        return self.generator.position

    @property
    def outer(self) -> bool:
        return self.generator.outer

    @property
    def names(self) -> tuple[str, ...] | None:
        return self.generator.names

    @property
    def function(self) -> str:
        return self.generator.function

    def alias(self, *names: str) -> GeneratorColumn:
        return GeneratorColumn(self.generator.named(*names))

    def _refused(self) -> AnalysisError:
        return AnalysisError(
            f"{self.function} can only be a select item on its own; expressions over a "
            "generator are not supported by sparkwire"
        )


def explode(col: ColumnOrName) -> GeneratorColumn:
    return GeneratorColumn(registry.generator("explode", to_column(col).expr))


def explode_outer(col: ColumnOrName) -> GeneratorColumn:
    return GeneratorColumn(registry.generator("explode_outer", to_column(col).expr))


def posexplode(col: ColumnOrName) -> GeneratorColumn:
    return GeneratorColumn(registry.generator("posexplode", to_column(col).expr))


def posexplode_outer(col: ColumnOrName) -> GeneratorColumn:
    return GeneratorColumn(registry.generator("posexplode_outer", to_column(col).expr))


def inline(col: ColumnOrName) -> GeneratorColumn:
    return GeneratorColumn(registry.generator("inline", to_column(col).expr))


def inline_outer(col: ColumnOrName) -> GeneratorColumn:
    return GeneratorColumn(registry.generator("inline_outer", to_column(col).expr))


__all__ = [
    "GeneratorColumn", "any_value", "approxCountDistinct", "approx_count_distinct", "array",
    "array_contains", "array_distinct", "array_sort", "collect_list", "collect_set", "count_if",
    "create_map", "element_at", "explode", "explode_outer", "inline", "inline_outer", "map_keys", "map_values",
    "percentile_approx", "posexplode", "posexplode_outer", "size", "sort_array", "split",
    "struct", "sumDistinct", "sum_distinct",
]
