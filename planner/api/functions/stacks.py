"""``stack`` of ``pyspark.sql.functions``, re-exported by ``planner.api.functions``: a
generator column, built, and its semantics written down, in
``planner.logical.functions.stacks``."""

from __future__ import annotations

from sparkwire.planner.api.column import ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.nested import GeneratorColumn
from sparkwire.planner.logical.functions.stacks import stack as _stack

__all__ = ["stack"]


def stack(*cols: ColumnOrName) -> GeneratorColumn:
    if not cols:
        return GeneratorColumn(_stack(lit(None).expr))
    first, *rest = cols
    rows = first.expr if hasattr(first, "expr") else lit(first).expr
    return GeneratorColumn(_stack(rows, *(to_column(c).expr for c in rest)))
