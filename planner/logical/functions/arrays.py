"""Array functions of the registry beyond the basics of ``collections``, with Spark's
semantics (ANSI on); types: ``planner.logical.array_types``; the worker's builders, where
each difference from DuckDB is written down: ``coordinator.worker.compile.calls_arrays``.

- ``array_size``/``cardinality`` are ``size`` under Spark's names: NULL for NULL;
- ``get(a, i)`` is 0-based and ``try_element_at(a, i)`` 1-based (negative from the end),
  both NULL out of bounds rather than failing (``try_element_at(a, 0)`` still fails, as
  Spark's); ``try_element_at`` of a map is a key lookup (the analyzer's ``map_value``);
- ``arrays_zip`` names each struct field as Spark does: by the argument's alias or column
  name, else by its position from ``0``;
- ``sequence`` takes integers only: Spark's date and timestamp sequences step by an
  interval, a type sparkwire has not;
- ``array_join`` takes arrays of strings or integers (whose text is the same in both
  engines); other elements are refused, to be cast to strings first.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparkwire.planner.logical.expressions import Column, Expr, Lit, Ref
from sparkwire.planner.logical.functions.base import Function, checked_call, plain
from sparkwire.planner.logical.render import output_name
from sparkwire.planner.errors import AnalysisError

def arrays_zip_of(arrays: Sequence[tuple[Expr, str | None]]) -> Expr:
    """``arrays_zip`` of ``(array, alias or None)`` arguments, the plan's call holding each
    field's name before its array, as ``named_struct`` does."""
    if not arrays:
        raise AnalysisError("arrays_zip() without columns is not supported by sparkwire")
    args: list[Expr] = []
    for position, (array, alias) in enumerate(arrays):
        if alias is not None:
            name = alias
        elif isinstance(array, Column | Ref):
            name = output_name(array).rsplit(".", 1)[-1]
        else:
            name = str(position)
        args += [Lit(value=name), array]
    return checked_call("arrays_zip", *args)


def arrays_zip(*arrays: Expr) -> Expr:
    return arrays_zip_of([(array, None) for array in arrays])


def sequence(start: Expr, stop: Expr, step: Expr | None = None) -> Expr:
    """Without ``step``, the worker steps by 1 upwards or -1 downwards, as Spark."""
    steps = () if step is None else (step,)
    return checked_call("sequence", start, stop, *steps)


def array_join(array: Expr, delimiter: Expr, null_replacement: Expr | None = None) -> Expr:
    replacement = () if null_replacement is None else (null_replacement,)
    return checked_call("array_join", array, delimiter, *replacement)


FUNCTIONS = (
    *(plain(name) for name in (
        "array_size", "cardinality", "array_compact", "array_max", "array_min", "flatten")),
    *(plain(name, 2) for name in (
        "array_append", "array_prepend", "array_position", "array_remove", "array_repeat",
        "arrays_overlap", "array_union", "array_intersect", "array_except", "get",
        "try_element_at")),
    plain("slice", 3),
    plain("array_insert", 3),
    Function.of("arrays_zip", arrays_zip),
    Function.of("sequence", sequence),
    Function.of("array_join", array_join),
)
