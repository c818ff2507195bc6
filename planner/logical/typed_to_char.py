"""``to_char``/``to_varchar`` (``planner.logical.functions.char_formats``) chosen once the
operand's type is known, as Spark's ``ToCharacterBuilder`` chooses:

- of a date or timestamp it is ``date_format`` (the format a datetime pattern);
- of a binary, the format (a literal, in any case) says how: ``base64``, ``hex`` or
  ``utf-8``, anything else Spark's ``INVALID_PARAMETER_VALUE.BINARY_FORMAT``;
- of a number Spark reads a number format (``9``, ``0``, ``,``, ``.``, ``$``, ``S``, ``MI``,
  ``PR``), which is not written here yet: refused.

It runs before ``local_time``, which then reads ``date_format`` as it reads the user's.
Spark names the call after the one it is (``date_format(d, yyyy)``, ``hex(b)``; ``utf-8``
keeps ``to_char(b, utf-8)``): the analyzer spells it so (``spelling``).
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import types
from sparkwire.planner.logical.expressions import Call, Expr, Lit, ScalarFunction
from sparkwire.planner.logical.functions.base import checked_call
from sparkwire.planner.logical.tree import transform

TO_CHARS = frozenset({"to_char", "to_varchar"})
#: A binary format -> the function and the arguments after the operand it is.
_BINARY: dict[str, tuple[ScalarFunction, tuple[str, ...]]] = {
    "base64": ("base64", ()), "hex": ("hex", ()), "utf-8": ("decode", ("UTF-8",))}


def to_chars(expr: Expr, columns: Mapping[str, pa.DataType]) -> Expr:
    """``expr`` with every ``to_char``/``to_varchar`` made the call its operand's type says."""

    def visit(node: Expr) -> Expr | None:
        if not (isinstance(node, Call) and node.fn in TO_CHARS):
            return None
        operand, pattern = (to_chars(a, columns) for a in node.args)
        return chosen(Call(fn=node.fn, args=(operand, pattern)), types.infer(operand, columns))

    return transform(expr, visit)


def chosen(call: Call, kind: pa.DataType) -> Expr:
    """The call ``call`` (a ``to_char``) is, of an operand of type ``kind``."""
    operand, pattern = call.args
    if pa.types.is_date(kind) or pa.types.is_timestamp(kind):
        return checked_call("date_format", operand, pattern)
    if not pa.types.is_binary(kind):
        raise AnalysisError(f"{call.fn} of {types.spark_type_name(kind)} (Spark's number format) is not "
                            "supported by sparkwire yet; of dates, timestamps and binary it is")
    name = pattern.value.lower() if isinstance(pattern, Lit) and isinstance(pattern.value, str) else None
    if name not in _BINARY:
        raise AnalysisError(
            "[INVALID_PARAMETER_VALUE.BINARY_FORMAT] The value of parameter(s) `format` in `to_char` is "
            f"invalid: expects one of binary formats 'base64', 'hex', 'utf-8', but got '{name}'.")
    fn, rest = _BINARY[name]
    return checked_call(fn, operand, *(Lit(value=r) for r in rest))


def spelling(call: Call, kind: pa.DataType) -> Expr:
    """``call`` as Spark names it: after the call it is (``date_format(d, yyyy)``,
    ``hex(b)``), but ``utf-8``'s, which keeps its own name."""
    made = chosen(call, kind)
    return call if isinstance(made, Call) and made.fn == "decode" else made
