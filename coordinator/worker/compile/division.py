"""Spark's division and remainder where DuckDB's differ, in both of Spark's modes
(``spark.sql.ansi.enabled``, the plan's ``ansi`` flag); the errors they raise are built by
``errors``, integer ``+ - *`` is ``integers`` and casts are ``casts``.

With ANSI on (Spark 4's default) a bad value raises an error naming Spark's error class, built
in the query with DuckDB's ``error()`` from literal text and the offending value (never
formatted into SQL); with ANSI off the same value gives NULL, as Spark's legacy mode does.
The rules, each checked against PySpark 4 (``tests/spark/test_semantics.py``):

- ``a / b`` and ``a % b`` with ``b = 0``: ``DIVIDE_BY_ZERO`` / ``REMAINDER_BY_ZERO`` (but NULL
  for a NULL ``a``), else NULL; DuckDB gives +-inf for ``/`` and fails ``%``. Doubles too.
- a decimal quotient is exact (``decimal_div``), rounded HALF_UP to the scale Spark gives it;
  DuckDB would divide doubles (16 digits); so is a decimal average (``decimal_avg``).
"""

from __future__ import annotations

import decimal
from collections.abc import Sequence

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import ModeBuilder, arity, literal_int
from sparkwire.coordinator.worker.compile.duckdb_types import duckdb_type
from sparkwire.coordinator.worker.compile.errors import ANSI_HINT, CompileError, raise_error
from sparkwire.coordinator.worker.compile.nodes import call, cast, paren

__all__ = ["DIVISION_CALLS"]


def _zero_guard(
    dividend: exp.Expr, divisor: exp.Expr, ansi: bool, error_class: str, text: str,
    try_name: str,
) -> exp.Expr:
    """The divisor, NULL where it is 0 (legacy) or failing the query there (ANSI) unless the
    dividend is NULL: Spark reads the dividend before it checks the divisor."""
    zero: exp.Expr = exp.EQ(this=paren(divisor), expression=exp.Literal.number(0))
    if ansi:
        zero = exp.And(this=zero, expression=exp.Not(
            this=exp.Is(this=paren(dividend), expression=exp.Null())))
        failure = raise_error(error_class, f"{text}. Use `{try_name}` to tolerate divisor being 0 "
                                            f"and return NULL instead. {ANSI_HINT}")
    else:
        failure = exp.Null()
    return exp.Case(ifs=[exp.If(this=zero, true=failure)], default=divisor)


def divide(args: Sequence[exp.Expr], ansi: bool) -> exp.Expr:
    """PySpark's ``/``: true division as doubles (the planner casts a decimal result back to
    its decimal type), with Spark's division by zero."""
    arity("div", list(args), 2)
    divisor = _zero_guard(args[0], cast(args[1], "DOUBLE"), ansi, "DIVIDE_BY_ZERO",
                          "Division by zero", "try_divide")
    return exp.Div(this=cast(args[0], "DOUBLE"), expression=exp.Paren(this=divisor))


def decimal_divide(args: Sequence[exp.Expr], ansi: bool) -> exp.Expr:
    """``decimal_div(a, b, scale)``: Spark's exact decimal quotient, rounded HALF_UP to
    ``scale`` digits (DuckDB divides decimals as doubles, 16 digits). ``a`` and ``b`` are
    casts to their decimal types (the planner's), so their scales are known: the quotient of
    their unscaled integers, scaled, is rounded and written back as a decimal.

    Where both unscaled operands have at most 18 digits (TPC-DS's ``sum(x) / 2``,
    ``decimal(10,2)`` shifted 4 digits), they are BIGINTs and the rounding is one division,
    ``(2|n| + |d|) div 2|d|`` with the quotient's sign: 2.7M rows took 0.63 s in 128-bit
    integers, 0.05 s so. Wider operands divide as HUGEINTs, rounding by the remainder, as
    twice a 38-digit one would overflow. A divisor that is a nonzero literal needs no
    check for zero."""
    arity("decimal_div", list(args), 3)
    a, b, scale_literal = args
    (a_digits, a_scale), (b_digits, b_scale) = _decimal_type(a), _decimal_type(b)
    if not isinstance(scale_literal, exp.Literal) or scale_literal.is_string:
        raise CompileError("decimal_div takes the result scale as an integer literal")
    scale = int(scale_literal.this)
    shift = scale - a_scale + b_scale  # digits the dividend gains so the quotient has `scale`
    narrow = a_digits + max(shift, 0) <= 18 and b_digits + max(-shift, 0) <= 18
    integer = "BIGINT" if narrow else "HUGEINT"
    numerator = _unscaled(a, max(shift, 0), integer)
    denominator = _unscaled(b, max(-shift, 0), integer)
    if not _nonzero_literal(b):
        denominator = _zero_guard(a, denominator, ansi, "DIVIDE_BY_ZERO", "Division by zero",
                                  "try_divide")
    if narrow:
        doubled = exp.Mul(this=exp.Literal.number(2), expression=exp.Abs(this=denominator))
        magnitude = exp.IntDiv(
            this=exp.Paren(this=exp.Add(this=exp.Mul(this=exp.Literal.number(2),
                                                     expression=exp.Abs(this=numerator)),
                                        expression=exp.Abs(this=denominator.copy()))),
            expression=exp.Paren(this=doubled))
        signs = exp.Mul(this=exp.Anonymous(this="sign", expressions=[numerator.copy()]),
                        expression=exp.Anonymous(this="sign", expressions=[denominator.copy()]))
        return decimal_text(exp.Mul(this=magnitude, expression=signs), scale)
    quotient = exp.IntDiv(this=numerator, expression=exp.Paren(this=denominator))
    rest = exp.Mod(this=numerator, expression=exp.Paren(this=denominator))
    return decimal_text(exp.Add(this=quotient, expression=_half_up(numerator, rest, denominator)),
                        scale)


