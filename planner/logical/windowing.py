"""Window expressions out of a projection, into ``Window`` operators (Spark's
``ExtractWindowExpressions``).

A ``select``/``withColumn`` (or a SQL SELECT list) may hold window expressions anywhere
inside its outputs (``F.sum("x").over(w) / 2``). Each distinct one is checked, given its
frame (``planner.logical.frames``), computed by a ``Window`` operator under the projection and
replaced by a column; expressions sharing partition and order keys share one operator, and
operators for different keys are stacked in order of first appearance. Checks, as Spark's
analyzer makes them:

- no ``DISTINCT`` aggregate over a window, no window or aggregate inside a window
  expression, and a window function (``row_number`` ...) only under ``OVER``;
- ranking and offset functions need ``ORDER BY`` and take no frame but their own;
- a ``RANGE`` frame bounded by a distance needs exactly one order key, of a numeric type
  (Spark also offsets dates by days; sparkwire refuses that);
- a ``lag``/``lead`` default takes the type of the value it stands in for;
- ``counter_diff`` is written out into other window expressions (``counter_diffs``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from sparkwire.planner.logical import counter_diffs, frames, types
from sparkwire.planner.logical.analyzer import Attribute, Scope, coerced
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import (
    AggCall,
    Call,
    Column,
    Expr,
    Lit,
    NamedExpr,
    Over,
    SortKey,
    WindowCall,
    WindowItem,
)
from sparkwire.planner.logical.plan import Operator, Project, Window
from sparkwire.planner.logical.render import output_name, sql
from sparkwire.planner.logical.tree import children, has_aggregate, has_window, transform

#: Aggregates that exist only grouped (sums of powers, ``planner.optimizer.rules.moments``;
#: the vector folds, several DuckDB aggregates under one expression); the worker has no
#: windowed form of them yet.
_NOT_OVER_WINDOWS = frozenset({"skewness", "kurtosis", "covar_samp", "covar_pop", "corr",
                               "vector_sum", "vector_avg"})

@dataclass(frozen=True)
class Windowed:
    """The input with its window operators, its attributes (the window columns last) and
    the outputs with every window expression replaced by its column."""

    plan: Operator
    attrs: tuple[Attribute, ...]
    exprs: tuple[Expr, ...]


def pull_windows(plan: Operator, attrs: Sequence[Attribute], exprs: Sequence[Expr]) -> Windowed:
    """``exprs`` (resolved against ``attrs``) computed over ``plan`` with window operators
    below them; unchanged when they hold no window expression."""
    if not any(has_window(e) for e in exprs):
        return Windowed(plan, tuple(attrs), tuple(exprs))
    scope = Scope(attrs)
    taken = {a.internal.casefold() for a in attrs}
    named: dict[Over, str] = {}

    def column(checked: Over) -> Expr:
        if checked not in named:
            named[checked] = _fresh_window_name(taken)
        return Column(name=named[checked])

    def replace(node: Expr) -> Expr | None:
        if isinstance(node, Over):
            checked = _checked(node, scope)
            if counter_diffs.is_counter_diff(checked):
                return counter_diffs.expanded(checked, scope.type_of, column)
            return column(checked)
        if isinstance(node, WindowCall):
            raise AnalysisError(f"window function {output_name(node)} requires an OVER clause")
        return None

    rewritten = tuple(transform(e, replace) for e in exprs)
    added = tuple(Attribute(name, name, scope.type_of(over)) for over, name in named.items())
    plan, attrs, keyed = _keys_projected(plan, attrs, named, taken)
    groups: dict[tuple[tuple[Expr, ...], tuple[SortKey, ...]], list[WindowItem]] = {}
    for over, name in keyed:
        item = WindowItem(name=name, function=over.function, frame=over.frame)
        groups.setdefault((over.partition_by, over.order_by), []).append(item)
    for (partition_by, order_by), items in groups.items():
        plan = Window(input=plan, partition_by=partition_by, order_by=order_by,
                      functions=tuple(items))
    return Windowed(plan, (*attrs, *added), rewritten)


def _keys_projected(
    plan: Operator, attrs: Sequence[Attribute], named: dict[Over, str], taken: set[str],
) -> tuple[Operator, tuple[Attribute, ...], list[tuple[Over, str]]]:
    """The windows' partition and order keys that are expressions, computed as columns by a
    projection below the windows, as Spark's ``ExtractWindowExpressions`` does: a key over
    an aggregate's output (``rank() OVER (ORDER BY sum(x))``) carries the integer sum's
    overflow check, which DuckDB refuses in a window's ORDER BY (it can raise an error),
    and a key computed once is hashed and sorted as a plain column."""
    keys: dict[Expr, str] = {}

    def as_column(key: Expr) -> Expr:
        if isinstance(key, Column):
            return key
        if key not in keys:
            keys[key] = _fresh_window_name(taken, "_wk")
        return Column(name=keys[key])

    keyed = [(over.model_copy(update={
        "partition_by": tuple(as_column(e) for e in over.partition_by),
        "order_by": tuple(k.model_copy(update={"expr": as_column(k.expr)}) for k in over.order_by),
    }), name) for over, name in named.items()]
    if not keys:
        return plan, tuple(attrs), keyed
    scope = Scope(attrs)
    items = (*(NamedExpr(name=a.internal, expr=a.column) for a in attrs),
             *(NamedExpr(name=name, expr=key) for key, name in keys.items()))
    computed = tuple(Attribute(name, name, scope.type_of(key)) for key, name in keys.items())
    return Project(input=plan, columns=items), (*attrs, *computed), keyed


def _fresh_window_name(taken: set[str], prefix: str = "_w") -> str:
    """``_w1``, ``_w2`` ... (or another prefix's): the first not in ``taken`` (case-folded
    names); added."""
    n = 1
    while f"{prefix}{n}" in taken:
        n += 1
    taken.add(f"{prefix}{n}")
    return f"{prefix}{n}"


def _checked(over: Over, scope: Scope) -> Over:
    """``over`` validated, its ``lag``/``lead`` default coerced, its frame made explicit
    (none for ranking and offset functions, which always have their own)."""
    function = over.function
    text = output_name(over)
    inner = [*children(function), *over.partition_by, *(k.expr for k in over.order_by)]
    if any(has_window(e) or has_aggregate(e) for e in inner):
        raise AnalysisError(f"a window expression cannot hold another window or aggregate: {text}")
    if isinstance(function, AggCall) and function.fn == "count_distinct":
        raise AnalysisError(f"Distinct window functions are not supported: {text}")
    if isinstance(function, AggCall) and function.fn in _NOT_OVER_WINDOWS:
        raise AnalysisError(f"{function.fn} over a window is not supported by sparkwire: {text}")
    if isinstance(function, WindowCall) and function.fn != "nth_value":  # it reads its frame
        if not over.order_by:
            raise AnalysisError(
                f"window function {function.fn} requires the window to be ordered; add "
                f"orderBy to the window: {text}"
            )
        required = frames.required_frame(function)
        if required is not None and over.frame is not None and over.frame != required:
            raise AnalysisError(
                f"the window frame of {function.fn} must be {frames.frame_text(required)} "
                f"(or left out): {text}"
            )
        return over.model_copy(update={"function": _coerced_default(function, scope), "frame": None})
    frame = frames.effective(function, over.frame, bool(over.order_by))
    if frame.unit == "range" and {frame.start, frame.end} - {None, 0}:
        over = _range_key(over, scope, text)
    return over.model_copy(update={"frame": frame})


def _coerced_default(function: WindowCall, scope: Scope) -> WindowCall:
    if function.default is None or function.arg is None:
        return function
    want = scope.type_of(function.arg)
    have = scope.type_of(function.default)
    if pa.types.is_null(have):
        return function.model_copy(update={"default": None})
    try:
        types.common(want, have)
    except AnalysisError:
        raise AnalysisError(
            f"the default of {output_name(function)} ({sql(function.default)}) cannot be "
            f"cast to {types.spark_type_name(want)}"
        ) from None
    return function.model_copy(update={"default": coerced(function.default, have, want)})


def _range_key(over: Over, scope: Scope, text: str) -> Over:
    """``over``, whose RANGE frame is bounded by a distance, with an order key the distance
    applies to: a number, or a date as its day number (Spark SQL's ``RANGE BETWEEN 1
    PRECEDING`` over a date counts days; PySpark's ``rangeBetween`` passes longs, which
    Spark refuses for a date, and sparkwire takes as days too). A timestamp key needs
    interval bounds, which sparkwire does not have."""
    if len(over.order_by) != 1:
        raise AnalysisError(
            "a RANGE frame bounded by a distance needs exactly one order key, not "
            f"{len(over.order_by)}: {text}"
        )
    key = over.order_by[0]
    key_type = scope.type_of(key.expr)
    if pa.types.is_date(key_type):
        days = Call(fn="datediff", args=(key.expr, Lit(value="1970-01-01", type="date")))
        return over.model_copy(update={"order_by": (key.model_copy(update={"expr": days}),)})
    if pa.types.is_timestamp(key_type):
        raise AnalysisError(
            f"a RANGE frame over a timestamp key needs INTERVAL bounds, which are not supported "
            f"by sparkwire: {text}"
        )
    if not (pa.types.is_integer(key_type) or pa.types.is_floating(key_type)
            or pa.types.is_decimal(key_type)):
        raise AnalysisError(
            f"a RANGE frame bounded by a distance needs a numeric order key, not "
            f"{types.spark_type_name(key_type)}: {text}"
        )
    return over
