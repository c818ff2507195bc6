"""Math builders: Spark's semantics (``planner.logical.functions.numeric``) in DuckDB.

DuckDB's ``ln``/``log10``/``log2`` of 0 are -inf and of a negative NaN (Spark: NULL), its
``sign`` is an integer and 0 for NaN (Spark: a double, NaN), its ``round`` of a double
rounds the binary value (2.675 to 2.67; Spark rounds the decimal text, 2.68). The
analyzer hands doubles to ``round``/``bround`` as ``round_double``/``bround_double``
(``planner.logical.analyzer``), which round the shortest decimal text of the value as a
DECIMAL(38,18), HALF_UP (DuckDB's decimal ``round``) or HALF_EVEN (``round_even``);
integers and decimals round as they are.

``floor``/``ceil`` of a double (``floor_double``/``ceil_double``, also picked by the analyzer)
give Spark's bigint: NaN is 0 in both modes; beyond a bigint (the infinities too) Java's
cast saturates with ANSI off, and with it on the query fails with ``ARITHMETIC_OVERFLOW``
(DuckDB's floor stays a double, whose cast to BIGINT fails on all of them).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, ModeBuilder, arity
from sparkwire.coordinator.worker.compile.errors import ANSI_HINT, raise_error
from sparkwire.coordinator.worker.compile.nodes import call, cast, paren
from sparkwire.coordinator.worker.compile.templates import over

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
    def build(args: list[exp.Expr]) -> exp.Expr:
        if len(args) < 2:
            arity(name, args, 2)
        return exp.Anonymous(this=name, expressions=args)

    return build


def _bigint_of(fn: str) -> ModeBuilder:
    """``fn`` (floor or ceil) of a double as Spark's bigint."""

    def build(args: Sequence[exp.Expr], ansi: bool) -> exp.Expr:
        arity(f"{fn}_double", list(args), 1)
        whole = exp.Anonymous(this=fn, expressions=[cast(args[0], "DOUBLE")])
        limit = cast(exp.Literal.string(str(2.0**63)), "DOUBLE")  # 2**63, exactly a double
        above = exp.GTE(this=whole, expression=limit)
        below = exp.LT(this=whole.copy(), expression=exp.Neg(this=limit.copy()))
        nan: exp.Expr = exp.If(this=call("isnan", whole.copy()), true=exp.Literal.number(0))
        if ansi:
            overflow = raise_error("ARITHMETIC_OVERFLOW", f"overflow. {ANSI_HINT}")
            outside = [exp.If(this=exp.Or(this=above, expression=below), true=overflow)]
        else:
            outside = [exp.If(this=above, true=exp.Literal.number(2**63 - 1)),
                       exp.If(this=below, true=exp.Literal.number(-(2**63)))]
        return cast(exp.Case(ifs=[nan, *outside], default=cast(paren(whole.copy()), "BIGINT")),
                    "BIGINT")

    return build


#: The math builders whose result depends on Spark's ANSI mode (``calls.MODE_CALLS``).
MATH_MODE_CALLS: dict[str, ModeBuilder] = {
    "floor_double": _bigint_of("floor"),
    "ceil_double": _bigint_of("ceil"),
}

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
