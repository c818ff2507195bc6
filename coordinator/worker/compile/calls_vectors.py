"""The vector functions (``planner.logical.functions.vectors``, where Spark's rules are
written down) as DuckDB list functions: each element widened to a double, summed in order,
the result rounded to a float, as Spark's ``VectorFunctionImplUtils`` computes them; and the
aggregates ``vector_sum``/``vector_avg`` (``VECTOR_AGGREGATES``), folded element-wise in
floats over the group's whole vectors, as Spark's ``VectorAggregateBase`` folds them."""

from __future__ import annotations

import math
from collections.abc import Callable

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity
from sparkwire.coordinator.worker.compile.errors import CompileError, raise_error
from sparkwire.coordinator.worker.compile.templates import template

__all__ = ["VECTOR_AGGREGATES", "VECTOR_CALLS"]

_X = "__sparkwire_v"
#: NULL for a NULL array or element, Spark's error for two lengths, else ``value``.
_PAIR = template(
    "CASE WHEN :a IS NULL OR :b IS NULL THEN NULL WHEN len(:a) <> len(:b) THEN :mismatch "
    "WHEN list_count(:a) < len(:a) OR list_count(:b) < len(:b) THEN NULL ELSE CAST(:value AS FLOAT) END")
_ONE = template("CASE WHEN :a IS NULL OR list_count(:a) < len(:a) THEN NULL ELSE :value END")
_PRODUCTS = template(
    f"coalesce(list_sum(list_transform(list_zip(:a, :b), lambda {_X}: "
    f"CAST({_X}[1] AS DOUBLE) * CAST({_X}[2] AS DOUBLE))), 0.0)")
_DIFFERENCE = f"(CAST({_X}[1] AS DOUBLE) - CAST({_X}[2] AS DOUBLE))"
_SQUARES = template(
    f"coalesce(list_sum(list_transform(list_zip(:a, :b), lambda {_X}: {_DIFFERENCE} * {_DIFFERENCE})), 0.0)")
_COSINE = template("CASE WHEN :na = 0.0 OR :nb = 0.0 THEN NULL ELSE :dot / sqrt(:na * :nb) END")
_NORMS = {
    1.0: template(f"coalesce(list_sum(list_transform(:a, lambda {_X}: abs(CAST({_X} AS DOUBLE)))), 0.0)"),
    2.0: template(f"sqrt(coalesce(list_sum(list_transform(:a, lambda {_X}: "
                  f"CAST({_X} AS DOUBLE) * CAST({_X} AS DOUBLE))), 0.0))"),
    math.inf: template(f"coalesce(list_max(list_transform(:a, lambda {_X}: abs(CAST({_X} AS DOUBLE)))), 0.0)"),
}
_NORMALIZED = template(
    f"CASE WHEN len(:a) = 0 THEN :a WHEN :norm = 0.0 THEN NULL "
    f"ELSE list_transform(:a, lambda {_X}: CAST(CAST({_X} AS DOUBLE) / :norm AS FLOAT)) END")


#: The vectors an aggregate reads: Spark skips a NULL vector and one holding a NULL.
_WHOLE = template(":v IS NOT NULL AND list_count(:v) = len(:v)")
#: The group's whole vectors, folded element-wise into a float accumulator that starts at
#: zeros, as Spark's buffer does (so a lone ``-0.0`` sums to ``0.0``): ``:step`` of the
#: accumulated ``__sparkwire_v[1]``, the element ``__sparkwire_v[2]`` and the vectors
#: counted so far ``__sparkwire_vi``; NULL for no whole vector.
_FOLD = template(
    f"list_reduce(list(:v) FILTER (WHERE :whole), lambda {_X}a, {_X}b, {_X}i: "
    f"list_transform(list_zip({_X}a, {_X}b), lambda {_X}: :step), "
    f"list_transform((list(:v) FILTER (WHERE :whole))[1], lambda {_X}: CAST(0 AS FLOAT)))")
