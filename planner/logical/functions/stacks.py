"""``stack(n, v1, v2 ...)``: a generator of ``n`` rows per input row, the values laid out row
by row in ``ceil(len(values) / n)`` columns ``col0``, ``col1`` ..., the last row padded with
NULLs (Spark's ``Stack``); checked against PySpark (``tests/spark/test_stacks.py``).

It is planned as ``inline`` of an array of ``n`` structs, one per row, whose fields are the
row's values: the array's element type is the columns' common type; a NULL literal (the
padding too) takes its column's type, as Spark casts it. Where Spark differs:
it refuses columns whose values' types differ (``STACK_COLUMN_DIFF_TYPES``, NULLs aside),
where this widens them as ``array`` does; a program that runs on Spark gets Spark's rows.
In SQL text ``stack`` is not supported yet (``planner.sql.generators`` plans ``explode`` and
``inline``).
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Case, Expr, Lit
from sparkwire.planner.logical.functions.base import checked_call, option, shown
from sparkwire.planner.logical.functions.collections import struct_of
from sparkwire.planner.logical.functions.generators import Generator

__all__ = ["stack"]


def stack(rows: Expr, *values: Expr) -> Generator:
    """The generator of ``values`` in ``rows`` rows (see the module docstring)."""
    n = option(rows)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise AnalysisError(f"stack takes a positive integer literal row count first, got {shown(rows)}",
                            condition="DATATYPE_MISMATCH.NON_FOLDABLE_INPUT")
    if not values:
        raise AnalysisError("stack takes at least one value after its row count",
                            condition="WRONG_NUM_ARGS.WITHOUT_SUGGESTION")
    width = -(-len(values) // n)
    padded = [*values, *(Lit(value=None),) * (n * width - len(values))]
    columns = [[padded[row * width + i] for row in range(n)] for i in range(width)]
    typed = [[_null_as(value, column) for value in column] for column in columns]
    structs = [struct_of([(typed[i][row], f"col{i}") for i in range(width)]) for row in range(n)]
    return Generator(checked_call("array", *structs), position=False, outer=False, inline=True)


def _null_as(value: Expr, column: list[Expr]) -> Expr:
    """A NULL of the column's type where ``value`` is a NULL literal (padding included), as
    Spark casts them: ``CASE WHEN false THEN v END`` of the column's first other value ``v``
    has its type, and no type need be known before analysis."""
    if not (isinstance(value, Lit) and value.value is None):
        return value
    typed = next((v for v in column if not (isinstance(v, Lit) and v.value is None)), None)
    return value if typed is None else Case(branches=((Lit(value=False), typed),))
