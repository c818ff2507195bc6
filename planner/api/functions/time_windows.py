"""``window`` and ``window_time`` of ``pyspark.sql.functions``: Spark's time windows, as
Spark's analyzer writes them out (``TimeWindowing``), re-exported by
``planner.api.functions``.

``window(ts, size, slide, start)`` is a ``TimeWindowColumn``: it stands as an item of
``select`` or a key of ``groupBy``, which put a ``window`` column (its alias, if given) of
``struct<start, end>`` beside the DataFrame's columns first (``planner.api.time_windows``).
The boundaries are Spark's, in microseconds since the epoch: the last window a timestamp
``t`` falls in starts at ``t - pmod(t - start, slide)``, window ``i`` (of ``ceil(size /
slide)``) ``i`` slides before it, and each ends ``size`` after its start. A tumbling window
(``slide == size``) drops the rows whose ``ts`` is NULL, as Spark's plan filters them; a
sliding one makes a row per window holding ``ts`` (``start <= ts < end``), as Spark's
``Expand`` and ``Filter`` do. The durations are read by ``planner.logical.durations``.

``window_time(w)`` is the last microsecond of the window, ``w.end`` less one microsecond.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.column import Column, ColumnOrName, StandaloneColumn, to_column
from sparkwire.planner.api.functions.calendar import timestamp_micros, unix_micros
from sparkwire.planner.api.functions.nested import array, struct
from sparkwire.planner.api.functions.numeric import pmod
from sparkwire.planner.logical.durations import duration_micros

__all__ = ["window", "window_time"]


@dataclass(frozen=True)
class TimeWindow:
    """A time window: ``time`` the timestamp column, ``size``, ``slide`` and ``start`` in
    microseconds; ``name`` the column it becomes."""

    time: Column
    size: int
    slide: int
    start: int
    name: str = "window"

    @property
    def tumbling(self) -> bool:
        return self.size == self.slide

    def windows(self) -> Column:
        """The window itself when tumbling, else the array of every window a timestamp may
        fall in (those it does not are filtered out afterwards, as in Spark)."""
        if self.tumbling:
            return self.window(0)
        return array(*(self.window(i) for i in range(math.ceil(self.size / self.slide))))

    def window(self, i: int) -> Column:
        """The ``i``-th window before the last one holding the timestamp."""
        micros = unix_micros(self.time)
        first = micros - pmod(micros - self.start, self.slide) - i * self.slide
        return struct(timestamp_micros(first).alias("start"),
                      timestamp_micros(first + self.size).alias("end"))


class TimeWindowColumn(StandaloneColumn):
    """A time window as a select item or a grouping key on its own (``alias`` names it);
    an expression over one is refused, as expressions over a generator are: select the
    window first, then use its fields."""

    __slots__ = ("_spec",)

    def __init__(self, spec: TimeWindow) -> None:
        super().__init__(spec.window(0).expr, spec.name)
        self._spec = spec

    def alias(self, name: str) -> TimeWindowColumn:  # type: ignore[override]
        return TimeWindowColumn(replace(self._spec, name=name))

    def _refused(self) -> AnalysisError:
        return AnalysisError("window(...) can only be a select item or a groupBy key on its own here; "
                             "an expression over it is not supported by sparkwire: select the window "
                             "first, then use its fields")


def time_window(item: object) -> TimeWindow | None:
    """The time window ``item`` is, if it is one."""
    return item._spec if isinstance(item, TimeWindowColumn) else None


def window(timeColumn: ColumnOrName, windowDuration: str,  # noqa: N803 - PySpark's names
           slideDuration: str | None = None, startTime: str | None = None) -> Column:
    size = duration_micros(windowDuration, "windowDuration")
    slide = size if slideDuration is None else duration_micros(slideDuration, "slideDuration")
    start = 0 if startTime is None else duration_micros(startTime, "startTime")
    if size <= 0 or slide <= 0:
        raise AnalysisError(f"a time window's duration and slide must be positive, got {windowDuration!r}"
                            f" and {slideDuration!r}")
    if slide > size:
        raise AnalysisError(f"the slide duration ({slideDuration}) must be less than or equal to the "
                            f"windowDuration ({windowDuration})")
    if abs(start) >= slide:
        raise AnalysisError(f"the absolute value of start time ({startTime}) must be less than the slide "
                            f"duration ({slideDuration or windowDuration})")
    return TimeWindowColumn(TimeWindow(to_column(timeColumn), size, slide, start))


def window_time(windowColumn: ColumnOrName) -> Column:  # noqa: N803 - PySpark's name
    given = to_column(windowColumn)
    return (timestamp_micros(unix_micros(given["end"]) - 1)
            .alias(f"window_time({given.output_name})"))
