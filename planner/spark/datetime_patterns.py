"""Spark's datetime patterns and units, translated for DuckDB or refused.

``date_format``, ``to_date`` and ``to_timestamp`` take Spark's pattern letters
(``yyyy-MM-dd HH:mm:ss``, java.time style); DuckDB's ``strftime``/``strptime`` take C's
``%`` directives. Each supported run of one letter maps to one directive (table below);
text in single quotes is literal (``''`` is a quote), other non-letters are literal, and
``%`` is doubled. A letter or run length not in the table is refused, naming it, before a
plan is built: a silently different date format is worse than none.

=========  =====================  ===========  ==================================
letters    meaning                formatting   parsing
=========  =====================  ===========  ==================================
yyyy, y    year                   %Y, year     %Y
yy         two-digit year         %y           %y
MMMM/MMM   month name / short     %B / %b      %B / %b
MM, M      month                  %m, %-m      %m
dd, d      day of month           %d, %-d      %d
DDD, D     day of year            %j, %-j      %j
HH, H      hour 0-23              %H, %-H      %H
hh, h      hour 1-12              %I, %-I      %I
mm, m      minute                 %M, %-M      %M
ss, s      second                 %S, %-S      %S
SSS        milliseconds           %g           %g
SSSSSS     microseconds           %f           %f
a          AM/PM                  %p           %p
EEEE, E+   weekday name / short   %A / %a      %A / %a
=========  =====================  ===========  ==================================

Units of ``date_trunc`` and ``trunc`` and the day names of ``next_day`` are Spark's, case
insensitive; Spark returns NULL for an unknown one, sparkwire refuses it when the plan is
built.
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError

_FORMAT = {
    "yyyy": "%Y", "y": "%Y", "yy": "%y", "MMMM": "%B", "MMM": "%b", "MM": "%m", "M": "%-m",
    "dd": "%d", "d": "%-d", "DDD": "%j", "D": "%-j", "HH": "%H", "H": "%-H", "hh": "%I",
    "h": "%-I", "mm": "%M", "m": "%-M", "ss": "%S", "s": "%-S", "SSS": "%g", "SSSSSS": "%f",
    "a": "%p", "EEEE": "%A", "EEE": "%a", "EE": "%a", "E": "%a",
}
_PARSE_DIFFERS = {"M": "%m", "d": "%d", "D": "%j", "H": "%H", "h": "%I", "m": "%M", "s": "%S"}

#: ``date_trunc`` units (timestamp result) as DuckDB's ``date_trunc`` parts.
TIMESTAMP_UNITS = {
    "year": "year", "yyyy": "year", "yy": "year", "quarter": "quarter", "month": "month",
    "mon": "month", "mm": "month", "week": "week", "day": "day", "dd": "day", "hour": "hour",
    "minute": "minute", "second": "second", "millisecond": "millisecond",
    "microsecond": "microsecond",
}
#: ``trunc`` units (date result).
DATE_UNITS = {
    k: v for k, v in TIMESTAMP_UNITS.items() if v in ("year", "quarter", "month", "week")
}
#: ``next_day`` names as ISO day numbers (Monday 1).
DAYS = {
    name: n
    for n, (short, long) in enumerate(
        [("mon", "monday"), ("tue", "tuesday"), ("wed", "wednesday"), ("thu", "thursday"),
         ("fri", "friday"), ("sat", "saturday"), ("sun", "sunday")], start=1)
    for name in (short[:2], short, long)
}


def strftime_pattern(pattern: str, parsing: bool = False) -> str:
    """The DuckDB ``strftime``/``strptime`` pattern for Spark's ``pattern``."""
    return "".join(_YEAR if d is None else d for d in _directives(pattern, parsing))


def format_pieces(pattern: str) -> list[str]:
    """Spark's formatting ``pattern`` as the DuckDB ``strftime`` patterns between which the
    year is written unpadded: Java's ``y`` writes year 1 as ``1`` where DuckDB's ``%Y``
    (Spark's ``yyyy``) pads it to ``0001``, and DuckDB has no unpadded year."""
    pieces = [""]
    for directive in _directives(pattern, parsing=False):
        if directive is None:
            pieces.append("")
        else:
            pieces[-1] += directive
    return pieces


_YEAR = "%Y"


def _directives(pattern: str, parsing: bool) -> list[str | None]:
    """The directives of ``pattern``, None for a year written unpadded (formatting ``y``)."""
    out: list[str | None] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "'":
            if pattern.startswith("''", i):
                out.append("'")
                i += 2
                continue
            text, i = _quoted(pattern, i + 1)
            out.append(text.replace("%", "%%"))
            continue
        if ch.isascii() and ch.isalpha():
            run = len(pattern) - i - len(pattern[i:].lstrip(ch))
            letters = pattern[i:i + run]
            directive = (_PARSE_DIFFERS.get(letters) if parsing else None) or _FORMAT.get(letters)
            if directive is None:
                raise AnalysisError(
                    f"datetime pattern {pattern!r}: the letters {letters!r} are not supported by "
                    f"sparkwire (supported: {', '.join(sorted(_FORMAT))})"
                )
            out.append(None if letters == "y" and not parsing else directive)
            i += run
            continue
        out.append("%%" if ch == "%" else ch)
        i += 1
    return out


def _quoted(pattern: str, i: int) -> tuple[str, int]:
    """The literal text from ``i`` to the closing quote (``''`` inside is a quote), and the
    position after it."""
    text: list[str] = []
    while True:
        end = pattern.find("'", i)
        if end < 0:
            raise AnalysisError(f"datetime pattern {pattern!r} has an unclosed quote")
        text.append(pattern[i:end])
        if not pattern.startswith("''", end):
            return "".join(text), end + 1
        text.append("'")
        i = end + 2


def check_datetime_pattern(pattern: str) -> str:
    strftime_pattern(pattern)
    return pattern


def timestamp_unit(unit: str) -> str:
    return _unit(unit, TIMESTAMP_UNITS, "date_trunc")


def date_unit(unit: str) -> str:
    return _unit(unit, DATE_UNITS, "trunc")


def iso_day(name: str) -> int:
    return DAYS[_unit(name, {k: k for k in DAYS}, "next_day")]


def _unit(unit: str, known: dict[str, str] | dict[str, int], function: str) -> str:
    key = unit.lower()
    if key not in known:
        raise AnalysisError(
            f"{function} of {unit!r} is not supported by sparkwire (known: {', '.join(known)})"
        )
    return str(known[key])


#: The units ``timestampdiff`` counts (Spark's ``timestampDiffMap``), in lower case.
DIFF_UNITS = {u: u for u in ("year", "quarter", "month", "week", "day", "hour", "minute", "second",
                             "millisecond", "microsecond")}
#: The units ``timestampadd`` moves by: those and ``dayofyear``, a day.
ADD_UNITS = {**DIFF_UNITS, "dayofyear": "day"}


def diff_unit(unit: str) -> str:
    return _unit(unit, DIFF_UNITS, "timestampdiff")


def add_unit(unit: str) -> str:
    return _unit(unit, ADD_UNITS, "timestampadd")
