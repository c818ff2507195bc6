"""Python values as typed literals (``expressions.Lit``).

JSON alone would lose a value's type (a ``Decimal``, a ``date``) or the value itself (JSON
has no NaN or infinity), so such values travel as text with a planner type name. The
DataFrame API turns every Python value it is given into a literal here, and the SQL front
end its exact decimals (``0.06`` is ``decimal(2,2)`` in Spark SQL, not a double).
"""

from __future__ import annotations

import datetime as dt
import decimal
import math

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Lit

def literal(value: object) -> Lit:
    """``value`` (``None``, a bool, number, string, ``Decimal``, date, time or datetime) as a typed
    literal, anything else refused; an aware datetime is its instant (the text keeps the
    offset), a naive one a wall clock in the session zone (PySpark reads it in the Python
    process's zone)."""
    if value is None or isinstance(value, bool | int | str):
        return Lit(value=value)
    if isinstance(value, float):
        if math.isfinite(value):
            return Lit(value=value)
        return Lit(value=str(value), type="float64")
    if isinstance(value, decimal.Decimal):
        return Lit(value=format(value, "f"), type=decimal_type(value))
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc)
        return Lit(value=value.isoformat(sep=" "), type="timestamp")
    if isinstance(value, dt.date):
        return Lit(value=value.isoformat(), type="date")
    if isinstance(value, dt.time):  # a time of day; an aware one's offset is not Spark's
        if value.tzinfo is not None:
            raise AnalysisError(f"a TIME literal has no time zone, got {value!r}")
        return Lit(value=value.isoformat(), type="time")
    raise AnalysisError(f"unsupported literal {value!r} of type {type(value).__name__}")


def decimal_type(value: decimal.Decimal) -> str:
    """The narrowest ``decimal(p,s)`` that holds ``value`` exactly (at most 38 digits)."""
    if not value.is_finite():
        raise AnalysisError(f"decimal literal {value} is not finite")
    _, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    scale = max(0, -exponent)
    precision = max(len(digits) + max(0, exponent), scale, 1)
    if precision > 38:
        raise AnalysisError(f"decimal literal {value} needs more than 38 digits")
    return f"decimal({precision},{scale})"
