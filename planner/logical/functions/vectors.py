"""The vector functions of PySpark 4.3 over ``array<float>``: ``vector_inner_product``,
``vector_cosine_similarity``, ``vector_l2_distance``, ``vector_norm`` and
``vector_normalize``, with Spark's semantics (``VectorFunctionImplUtils``; the worker's
builders: ``coordinator.worker.compile.calls_vectors``); checked against PySpark
(``tests/spark/test_vectors.py``):

- the arguments are ``array<float>`` (anything else is refused, as Spark's type check
  does); the sums are of doubles, the result rounded to a float;
- NULL where an array is NULL or holds a NULL; two arrays of different lengths fail the
  query (``VECTOR_DIMENSION_MISMATCH``);
- an empty array's inner product, distance and norm are 0.0, its normalization ``[]``; the
  cosine similarity is NULL where a norm is 0, as is the normalization of a zero vector;
- ``vector_norm``/``vector_normalize``'s degree is 1.0, 2.0 (the default) or infinity, a
  float literal here (Spark also takes a column): another value is Spark's
  ``INVALID_VECTOR_NORM_DEGREE``.

The aggregates ``vector_sum`` and ``vector_avg`` (Spark's ``VectorSum``/``VectorAvg``) skip a
NULL vector and one holding a NULL; the others must share one dimension (else
``VECTOR_DIMENSION_MISMATCH``). They compute as Spark does, in floats from a zero
accumulator: ``vector_sum`` adds, ``vector_avg`` keeps the running mean
``acc + (x - acc) * (1 / count)``, so the same vectors in the same order give Spark's bits
(another order, as another partitioning gives Spark too, may differ in the last ones); NULL
for a group of none, ``[]`` for empty vectors. They run in one phase, after a shuffle on the
keys (``planner.physical.aggregates``), and not over a window (refused: several DuckDB
aggregates under one expression have no windowed form in the worker yet).
"""

from __future__ import annotations

import math

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import AggCall, Cast, Expr, Lit
from sparkwire.planner.logical.functions.base import Function, checked_call, plain, shown

#: The default degree, a float literal as Spark's (named ``2.0``).
_L2 = Lit(value=2.0, type="float32")


def _degree(fn: str, degree: Expr) -> Expr:
    """``degree`` as the float literal it must be here, checked for Spark's three values."""
    given = degree.expr if isinstance(degree, Cast) and degree.to == "float32" else degree
    value = given.value if isinstance(given, Lit) else None
    if isinstance(given, Lit) and given.type in ("float32", "float64") and isinstance(value, str):
        value = float(value)  # infinity and NaN travel as text
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise AnalysisError(f"{fn} takes a float literal degree here (a column is not supported by "
                            f"sparkwire), got {shown(degree)}")
    if float(value) not in (1.0, 2.0, math.inf):
        raise AnalysisError(f"[INVALID_VECTOR_NORM_DEGREE] For the `{fn}` function, degree must be 1.0, "
                            f"2.0, or float('inf'), but got {float(value)}.")
    return degree


def vector_norm(vector: Expr, degree: Expr = _L2) -> Expr:
    return checked_call("vector_norm", vector, _degree("vector_norm", degree))


def vector_normalize(vector: Expr, degree: Expr = _L2) -> Expr:
    return checked_call("vector_normalize", vector, _degree("vector_normalize", degree))


def vector_sum(vector: Expr) -> Expr:
    return AggCall(fn="vector_sum", arg=vector)


def vector_avg(vector: Expr) -> Expr:
    return AggCall(fn="vector_avg", arg=vector)


FUNCTIONS = (
    *(plain(name, 2) for name in ("vector_inner_product", "vector_cosine_similarity", "vector_l2_distance")),
    Function.of("vector_norm", vector_norm),
    Function.of("vector_normalize", vector_normalize),
    Function.of("vector_sum", vector_sum),
    Function.of("vector_avg", vector_avg),
)

#: The names SQL text calls them by (sqlglot leaves them anonymous).
VECTOR_NAMES = frozenset(f.name for f in FUNCTIONS)
