"""Conditional functions of the registry: ``coalesce``, the first non-NULL of its
arguments, in their common type (``planner.logical.types``). ``CASE WHEN`` and ``F.when``
build ``expressions.Case`` directly: syntax, not a call."""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr
from sparkwire.planner.logical.functions.base import Function, checked_call


def coalesce(*values: Expr) -> Expr:
    if not values:
        raise AnalysisError("coalesce needs at least one column")
    return checked_call("coalesce", *values)


FUNCTIONS = (Function.of("coalesce", coalesce),)
