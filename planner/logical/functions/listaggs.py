"""``listagg``, ``string_agg`` and their ``_distinct`` forms: the group's non-NULL strings
joined by a delimiter, with Spark's semantics (``ListAgg``), compiled to DuckDB's
``string_agg`` by the worker (``coordinator.worker.compile.calls_listagg``); checked
against PySpark (``tests/spark/test_listaggs.py``).

- a value that is not a string is cast to one, as Spark casts it implicitly (the cast
  hidden from the name); a binary value (Spark's answer is binary) is not supported here;
- NULL values are skipped; a group of none (or only NULLs) is NULL; empty strings are
  values (``listagg`` of ``''`` and ``'a'`` with ``,`` is ``,a`` in some order);
- the delimiter is a string literal or NULL (nothing between values; PySpark's default),
  as Spark wants it foldable; a binary delimiter is not supported here;
- the order of the values is the group's arrival order, which Spark leaves unspecified,
  unless SQL's ``WITHIN GROUP (ORDER BY key)`` gives one key (``within_group``); with
  ``DISTINCT`` Spark wants that key to be the value itself, and so does this;
- ``string_agg`` is ``listagg`` under the name Spark shows (``string_agg(s, ,)``).
They have no merge: each aggregates once, after a shuffle on the keys
(``planner.physical.aggregates``).
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import AggCall, AggregateAlias, Cast, Expr, Lit, SortKey
from sparkwire.planner.logical.functions.base import Function, option, shown

_NO_DELIMITER = Lit(value=None)


def _separator(delimiter: Expr) -> str | None:
    value = option(delimiter)
    if value is not None and not isinstance(value, str):
        raise AnalysisError(f"listagg takes a string literal or NULL delimiter here (a column or a "
                            f"binary delimiter is not supported by sparkwire), got {shown(delimiter)}")
    return value


def _listagg(name: str, distinct: bool, alias: AggregateAlias | None) -> Function:
    def build(value: Expr, delimiter: Expr = _NO_DELIMITER) -> Expr:
        return AggCall(fn="listagg_distinct" if distinct else "listagg", arg=Cast(expr=value, to="string"),
                       separator=_separator(delimiter), alias=alias)

    return Function(name, build, 1, 2)


def within_group(call: AggCall, key: SortKey) -> AggCall:
    """``call`` (a ``listagg``) ordered by ``key``, as SQL's ``WITHIN GROUP (ORDER BY key)``."""
    if call.fn == "listagg_distinct" and (not isinstance(call.arg, Cast) or key.expr != call.arg.expr):
        raise AnalysisError("listagg(DISTINCT x) WITHIN GROUP orders by x itself only, as Spark's")
    return call.model_copy(update={"other": key.expr, "ascending": key.ascending,
                                   "nulls_first": key.nulls_first})


FUNCTIONS = (
    _listagg("listagg", False, None),
    _listagg("listagg_distinct", True, None),
    _listagg("string_agg", False, "string_agg"),
    _listagg("string_agg_distinct", True, "string_agg"),
)
