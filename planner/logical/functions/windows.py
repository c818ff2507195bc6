"""Window functions of the registry: ranking and offsets, meaningful only over a window
(``expressions.Over``, which the analyzer's ``planner.logical.windowing`` plans).

``ntile(n)`` takes a positive int literal; ``lag``/``lead(x[, offset[, default]])`` an
int offset (1 unless given), a negative one turning a ``lag`` into a ``lead`` and back,
as in Spark; ``nth_value(x, n[, ignoreNulls])`` a positive int ``n``, and reads the frame
the window gives (Spark's default unless given), as an aggregate does; ``counter_diff(counter[, startTime])`` is expanded by the analyzer
(``planner.logical.counter_diffs``, where Spark's rules are written down). The aggregates that also run over a window (``first``, ``sum`` ...) are in
``planner.logical.functions.aggregates``.
"""

from __future__ import annotations

from typing import Literal

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.limits import MAX_WINDOW_OFFSET
from sparkwire.planner.logical.expressions import Expr, Lit, WindowCall, WindowFunction
from sparkwire.planner.logical.functions.base import Function, int_option, option, shown

_NEXT_ROW = Lit(value=1)


def _ranking(fn: WindowFunction) -> Function:
    def build() -> Expr:
        return WindowCall(fn=fn)

    return Function(fn, build, 0, 0)


def ntile(buckets: Expr) -> Expr:
    n = int_option(buckets)
    if n is None or not 1 <= n <= MAX_WINDOW_OFFSET:
        raise AnalysisError(f"ntile takes a positive int number of buckets, got {shown(buckets)}")
    return WindowCall(fn="ntile", offset=n)


def _offset(fn: Literal["lag", "lead"]) -> Function:
    """``lag``/``lead``: the value ``offset`` rows before/after, else ``default``."""

    def build(value: Expr, offset: Expr = _NEXT_ROW, default: Expr | None = None) -> Expr:
        rows = int_option(offset)
        if rows is None or abs(rows) > MAX_WINDOW_OFFSET:
            raise AnalysisError(f"{fn} takes an int offset, got {shown(offset)}")
        turned: WindowFunction = fn if rows >= 0 else ("lead" if fn == "lag" else "lag")
        return WindowCall(fn=turned, arg=value, offset=abs(rows), default=default)

    return Function(fn, build, 1, 3)


def nth_value(value: Expr, offset: Expr, ignore_nulls: Expr = Lit(value=False)) -> Expr:
    """The value of the frame's ``offset``-th row (from 1; NULL where the frame is shorter),
    counting only non-NULL values with ``ignore_nulls``."""
    row = int_option(offset)
    if row is None or not 1 <= row <= MAX_WINDOW_OFFSET:
        raise AnalysisError(f"nth_value takes a positive int offset, got {shown(offset)}")
    skip = option(ignore_nulls)
    if not isinstance(skip, bool):
        raise AnalysisError(f"nth_value takes a bool ignoreNulls, got {shown(ignore_nulls)}")
    return WindowCall(fn="nth_value", arg=value, offset=row, ignore_nulls=skip)


def counter_diff(value: Expr, start_time: Expr | None = None) -> Expr:
    """The change of a cumulative counter since the previous row (``planner.logical.counter_diffs``)."""
    return WindowCall(fn="counter_diff", arg=value, start=start_time)


FUNCTIONS = (
    *(_ranking(fn) for fn in ("row_number", "rank", "dense_rank", "percent_rank", "cume_dist")),
    Function.of("ntile", ntile),
    _offset("lag"),
    _offset("lead"),
    Function.of("nth_value", nth_value),
    Function.of("counter_diff", counter_diff),
)
