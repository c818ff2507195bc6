"""NULL functions and ``try_`` arithmetic of the registry.

Spark's semantics (``coordinator.worker.compile.calls_nulls``):

- ``nvl``/``ifnull`` are ``coalesce`` of two, ``nvl2(a, b, c)`` is ``b`` where ``a`` is not
  NULL, else ``c`` (their common type); ``nullif(a, b)`` is NULL where ``a = b``, else ``a``;
  ``nullifzero``/``zeroifnull`` are ``nullif(x, 0)``/``coalesce(x, 0)``, an integer narrower
  than ``int`` widening to it; ``equal_null`` is ``<=>``; ``isnull``/``isnotnull`` are the
  NULL tests, named ``(x IS NULL)`` as Spark names them;
- ``try_add``/``try_subtract``/``try_multiply`` are typed as ``+ - *`` and give NULL where
  the integer result overflows its type (whatever ``spark.sql.ansi.enabled`` says), or where
  a decimal one exceeds 38 digits; ``try_divide``/``try_mod`` are ``/`` and ``%`` giving
  NULL for a zero divisor. ``try_divide`` of decimals is refused (sparkwire divides decimals
  exactly only through ``/``); ``try_sum``/``try_avg`` are not there yet.
"""

from __future__ import annotations

from sparkwire.planner.logical.expressions import Expr
from sparkwire.planner.logical.functions.base import Function, checked_call, plain


def nvl2(value: Expr, present: Expr, absent: Expr) -> Expr:
    return checked_call("nvl2", value, present, absent)


def isnull(value: Expr) -> Expr:
    return checked_call("is_null", value)


def isnotnull(value: Expr) -> Expr:
    return checked_call("is_not_null", value)


FUNCTIONS = (
    *(plain(name, 2) for name in ("nvl", "ifnull", "nullif", "equal_null")),
    plain("nullifzero"),
    plain("zeroifnull"),
    Function.of("nvl2", nvl2),
    Function.of("isnull", isnull),
    Function.of("isnotnull", isnotnull),
    *(plain(name, 2) for name in ("try_add", "try_subtract", "try_multiply", "try_divide", "try_mod")),
)
