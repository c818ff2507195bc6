"""A plan's literal as a DuckDB expression, typed as the plan typed it.

A typed literal is a cast of its text, so no precision is lost on the way (a decimal's
digits, a double's shortest round-trip text); an instant in the session zone is ``zones``'.
"""

from __future__ import annotations

import math

from sqlglot import exp

from sparkwire.coordinator.worker.compile.duckdb_types import duckdb_type
from sparkwire.coordinator.worker.compile.nodes import cast
from sparkwire.planner.logical.expressions import Lit

__all__ = ["literal"]


def literal(lit: Lit) -> exp.Expr:
    """A literal; typed literals are a cast of their text, so precision is never lost."""
    value = lit.value
    node: exp.Expr
    if value is None:
        node = exp.Null()
    elif isinstance(value, bool):
        node = exp.Boolean(this=value)
    elif isinstance(value, int):
        node = exp.Literal.number(value)
    elif isinstance(value, float):
        # DuckDB reads `0.1` as DECIMAL(1,1); PySpark's float literal is a double. Casting
        # the shortest round-trip text keeps every bit and also spells nan and +-inf.
        text = repr(value) if math.isfinite(value) else str(value)
        node = cast(exp.Literal.string(text), "DOUBLE")
    else:
        node = exp.Literal.string(value)
    if lit.type is None:
        return node
    if lit.type == "binary" and isinstance(value, str):
        # CAST(text AS BLOB) reads `\xNN` escapes and refuses non-ASCII; a binary literal
        # given as text means its UTF-8 bytes, which is what encode() returns.
        return exp.Anonymous(this="encode", expressions=[node])
    return exp.Cast(this=node, to=duckdb_type(lit.type))
