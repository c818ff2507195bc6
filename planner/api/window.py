"""PySpark's ``Window``: ``F.row_number().over(w)`` (the window functions are in
``planner.api.functions.windows``).

``Window.partitionBy(...).orderBy(...).rowsBetween(start, end)`` builds an immutable
``WindowSpec``; ``Column.over(spec)`` turns an aggregate (``F.sum``, ``F.first`` ...) or a
window function into a window expression (``expressions.Over``), which the analyzer
(``planner.logical.windowing``) checks and moves into a ``Window`` operator. Frame bounds follow
PySpark: ``Window.unboundedPreceding``/``unboundedFollowing`` are Java's smallest and
largest long, and any bound beyond ``sys.maxsize`` counts as unbounded, ``float("-inf")`` and
``float("inf")`` too; a bound Java's int cannot hold is refused, as Spark refuses it
(``INVALID_BOUNDARY``); ``currentRow`` is 0,
negative numbers are rows (or order-key distance, for ``rangeBetween``) before the
current row.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Literal, Union

from pydantic import ValidationError

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.column import Column, ColumnOrName, SortOrder, to_column
from sparkwire.planner.api.functions.core import flatten_arguments
from sparkwire.planner.limits import MAX_WINDOW_OFFSET

_JAVA_MIN_LONG = -(1 << 63)
_JAVA_MAX_LONG = (1 << 63) - 1
_PRECEDING_THRESHOLD = max(-sys.maxsize, _JAVA_MIN_LONG)
_FOLLOWING_THRESHOLD = min(sys.maxsize, _JAVA_MAX_LONG)

OrderItem = Union[ColumnOrName, SortOrder]


class WindowSpec:
    """Partition keys, order keys and a frame; every method returns a new spec."""

    __slots__ = ("_partition_by", "_order_by", "_frame")

    def __init__(
        self, partition_by: tuple[ex.Expr, ...] = (), order_by: tuple[ex.SortKey, ...] = (),
        frame: ex.Frame | None = None,
    ) -> None:
        self._partition_by = partition_by
        self._order_by = order_by
        self._frame = frame

    def partitionBy(self, *cols: ColumnOrName | Sequence[ColumnOrName]) -> WindowSpec:  # noqa: N802
        keys = tuple(to_column(c).expr for c in flatten_arguments(cols))
        return WindowSpec(keys, self._order_by, self._frame)

    def orderBy(self, *cols: OrderItem | Sequence[OrderItem]) -> WindowSpec:  # noqa: N802
        """Columns sort ascending with NULLs first unless given as ``desc()`` and so on."""
        keys = tuple(
            (c if isinstance(c, SortOrder) else to_column(c).asc()).key() for c in flatten_arguments(cols)
        )
        return WindowSpec(self._partition_by, keys, self._frame)

    def rowsBetween(self, start: float, end: float) -> WindowSpec:  # noqa: N802
        return WindowSpec(self._partition_by, self._order_by, _frame("rows", start, end))

    def rangeBetween(self, start: float, end: float) -> WindowSpec:  # noqa: N802
        return WindowSpec(self._partition_by, self._order_by, _frame("range", start, end))

    def over(self, column: Column) -> Column:
        """``column`` computed over this window; it must be an aggregate or a window
        function call itself, not an expression around one (as in Spark)."""
        function = column.expr
        if not isinstance(function, ex.AggCall | ex.WindowCall) or column.is_aliased:
            raise AnalysisError(
                f"{column.output_name!r} is not an aggregate or window function; over() "
                "applies to one call, e.g. F.sum('x').over(w), F.row_number().over(w)"
            )
        try:
            over = ex.Over(function=function, partition_by=self._partition_by,
                           order_by=self._order_by, frame=self._frame)
        except ValidationError as exc:  # more keys than MAX_WINDOW_KEYS
            raise AnalysisError(f"invalid window: {exc.errors()[0]['msg']}") from None
        return Column(over)


class Window:
    """``Window.partitionBy(...)``, ``Window.orderBy(...)`` and the frame bounds."""

    unboundedPreceding: int = _JAVA_MIN_LONG  # noqa: N815 - PySpark's name
    unboundedFollowing: int = _JAVA_MAX_LONG  # noqa: N815 - PySpark's name
    currentRow: int = 0  # noqa: N815 - PySpark's name

    @staticmethod
    def partitionBy(*cols: ColumnOrName | Sequence[ColumnOrName]) -> WindowSpec:  # noqa: N802
        return WindowSpec().partitionBy(*cols)

    @staticmethod
    def orderBy(*cols: OrderItem | Sequence[OrderItem]) -> WindowSpec:  # noqa: N802
        return WindowSpec().orderBy(*cols)

    @staticmethod
    def rowsBetween(start: float, end: float) -> WindowSpec:  # noqa: N802
        return WindowSpec().rowsBetween(start, end)

    @staticmethod
    def rangeBetween(start: float, end: float) -> WindowSpec:  # noqa: N802
        return WindowSpec().rangeBetween(start, end)


def _bound(unit: str, bound: float) -> int:
    """An int bound; ``float("-inf")`` and ``float("inf")`` are the unbounded ones, as
    PySpark compares a bound with its thresholds before handing it to Java as a long."""
    if isinstance(bound, float) and bound in (float("-inf"), float("inf")):
        return _JAVA_MIN_LONG if bound < 0 else _JAVA_MAX_LONG
    if isinstance(bound, bool) or not isinstance(bound, int):
        raise AnalysisError(f"{unit}Between takes int bounds, got {bound!r}")
    return bound


def _frame(unit: Literal["rows", "range"], start: float, end: float) -> ex.Frame:
    start, end = _bound(unit, start), _bound(unit, end)
    low = None if start <= _PRECEDING_THRESHOLD else start
    high = None if end >= _FOLLOWING_THRESHOLD else end
    if start >= _FOLLOWING_THRESHOLD or end <= _PRECEDING_THRESHOLD:
        raise AnalysisError(
            f"a window frame cannot start at unboundedFollowing or end at unboundedPreceding "
            f"({unit}Between({start}, {end}))"
        )
    for offset in (low, high):
        if offset is not None and abs(offset) > MAX_WINDOW_OFFSET:
            raise AnalysisError(f"window frame bound {offset} is beyond ±{MAX_WINDOW_OFFSET}")
    if low is not None and high is not None and low > high:
        raise AnalysisError(
            f"the lower bound of a window frame must be less than or equal to the upper bound: "
            f"{unit}Between({start}, {end})"
        )
    return ex.Frame(unit=unit, start=low, end=high)
