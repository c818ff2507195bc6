"""``df.describe(*cols)`` and ``df.summary(*statistics)``, formatted exactly as Spark does.

Both run at once (one aggregate query over every column and statistic) and return a small
DataFrame of strings held by the session: a ``summary`` column naming the statistic, then
one string column per described column. Spark's rules, each kept:

- without columns, the numeric and string columns are described (not booleans, dates ...);
- ``count`` counts non-null values; ``count_distinct`` distinct non-null ones;
- ``mean``, ``stddev`` (sample) and the percentiles read a string column as doubles, a
  value that is no number as NULL (Spark's lenient cast); ``mean`` of a decimal column is
  Spark's decimal ``avg`` (scale + 4), ``stddev`` always a double;
- ``min``/``max`` keep the column's own type (a string column's are strings);
- percentiles (``"25%"`` ...) are Spark's ``percentile_approx``, which for fewer rows than
  its accuracy (10000) is exact: the value at 1-based rank ``ceil(p * n)`` of the ``n``
  non-null values, integers staying integers and decimals becoming doubles. That is DuckDB's
  ``quantile_disc`` rank too; integers stay integers, decimals print in the column's scale
  (``0.00``). Two cases have no one Spark answer: with NaN among the values Spark's sketch
  ranks them its own way (sparkwire sorts NaN last, as Spark's sort does), and in some plan
  shapes Spark prints a decimal percentile as the double it computed (``0.0``, ``-3.5``;
  seen with one or two described columns), in others in the column's scale, as here.
- values print as Spark's cast to string does: integers and decimals plainly, doubles as
  Java's ``Double.toString`` (``1.0E8``, ``1.0E-5``, ``0.5``, ``NaN``, ``Infinity``).
"""

from __future__ import annotations

import decimal
import math
import re
from collections.abc import Sequence
from typing import Any, TypeVar

import pyarrow as pa

from sparkwire.planner.api.actions import FrameActions
from sparkwire.planner.api.frame import Frame
from sparkwire.planner.api.relations import local_relation
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.analyzer import Attribute
from sparkwire.planner.logical.expressions import AggCall, Call, Expr, NamedExpr
from sparkwire.planner.logical.plan import Aggregate

#: The frame described, whose statistics come back as a frame of its class (``planner.api.frame``).
FrameT = TypeVar("FrameT", bound=FrameActions)

DESCRIBE = ("count", "mean", "stddev", "min", "max")
SUMMARY = ("count", "mean", "stddev", "min", "25%", "50%", "75%", "max")
_PERCENTILE = re.compile(r"(\d+(?:\.\d+)?)%")


def describe(df: FrameT, cols: Sequence[str]) -> FrameT:
    return _statistics(df, _columns(df, cols), DESCRIBE)


def summary(df: FrameT, statistics: Sequence[str]) -> FrameT:
    return _statistics(df, _columns(df, ()), tuple(statistics) or SUMMARY)


def _columns(df: Frame, cols: Sequence[str]) -> list[Attribute]:
    if cols:
        return [df._scope.lookup(c) for c in cols]
    return [a for a in df._attrs if _numeric(a.type) or pa.types.is_string(a.type)]


def _numeric(t: pa.DataType) -> bool:
    return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)


def _as_number(attr: Attribute) -> Expr:
    """The column as the numbers its mean and stddev are taken of."""
    if pa.types.is_string(attr.type):
        return Call(fn="try_double", args=(attr.column,))
    return attr.column


def _call(statistic: str, attr: Attribute) -> AggCall:
    match statistic:
        case "count":
            return AggCall(fn="count", arg=attr.column)
        case "count_distinct" | "approx_count_distinct":
            return AggCall(fn="count_distinct", arg=attr.column)
        case "mean":
            return AggCall(fn="avg", arg=_as_number(attr))
        case "stddev":
            return AggCall(fn="stddev_samp", arg=_as_number(attr))
        case "min" | "max":
            return AggCall(fn=statistic, arg=attr.column)
    match = _PERCENTILE.fullmatch(statistic)
    if match is None or not 0 <= float(match[1]) <= 100:
        raise AnalysisError(
            f"statistic {statistic!r} is not supported by sparkwire; use count, mean, stddev, "
            "min, max, count_distinct, approx_count_distinct or a percentile such as '75%'"
        )
    return AggCall(fn="quantile", arg=_as_number(attr), fraction=float(match[1]) / 100)


def _statistics(df: FrameT, attrs: list[Attribute], statistics: tuple[str, ...]) -> FrameT:
    """One aggregate query computes every statistic now; its row becomes a local table,
    returned as a frame of ``df``'s class on its executor."""
    if not all(isinstance(s, str) for s in statistics):
        raise AnalysisError("statistics are names such as 'count' or '25%'")
    if any(a.name.casefold() == "summary" for a in attrs):
        raise AnalysisError("a column named 'summary' cannot be described")
    values: list[list[str | None]] = [[] for _ in attrs]
    if attrs:
        calls = tuple(
            NamedExpr(name=f"s{j}_{i}", expr=_call(statistic, attr))
            for i, attr in enumerate(attrs) for j, statistic in enumerate(statistics)
        )
        plan = Aggregate(input=df._plan, keys=(), aggregates=calls)
        typed = [Attribute(c.name, c.name, df._scope.type_of(c.expr)) for c in calls]
        row = df._derive(plan, typed).toArrow().to_pylist()[0]
        for i in range(len(attrs)):
            values[i] = [spark_string(row[f"s{j}_{i}"]) for j in range(len(statistics))]
    table = pa.table({"summary": pa.array(list(statistics), pa.string()),
                      **{a.name: pa.array(v, pa.string()) for a, v in zip(attrs, values, strict=True)}})
    result = local_relation(df._executor, table)
    return df._derive(result.plan, result.attrs)


def spark_string(value: Any) -> str | None:
    """A value as Spark's cast to string prints it."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return java_double(value)
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    return str(value)


def java_double(x: float) -> str:
    """Java's ``Double.toString``: plain between 1e-3 and 1e7, else ``d.dddE±n``; the
    shortest digits that read back as ``x`` (Python's ``repr`` digits)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign, digits, exponent = decimal.Decimal(repr(x)).normalize().as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits))
    point = len(text) + exponent  # digits before the decimal point
    minus = "-" if sign else ""
    if 1e-3 <= abs(x) < 1e7:
        if point <= 0:
            return f"{minus}0.{'0' * -point}{text}"
        if point >= len(text):
            return f"{minus}{text}{'0' * (point - len(text))}.0"
        return f"{minus}{text[:point]}.{text[point:]}"
    return f"{minus}{text[0]}.{text[1:] or '0'}E{point - 1}"
