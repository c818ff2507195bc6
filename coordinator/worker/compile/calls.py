"""Every scalar builder the compiler knows: the core ones of ``expressions`` and the
string, date, math and collection groups, one builder per name of the plan's allow-list;
and those whose result depends on Spark's ANSI mode (division, integer arithmetic)."""

from __future__ import annotations

from sparkwire.coordinator.worker.compile.calls_dates import DATE_CALLS
from sparkwire.coordinator.worker.compile.casing import CASING_CALLS
from sparkwire.coordinator.worker.compile.calls_math import MATH_CALLS, MATH_MODE_CALLS
from sparkwire.coordinator.worker.compile.calls_text import TEXT_CALLS
from sparkwire.coordinator.worker.compile.integers import INTEGER_CALLS
from sparkwire.coordinator.worker.compile.semantics import DIVISION_CALLS
from sparkwire.coordinator.worker.compile.calls_collections import COLLECTION_CALLS
from sparkwire.coordinator.worker.compile.expressions import CALLS as CORE_CALLS
from sparkwire.coordinator.worker.compile.templates import Builder, ModeBuilder

CALLS: dict[str, Builder] = {
    **CORE_CALLS, **TEXT_CALLS, **CASING_CALLS, **DATE_CALLS, **MATH_CALLS, **COLLECTION_CALLS,
}

MODE_CALLS: dict[str, ModeBuilder] = {**DIVISION_CALLS, **INTEGER_CALLS, **MATH_MODE_CALLS}
