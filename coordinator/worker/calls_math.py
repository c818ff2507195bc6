"""Math builders: Spark's semantics (``planner.functions_math``) in DuckDB.

DuckDB's ``ln``/``log10``/``log2`` of 0 are -inf and of a negative NaN (Spark: NULL), its
``sign`` is an integer and 0 for NaN (Spark: a double, NaN), its ``round`` of a double
rounds the binary value (2.675 to 2.67; Spark rounds the decimal text, 2.68). The
analyzer hands doubles to ``round``/``bround`` as ``round_double``/``bround_double``
(``planner.analyzer``), which round the shortest decimal text of the value as a
DECIMAL(38,18), HALF_UP (DuckDB's decimal ``round``) or HALF_EVEN (``round_even``);
integers and decimals round as they are.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.expressions import arity
from sparkwire.coordinator.worker.templates import Builder, over

_DOUBLE = "CAST(:x AS DOUBLE)"
# Doubles of magnitude >= 1e20 are whole numbers already, and beyond DECIMAL(38,18).
_DOUBLE_ROUNDING = (
    "CASE WHEN isfinite(:x) AND abs(:x) < 1e20 "
    "THEN CAST({fn}(CAST(CAST(:x AS VARCHAR) AS DECIMAL(38, 18)), :s) AS DOUBLE) ELSE :x END"
)


def _logarithm(fn: str, asymptote: int) -> Builder:
    """NULL at or below the asymptote, as Spark's logarithms."""
    return over(f"CASE WHEN :x <= {asymptote} THEN NULL ELSE {fn}({_DOUBLE}) END", "x")


def _double(fn: str) -> Builder:
    return over(f"{fn}({_DOUBLE})", "x")


def _variadic(name: str) -> Builder:
    def build(args: list[exp.Expression]) -> exp.Expression:
        if len(args) < 2:
            arity(name, args, 2)
        return exp.Anonymous(this=name, expressions=args)

    return build


MATH_CALLS: dict[str, Builder] = {
    "round": over("round(:x, :s)", "x", "s"),
    "bround": over("round_even(:x, :s)", "x", "s"),
    "round_double": over(_DOUBLE_ROUNDING.format(fn="round"), "x", "s"),
    "bround_double": over(_DOUBLE_ROUNDING.format(fn="round_even"), "x", "s"),
    "floor": over("floor(:x)", "x"),
    "ceil": over("ceil(:x)", "x"),
    "ceiling": over("ceil(:x)", "x"),
    "sqrt": _double("sqrt"),
    "pow": over("pow(CAST(:x AS DOUBLE), CAST(:y AS DOUBLE))", "x", "y"),
    "log": over(
        f"CASE WHEN :b <= 0 OR :x <= 0 THEN NULL ELSE ln({_DOUBLE}) / ln(CAST(:b AS DOUBLE)) END",
        "b", "x",
    ),
    "ln": _logarithm("ln", 0),
    "log10": _logarithm("log10", 0),
    "log2": _logarithm("log2", 0),
    "log1p": over(f"CASE WHEN :x <= -1 THEN NULL ELSE ln(1 + {_DOUBLE}) END", "x"),
    "exp": _double("exp"),
    "signum": over(f"CASE WHEN isnan({_DOUBLE}) THEN {_DOUBLE} ELSE CAST(sign(:x) AS DOUBLE) END", "x"),
    "greatest": _variadic("greatest"),
    "least": _variadic("least"),
}
