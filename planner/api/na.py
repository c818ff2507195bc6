"""Missing values: ``df.na.fill`` / ``fillna``, ``df.na.drop`` / ``dropna``, ``df.na.replace`` /
``replace``, with Spark's rules (``DataFrameNaFunctions``):

- a value fills (or replaces in) only the columns of its kind: a number the numeric
  columns, a string the string columns, a bool the boolean ones; other columns, even when
  named in ``subset``, are left alone; a dict ``{column: value}`` fills each named column;
- the value is converted to the column's type first, as Spark's ``cast`` would: towards
  zero for integer columns (``fill(1.9)`` puts 1 in an ``int`` column), half-up to the scale
  of a decimal column; the column keeps its name and type;
- in ``float``/``double`` columns NaN counts as missing: ``fill`` replaces it and ``drop``
  drops it (Spark's ``nanvl`` and ``AtLeastNNonNulls``);
- ``drop(how="any")`` keeps rows with no missing value, ``how="all"`` rows with at least
  one present, ``thresh=n`` (which overrides ``how``) rows with at least ``n`` present;
- ``replace`` compares numeric keys as doubles (``replace(1.5, 9)`` replaces nothing in an
  ``int`` column) and converts the new values to the column's type as above; keys and
  values of mixed kinds are refused (``Mixed type replacements are not supported``, as
  PySpark says).

The conversions happen here, on literals, so the plan carries typed constants and no cast
the engine would round differently.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

import pyarrow as pa

from sparkwire.planner.api.column import Column, _literal
from sparkwire.planner.api.frame import Frame
from sparkwire.planner.api.transformations import FrameTransformations
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import types
from sparkwire.planner.logical.analyzer import Attribute
from sparkwire.planner.logical.expressions import Call, Case, Expr, Lit

#: The frame filled or filtered, and returned as the same class (``planner.api.frame``).
FrameT = TypeVar("FrameT", bound=FrameTransformations)
Scalar = bool | int | float | str | None
Subset = str | Sequence[str] | None
NO_VALUE = object()


def _kind(t: pa.DataType) -> str:
    """The kind a fill or replace value must have to touch a column of type ``t``."""
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        return "number"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    return "other"


def _value_kind(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float | decimal.Decimal):
        return "number"
    if isinstance(value, str):
        return "string"
    raise AnalysisError(
        f"a fill or replace value must be an int, float, string or bool, got {type(value).__name__}"
    )


def convert(value: Scalar, t: pa.DataType) -> Expr:
    """``value`` as a literal of the column type ``t``, converted as Spark's cast would."""
    if value is None:
        return Lit(value=None, type=types.to_name(t))
    name = types.to_name(t)
    if pa.types.is_integer(t):
        if isinstance(value, float) and not math.isfinite(value):
            raise AnalysisError(f"cannot put {value} in the integer column")
        return Lit(value=int(value), type=name)
    if pa.types.is_floating(t):
        number = float(value)
        return Lit(value=number if math.isfinite(number) else str(number), type=name)
    if pa.types.is_decimal(t):
        quantum = decimal.Decimal(1).scaleb(-t.scale)
        exact = decimal.Decimal(str(value)).quantize(quantum, rounding=decimal.ROUND_HALF_UP)
        return Lit(value=format(exact, "f"), type=name)
    if pa.types.is_string(t) and not isinstance(value, str):
        return _literal(str(value).lower() if isinstance(value, bool) else str(value))
    return _literal(value)


def _is_nan_able(t: pa.DataType) -> bool:
    return pa.types.is_floating(t)


def _missing(attr: Attribute) -> Expr:
    """NULL, or NaN in a floating column."""
    null = Call(fn="is_null", args=(attr.column,))
    if not _is_nan_able(attr.type):
        return null
    return Call(fn="or", args=(null, Call(fn="isnan", args=(attr.column,))))


def _targets(df: Frame, subset: Subset) -> list[Attribute]:
    if subset is None:
        return list(df._attrs)
    names = [subset] if isinstance(subset, str) else list(subset)
    if not all(isinstance(n, str) for n in names):
        raise AnalysisError("subset takes column names")
    return [df._scope.lookup(n) for n in names]


def _rewrite(df: FrameT, rewrite: Mapping[str, Callable[[Attribute], Expr]]) -> FrameT:
    """Every column under its own name, the ones in ``rewrite`` (by internal name) rebuilt."""
    return df._project([
        (a.name, rewrite[a.internal](a) if a.internal in rewrite else a.column)
        for a in df._attrs
    ])


