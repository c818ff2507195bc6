"""Calls whose engine form depends on an operand's type, chosen once names are resolved.

``round``/``bround`` of a double round the decimal the double prints as (Spark's
``BigDecimal(d)``), which the worker does through a DECIMAL; of an integer or a decimal
they round the value itself. The worker does not know operand types, so the analyzer
names the double case ``round_double``/``bround_double``; a float is rounded as a double
and cast back, keeping Spark's result type.

``sort_array``/``array_sort`` of structs name their type (``sort_array(a, asc,
'struct<...>')``): the worker builds a sort key from the fields, where NULL fields sort
first as in Spark.

``array_union``/``array_intersect``/``array_except`` of floating-point elements say so
(``array_union(a, b, true)``): Spark's hash sets compare and keep -0.0 as 0.0, which the
worker then does too (``coordinator.worker.compile.calls_arrays``).

``floor``/``ceil`` of a double or float are ``floor_double``/``ceil_double``: Spark's bigint
of NaN is 0 and of a value beyond a bigint (the infinities too) Java's saturation, or with
ANSI on ``ARITHMETIC_OVERFLOW`` (``coordinator.worker.compile.calls_math``); DuckDB's floor is a
double, which fails the cast to a bigint.

``uniform(seed, hidden, min, max)`` names the type it gives last: the worker draws a double
and truncates it toward zero into an integer type, or casts it to a float or double.

``update_fields`` (``withField``, ``dropFields``) is written out as a ``named_struct`` of
the struct's type (``planner.logical.struct_updates``).

``nanvl`` has its operands cast to the double it gives (a float where both are floats).

``typeof(x)`` carries Spark's name of ``x``'s type (``typeof(x, 'array<int>')``), which the
worker answers; ``to_json(x)`` carries ``x``'s type name too, which the worker writes the
JSON from (of a timestamp, or of anything but a struct, array or map, it is refused); the UTF-8 checks of anything but a string are refused (a binary may hold
invalid UTF-8, which Arrow strings cannot).

``format_number(x, d)`` says which kind of number ``x`` is (``format_number(x, d,
'double')``, ``'decimal'`` or ``'integer'``; a float is widened to a double, as Java's
``DecimalFormat`` reads it): the worker rounds each kind its own way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import struct_updates, types
from sparkwire.planner.logical.expressions import Call, Cast, Expr, Lit, ScalarFunction
from sparkwire.planner.logical.tree import transform

_DOUBLE_FORMS: dict[str, ScalarFunction] = {"round": "round_double", "bround": "bround_double"}
#: The array sorts, by the number of arguments before the struct type the analyzer adds.
_SORTS = {"sort_array": 2, "array_sort": 1}
#: The array set operations, whose floating-point elements the worker turns -0.0 to 0.0 in.
_SET_OPERATIONS = frozenset({"array_union", "array_intersect", "array_except"})
#: The UTF-8 checks, which take strings only (``planner.logical.functions.transcoding``).
_UTF8_CHECKS = frozenset({"is_valid_utf8", "make_valid_utf8", "validate_utf8", "try_validate_utf8"})
_BIGINT_FORMS: dict[str, ScalarFunction] = {"floor": "floor_double", "ceil": "ceil_double", "ceiling": "ceil_double"}
#: The functions ``typed_calls`` acts on (``rewrites``), besides the ``vector_`` family.
_REWRITTEN = frozenset({*_SORTS, *_SET_OPERATIONS, "nanvl", "typeof", "to_json", "format_number",
                        "uniform", "update_fields", *_UTF8_CHECKS, "collation", *_DOUBLE_FORMS,
                        *_BIGINT_FORMS})


def rewrites(fn: str) -> bool:
    """Whether ``typed_calls`` rewrites or checks calls of ``fn``: a tree without any is left
    as it is (``planner.logical.type_passes``). Every case of ``typed_calls`` is named here."""
    return fn in _REWRITTEN or fn.startswith("vector_")


def typed_calls(expr: Expr, columns: Mapping[str, pa.DataType]) -> Expr:
    def visit(node: Expr) -> Expr | None:  # a function added here is added to _REWRITTEN
        if isinstance(node, Call) and _SORTS.get(node.fn) == len(node.args):
            return _sorted_structs(Call(fn=node.fn, args=tuple(typed_calls(a, columns) for a in node.args)),
                                   columns)
        if isinstance(node, Call) and node.fn in _SET_OPERATIONS and len(node.args) == 2:
            return _zeros_normalized(Call(fn=node.fn, args=tuple(typed_calls(a, columns) for a in node.args)),
                                     columns)
        if isinstance(node, Call) and node.fn == "nanvl":
            return _nanvl([typed_calls(a, columns) for a in node.args], columns)
        if isinstance(node, Call) and node.fn == "typeof" and len(node.args) == 1:
            operand = typed_calls(node.args[0], columns)
            return Call(fn="typeof", args=(operand, Lit(value=types.spark_type_name(types.infer(operand, columns)))))
        if isinstance(node, Call) and node.fn == "to_json" and len(node.args) == 1:
            operand = typed_calls(node.args[0], columns)
            return Call(fn="to_json", args=(operand, Lit(value=_json_type(types.infer(operand, columns)))))
        if isinstance(node, Call) and node.fn == "format_number" and len(node.args) == 2:
            return _number_kind(Call(fn=node.fn, args=tuple(typed_calls(a, columns) for a in node.args)),
                                columns)
        if isinstance(node, Call) and node.fn == "uniform" and len(node.args) == 4:
            drawn = Call(fn=node.fn, args=tuple(typed_calls(a, columns) for a in node.args))
            return Call(fn=node.fn, args=(*drawn.args, Lit(value=types.to_name(types.infer(drawn, columns)))))
        if isinstance(node, Call) and node.fn == "update_fields":
            updated = Call(fn=node.fn, args=tuple(typed_calls(a, columns) for a in node.args))
            return struct_updates.expanded(updated, types.infer(updated.args[0], columns))
        if isinstance(node, Call) and node.fn in _UTF8_CHECKS:
            _check_string(node, columns)
            return None
        if isinstance(node, Call) and node.fn.startswith("vector_"):
            _check_vectors(node, columns)
            return None
        if isinstance(node, Call) and node.fn == "collation":
            _check_collated(types.infer(node.args[0], columns))
            return None
        if not (isinstance(node, Call) and node.fn in (*_DOUBLE_FORMS, *_BIGINT_FORMS)):
            return None
        operand = typed_calls(node.args[0], columns)
        kind = types.infer(operand, columns)
        if not pa.types.is_floating(kind):
            return Call(fn=node.fn, args=(operand, *node.args[1:]))
        if node.fn in _BIGINT_FORMS:
            return Call(fn=_BIGINT_FORMS[node.fn], args=(operand,))
        if kind == pa.float64():
            return Call(fn=_DOUBLE_FORMS[node.fn], args=(operand, *node.args[1:]))
        widened = Call(fn=_DOUBLE_FORMS[node.fn], args=(Cast(expr=operand, to="float64"), *node.args[1:]))
        return Cast(expr=widened, to="float32")

    return transform(expr, visit)


def _sorted_structs(call: Call, columns: Mapping[str, pa.DataType]) -> Call:
    """An array sort of structs with their type named; of anything else as it is."""
    array = types.infer(call.args[0], columns)
    if not (pa.types.is_list(array) and pa.types.is_struct(array.value_type)):
        return call
    name = types.to_name(array.value_type)
    if name is None:
        return call
    return Call(fn=call.fn, args=(*call.args, Lit(value=name)))


def _zeros_normalized(call: Call, columns: Mapping[str, pa.DataType]) -> Call:
    """A set operation of floating-point arrays flagged for -0.0 to be taken as 0.0."""
    kinds = [types.infer(arg, columns) for arg in call.args]
    if not any(pa.types.is_list(k) and pa.types.is_floating(k.value_type) for k in kinds):
        return call
    return Call(fn=call.fn, args=(*call.args, Lit(value=True)))


def _nanvl(args: list[Expr], columns: Mapping[str, pa.DataType]) -> Call:
    """``nanvl(a, b)`` with both operands cast to the double (or float) it gives, as Spark's
    implicit casts make them."""
    kinds = [types.infer(a, columns) for a in args]
    to = "float32" if kinds == [pa.float32(), pa.float32()] else "float64"
    return Call(fn="nanvl", args=tuple(a if k == types.from_name(to) else Cast(expr=a, to=to)
                                       for a, k in zip(args, kinds, strict=True)))


def _number_kind(call: Call, columns: Mapping[str, pa.DataType]) -> Call:
    """``format_number`` with its operand's kind added (a float widened to a double)."""
    value, places = call.args
    kind = types.infer(value, columns)
    if pa.types.is_floating(kind):
        return Call(fn=call.fn, args=(Cast(expr=value, to="float64") if kind != pa.float64() else value,
                                      places, Lit(value="double")))
    if pa.types.is_decimal(kind):
        return Call(fn=call.fn, args=(value, places, Lit(value="decimal")))
    if pa.types.is_integer(kind) or pa.types.is_null(kind):
        return Call(fn=call.fn, args=(value, places, Lit(value="integer")))
    raise AnalysisError(f"format_number takes a number, got {types.spark_type_name(kind)}")


