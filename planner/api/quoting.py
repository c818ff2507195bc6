"""Column names in backticks, as PySpark reads the names users pass (``F.col("`a.b`")``,
``df["`a b`"]``, ``select("`x.y`")``, ``groupBy``, ``orderBy``).

PySpark reads such a name as dot-separated parts (a qualifier, a column, struct fields),
each plain or quoted in backticks, a doubled backtick standing for one inside quotes; a
quoted part may hold dots and spaces, so a column named ``a.b`` is ``"`a.b`"``. Names
without a backtick keep their plain path (``Scope`` resolves ``"t.x"`` and ``"s.f"`` as
before), so only the quoted spelling is parsed here.
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError


def name_parts(name: str) -> list[str]:
    """The parts of ``name`` (Spark's ``parseAttributeName``); a backtick that does not open
    a part, or one left open, is an ``AnalysisError`` as in Spark."""
    parts: list[str] = []
    current: list[str] = []
    quoted = closed = False
    i = 0
    while i < len(name):
        char = name[i]
        if quoted:
            if char == "`" and name[i + 1:i + 2] == "`":
                current.append("`")
                i += 1
            elif char == "`":
                quoted, closed = False, True
            else:
                current.append(char)
        elif char == ".":
            parts.append("".join(current))
            current, closed = [], False
        elif char == "`" and not current and not closed:
            quoted = True
        elif closed or char == "`":
            raise AnalysisError(f"syntax error in the column name {name!r} at position {i}")
        else:
            current.append(char)
        i += 1
    if quoted:
        raise AnalysisError(f"the column name {name!r} leaves a backtick open")
    parts.append("".join(current))
    if any(not p for p in parts):
        raise AnalysisError(f"the column name {name!r} has an empty part")
    return parts