def _nonzero_literal(value: exp.Expr) -> bool:
    """Whether ``value`` (a cast to a decimal type) casts a number literal other than 0."""
    inner = value.this if isinstance(value, exp.Cast) else None
    if not isinstance(inner, exp.Literal) or inner.is_string:
        return False
    try:
        return decimal.Decimal(inner.this) != 0
    except decimal.InvalidOperation:
        return False


def _half_up(numerator: exp.Expr, rest: exp.Expr,
             denominator: exp.Expr) -> exp.Expr:
    """What rounds a truncated quotient HALF_UP: one away from zero where the remainder is
    at least half the divisor, else 0."""
    away = exp.Mul(this=exp.Anonymous(this="sign", expressions=[numerator]),
                   expression=exp.Anonymous(this="sign", expressions=[denominator]))
    return exp.Case(ifs=[exp.If(
        this=exp.GTE(this=exp.Mul(this=exp.Literal.number(2), expression=exp.Abs(this=rest)),
                     expression=exp.Abs(this=denominator)), true=away)], default=exp.Literal.number(0))


def decimal_text(unscaled: exp.Expr, scale: int) -> exp.Expr:
    """The integer ``unscaled`` (less than 10**38 in magnitude) read as a DECIMAL(38, scale):
    as a DECIMAL(38, 0) times 10^-scale, which DuckDB multiplies exactly (widths capped at
    38). ``unscaled`` appears once: formatting its digits as text repeated it ~7 times,
    and a quotient's operands ~40 times, which cost 240 ms per task to generate for TPC-H
    Q8's final stage."""
    unit = exp.Cast(this=exp.Literal.string(f"{decimal.Decimal(1).scaleb(-scale):f}"),
                    to=duckdb_type(f"decimal({min(scale + 1, 38)},{scale})"))
    product = exp.Mul(this=cast(unscaled, "DECIMAL(38,0)"), expression=unit)
    return exp.Cast(this=product, to=duckdb_type(f"decimal(38,{scale})"))


def decimal_average(args: Sequence[exp.Expr], ansi: bool) -> exp.Expr:
    """``decimal_avg(total, rows, scale)``: Spark's ``avg`` of a decimal, the exact quotient
    of the decimal sum ``total`` (cast to its decimal type) by the count ``rows``, rounded
    HALF_UP to ``scale`` (the scale of Spark's ``avg`` type, at most 4 more than the sum's).

    Where the sum and the added digits fit 37 digits (Spark's sum of a ``decimal(p,s)`` has
    ``p + 10``), in one rounded division (``_rounded_quotient``), which cannot overflow.
    A wider sum by long division in 128-bit integers, so 38 digits cannot overflow: the whole
    part ``S div n`` moves up by the added digits and the remainder's quotient ``r * 10^d
    div n`` (``r < n < 2^63``) is rounded and added. Spark divides to 39 digits and then
    rounds to the scale; rounding once differs only where those digits past the scale are
    ``4999...`` followed by a digit of 5 or more, which needs more rows than a count holds
    unless the scale is 29 or more. A quotient of more than 38 digits is
    ``NUMERIC_VALUE_OUT_OF_RANGE`` (ANSI) or NULL; the caller's cast to the ``avg`` type
    applies its precision the same way. No rows (a NULL sum) is NULL."""
    arity("decimal_avg", list(args), 3)
    total, rows, scale_literal = args
    scale = literal_int(scale_literal, "decimal_avg's scale")
    precision, total_scale = _decimal_type(total)
    extra = scale - total_scale
    if not 0 <= extra <= 4:
        raise CompileError("decimal_avg rounds to at most 4 digits more than the sum has")
    sum_unscaled, count = _unscaled(total, 0), cast(rows, "HUGEINT")
    shift = exp.Literal.number(10 ** extra)
    if precision + extra <= 37:
        return decimal_text(_rounded_quotient(sum_unscaled, shift, count), scale)
    whole = exp.IntDiv(this=sum_unscaled, expression=count)
    rest = exp.Mul(this=exp.Paren(this=exp.Mod(this=sum_unscaled.copy(), expression=count.copy())),
                   expression=shift)
    fraction = exp.Add(
        this=exp.IntDiv(this=rest, expression=count.copy()),
        expression=_half_up(sum_unscaled.copy(), exp.Mod(this=rest.copy(), expression=count.copy()),
                            count.copy()))
    unscaled = exp.Add(this=exp.Mul(this=exp.Paren(this=whole), expression=shift.copy()),
                       expression=exp.Paren(this=fraction))
    failure = raise_error("NUMERIC_VALUE_OUT_OF_RANGE", "", exp.Div(
        this=cast(total, "DOUBLE"), expression=cast(rows, "DOUBLE")),
        f" cannot be represented as Decimal(38, {scale}). {ANSI_HINT}") if ansi else exp.Null()
    # the whole part first: shifted, a larger one would overflow 128 bits
    return exp.Case(ifs=[
        exp.If(this=exp.GTE(this=exp.Abs(this=whole.copy()),
                            expression=exp.Literal.number(10 ** (38 - extra))), true=failure),
        exp.If(this=exp.GTE(this=exp.Abs(this=unscaled.copy()), expression=exp.Literal.number(10 ** 38)),
               true=failure.copy()),
    ], default=decimal_text(unscaled, scale))


