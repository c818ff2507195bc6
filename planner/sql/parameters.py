"""``session.sql(query, args=...)``: parameter markers bound to values, as literals.

Spark's parameterized queries: ``args`` is a dict for named markers (``:name``) or a list
for positional ones (``?``), never both in one query; every marker must have a value and
a named value no marker uses is allowed. Each marker in the parsed tree is replaced by the
literal node of its value, the node SQL text writing that value parses into, so it is
typed and named as that literal would be (``1`` an int named ``1``, ``'a'`` a string):
values never pass through SQL text, so no value can change the query's shape.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from collections.abc import Mapping, Sequence

from sqlglot import exp

from sparkwire.planner.sql.errors import SqlError

Args = Mapping[str, object] | Sequence[object] | None


def bind(statement: exp.Expr, args: Args) -> exp.Expr:
    """``statement`` with each parameter marker replaced by the literal of its value."""
    markers = list(statement.find_all(exp.Placeholder, bfs=False))  # in the order written
    if not markers:
        return statement
    named = [m for m in markers if m.this]
    if named and len(named) != len(markers):
        raise SqlError("[UNBOUND_SQL_PARAMETER] a query takes named (:name) or positional (?) "
                       "parameters, not both")
    if named:
        values = _named(named, args)
    else:
        values = _positional(markers, args)
    for marker, value in zip(markers, values, strict=True):
        marker.replace(literal(value))
    return statement


def _named(markers: list[exp.Placeholder], args: Args) -> list[object]:
    if not isinstance(args, Mapping):
        raise SqlError("[UNBOUND_SQL_PARAMETER] named parameters (:name) need args as a dict")
    folded = {str(k): v for k, v in args.items()}
    missing = [m.name for m in markers if m.name not in folded]
    if missing:
        raise SqlError(f"[UNBOUND_SQL_PARAMETER] no value for the parameter :{missing[0]}")
    return [folded[m.name] for m in markers]


def _positional(markers: list[exp.Placeholder], args: Args) -> list[object]:
    if isinstance(args, Mapping) or isinstance(args, str | bytes) or args is None:
        raise SqlError("[UNBOUND_SQL_PARAMETER] positional parameters (?) need args as a list")
    values = list(args)
    if len(values) < len(markers):
        raise SqlError(f"[UNBOUND_SQL_PARAMETER] {len(markers)} parameters (?) but "
                       f"{len(values)} values")
    return values[: len(markers)]


def literal(value: object) -> exp.Expr:
    """The sqlglot node a Spark SQL literal of ``value`` parses into."""
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, int | decimal.Decimal):
        return exp.Literal.number(str(value))
    if isinstance(value, str):
        return exp.Literal.string(value)
    if isinstance(value, float):  # a double, as PySpark's lit(1.5): written with an exponent
        if not math.isfinite(value):
            return exp.cast(exp.Literal.string(str(value)), exp.DataType.Type.DOUBLE)
        text = repr(value)
        return exp.Literal.number(text if "e" in text else f"{text}E0")
    if isinstance(value, dt.datetime):
        return exp.cast(exp.Literal.string(value.isoformat(sep=" ")), exp.DataType.Type.TIMESTAMP)
    if isinstance(value, dt.date):
        return exp.cast(exp.Literal.string(value.isoformat()), exp.DataType.Type.DATE)
    raise SqlError(f"a SQL parameter must be None, a bool, int, float, Decimal, str, date or "
                   f"datetime, got {type(value).__name__}")
