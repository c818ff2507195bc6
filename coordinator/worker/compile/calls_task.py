"""The calls whose value depends on the task computing the row
(``planner.logical.functions.task_values`` has Spark's rules): ``spark_partition_id`` is the
task's index, ``monotonically_increasing_id`` ``(task << 33) +`` the row's position, and
``rand``/``randn`` are drawn from a hash of ``(seed, task, position)``.

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

from sparkwire.coordinator.worker.compile.arguments import arity
from sparkwire.coordinator.worker.compile.nodes import call, cast

__all__ = ["TASK_CALLS", "TaskBuilder"]

#: A builder given the task index (its second argument).
TaskBuilder = Callable[[list[exp.Expr], int], exp.Expr]

#: Spark's ids leave 33 bits to the row number within a partition.
_ROW_BITS = 33
#: A draw keeps a hash's top 53 bits, the precision of a double, so it is below 1 exactly.
_DRAW_BITS = 53


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


TASK_CALLS: dict[str, TaskBuilder] = {
    "rand": _rand,
    "randn": _randn,
    "monotonically_increasing_id": _increasing_id,
    "spark_partition_id": _partition_id,
}
