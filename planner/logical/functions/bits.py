"""Bitwise functions of the registry, with Java's integer semantics (the worker's builders:
``coordinator.worker.compile.calls_bits``):

- ``shiftleft``/``shiftright``/``shiftrightunsigned`` of an ``int`` (or a ``tinyint``/
  ``smallint``, widened to ``int``) are ``int``, of a ``bigint`` ``bigint``: the shift
  count is taken modulo 32 (64) as Java's ``<<`` takes it, bits shifted out are lost
  (``shiftleft(1, 31)`` is ``-2147483648``), ``shiftright`` keeps the sign and
  ``shiftrightunsigned`` fills with zeros; the analyzer names the width
  (``planner.logical.typed``), as for integer arithmetic;
- ``bitwise_not`` keeps its argument's type (``~x``); ``bit_count`` counts the set bits of
  the value widened to a ``bigint`` (``bit_count(-1)`` of any width is 64) and is an
  ``int``; ``bit_get``/``getbit`` is the bit at a position as a ``tinyint``, the position
  checked against the width (Spark's ``INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE``);
- ``bit_and``/``bit_or``/``bit_xor`` aggregate an integer column into its own type, NULLs
  skipped, NULL for no values; partial results merge with the same function.
"""

from __future__ import annotations

from sparkwire.planner.logical.expressions import AggCall, AggregateFunction, Expr
from sparkwire.planner.logical.functions.base import Function, plain

#: ``Column.bitwiseAND``/``OR``/``XOR``, SQL's ``&``, ``|``, ``^``: of two integers, typed as
#: the wider of them (both coerced to it, as Spark's ``BitwiseAnd`` coerces), NULL if either is.
BINARY = ("bitwise_and", "bitwise_or", "bitwise_xor")
#: The shifts: an integer and a count, typed by the analyzer with the integer's width.
SHIFTS = ("shiftleft", "shiftright", "shiftrightunsigned")


def _aggregate(fn: AggregateFunction) -> Function:
    def build(value: Expr) -> Expr:
        return AggCall(fn=fn, arg=value)

    return Function(fn, build, 1, 1)


FUNCTIONS = (
    *(plain(name, 2) for name in SHIFTS),
    plain("bitwise_not"),
    *(plain(name, 2) for name in BINARY),
    plain("bit_count"),
    plain("bit_get", 2),
    plain("getbit", 2),
    _aggregate("bit_and"),
    _aggregate("bit_or"),
    _aggregate("bit_xor"),
)
