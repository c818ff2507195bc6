"""The calls whose value depends on the task computing the row
(``planner.logical.functions.task_values`` has Spark's rules): ``spark_partition_id`` is the
task's index, ``monotonically_increasing_id`` ``(task << 33) +`` the row's position, and
``rand``/``randn``/``uniform`` are drawn from a hash of ``(seed, task, position)``;
``randstr`` and ``shuffle`` hash that hash again with each element's index (the row's hash
is bound outside the lambda: a window cannot sit inside one).

A row's position is ``row_number() OVER () - 1``: its number in the task's input, in input
order (DuckDB keeps insertion order), so the same plan over the same input numbers, and
draws, the same. Being a window, it cannot sit in a ``WHERE`` (a filter of these calls is
a ``QUALIFY``, ``projections.filter_rows``) nor inside an aggregate's argument.

Each builder takes the compiled arguments and the task index (``TaskBuilder``); the
fragment compiles once per task only when it has one of these calls
(``fragment.compile_fragment``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import arity, literal_text
from sparkwire.coordinator.worker.compile.duckdb_types import duckdb_type
from sparkwire.coordinator.worker.compile.nodes import call, cast

__all__ = ["TASK_CALLS", "TaskBuilder"]

#: A builder given the task index (its second argument).
TaskBuilder = Callable[[list[exp.Expr], int], exp.Expr]

#: Spark's ids leave 33 bits to the row number within a partition.
_ROW_BITS = 33
#: A draw keeps a hash's top 53 bits, the precision of a double, so it is below 1 exactly.
_DRAW_BITS = 53
#: ``randstr``'s characters (Spark's).
_ALPHANUMERIC = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: Lambda parameters: the row's hash, an element's index, a (key, index) pair.
_HASH, _INDEX, _PAIR = "__sparkwire_h", "__sparkwire_i", "__sparkwire_p"


def _position() -> exp.Expr:
    return exp.Sub(this=exp.Window(this=exp.RowNumber()), expression=exp.Literal.number(1))


def _bigint(value: int) -> exp.Expr:
    return cast(exp.Literal.number(value), "BIGINT")


def _draw(seed: exp.Expr, task: int, stream: int) -> exp.Expr:
    """A uniform double in [0, 1): ``stream`` tells apart the draws one row needs."""
    hashed = call("hash", seed, _bigint(task), _position(), _bigint(stream))
    top = exp.BitwiseRightShift(this=hashed, expression=exp.Literal.number(64 - _DRAW_BITS))
    return exp.Div(this=cast(top, "DOUBLE"), expression=exp.Literal.number(float(2**_DRAW_BITS)))


def _rand(args: list[exp.Expr], task: int) -> exp.Expr:
    arity("rand", args, 2)  # the seed, and whether it is shown (``render``'s alone)
    return _draw(args[0], task, 0)


def _randn(args: list[exp.Expr], task: int) -> exp.Expr:
    """Box and Muller's transform of two draws; the first taken from (0, 1], so its
    logarithm is finite."""
    arity("randn", args, 2)
    near_one = exp.Sub(this=exp.Literal.number(1),
                       expression=exp.Paren(this=_draw(args[0], task, 1)))
    radius = call("sqrt", exp.Mul(this=exp.Literal.number(-2), expression=call("ln", near_one)))
    angle = exp.Mul(this=exp.Literal.number(2 * math.pi),
                    expression=exp.Paren(this=_draw(args[0], task, 2)))
    return exp.Mul(this=radius, expression=call("cos", angle))


def _increasing_id(args: list[exp.Expr], task: int) -> exp.Expr:
    arity("monotonically_increasing_id", args, 0)
    return exp.Add(this=_bigint(task << _ROW_BITS), expression=exp.Paren(this=_position()))


def _partition_id(args: list[exp.Expr], task: int) -> exp.Expr:
    arity("spark_partition_id", args, 0)
    return cast(exp.Literal.number(task), "INTEGER")


def _uniform(args: list[exp.Expr], task: int) -> exp.Expr:
    """``min + (max - min) * draw`` in doubles, then of the type the analyzer named (an
    integer truncated toward zero)."""
    arity("uniform", args, 5)
    low, high = cast(args[2], "DOUBLE"), cast(args[3], "DOUBLE")
    spread = exp.Mul(this=exp.Paren(this=exp.Sub(this=high, expression=low.copy())),
                     expression=_draw(args[0], task, 0))
    value: exp.Expr = exp.Add(this=low, expression=spread)
    kind = duckdb_type(literal_text(args[4], "uniform's type"))
    if kind.is_type(*exp.DataType.INTEGER_TYPES):
        value = call("trunc", value)
    return exp.Cast(this=value, to=kind)


def _per_element(row_hash: exp.Expr, body: exp.Expr) -> exp.Expr:
    """``body``, which reads the row's hash as ``_HASH``, with the hash bound once."""
    mapped = call("list_transform", exp.Array(expressions=[row_hash]),
                  exp.Lambda(this=body, expressions=[exp.to_identifier(_HASH)]))
    return call("list_extract", mapped, exp.Literal.number(1))