def _rounded_quotient(dividend: exp.Expr, shift: exp.Expr,
                      count: exp.Expr) -> exp.Expr:
    """``dividend * shift / count`` rounded HALF_UP, for a positive ``count`` and a product of
    at most 37 digits: ``(2a + sign(a) n) div 2n`` with a division that truncates, as
    DuckDB's does. Twice the product still fits 128 bits, so no long division, no overflow
    check, and the sum appears twice instead of seven times: the averages of TPC-H Q1 were
    27 KB of SQL that DuckDB took 60 ms per task to bind and optimise."""
    doubled = exp.Mul(this=exp.Mul(this=exp.Literal.number(2), expression=dividend), expression=shift)
    nudge = exp.Mul(this=exp.Anonymous(this="sign", expressions=[dividend.copy()]), expression=count)
    return exp.IntDiv(this=exp.Paren(this=exp.Add(this=doubled, expression=nudge)),
                      expression=exp.Paren(this=exp.Mul(this=exp.Literal.number(2),
                                                        expression=count.copy())))


def _decimal_scale(arg: exp.Expr) -> int:
    return _decimal_type(arg)[1]


def _decimal_type(arg: exp.Expr) -> tuple[int, int]:
    """``(precision, scale)`` of an operand cast to its decimal type."""
    to = arg.args.get("to") if isinstance(arg, exp.Cast) else None
    if to is None or to.this != exp.DataType.Type.DECIMAL or len(to.expressions) != 2:
        raise CompileError("decimal_div takes operands cast to decimal types")
    return int(to.expressions[0].this.this), int(to.expressions[1].this.this)


def _unscaled(value: exp.Expr, extra: int, integer: str = "HUGEINT") -> exp.Expr:
    """The decimal ``value`` times ``10^(its scale + extra)`` as an ``integer`` (HUGEINT, or
    BIGINT where the caller knows it fits), exactly. Where ``precision + scale`` is at most
    38, DuckDB's decimal product by ``10^scale`` holds it (and costs a multiplication); past
    that it would overflow (10^20 as a DECIMAL(38,18) times 10^18), so the digits are read
    from the decimal's text, which has every digit of its scale (and costs formatting a
    string per row: TPC-H Q17's 200K averages)."""
    precision, scale = _decimal_type(value)
    if precision + scale <= 38:
        power = exp.Cast(this=exp.Literal.number(10 ** scale), to=duckdb_type(f"decimal({scale + 1},0)"))
        unscaled = cast(exp.Mul(this=paren(value), expression=power), integer)
    else:
        unscaled = cast(call("replace", cast(value, "VARCHAR"), ".", ""), integer)
    if not extra:
        return unscaled
    return exp.Mul(this=unscaled, expression=cast(exp.Literal.number(10 ** extra), integer))


def remainder(args: Sequence[exp.Expr], ansi: bool) -> exp.Expr:
    """``a % b``: the sign of ``a`` in both engines; Spark's remainder by zero."""
    arity("mod", list(args), 2)
    divisor = _zero_guard(args[0], args[1], ansi, "REMAINDER_BY_ZERO", "Remainder by zero",
                          "try_mod")
    return exp.Mod(this=paren(args[0]), expression=exp.Paren(this=divisor))


def positive_remainder(args: Sequence[exp.Expr], ansi: bool) -> exp.Expr:
    """``pmod(a, n)``: ``a % n`` (by zero as ``%``), a negative remainder moved up by ``n``."""
    arity("pmod", list(args), 2)
    rest = remainder(args, ansi)
    moved = exp.Mod(this=exp.Paren(this=exp.Add(this=rest.copy(), expression=paren(args[1]))),
                    expression=paren(args[1].copy()))
    negative = exp.LT(this=rest.copy(), expression=exp.Literal.number(0))
    return exp.Case(ifs=[exp.If(this=negative, true=moved)], default=rest)


#: The division builders, whose result depends on the ANSI mode (``calls.MODE_CALLS``).
DIVISION_CALLS: dict[str, ModeBuilder] = {
    "div": divide,
    "decimal_div": decimal_divide,
    "decimal_avg": decimal_average,
    "mod": remainder,
    "pmod": positive_remainder,
}
