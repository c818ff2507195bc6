"""NULL functions and ``try_`` arithmetic (``planner.logical.functions.nulls``) in DuckDB.

``try_add``/``try_subtract``/``try_multiply`` of integers carry the Spark type the planner
named (``planner.logical.typed``, as ``+ - *`` do): computed exactly in HUGEINT (a product of
two bigints fits 127 bits) and NULL outside the type's range, in either ANSI mode. Other
operands (doubles, decimals, a date plus days) go through DuckDB's operator inside
``TRY()``, which turns its overflow error into NULL. ``try_divide``/``try_mod`` are
``/``/``%`` as the legacy mode computes them: NULL for a zero divisor (``division``).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, ModeBuilder, arity, literal_text
from sparkwire.coordinator.worker.compile.division import divide, remainder
from sparkwire.coordinator.worker.compile.duckdb_types import duckdb_type
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.integers import INTEGER_BITS, bounds
from sparkwire.coordinator.worker.compile.nodes import call, cast, paren
from sparkwire.coordinator.worker.compile.templates import over

__all__ = ["NULL_CALLS", "TRY_CALLS"]

_OPERATORS: dict[str, type[exp.Binary]] = {"try_add": exp.Add, "try_subtract": exp.Sub,
                                          "try_multiply": exp.Mul}


def _checked(fn: str) -> Builder:
    operator = _OPERATORS[fn]

    def build(args: list[exp.Expr]) -> exp.Expr:
        if len(args) == 2:
            return call("try", operator(this=paren(args[0]), expression=paren(args[1])))
        arity(fn, args, 3)
        to = literal_text(args[2], f"{fn}'s result type")
        if to not in INTEGER_BITS:
            raise CompileError(f"{fn}: {to!r} is not an integer type")
        exact = operator(this=cast(args[0], "HUGEINT"), expression=cast(args[1], "HUGEINT"))
        low, high = bounds(INTEGER_BITS[to])
        inside = exp.Between(this=exp.Paren(this=exact), low=low, high=high)
        return exp.Case(ifs=[exp.If(this=inside, true=exp.Cast(this=exact.copy(), to=duckdb_type(to)))],
                        default=exp.Null())

    return build


def _legacy(build: ModeBuilder) -> Builder:
    """A mode builder as the legacy (ANSI off) mode computes it: NULL where ANSI fails."""
    def legacy(args: Sequence[exp.Expr]) -> exp.Expr:
        return build(args, False)

    return legacy


NULL_CALLS: dict[str, Builder] = {
    **dict.fromkeys(("nvl", "ifnull"), over("coalesce(:a, :b)", "a", "b")),
    "nvl2": over("CASE WHEN :a IS NOT NULL THEN :b ELSE :c END", "a", "b", "c"),
    "nullif": over("nullif(:a, :b)", "a", "b"),
    "nullifzero": over("nullif(:a, 0)", "a"),
    # an integer narrower than int widens to it, as Spark's coalesce with the int 0
    "zeroifnull": over("coalesce(:a, CAST(0 AS INTEGER))", "a"),
    "equal_null": over(":a IS NOT DISTINCT FROM :b", "a", "b"),
}

TRY_CALLS: dict[str, Builder] = {
    **{fn: _checked(fn) for fn in _OPERATORS},
    "try_divide": _legacy(divide),
    "try_mod": _legacy(remainder),
}
