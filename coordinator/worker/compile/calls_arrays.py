"""The array functions of ``planner.logical.functions.arrays`` as DuckDB trees, gathered with
the others in ``calls.CALLS``. Where Spark (4, ANSI on) and DuckDB differ, Spark wins, and
each rule is written where it is applied:

- elements compare as Spark's ``array_position``/``array_remove``/``array_union`` ... compare
  them: NULL matches NULL in the set operations (one NULL kept), NaN matches NaN and -0.0
  matches 0.0, which is how DuckDB's ``list_position`` and ``=`` already compare; the set
  operations keep the first of equal elements in order, as Spark's do;
- ``array_append``/``array_prepend`` of a NULL array are NULL (DuckDB's make ``[e]``);
  ``array_position`` is 0 when not found (DuckDB: NULL) and NULL for a NULL value;
  ``array_remove`` keeps NULL elements and is NULL for a NULL value;
- ``flatten`` is NULL when an inner array is NULL (DuckDB skips it); ``arrays_overlap`` is
  NULL, not false, when no element matched but both arrays are non-empty and one holds a
  NULL;
- ``slice(a, start, length)``: ``start`` 1-based or negative from the end, a start outside
  the array gives ``[]``; ``start`` 0 and a negative ``length`` fail as Spark's
  ``INVALID_PARAMETER_VALUE``;
- ``get`` (0-based) and ``try_element_at`` (1-based, negative from the end) give NULL out
  of bounds; ``try_element_at(a, 0)`` fails (``INVALID_INDEX_OF_ZERO``) as Spark's;
- ``array_insert(a, pos, e)``: ``pos`` 1-based; past the end pads with NULLs; negative
  counts from the end, -1 appending (Spark 3.4+), and past the start puts ``e`` first then
  NULLs; ``pos`` 0 fails;
- ``array_repeat`` of a negative count is ``[]``; ``array_join`` skips NULL elements unless
  a replacement is given;
- ``sequence(start, stop[, step])`` steps by 1 or -1 towards ``stop`` by default and
  includes ``stop``; a step of the wrong sign (or 0 between different bounds) fails with
  Spark's message, which names no error condition (DuckDB's ``generate_series`` gives ``[]``);
- ``array_max``/``array_min`` skip NULLs and order NaN above every number, as both engines do;
  the set operations of floating-point elements take -0.0 as 0.0, as Spark's hash sets do
  (DuckDB tells them apart): the planner flags them (``planner.logical.typed_calls``);
- ``arrays_zip`` pads the shorter arrays with NULLs, and is NULL when any array is.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity, literal_text
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import call
from sparkwire.coordinator.worker.compile.templates import over, template

__all__ = ["ARRAY_CALLS"]

#: A lambda's variables, named so no user column is shadowed inside a lambda body.
_X, _Y, _I = "__sparkwire_x", "__sparkwire_y", "__sparkwire_i"
_HAS_NULL = "list_count({a}) < len({a})"


def _distinct(values: str) -> str:
    """``values`` without repeats, the first of each kept (one NULL too)."""
    return (f"list_filter({values}, lambda {_Y}, {_I}: "
            f"list_position({values}, {_Y}) = {_I})")


def _either_null(sql: str) -> str:
    return f"CASE WHEN :a IS NULL OR :b IS NULL THEN NULL ELSE {sql} END"


def _error(condition: str, *parts: str) -> str:
    """DuckDB's ``error()`` with Spark's condition leading the message (the form
    ``errors.raise_error`` builds); a part ``:name`` is that argument's value as text."""
    pieces = [f"'[{condition}] '"] + [
        f"coalesce(CAST({p} AS VARCHAR), 'NULL')" if p.startswith(":") else f"'{p}'" for p in parts]
    return f"error({' || '.join(pieces)})"


_ZERO_INDEX = _error(
    "INVALID_INDEX_OF_ZERO",
    "The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1).")
_SLICE_START = _error(
    "INVALID_PARAMETER_VALUE.START",
    "The value of parameter(s) `start` in `slice` is invalid: Expects a positive or a negative "
    "value for `start`, but got 0.")