_LENGTH = {bound: template(f"{bound}(len(:v)) FILTER (WHERE :whole)") for bound in ("min", "max")}
#: One dimension in the group, or Spark's error naming two of them.
_GROUP = template("CASE WHEN :shortest <> :longest THEN :mismatch ELSE :fold END")
#: Spark's float arithmetic: ``VectorSum`` adds, ``VectorAvg`` keeps a running mean
#: ``acc + (x - acc) * (1 / count)``.
_STEPS = {"vector_sum": template(f"{_X}[1] + {_X}[2]"),
          "vector_avg": template(f"{_X}[1] + ({_X}[2] - {_X}[1]) * (CAST(1 AS FLOAT) / CAST({_X}i AS FLOAT))")}


def _vector_aggregate(fn: str) -> Callable[[exp.Expr], exp.Expr]:
    """``fn`` of the group's vectors, element-wise over the whole ones (Spark's
    ``VectorSum``/``VectorAvg``)."""

    def build(vector: exp.Expr) -> exp.Expr:
        whole = _WHOLE(v=vector)
        shortest, longest = (_LENGTH[bound](v=vector, whole=whole) for bound in ("min", "max"))
        mismatch = raise_error("VECTOR_DIMENSION_MISMATCH", f"Vectors passed to `{fn}` must have the same "
                               "dimension, but got ", longest, " and ", shortest, ". ")
        fold = _FOLD(v=vector, whole=whole, step=_STEPS[fn]())
        return _GROUP(shortest=shortest, longest=longest, mismatch=mismatch, fold=fold)

    return build


def _mismatch(fn: str, a: exp.Expr, b: exp.Expr) -> exp.Expr:
    return raise_error("VECTOR_DIMENSION_MISMATCH", f"Vectors passed to `{fn}` must have the same "
                       "dimension, but got ", exp.Anonymous(this="len", expressions=[a.copy()]), " and ",
                       exp.Anonymous(this="len", expressions=[b.copy()]), ". ")


def _pair(fn: str, value: Builder) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(fn, args, 2)
        a, b = args
        return _PAIR(a=a, b=b, mismatch=_mismatch(fn, a, b), value=value([a, b]))

    return build


def _cosine(args: list[exp.Expr]) -> exp.Expr:
    a, b = args
    return _COSINE(na=_PRODUCTS(a=a, b=a), nb=_PRODUCTS(a=b, b=b), dot=_PRODUCTS(a=a, b=b))


def _norm_of(fn: str, args: list[exp.Expr]) -> tuple[exp.Expr, exp.Expr]:
    """The vector, and its norm (a double) of the degree the planner checked."""
    arity(fn, args, 2)
    vector, degree = args
    value = degree
    while isinstance(value, exp.Cast | exp.Paren):  # a float literal arrives cast, maybe twice
        value = value.this
    try:
        norm = _NORMS[float(value.name) if isinstance(value, exp.Literal) else math.nan]
    except (KeyError, ValueError):
        raise CompileError(f"{fn} takes the degree 1.0, 2.0 or inf, got {degree.sql()}") from None
    return vector, norm(a=vector)


def _vector_norm(args: list[exp.Expr]) -> exp.Expr:
    vector, norm = _norm_of("vector_norm", args)
    return _ONE(a=vector, value=exp.cast(norm, "FLOAT"))


def _vector_normalize(args: list[exp.Expr]) -> exp.Expr:
    vector, norm = _norm_of("vector_normalize", args)
    return _ONE(a=vector, value=_NORMALIZED(a=vector, norm=norm))


VECTOR_AGGREGATES: dict[str, Callable[[exp.Expr], exp.Expr]] = {
    "vector_sum": _vector_aggregate("vector_sum"),
    "vector_avg": _vector_aggregate("vector_avg"),
}

VECTOR_CALLS: dict[str, Builder] = {
    "vector_inner_product": _pair("vector_inner_product", lambda a: _PRODUCTS(a=a[0], b=a[1])),
    "vector_l2_distance": _pair("vector_l2_distance", lambda a: exp.Anonymous(
        this="sqrt", expressions=[_SQUARES(a=a[0], b=a[1])])),
    "vector_cosine_similarity": _pair("vector_cosine_similarity", _cosine),
    "vector_norm": _vector_norm,
    "vector_normalize": _vector_normalize,
}
