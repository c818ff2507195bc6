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
  analyzer draws one too), and the column is named ``rand()`` as Spark names it.

The values are worked out by the worker (``coordinator.worker.compile.calls_task``), the
only place that knows the task.
"""

from __future__ import annotations

import random
from typing import cast

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Call, Expr, Lit, ScalarFunction
from sparkwire.planner.logical.functions.base import (
    Function,
    allowed,
    int_option,
    option,
    plain,
    shown,
)

#: Spark's seeds are Java longs.
_LONG = (-(2**63), 2**63 - 1)


def _seeded(name: str, fn: str) -> Function:
    """``name([seed])``, the call ``fn(seed, hidden)``: ``hidden`` is whether the seed was
    drawn here, so that the column is named without it as Spark names it."""
    call = cast(ScalarFunction, allowed(fn, ScalarFunction))

    def build(seed: Expr | None = None) -> Expr:
        if seed is None:
            drawn = random.randint(*_LONG)
            return Call(fn=call, args=(Lit(value=drawn, type="int64"), Lit(value=True)))
        value = 0 if option(seed) is None else int_option(seed)  # Spark's NULL seed is 0
        if value is None or not _LONG[0] <= value <= _LONG[1]:
            raise AnalysisError(f"{name} takes an int literal seed, got {shown(seed)}")
        return Call(fn=call, args=(Lit(value=value, type="int64"), Lit(value=False)))

    return Function.of(name, build)


FUNCTIONS = (
    _seeded("rand", "rand"),
    _seeded("random", "rand"),
    _seeded("randn", "randn"),
    plain("monotonically_increasing_id", 0),
    plain("spark_partition_id", 0),
)