_SLICE_LENGTH = _error(
    "INVALID_PARAMETER_VALUE.LENGTH",
    "The value of parameter(s) `length` in `slice` is invalid: Expects `length` greater than or "
    "equal to 0, but got ", ":l", ".")
# Spark fails these with a bare requirement, no error condition
_SEQUENCE_BOUNDS = (
    "error('requirement failed: Illegal sequence boundaries: ' || CAST(:a AS VARCHAR) || ' to ' "
    "|| CAST(:b AS VARCHAR) || ' by ' || CAST(:s AS VARCHAR))")

# the 0-based start of a slice, from Spark's 1-based or negative ``start``
_START = "(CASE WHEN :s > 0 THEN :s - 1 ELSE len(:a) + :s END)"
# the 0-based place of an insertion, from Spark's 1-based or negative ``pos`` (-1 appends)
_PLACE = "(CASE WHEN :p > 0 THEN :p - 1 ELSE len(:a) + :p + 1 END)"

_TEMPLATES: dict[str, tuple[str, tuple[str, ...]]] = {
    "array_size": ("CAST(len(:a) AS INTEGER)", ("a",)),
    "cardinality": ("CAST(cardinality(:a) AS INTEGER)", ("a",)),
    "array_compact": (f"list_filter(:a, lambda {_X}: {_X} IS NOT NULL)", ("a",)),
    "array_max": ("list_max(:a)", ("a",)),
    "array_min": ("list_min(:a)", ("a",)),
    "flatten": (f"CASE WHEN {_HAS_NULL.format(a=':a')} THEN NULL ELSE flatten(:a) END", ("a",)),
    "array_append": ("CASE WHEN :a IS NULL THEN NULL ELSE list_append(:a, :e) END", ("a", "e")),
    "array_prepend": ("CASE WHEN :a IS NULL THEN NULL ELSE list_prepend(:e, :a) END", ("a", "e")),
    "array_position": (
        "CASE WHEN :a IS NULL OR :e IS NULL THEN NULL "
        "ELSE CAST(coalesce(list_position(:a, :e), 0) AS BIGINT) END", ("a", "e")),
    "array_remove": (
        f"CASE WHEN :e IS NULL THEN NULL "
        f"ELSE list_filter(:a, lambda {_X}: {_X} IS NULL OR {_X} <> :e) END", ("a", "e")),
    "array_repeat": ("CASE WHEN :n IS NULL THEN NULL ELSE repeat([:e], greatest(:n, 0)) END",
                     ("e", "n")),
    "arrays_overlap": (_either_null(
        f"CASE WHEN list_has_any(:a, :b) THEN true WHEN len(:a) > 0 AND len(:b) > 0 AND "
        f"({_HAS_NULL.format(a=':a')} OR {_HAS_NULL.format(a=':b')}) THEN NULL ELSE false END"),
        ("a", "b")),
    "array_union": (_either_null(_distinct("list_concat(:a, :b)")), ("a", "b")),
    "array_intersect": (_either_null(_distinct(
        f"list_filter(:a, lambda {_X}: list_position(:b, {_X}) IS NOT NULL)")), ("a", "b")),
    "array_except": (_either_null(_distinct(
        f"list_filter(:a, lambda {_X}: list_position(:b, {_X}) IS NULL)")), ("a", "b")),
    "get": ("CASE WHEN :i < 0 OR :i >= len(:a) THEN NULL ELSE list_extract(:a, :i + 1) END",
            ("a", "i")),
    "try_element_at": (f"CASE WHEN :i = 0 THEN {_ZERO_INDEX} ELSE list_extract(:a, :i) END",
                       ("a", "i")),
    "slice": (
        f"CASE WHEN :a IS NULL OR :s IS NULL OR :l IS NULL THEN NULL "
        f"WHEN :s = 0 THEN {_SLICE_START} WHEN :l < 0 THEN {_SLICE_LENGTH} "
        f"WHEN {_START} < 0 OR {_START} >= len(:a) THEN list_slice(:a, 1, 0) "
        f"ELSE list_slice(:a, {_START} + 1, {_START} + :l) END", ("a", "s", "l")),
    "array_insert": (
        f"CASE WHEN :a IS NULL OR :p IS NULL THEN NULL WHEN :p = 0 THEN {_ZERO_INDEX} "
        f"WHEN {_PLACE} < 0 THEN list_concat([:e], "
        f"list_concat(repeat([NULL], -{_PLACE}), :a)) "
        f"ELSE list_concat(list_concat(list_slice(:a, 1, {_PLACE}), "
        f"repeat([NULL], greatest({_PLACE} - len(:a), 0))), "
        f"list_concat([:e], list_slice(:a, {_PLACE} + 1, len(:a)))) END", ("a", "p", "e")),
    "sequence": (
        f"CASE WHEN :a IS NULL OR :b IS NULL OR :s IS NULL THEN NULL WHEN :a = :b THEN [:a] "
        f"WHEN :s = 0 OR (:s > 0 AND :a > :b) OR (:s < 0 AND :a < :b) THEN {_SEQUENCE_BOUNDS} "
        f"ELSE generate_series(:a, :b, :s) END", ("a", "b", "s")),
}