def _element_hash() -> exp.Expr:
    """The hash of the row's hash XOR the index: DuckDB's ``hash(a, b)`` combines the two
    hashes so that one row's keys keep an order across rows (a shuffle of three then gave
    only four of the six orders); hashing one mixed value spreads them."""
    index = cast(exp.column(_INDEX), "UBIGINT")
    return call("hash", exp.BitwiseXor(this=exp.column(_HASH), expression=index))


def _randstr(args: list[exp.Expr], task: int) -> exp.Expr:
    arity("randstr", args, 3)
    picked = call("substr", exp.Literal.string(_ALPHANUMERIC), exp.Add(
        this=cast(exp.Mod(this=_element_hash(), expression=exp.Literal.number(len(_ALPHANUMERIC))), "BIGINT"),
        expression=exp.Literal.number(1)), exp.Literal.number(1))
    chars = call("list_transform", call("range", cast(args[2], "BIGINT")),
                 exp.Lambda(this=picked, expressions=[exp.to_identifier(_INDEX)]))
    row_hash = call("hash", args[0], _bigint(task), _position(), _bigint(3))
    return _per_element(row_hash, call("array_to_string", chars, exp.Literal.string("")))


def _shuffle(args: list[exp.Expr], task: int) -> exp.Expr:
    """The elements ordered by a draw each: ``{k: hash, i: index}`` pairs sorted, then read."""
    arity("shuffle", args, 3)
    array = args[2]
    keyed = call("list_transform", call("range", call("len", array.copy())), exp.Lambda(
        this=exp.Struct(expressions=[
            exp.PropertyEQ(this=exp.to_identifier("k"), expression=_element_hash()),
            exp.PropertyEQ(this=exp.to_identifier("i"), expression=exp.column(_INDEX))]),
        expressions=[exp.to_identifier(_INDEX)]))
    picked = exp.Bracket(this=array.copy(), expressions=[exp.Add(
        this=exp.Dot(this=exp.column(_PAIR), expression=exp.to_identifier("i")),
        expression=exp.Literal.number(1))])
    shuffled = call("list_transform", call("list_sort", keyed),
                    exp.Lambda(this=picked, expressions=[exp.to_identifier(_PAIR)]))
    row_hash = call("hash", args[0], _bigint(task), _position(), _bigint(4))
    return exp.Case(ifs=[exp.If(this=exp.Is(this=array.copy(), expression=exp.Null()), true=exp.Null())],
                    default=_per_element(row_hash, shuffled))


TASK_CALLS: dict[str, TaskBuilder] = {
    "rand": _rand,
    "randn": _randn,
    "monotonically_increasing_id": _increasing_id,
    "spark_partition_id": _partition_id,
    "uniform": _uniform,
    "randstr": _randstr,
    "shuffle": _shuffle,
}
