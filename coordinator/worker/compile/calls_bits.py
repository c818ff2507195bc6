"""Bitwise builders: Java's integer semantics (``planner.logical.functions.bits``) in DuckDB.

DuckDB checks its shifts (``1 << 31`` of an INTEGER is an overflow error, a count past the
width gives 0) where Java wraps: the shifts here work on the value's bits as an unsigned
number in a wider type (BIGINT for an int, HUGEINT for a bigint), the count masked to the
width as Java masks it, and read the low bits back as a signed number. The width is the
integer type the analyzer names as the call's last argument (``planner.logical.typed``).

``bit_get`` checks its position against the width of its argument's DuckDB type, which is
Spark's (``typeof``, folded to a constant when DuckDB binds the query).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity, literal_text
from sparkwire.coordinator.worker.compile.errors import CompileError, raise_error
from sparkwire.coordinator.worker.compile.templates import over, template

_MASKS = {32: 2**32 - 1, 64: 2**64 - 1}
_WIDER = {32: "BIGINT", 64: "HUGEINT"}
_TYPES = {32: "INTEGER", 64: "BIGINT"}


def _signed(bits: int, unsigned: str) -> str:
    """The ``bits``-bit signed number whose bits the non-negative ``unsigned`` holds."""
    return (f"CAST(CASE WHEN {unsigned} >= {2 ** (bits - 1)} THEN {unsigned} - {2 ** bits} "
            f"ELSE {unsigned} END AS {_TYPES[bits]})")


def _shift_templates(bits: int) -> dict[str, Callable[..., exp.Expr]]:
    mask, count = _MASKS[bits], f"(:n & {bits - 1})"
    unsigned = f"(CAST(:x AS {_WIDER[bits]}) & {mask})"
    return {
        "shiftleft": template(_signed(bits, f"(({unsigned} << {count}) & {mask})")),
        "shiftright": template(f"CAST(:x AS {_TYPES[bits]}) >> {count}"),
        "shiftrightunsigned": template(_signed(bits, f"({unsigned} >> {count})")),
    }


_SHIFTS = {"int32": _shift_templates(32), "int64": _shift_templates(64)}


def _shift(fn: str) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(fn, args, 3)
        width = literal_text(args[2], f"{fn}'s integer type")
        if width not in _SHIFTS:
            raise CompileError(f"{fn} of {width!r} is not planned (an int or a bigint)")
        return _SHIFTS[width][fn](x=args[0], n=args[1])

    return build


_WIDTH = template("CASE typeof(:x) WHEN 'TINYINT' THEN 8 WHEN 'SMALLINT' THEN 16 "
                  "WHEN 'INTEGER' THEN 32 ELSE 64 END")
_BIT = template("CAST((CAST(:x AS BIGINT) >> :p) & 1 AS TINYINT)")


def _bit_get(fn: str) -> Builder:
    """The bit at ``pos``; a position outside the width fails as Spark's does."""

    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(fn, args, 2)
        value, position = args
        width = _WIDTH(x=value)
        outside = exp.Or(this=exp.LT(this=position.copy(), expression=exp.Literal.number(0)),
                         expression=exp.GTE(this=position.copy(), expression=width.copy()))
        failure = raise_error(
            "INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE",
            f"The value of parameter(s) `pos` in `{fn}` is invalid: expects an integer value "
            "in [0, ", width, "), but got ", position.copy(), ".")
        return exp.Case(ifs=[exp.If(this=outside, true=failure)], default=_BIT(x=value, p=position))

    return build


BIT_CALLS: dict[str, Builder] = {
    **{fn: _shift(fn) for fn in ("shiftleft", "shiftright", "shiftrightunsigned")},
    "bitwise_not": over("~:x", "x"),
    "bitwise_and": over(":x & :y", "x", "y"),
    "bitwise_or": over(":x | :y", "x", "y"),
    "bitwise_xor": over("xor(:x, :y)", "x", "y"),  # DuckDB's ``^`` is a power
    "bit_count": over("CAST(bit_count(CAST(:x AS BIGINT)) AS INTEGER)", "x"),
    "bit_get": _bit_get("bit_get"),
    "getbit": _bit_get("getbit"),
}
