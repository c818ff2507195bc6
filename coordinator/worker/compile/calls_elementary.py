"""Trigonometric and other elementary builders: Spark's semantics
(``planner.logical.functions.elementary``) in DuckDB.

Every argument is cast to DOUBLE and DuckDB's IEEE arithmetic gives Java's NaN and
infinities (``asin(2)`` NaN, ``1 / sin(0)`` infinity); DuckDB's ``asinh``/``acosh`` are as
exact as Spark's (``asinh(1e-10)`` is ``1e-10``, ``acosh(-1e10)`` NaN, where the textbook
``ln(x + sqrt(x*x + 1))`` gives ``1.00000008e-10`` and ``-inf``). ``sec``/``csc`` are
``1 / cos``/``1 / sin``, as Spark computes them. DuckDB has no ``hypot`` (it is the larger
magnitude times ``sqrt(1 + r*r)``, ``r`` the ratio, so squares never overflow), no
``expm1`` (a Taylor polynomial below 1e-5, where ``exp(x) - 1`` cancels), and a
``factorial`` that grows past a bigint.
"""

from __future__ import annotations

from sparkwire.coordinator.worker.compile.arguments import Builder, ModeBuilder
from sparkwire.coordinator.worker.compile.calls_math import MATH_CALLS
from sparkwire.coordinator.worker.compile.integers import negate
from sparkwire.coordinator.worker.compile.templates import over

_X = "CAST(:x AS DOUBLE)"
_Y = "CAST(:y AS DOUBLE)"
_LARGER = f"greatest(abs({_X}), abs({_Y}))"
_SMALLER = f"least(abs({_X}), abs({_Y}))"
_INFINITY = "CAST('inf' AS DOUBLE)"
_HYPOT = (
    f"CASE WHEN :x IS NULL OR :y IS NULL THEN NULL "
    f"WHEN isinf({_X}) OR isinf({_Y}) THEN {_INFINITY} "
    f"WHEN {_LARGER} = 0 THEN CAST(0 AS DOUBLE) "
    f"ELSE {_LARGER} * sqrt(1 + ({_SMALLER} / {_LARGER}) * ({_SMALLER} / {_LARGER})) END"
)
# Spark's WidthBucket.computeBucketNumberNotNull, the bucket truncated toward zero as Java's toLong.
_WIDTH_BUCKET = (
    "CASE WHEN :v IS NULL OR :lo IS NULL OR :hi IS NULL OR :n IS NULL THEN NULL "
    "WHEN :n <= 0 OR :n = 9223372036854775807 OR :lo = :hi OR isnan(CAST(:v AS DOUBLE)) "
    "OR NOT isfinite(CAST(:lo AS DOUBLE)) OR NOT isfinite(CAST(:hi AS DOUBLE)) THEN NULL "
    "WHEN :lo < :hi THEN CASE WHEN :v < :lo THEN 0 WHEN :v >= :hi THEN :n + 1 "
    "ELSE CAST(trunc(CAST(:n AS DOUBLE) * (:v - :lo) / (:hi - :lo)) AS BIGINT) + 1 END "
    "ELSE CASE WHEN :v > :lo THEN 0 WHEN :v <= :hi THEN :n + 1 "
    "ELSE CAST(trunc(CAST(:n AS DOUBLE) * (:lo - :v) / (:lo - :hi)) AS BIGINT) + 1 END END"
)


def _double(fn: str) -> Builder:
    return over(f"{fn}({_X})", "x")


ELEMENTARY_CALLS: dict[str, Builder] = {
    **{fn: _double(fn) for fn in (
        "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
        "atanh", "cot", "degrees", "radians", "cbrt")},
    "sec": over(f"1 / cos({_X})", "x"),
    "csc": over(f"1 / sin({_X})", "x"),
    "atan2": over(f"atan2({_X} + 0.0, {_Y} + 0.0)", "x", "y"),
    "hypot": over(_HYPOT, "x", "y"),
    "pi": over("pi()"),
    "e": over("exp(CAST(1 AS DOUBLE))"),
    "expm1": over(f"CASE WHEN abs({_X}) < 1e-5 THEN {_X} + {_X} * {_X} / 2 + {_X} * {_X} * {_X} / 6 "
                  f"ELSE exp({_X}) - 1 END", "x"),
    "rint": over(f"round_even({_X}, 0)", "x"),
    "sign": MATH_CALLS["signum"],
    "factorial": over("CASE WHEN :x BETWEEN 0 AND 20 THEN CAST(factorial(CAST(:x AS INTEGER)) AS BIGINT) END",
                      "x"),
    "positive": over(":x", "x"),
    "width_bucket": over(_WIDTH_BUCKET, "v", "lo", "hi", "n"),
}

#: ``negative`` is unary minus under Spark's other name, typed and wrapped as it is.
ELEMENTARY_MODE_CALLS: dict[str, ModeBuilder] = {"negative": negate}