def fill(df: FrameT, value: Scalar | Mapping[str, Scalar], subset: Subset = None) -> FrameT:
    """``na.fill``: see the module docstring for which columns a value fills."""
    if isinstance(value, Mapping):
        pairs = [(df._scope.lookup(name), v) for name, v in value.items()]
        for _, v in pairs:
            _value_kind(v)
    else:
        kind = _value_kind(value)
        pairs = [(a, value) for a in _targets(df, subset) if _kind(a.type) == kind]
    filled = {a.internal: v for a, v in pairs}

    def build(attr: Attribute) -> Expr:
        replacement = convert(filled[attr.internal], attr.type)
        return Case(branches=((_missing(attr), replacement),), otherwise=attr.column)

    return _rewrite(df, {name: build for name in filled})


def drop(df: FrameT, how: str = "any", thresh: int | None = None,
         subset: Subset = None) -> FrameT:
    """``na.drop``: rows with fewer than ``thresh`` present values go."""
    if how not in ("any", "all"):
        raise AnalysisError(f"how must be 'any' or 'all', got {how!r}")
    targets = _targets(df, subset)
    if thresh is None:
        thresh = len(targets) if how == "any" else 1
    if isinstance(thresh, bool) or not isinstance(thresh, int):
        raise AnalysisError(f"thresh must be an int, got {thresh!r}")
    if not targets:
        return df
    present: Expr | None = None
    for attr in targets:
        one = Case(branches=((_missing(attr), Lit(value=0)),), otherwise=Lit(value=1))
        present = one if present is None else Call(fn="add", args=(present, one))
    assert present is not None
    return df.filter(Column(Call(fn="ge", args=(present, Lit(value=thresh)))))


def replace(df: FrameT, to_replace: Any, value: Any = NO_VALUE,
            subset: Subset = None) -> FrameT:
    """``na.replace``: ``to_replace`` a value, a list (with ``value`` a value or a list of
    the same length) or a dict of old to new values."""
    if isinstance(to_replace, Mapping):
        mapping = dict(to_replace)
    else:
        if value is NO_VALUE:
            raise AnalysisError("replace needs a value unless to_replace is a dict")
        keys = list(to_replace) if isinstance(to_replace, list | tuple) else [to_replace]
        values = list(value) if isinstance(value, list | tuple) else [value] * len(keys)
        if len(values) != len(keys):
            raise AnalysisError(
                f"to_replace has {len(keys)} values but value has {len(values)}"
            )
        mapping = dict(zip(keys, values, strict=True))
    if not mapping:
        return df
    kinds = {_value_kind(k) for k in mapping} | {_value_kind(v) for v in mapping.values()
                                                  if v is not None}
    if len(kinds) != 1:
        raise AnalysisError("Mixed type replacements are not supported")
    (kind,) = kinds
    targets = [a for a in _targets(df, subset) if _kind(a.type) == kind]

    def build(attr: Attribute) -> Expr:
        branches = tuple(
            (Call(fn="eq", args=(attr.column, _key(old))), convert(new, attr.type))
            for old, new in mapping.items()
        )
        return Case(branches=branches, otherwise=attr.column)

    return _rewrite(df, {a.internal: build for a in targets})


def _key(value: Scalar) -> Expr:
    """A replace key: Spark compares numeric keys as doubles (``convertToDouble``)."""
    if _value_kind(value) == "number":
        return _literal(float(value))  # type: ignore[arg-type]
    return _literal(value)


class DataFrameNaFunctions(Generic[FrameT]):
    """``df.na``: ``fill``, ``drop`` and ``replace`` (PySpark's names and arguments)."""

    __slots__ = ("_df",)

    def __init__(self, df: FrameT) -> None:
        self._df = df

    def fill(self, value: Scalar | Mapping[str, Scalar], subset: Subset = None) -> FrameT:
        return fill(self._df, value, subset)

    def drop(self, how: str = "any", thresh: int | None = None, subset: Subset = None) -> FrameT:
        return drop(self._df, how, thresh, subset)

    def replace(self, to_replace: Any, value: Any = NO_VALUE, subset: Subset = None) -> FrameT:
        return replace(self._df, to_replace, value, subset)