_JOIN = template(f"array_to_string(list_filter(:a, lambda {_X}: {_X} IS NOT NULL), :d)")
_JOIN_REPLACING = template(
    f"CASE WHEN :r IS NULL THEN NULL ELSE array_to_string(list_transform(:a, lambda {_X}: "
    f"coalesce(CAST({_X} AS VARCHAR), :r)), :d) END")
_STEP = template("CASE WHEN :a <= :b THEN 1 ELSE -1 END")


_ZEROS_AS_ZERO = template(f"list_transform(:a, lambda {_X}: {_X} + 0)")


def _set_operation(name: str) -> Builder:
    """``name(a, b)``, or with a true flag (floating-point elements, ``planner.logical.
    typed_calls``) over ``a`` and ``b`` whose -0.0 is 0.0, as Spark's hash sets keep it."""
    build = _BUILDERS[name]

    def operation(args: list[exp.Expr]) -> exp.Expr:
        if len(args) == 3:
            if not isinstance(args[2], exp.Boolean):
                raise CompileError(f"{name} takes a boolean literal flag")
            args = [_ZEROS_AS_ZERO(a=args[0]), _ZEROS_AS_ZERO(a=args[1])]
        return build(args)

    return operation


def _array_join(args: list[exp.Expr]) -> exp.Expr:
    if len(args) == 2:
        return _JOIN(a=args[0], d=args[1])
    arity("array_join", args, 3)
    return _JOIN_REPLACING(a=args[0], d=args[1], r=args[2])


def _sequence(args: list[exp.Expr]) -> exp.Expr:
    if len(args) == 2:
        args = [*args, _STEP(a=args[0], b=args[1])]
    return _BUILDERS["sequence"](args)


def _arrays_zip(args: list[exp.Expr]) -> exp.Expr:
    """A struct of the ``i``-th elements for each ``i`` below the longest length."""
    if not args or len(args) % 2:
        raise CompileError("arrays_zip takes name, array pairs")
    names = [literal_text(name, "an arrays_zip field name") for name in args[0::2]]
    arrays = args[1::2]
    index = exp.column(_I)
    fields = [
        exp.PropertyEQ(this=exp.Literal.string(name), expression=call(
            "list_extract", array.copy(), exp.Add(this=index.copy(), expression=exp.Literal.number(1))))
        for name, array in zip(names, arrays, strict=True)
    ]
    longest = exp.Greatest(this=call("len", arrays[0].copy()),
                           expressions=[call("len", a.copy()) for a in arrays[1:]])
    zipped = call("list_transform", call("range", longest),
                  exp.Lambda(this=exp.Struct(expressions=fields), expressions=[exp.to_identifier(_I)]))
    any_null = exp.or_(*(exp.Is(this=a.copy(), expression=exp.Null()) for a in arrays))
    return exp.Case(ifs=[exp.If(this=any_null, true=exp.Null())], default=zipped)


_BUILDERS: dict[str, Builder] = {
    name: over(sql, *names) for name, (sql, names) in _TEMPLATES.items()
}

ARRAY_CALLS: dict[str, Builder] = {
    **_BUILDERS,
    "sequence": _sequence,
    "array_join": _array_join,
    "arrays_zip": _arrays_zip,
    **{name: _set_operation(name) for name in ("array_union", "array_intersect", "array_except")},
}
