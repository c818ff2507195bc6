"""The functions whose value depends on the task that computes the row: the random ones
(``rand``/``random``, ``randn``) and the task's identity (``monotonically_increasing_id``,
``spark_partition_id``). Spark's rules, and where sparkwire's differ:

- a task is Spark's partition: ``spark_partition_id()`` is the task's index in its stage,
  ``monotonically_increasing_id()`` is ``(task << 33) + the row's number in the task`` (from
  0, in the task's input order), as Spark's; so ids are unique and grow within a task, but a
  stage split differently (other files, other byte sizes) numbers its rows differently, as
  Spark's do when its partitions change;
- ``rand(seed)`` is uniform in [0, 1), ``randn(seed)`` standard normal, each a hash of
  ``(seed, task, row number)``: the same plan over the same input gives the same values
  (Spark re-runs give the same ones too), but not Spark's numbers, which come from its
  ``XORShiftRandom`` stream; without a seed one is drawn when the plan is built (Spark's
  analyzer draws one too), and the column is named ``rand()`` as Spark names it;
- ``uniform(min, max[, seed])``, ``randstr(length[, seed])`` and ``shuffle(array[, seed])``
  draw from the same hash, per element where a row needs several: ``uniform`` is
  ``min + (max - min) * draw``, of the type both bounds up-cast to (an integer truncated
  toward zero, as Java's ``toInt``); ``randstr`` picks each character from ``0-9a-zA-Z``;
  ``shuffle`` orders the elements by a draw each (a NULL array stays NULL). Their bounds and
  length must be constants, as Spark's. PySpark draws a missing seed of ``uniform`` and
  ``randstr`` itself and shows it, SQL hides the one it draws; ``shuffle``'s is never shown.

The values are worked out by the worker (``coordinator.worker.compile.calls_task``), the
only place that knows the task.
"""

from __future__ import annotations

import random
from typing import cast

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Call, Column, Expr, Lit, ScalarFunction
from sparkwire.planner.logical.functions.base import (
    Function,
    allowed,
    int_option,
    option,
    plain,
    shown,
)
from sparkwire.planner.logical.tree import walk

#: Spark's seeds are Java longs.
_LONG = (-(2**63), 2**63 - 1)


def _seed(name: str, seed: Expr | None) -> tuple[Lit, Lit]:
    """The seed and whether it was drawn here (``hidden``), so that the column is named
    without it as Spark names it: the first two arguments of every random call."""
    if seed is None:
        return Lit(value=random.randint(*_LONG), type="int64"), Lit(value=True)
    value = 0 if option(seed) is None else int_option(seed)  # Spark's NULL seed is 0
    if value is None or not _LONG[0] <= value <= _LONG[1]:
        raise AnalysisError(f"{name} takes an int literal seed, got {shown(seed)}")
    return Lit(value=value, type="int64"), Lit(value=False)


def _seeded(name: str, fn: str) -> Function:
    """``name([seed])``, the call ``fn(seed, hidden)``."""
    call = cast(ScalarFunction, allowed(fn, ScalarFunction))

    def build(seed: Expr | None = None) -> Expr:
        return Call(fn=call, args=_seed(name, seed))

    return Function.of(name, build)


def _constant(name: str, arg: Expr) -> Expr:
    """``arg``, which Spark requires to be a constant (no column in it)."""
    if any(isinstance(node, Column) for node in walk(arg)):
        raise AnalysisError(f"{name} takes constant bounds and length, got {shown(arg)}")
    return arg


def uniform(min: Expr, max: Expr, seed: Expr | None = None) -> Expr:  # noqa: A002
    return Call(fn="uniform", args=(*_seed("uniform", seed), _constant("uniform", min),
                                    _constant("uniform", max)))


def randstr(length: Expr, seed: Expr | None = None) -> Expr:
    return Call(fn="randstr", args=(*_seed("randstr", seed), _constant("randstr", length)))


def shuffle(array: Expr, seed: Expr | None = None) -> Expr:
    """Spark never shows ``shuffle``'s seed in the column's name."""
    drawn, _ = _seed("shuffle", seed)
    return Call(fn="shuffle", args=(drawn, Lit(value=True), array))


FUNCTIONS = (
    _seeded("rand", "rand"),
    _seeded("random", "rand"),
    _seeded("randn", "randn"),
    plain("monotonically_increasing_id", 0),
    plain("spark_partition_id", 0),
    Function.of("uniform", uniform),
    Function.of("randstr", randstr),
    Function.of("shuffle", shuffle),
)
