"""PySpark's higher-order functions (``transform``, ``filter``, ``aggregate`` ...), re-exported
by ``planner.api.functions``; their semantics are written down in
``planner.logical.functions.higher_order`` and the worker's ``calls_lambdas``.

PySpark takes a Python function and calls it once, with a column per parameter, to build
the lambda's body: so does sparkwire (``lambda_of``). The parameters are named ``x``, ``y``
and ``z`` with a number, as PySpark numbers them (``x_3``); a function of more parameters
than the call passes is refused, as is one that gives no Column.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable

from sparkwire.planner.api.column import Column, ColumnOrName, to_column
from sparkwire.planner.api.functions.core import call
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import expressions as ex

__all__ = [
    "aggregate", "exists", "filter", "forall", "map_filter", "reduce", "transform",
    "transform_keys", "transform_values", "zip_with", "map_zip_with",
]

_NUMBERS = itertools.count()
_NAMES = ("x", "y", "z")
Function = Callable[..., Column]


def lambda_of(function: Function, most: int) -> ex.Lambda:
    """The lambda ``function`` builds, called with one column per parameter (1 to ``most``)."""
    params = [p for p in inspect.signature(function).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if not 1 <= len(params) <= most:
        raise AnalysisError(f"the function {getattr(function, '__name__', function)!r} takes "
                            f"{len(params)} argument(s); expected 1 to {most}")
    number = next(_NUMBERS)
    names = tuple(f"{name}_{number}" for name in _NAMES[:len(params)])
    body = function(*(Column(ex.LambdaVar(name=name)) for name in names))
    if not isinstance(body, Column):
        raise AnalysisError(f"the function should return a Column, got {type(body).__name__}")
    return ex.Lambda(params=names, body=body.expr)


def transform(col: ColumnOrName, f: Function) -> Column:
    return call("transform", to_column(col).expr, lambda_of(f, 2))


def filter(col: ColumnOrName, f: Function) -> Column:  # noqa: A001 - PySpark's name
    return call("filter", to_column(col).expr, lambda_of(f, 2))


def exists(col: ColumnOrName, f: Function) -> Column:
    return call("exists", to_column(col).expr, lambda_of(f, 1))


def forall(col: ColumnOrName, f: Function) -> Column:
    return call("forall", to_column(col).expr, lambda_of(f, 1))


def aggregate(col: ColumnOrName, initialValue: ColumnOrName, merge: Function,  # noqa: N803
              finish: Function | None = None) -> Column:
    return _folded("aggregate", col, initialValue, merge, finish)


def reduce(col: ColumnOrName, initialValue: ColumnOrName, merge: Function,  # noqa: N803
           finish: Function | None = None) -> Column:
    return _folded("reduce", col, initialValue, merge, finish)


def _folded(name: str, col: ColumnOrName, zero: ColumnOrName, merge: Function,
            finish: Function | None) -> Column:
    finishing = () if finish is None else (lambda_of(finish, 1),)
    return call(name, to_column(col).expr, to_column(zero).expr, lambda_of(merge, 2), *finishing)


def zip_with(left: ColumnOrName, right: ColumnOrName, f: Function) -> Column:
    return call("zip_with", to_column(left).expr, to_column(right).expr, lambda_of(f, 2))


def map_zip_with(col1: ColumnOrName, col2: ColumnOrName, f: Function) -> Column:
    return call("map_zip_with", to_column(col1).expr, to_column(col2).expr, lambda_of(f, 3))


def map_filter(col: ColumnOrName, f: Function) -> Column:
    return call("map_filter", to_column(col).expr, lambda_of(f, 2))


def transform_keys(col: ColumnOrName, f: Function) -> Column:
    return call("transform_keys", to_column(col).expr, lambda_of(f, 2))


def transform_values(col: ColumnOrName, f: Function) -> Column:
    return call("transform_values", to_column(col).expr, lambda_of(f, 2))
