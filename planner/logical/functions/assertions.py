"""``raise_error`` and ``assert_true``: a query failing on purpose, with Spark's error.

``raise_error(message)`` fails the query with ``[USER_RAISED_EXCEPTION] message`` (a NULL
message reads ``null``), as Spark does; ``assert_true(condition[, message])`` is NULL where
the condition holds and fails the query where it is false or NULL, by default with Spark's
``'<condition>' is not true!``. Both are typed void (``planner.logical.types``). The worker
compiles them to DuckDB's ``error()`` (``worker.compile.calls_core``), whose message the
coordinator reads back with its error class (``transport.errors.QueryError``).

The planner raises errors of its own classes with ``failure`` (a scalar subquery of more
than one row, ``planner.logical.scalars``): the class is a literal the plan checks
(``planner.logical.literal_args``), so a worker never raises an arbitrary one.
"""

from __future__ import annotations

from sparkwire.planner.logical.expressions import Call, Expr, Lit
from sparkwire.planner.logical.functions.base import Function, checked_call
from sparkwire.planner.logical.render import output_name

#: The error class Spark gives an error the query raised (``raise_error``, ``assert_true``).
USER_RAISED = "USER_RAISED_EXCEPTION"


def failure(error_class: str, message: Expr) -> Call:
    """Fails the query with ``[error_class] message`` where it is evaluated."""
    return checked_call("raise_error", Lit(value=error_class), message)


def _raise_error(message: Expr) -> Expr:
    return failure(USER_RAISED, message)


def _assert_true(condition: Expr, message: Expr | None = None) -> Expr:
    if message is None:
        message = Lit(value=f"'{output_name(condition)}' is not true!")
    return checked_call("assert_true", condition, message)


FUNCTIONS = (Function.of("raise_error", _raise_error), Function.of("assert_true", _assert_true))
