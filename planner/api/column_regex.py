"""``df.colRegex``: the columns whose names a regular expression matches, as a select item.

Spark reads a name quoted in backticks (```(a|b)_.*` ``) as a regex over the frame's
column names (``UnresolvedRegex``): every column whose whole name it matches, in the
frame's order, ignoring case as Spark's default ``spark.sql.caseSensitive=false`` does; a
name without backticks is the column of that name. The pattern is Java's, matched here by
Python's ``re`` over the names the driver holds (no data is read): the two agree on the
patterns column selection uses (classes, groups, alternation, possessive quantifiers);
Spark's qualified form (``t.`regex` ``) is refused, as is the regex anywhere but a
``select``, which Spark refuses too.
"""

from __future__ import annotations

import re

from sparkwire.planner.api.column import Column
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Column as ColumnRef

#: Spark's ``ParserUtils.escapedIdentifier`` and ``qualifiedEscapedIdentifier``.
_ESCAPED = re.compile(r"`(.+)`", re.DOTALL)
_QUALIFIED = re.compile(r"(.+)\.`(.+)`", re.DOTALL)


class ColumnRegex(Column):
    """The columns ``pattern`` matches by their whole name; expanded by ``select`` (its
    expression, a bare ``*``, means every column only where a star may stand)."""

    __slots__ = ("pattern",)

    def __init__(self, pattern: re.Pattern[str]) -> None:
        super().__init__(ColumnRef(name="*"))
        self.pattern = pattern

    def matches(self, name: str) -> bool:
        return self.pattern.fullmatch(name) is not None


def column_regex(col_name: str) -> ColumnRegex | None:
    """The regex ``col_name`` names, or None where it is a plain column name."""
    if not isinstance(col_name, str):
        raise AnalysisError(f"colRegex takes a string, got {col_name!r}")
    found = _ESCAPED.fullmatch(col_name)
    if found is None:
        if _QUALIFIED.fullmatch(col_name):
            raise AnalysisError(f"colRegex of a qualified name ({col_name}) is not supported by sparkwire")
        return None
    try:
        pattern = re.compile(found.group(1), re.IGNORECASE)
    except re.error as exc:
        raise AnalysisError(f"colRegex's pattern {found.group(1)!r} is invalid: {exc}") from None
    return ColumnRegex(pattern)
