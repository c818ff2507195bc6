"""Trigonometric, hyperbolic and other elementary math functions of the registry, with
Spark's semantics (the worker's builders: ``coordinator.worker.compile.calls_elementary``):

- every one is a ``double`` of its argument cast to double, NULL for NULL, and follows
  Java's ``Math``: outside a function's domain the answer is NaN, never NULL or an error
  (``asin(2)``, ``acosh(0.5)``), and a pole gives an infinity (``cot(0)``, ``csc(0)``,
  ``atanh(1)``); ``atan2`` adds ``0.0`` to both operands as Spark does, so ``-0.0`` is
  ``0.0`` there; ``hypot`` is infinite when either side is, even beside NaN (Java's rule);
- ``pi()`` and ``e()`` are Java's ``Math.PI`` and ``Math.E``; ``sign`` is ``signum`` under
  Spark's other name; ``rint`` rounds half to even, to a double; ``expm1`` stays exact for
  tiny arguments (``expm1(1e-10)`` is ``1e-10``, where ``exp(x) - 1`` loses half the digits);
- ``factorial`` is a ``bigint`` for 0 to 20 and NULL outside (21! overflows a bigint);
- ``negative``/``negate`` is unary minus under its name (Spark's ``UnaryMinus``: integers
  overflow as ``-`` does, by the ANSI mode), ``positive`` the value itself, named ``(+ x)``;
- ``width_bucket(v, min, max, n)`` is Spark's bucket number, a ``bigint``: 0 below the
  range, ``n + 1`` at or above it (mirrored when ``min > max``), NULL for ``n <= 0``, an
  empty range, or a NaN or infinite bound.

The ``degrees``/``radians`` aliases ``toDegrees``/``toRadians`` exist in PySpark's API only
(``planner.api.functions.elementary``).
"""

from __future__ import annotations

from sparkwire.planner.logical.functions.base import plain

#: Functions of one double argument, each a DuckDB function of the same name or built from one.
DOUBLE_FUNCTIONS = (
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "cot", "sec", "csc", "degrees", "radians", "cbrt", "expm1", "rint", "sign",
)

FUNCTIONS = (
    *(plain(name) for name in DOUBLE_FUNCTIONS),
    plain("atan2", 2),
    plain("hypot", 2),
    plain("pi", 0),
    plain("e", 0),
    plain("factorial"),
    plain("negative"),
    plain("negate", fn="negative"),
    plain("positive"),
    plain("width_bucket", 4),
)
