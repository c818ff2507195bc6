"""``to_number``/``try_to_number(text, format)``: text read as a decimal in Spark's number
format (``planner.spark.number_formats``, the rules in full; the worker's builder:
``coordinator.worker.compile.calls_number_formats``), its type ``DECIMAL(digits, digits
after the point)``; checked against PySpark (``tests/spark/test_number_formats.py``). The
format is a string literal here (Spark also takes a column), checked when the plan is built.
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr, Lit, ScalarFunction
from sparkwire.planner.logical.functions.base import Function, checked_call, option, shown
from sparkwire.planner.spark import number_formats


def _reading(fn: ScalarFunction) -> Function:
    def build(text: Expr, format: Expr) -> Expr:  # noqa: A002 - Spark's name
        given = option(format)
        if not isinstance(given, str):
            raise AnalysisError(f"{fn} takes a string literal format here (a column is not supported by "
                                f"sparkwire), got {shown(format)}")
        number_formats.parse(given)
        return checked_call(fn, text, Lit(value=given))

    return Function.of(fn, build)


FUNCTIONS = (_reading("to_number"), _reading("try_to_number"))
