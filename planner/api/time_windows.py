"""Time windows (``F.window``) written out below the select or grouping that uses them, as
Spark's analyzer does (``TimeWindowing``): the DataFrame gains the window column first, so
the select item or grouping key becomes a plain reference to it.

- tumbling: the rows whose timestamp is NULL are dropped, then the window is computed;
- sliding: every window a timestamp may fall in is exploded into a row, and only those with
  ``start <= ts < end`` kept (Spark's ``Expand`` and ``Filter``; a NULL timestamp is in none).

One time window per select or grouping: Spark refuses more (a cartesian product of windows).
"""

from __future__ import annotations

from typing import Any, Protocol, Self, TypeVar

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.column import Column, col
from sparkwire.planner.api.functions.nested import explode
from sparkwire.planner.api.functions.time_windows import time_window


class Windowable(Protocol):
    def filter(self, condition: Column) -> Self: ...
    def select(self, *cols: Any) -> Self: ...


FrameT = TypeVar("FrameT", bound=Windowable)


def with_time_window(df: FrameT, items: list[Any]) -> tuple[FrameT, list[Any]]:
    """``df`` with the window column of the time window among ``items`` added, and the
    items with that window replaced by a reference to it; both unchanged without one."""
    windows = [(i, spec) for i, item in enumerate(items) if (spec := time_window(item)) is not None]
    if not windows:
        return df, items
    if len(windows) > 1:
        raise AnalysisError("Multiple time/session window expressions would result in a cartesian product "
                            "of rows, therefore they are currently not supported (as in Spark)")
    at, given = windows[0]
    if given.tumbling:
        widened = df.filter(given.time.isNotNull()).select("*", given.windows().alias(given.name))
    else:
        added = df.select("*", explode(given.windows()).alias(given.name))
        window = col(given.name)
        widened = added.filter((given.time >= window["start"]) & (given.time < window["end"]))
    return widened, [col(given.name) if i == at else item for i, item in enumerate(items)]
