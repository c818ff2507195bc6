"""Math functions of the registry.

Spark's semantics, kept by the worker's builders (``coordinator.worker.math``):

- ``round`` rounds HALF_UP and ``bround`` HALF_EVEN, both on the decimal the double
  prints as (Spark's ``BigDecimal(d)``: ``round(2.675, 2)`` is 2.68, where rounding the
  binary value gives 2.67); NaN and infinities stay; integers and decimals keep their type
  (a decimal's scale shrinks to the one asked for); the scale is 0 unless given;
- ``floor``/``ceil`` of a double or an integer are ``bigint``, of ``decimal(p,s)``
  ``decimal(p-s+1,0)``; of NaN or an infinity they fail the query (the cast to bigint),
  where Spark gives 0 or the bigint's bounds; a scale is refused;
- ``log``/``ln``/``log10``/``log2`` of a value <= 0 are NULL (and ``log1p`` of one <= -1),
  where DuckDB gives -inf or NaN; ``log(x)`` is ``ln(x)`` (and named so, as PySpark names
  it), ``log(base, x)`` is ``ln(x)/ln(base)``, NULL for a base <= 0;
- ``sqrt`` of a negative is NaN; ``signum`` is a double, NaN for NaN;
- ``greatest``/``least`` skip NULLs (NULL only when all are) and take the common type;
- ``isnan`` of NULL is false; ``nanvl(a, b)`` is ``b`` where ``a`` is NaN, of doubles (or
  floats, where both are);
- ``pmod`` is the remainder made non-negative for a positive divisor, with Java's ``%``
  (the sign of the dividend) underneath, so a negative divisor gives what Spark gives.
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr, Lit, ScalarFunction
from sparkwire.planner.logical.functions.base import Function, checked_call, plain

_UNITS = Lit(value=0)


def log(first: Expr, second: Expr | None = None) -> Expr:
    """``log(x)``, the natural logarithm, or ``log(base, x)``."""
    if second is None:
        return checked_call("ln", first)
    return checked_call("log", first, second)


def _rounding(fn: ScalarFunction) -> Function:
    def build(value: Expr, scale: Expr = _UNITS) -> Expr:
        return checked_call(fn, value, scale)

    return Function(fn, build, 1, 2)


def _integral(name: ScalarFunction) -> Function:
    """``floor``/``ceil``/``ceiling``: a scale is not supported."""

    def build(value: Expr, scale: Expr | None = None) -> Expr:
        if scale is not None:
            raise AnalysisError(f"{name} with a scale is not supported by sparkwire; use round")
        return checked_call(name, value)

    return Function(name, build, 1, 2)


def _extreme(fn: ScalarFunction) -> Function:
    """``greatest``/``least``, of two values or more."""

    def build(*values: Expr) -> Expr:
        if len(values) < 2:
            raise AnalysisError(f"{fn} needs at least two columns")
        return checked_call(fn, *values)

    return Function(fn, build, 0, None)


FUNCTIONS = (
    *(plain(name) for name in ("abs", "sqrt", "ln", "log10", "log2", "log1p", "exp", "signum")),
    plain("pow", 2),
    plain("power", 2, fn="pow"),
    plain("pmod", 2),
    plain("isnan"),
    plain("nanvl", 2),
    Function.of("log", log),
    _rounding("round"),
    _rounding("bround"),
    *(_integral(name) for name in ("floor", "ceil", "ceiling")),
    _extreme("greatest"),
    _extreme("least"),
)
