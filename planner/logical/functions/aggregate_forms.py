"""Spark's other spellings of the aggregates, ``mode`` and the ``try_`` aggregates.

- ``first_value``/``last_value`` are ``first``/``last`` and ``approx_percentile`` is
  ``percentile_approx``, named as called (Spark's ``FUNC_ALIAS``: ``first_value(x)``);
  ``array_agg`` is ``collect_list``, named ``collect_list(x)`` as Spark names it;
- ``mode(x)`` is the most frequent non-NULL value (NULL for none), -0.0 counted as 0.0 as
  Spark's hash map counts it; among values equally frequent Spark's ``mode(x)`` takes any
  one and ``mode(x, true)`` the least: both take the least here, which is one of Spark's
  answers. It has no merge: it aggregates once, after a shuffle on the keys;
- ``try_sum``/``try_avg`` are ``sum``/``avg`` giving NULL where those overflow
  (``planner.logical.tolerant`` makes them so once the argument's type is known).
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import AggCall, AggregateAlias, Expr, Lit
from sparkwire.planner.logical.functions import aggregates
from sparkwire.planner.logical.functions.base import Function, option, shown

_BASES = {entry.name: entry for entry in aggregates.FUNCTIONS}
_NONDETERMINISTIC = Lit(value=False)


def _aliased(name: AggregateAlias, base: str) -> Function:
    """The aggregate ``base`` under Spark's alias ``name``: same arguments, same call."""
    entry = _BASES[base]

    def build(*args: Expr) -> Expr:
        call = entry(*args)
        assert isinstance(call, AggCall)
        return call.model_copy(update={"alias": name})

    return Function(name, build, entry.min_args, entry.max_args)


def mode(value: Expr, deterministic: Expr = _NONDETERMINISTIC) -> Expr:
    flag = option(deterministic)
    if not isinstance(flag, bool):
        raise AnalysisError(f"mode's deterministic takes a bool, got {shown(deterministic)}")
    return AggCall(fn="mode", arg=value, alias="deterministic_mode" if flag else None)


def _tolerant(fn: str) -> Function:
    def build(value: Expr) -> Expr:
        return AggCall(fn="try_sum" if fn == "try_sum" else "try_avg", arg=value)

    return Function(fn, build, 1, 1)


FUNCTIONS = (
    _aliased("first_value", "first"),
    _aliased("last_value", "last"),
    _aliased("approx_percentile", "percentile_approx"),
    Function("array_agg", _BASES["collect_list"].build, 1, 1),
    Function.of("mode", mode),
    _tolerant("try_sum"),
    _tolerant("try_avg"),
)