def _check_vectors(call: Call, columns: Mapping[str, pa.DataType]) -> None:
    """The vector functions take ``array<float>``, as Spark's type check says."""
    vectors = call.args[:1] if call.fn in ("vector_norm", "vector_normalize") else call.args
    for position, arg in enumerate(vectors, 1):
        kind = types.infer(arg, columns)
        if not (pa.types.is_null(kind) or (pa.types.is_list(kind) and kind.value_type == pa.float32())):
            raise AnalysisError(f"[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] {call.fn}'s argument {position} "
                                f"requires the \"ARRAY<FLOAT>\" type, got {types.spark_type_name(kind)}")


def _check_collated(kind: pa.DataType) -> None:
    """``collation(x)`` takes a string, as Spark's (``DATATYPE_MISMATCH`` otherwise)."""
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)):
        raise AnalysisError(f"collation takes a string, got {types.spark_type_name(kind)}")


def _check_string(call: Call, columns: Mapping[str, pa.DataType]) -> None:
    kind = types.infer(call.args[0], columns)
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind)):
        raise AnalysisError(f"{call.fn} of {types.spark_type_name(kind)} is not supported by sparkwire: "
                            "it takes strings (a binary may hold invalid UTF-8, an Arrow string cannot)")


def _json_type(kind: pa.DataType) -> str:
    name = types.to_name(kind)
    if name is None or not (pa.types.is_struct(kind) or pa.types.is_list(kind) or pa.types.is_map(kind)):
        raise AnalysisError(f"to_json takes a struct, an array or a map, got {types.spark_type_name(kind)}")
    if "timestamp" in name:
        raise AnalysisError("to_json of a timestamp is not supported by sparkwire yet "
                            "(Spark writes it with its zone offset pattern)")
    if re.search(r"map<binary,", name):
        raise AnalysisError("to_json of a map with binary keys is not supported by sparkwire "
                            "(Spark writes a Java array's address)")
    return name
