"""Every scalar builder the compiler knows, by the name the plan's allow-list gives it:
the core ones (``calls_core``) and the string, casing, date (``calls_dates``, ``calls_calendar``), math, collection, NULL,
``try_``, elementary math, bitwise, encoding, array, map and higher-order groups (``CALLS``); those whose result
depends on Spark's ANSI mode, division and integer arithmetic (``MODE_CALLS``); and those whose SQL names the session time zone
(``ZONE_CALLS``). The expression compiler looks a call up here and nowhere else."""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, ModeBuilder, ZoneBuilder
from sparkwire.coordinator.worker.compile.calls_arrays import ARRAY_CALLS
from sparkwire.coordinator.worker.compile.calls_bits import BIT_CALLS
from sparkwire.coordinator.worker.compile.calls_calendar import CALENDAR_CALLS, CALENDAR_ZONE_CALLS
from sparkwire.coordinator.worker.compile.calls_collations import COLLATION_CALLS
from sparkwire.coordinator.worker.compile.calls_collections import COLLECTION_CALLS
from sparkwire.coordinator.worker.compile.calls_core import CALLS as CORE_CALLS
from sparkwire.coordinator.worker.compile.calls_dates import DATE_CALLS, ZONE_CALLS as DATE_ZONE_CALLS
from sparkwire.coordinator.worker.compile.calls_elementary import ELEMENTARY_CALLS, ELEMENTARY_MODE_CALLS
from sparkwire.coordinator.worker.compile.calls_encodings import ENCODING_CALLS
from sparkwire.coordinator.worker.compile.calls_formats import FORMAT_CALLS
from sparkwire.coordinator.worker.compile.calls_lambdas import LAMBDA_CALLS
from sparkwire.coordinator.worker.compile.calls_maps import MAP_CALLS
from sparkwire.coordinator.worker.compile.calls_math import MATH_CALLS, MATH_MODE_CALLS
from sparkwire.coordinator.worker.compile.calls_nulls import NULL_CALLS, TRY_CALLS
from sparkwire.coordinator.worker.compile.calls_text import TEXT_CALLS
from sparkwire.coordinator.worker.compile.calls_spellings import SPELLING_CALLS
from sparkwire.coordinator.worker.compile.calls_radix import RADIX_MODE_CALLS
from sparkwire.coordinator.worker.compile.calls_hmac import HMAC_CALLS
from sparkwire.coordinator.worker.compile.calls_texts import TEXT_MODE_CALLS, TEXTS_CALLS
from sparkwire.coordinator.worker.compile.calls_try_calendar import TRY_CALENDAR_CALLS, TRY_CALENDAR_ZONE_CALLS
from sparkwire.coordinator.worker.compile.calls_times import TIME_CALLS, TIME_ZONE_CALLS
from sparkwire.coordinator.worker.compile.calls_vectors import VECTOR_CALLS
from sparkwire.coordinator.worker.compile.calls_json_tuples import JSON_TUPLE_CALLS
from sparkwire.coordinator.worker.compile.calls_urls import URL_MODE_CALLS
from sparkwire.coordinator.worker.compile.calls_number_formats import NUMBER_FORMAT_CALLS
from sparkwire.coordinator.worker.compile.calls_timestamp_units import TIMESTAMP_UNIT_CALLS
from sparkwire.coordinator.worker.compile.casing import CASING_CALLS
from sparkwire.coordinator.worker.compile.division import DIVISION_CALLS
from sparkwire.coordinator.worker.compile.integers import INTEGER_CALLS
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.sizes import bounded

__all__ = ["CALLS", "MODE_CALLS", "ZONE_CALLS"]

CALLS: dict[str, Builder] = {
    **CORE_CALLS, **TEXT_CALLS, **CASING_CALLS, **DATE_CALLS, **MATH_CALLS, **COLLECTION_CALLS,
    **TEXTS_CALLS, **NULL_CALLS, **TRY_CALLS, **ELEMENTARY_CALLS, **BIT_CALLS, **ENCODING_CALLS,
    **ARRAY_CALLS, **MAP_CALLS, **LAMBDA_CALLS, **CALENDAR_CALLS, **TRY_CALENDAR_CALLS, **TIME_CALLS,
    **FORMAT_CALLS, **SPELLING_CALLS, **HMAC_CALLS, **COLLATION_CALLS, **VECTOR_CALLS,
    **JSON_TUPLE_CALLS, **NUMBER_FORMAT_CALLS,
}
CALLS.update(bounded(CALLS))  # the calls that make a value as long as an argument says


def _written_out(args: list[exp.Expr]) -> exp.Expr:
    """``update_fields`` (``withField``/``dropFields``): the analyzer writes it out as a
    ``named_struct`` (``planner.logical.struct_updates``), so a plan still holding one was
    not made by a planner."""
    raise CompileError("update_fields must be written out by the planner, not sent to a worker")


CALLS["update_fields"] = _written_out

MODE_CALLS: dict[str, ModeBuilder] = {
    **DIVISION_CALLS, **INTEGER_CALLS, **MATH_MODE_CALLS, **TEXT_MODE_CALLS, **ELEMENTARY_MODE_CALLS,
    **RADIX_MODE_CALLS, **URL_MODE_CALLS,
}

ZONE_CALLS: dict[str, ZoneBuilder] = {**DATE_ZONE_CALLS, **CALENDAR_ZONE_CALLS, **TRY_CALENDAR_ZONE_CALLS,
                                      **TIME_ZONE_CALLS,
                                     **TIMESTAMP_UNIT_CALLS}
