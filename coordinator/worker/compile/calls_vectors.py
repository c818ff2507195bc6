"""The vector functions (``planner.logical.functions.vectors``, where Spark's rules are
written down) as DuckDB list functions: each element widened to a double, summed in order,
the result rounded to a float, as Spark's ``VectorFunctionImplUtils`` computes them."""

from __future__ import annotations

import math

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity
from sparkwire.coordinator.worker.compile.errors import CompileError, raise_error
from sparkwire.coordinator.worker.compile.templates import template

__all__ = ["VECTOR_CALLS"]

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


VECTOR_CALLS: dict[str, Builder] = {
    "vector_inner_product": _pair("vector_inner_product", lambda a: _PRODUCTS(a=a[0], b=a[1])),
    "vector_l2_distance": _pair("vector_l2_distance", lambda a: exp.Anonymous(
        this="sqrt", expressions=[_SQUARES(a=a[0], b=a[1])])),
    "vector_cosine_similarity": _pair("vector_cosine_similarity", _cosine),
    "vector_norm": _vector_norm,
    "vector_normalize": _vector_normalize,
}
