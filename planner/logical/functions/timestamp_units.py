"""``timestamp_diff``/``timestampdiff`` and ``timestamp_add``/``timestampadd``: a count of
calendar or clock units between two timestamps, and a timestamp moved by one. Spark's rules
(``DateTimeUtils.timestampDiff``/``timestampAdd``), built by the worker's
``coordinator.worker.compile.calls_timestamp_units``:

- the unit is a literal, in any case (checked in ``planner.logical.literal_args``): ``YEAR``, ``QUARTER``, ``MONTH``, ``WEEK``, ``DAY``,
  ``HOUR``, ``MINUTE``, ``SECOND``, ``MILLISECOND``, ``MICROSECOND`` (``timestampadd`` also
  takes ``DAYOFYEAR``, a day); the column is named with the unit as written
  (``timestampdiff(year, a, b)``);
- ``timestampdiff`` reads both operands as instants (a string, date or wall clock becomes
  one in the session zone, as Spark's implicit cast to ``timestamp``) and counts on their
  wall clocks in the session zone with ``java.time``'s ``ChronoUnit.between``: whole units,
  truncated toward zero, a month being complete only once the day of the month *and* the
  time of day are reached (Jan 31 to Feb 29 is 0 months); a ``bigint``;
- ``timestampadd`` keeps its operand's type (a wall clock stays one and moves in UTC, an
  instant moves in the session zone; a string or date becomes an instant): units of a day
  and more move the wall clock (a month past a shorter month's end lands on its last day),
  clock units move the instant.
"""

from __future__ import annotations

from sparkwire.planner.logical.expressions import Expr
from sparkwire.planner.logical.functions.base import Function, checked_call


def timestamp_diff(unit: Expr, start: Expr, end: Expr) -> Expr:
    return checked_call("timestampdiff", unit, start, end)


def timestamp_add(unit: Expr, quantity: Expr, timestamp: Expr) -> Expr:
    return checked_call("timestampadd", unit, quantity, timestamp)


FUNCTIONS = (
    Function.of("timestamp_diff", timestamp_diff),
    Function.of("timestampdiff", timestamp_diff),
    Function.of("timestamp_add", timestamp_add),
    Function.of("timestampadd", timestamp_add),
)
