"""Spark's integers are Java's: fixed-width two's complement. DuckDB checks every integer
result and fails on overflow; Spark does too with ANSI on (``ARITHMETIC_OVERFLOW``), but
with ANSI off (legacy) it wraps around as Java does: ``2147483647 + 1`` is ``-2147483648``,
a bigint ``sum`` past ``2**63 - 1`` comes back negative.

The planner names the Spark type of every integer ``+ - *`` and unary ``-`` in the call
(``add(a, b, 'int32')``, ``planner.logical.typed``) and wraps an integer ``sum`` in
``exact_integer(sum(x), 'int64')``: the worker cannot see operand types, and DuckDB sums
integers as HUGEINT. The rules:

- ``+ - *`` and ``-`` with ANSI on: DuckDB's own operator, whose result type is Spark's (the
  wider operand's); its overflow error is reported as ``ARITHMETIC_OVERFLOW``
  (``errors.spark_error``). With ANSI off: computed exactly in HUGEINT (a product of two
  bigints fits in 127 bits) and narrowed to the type by wrapping;
- ``exact_integer(v, T)`` of a value DuckDB computed wider: beyond ``T`` fails with
  ``ARITHMETIC_OVERFLOW`` (ANSI) or wraps (legacy); a two-phase ``sum`` wraps once at the end,
  which is the same number as wrapping each partial sum (arithmetic modulo ``2**64``);
  ``exact_integer(v, T, true)`` (``try_sum``) is NULL beyond ``T`` in either mode.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import literal_text
from sparkwire.coordinator.worker.compile.duckdb_types import duckdb_type
from sparkwire.coordinator.worker.compile.errors import ANSI_HINT, CompileError, raise_error
from sparkwire.coordinator.worker.compile.nodes import cast, paren

#: Spark's integral types, by the width Java gives them.
INTEGER_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
_SPARK_NAMES = {"int8": "tinyint", "int16": "smallint", "int32": "integer", "int64": "long"}
_OPERATORS: dict[str, type[exp.Binary]] = {"add": exp.Add, "sub": exp.Sub, "mul": exp.Mul}


def bounds(bits: int) -> tuple[exp.Expr, exp.Expr]:
    """The least and greatest integer of ``bits`` bits, as literals."""
    return exp.Literal.number(-(2 ** (bits - 1))), exp.Literal.number(2 ** (bits - 1) - 1)


def wrapped(value: exp.Expr, bits: int, to: str) -> exp.Expr:
    """Java's narrowing: the low ``bits`` bits of the integer ``value`` as a signed number."""
    half, size = exp.Literal.number(2 ** (bits - 1)), exp.Literal.number(2 ** bits)
    shifted = exp.Add(this=cast(value, "HUGEINT"), expression=half)
    positive = exp.Mod(this=exp.Paren(this=exp.Add(
        this=exp.Paren(this=exp.Mod(this=exp.Paren(this=shifted), expression=size)),
        expression=size)), expression=size)
    return exp.Cast(this=exp.Sub(this=exp.Paren(this=positive), expression=half),
                    to=duckdb_type(to))


def _integer_type(node: exp.Expr, fn: str) -> str:
    name = literal_text(node, f"{fn}'s result type")
    if name not in INTEGER_BITS:
        raise CompileError(f"{fn}: {name!r} is not an integer type")
    return name


def _split(fn: str, args: Sequence[exp.Expr],
           operands: int) -> tuple[list[exp.Expr], str | None]:
    """The operands, and the integer type the planner named (None for other types)."""
    if len(args) == operands:
        return list(args), None
    if len(args) != operands + 1:
        raise CompileError(f"{fn} takes {operands} operand(s) and an optional integer type")
    return list(args[:operands]), _integer_type(args[operands], fn)


def _binary(fn: str) -> Callable[[Sequence[exp.Expr], bool], exp.Expr]:
    operator = _OPERATORS[fn]

    def build(args: Sequence[exp.Expr], ansi: bool) -> exp.Expr:
        (a, b), to = _split(fn, args, 2)
        if to is None or ansi:
            return operator(this=paren(a), expression=paren(b))
        exact = operator(this=cast(a, "HUGEINT"), expression=cast(b, "HUGEINT"))
        return wrapped(exact, INTEGER_BITS[to], to)

    return build


def negate(args: Sequence[exp.Expr], ansi: bool) -> exp.Expr:
    """Unary ``-``: in legacy mode ``-(-2147483648)`` is itself, as in Java."""
    (a,), to = _split("neg", args, 1)
    if to is None or ansi:
        return exp.Neg(this=paren(a))
    return wrapped(exp.Neg(this=cast(a, "HUGEINT")), INTEGER_BITS[to], to)


def exact_integer(args: Sequence[exp.Expr], ansi: bool) -> exp.Expr:
    """``exact_integer(v, T[, true])``: ``v`` (computed wider by DuckDB) as Spark's integer
    type; with ``true`` (``try_sum``), NULL beyond it in either mode."""
    if len(args) not in (2, 3):
        raise CompileError(f"exact_integer takes a value, a type and a flag, got {len(args)} arguments")
    value, to = args[0], _integer_type(args[1], "exact_integer")
    tolerant = len(args) == 3 and isinstance(args[2], exp.Boolean) and args[2].this is True
    bits = INTEGER_BITS[to]
    if not ansi and not tolerant:
        return wrapped(value, bits, to)
    low, high = bounds(bits)
    outside = exp.Or(this=exp.LT(this=paren(value), expression=low),
                     expression=exp.GT(this=paren(value.copy()), expression=high))
    failure = exp.Null() if tolerant else raise_error(
        "ARITHMETIC_OVERFLOW", f"{_SPARK_NAMES[to]} overflow. {ANSI_HINT}")
    return exp.Case(ifs=[exp.If(this=outside, true=failure)],
                    default=exp.Cast(this=value.copy(), to=duckdb_type(to)))


#: The integer builders, whose result depends on the ANSI mode (``calls.MODE_CALLS``).
INTEGER_CALLS: dict[str, Callable[[Sequence[exp.Expr], bool], exp.Expr]] = {
    "add": _binary("add"),
    "sub": _binary("sub"),
    "mul": _binary("mul"),
    "neg": negate,
    "exact_integer": exact_integer,
}
