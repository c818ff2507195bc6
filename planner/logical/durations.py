"""Spark's duration strings of ``window(ts, '10 minutes', '5 minutes', '1 minute')``, read
as Spark reads them (``IntervalUtils.stringToInterval``): an optional ``interval`` word, then
``<number> <unit>`` pairs, the units ``week``, ``day``, ``hour``, ``minute``, ``second``,
``millisecond``, ``microsecond`` (singular or plural, any case), summed in microseconds.
Months and years are refused as Spark refuses them in a time window (a month has no fixed
length); so is anything else the text holds, with the text in the message.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from sparkwire.planner.errors import AnalysisError

_MICROS = {
    "week": 7 * 86_400_000_000, "day": 86_400_000_000, "hour": 3_600_000_000,
    "minute": 60_000_000, "second": 1_000_000, "millisecond": 1_000, "microsecond": 1,
}
_PAIR = re.compile(r"([+-]?\d+(?:\.\d+)?)\s*([a-z]+)")


def duration_micros(text: str, what: str) -> int:
    """The microseconds ``text`` says; ``what`` names the argument in the error message."""
    words = text.strip().casefold().removeprefix("interval").strip()
    total, end = 0, 0
    for match in _PAIR.finditer(words):
        if words[end:match.start()].strip():
            break
        unit = match.group(2).removesuffix("s")
        if unit not in _MICROS:
            raise AnalysisError(f"the {what} of a time window {text!r} has the unit {match.group(2)!r}; "
                                f"Spark's window takes {', '.join(_MICROS)} (no months or years)")
        try:
            amount = Decimal(match.group(1)) * _MICROS[unit]
        except InvalidOperation:  # pragma: no cover - the pattern admits numbers only
            break
        if amount != amount.to_integral_value():
            raise AnalysisError(f"the {what} of a time window {text!r} is finer than a microsecond")
        total, end = total + int(amount), match.end()
    if end == 0 or words[end:].strip():
        raise AnalysisError(f"the {what} of a time window {text!r} is not a duration such as '10 minutes'")
    return total
