"""``soundex`` and ``format_number``, functions that spell a value as text, with Spark's
semantics (the worker's builders and the rules in full:
``coordinator.worker.compile.calls_spellings``); checked against PySpark
(``tests/spark/test_spellings.py``):

- ``soundex`` is Spark's American Soundex: the first letter and three codes, H and W
  skipped, non-letters separating equal codes as vowels do; a string not starting with an
  ASCII letter is returned as it is, an empty one is empty;
- ``format_number(x, d)`` groups by thousands and rounds half to even to ``d`` places (a
  negative ``d`` is NULL), as Java's ``DecimalFormat`` does; ``d`` is an int literal here
  (Spark also takes a column, or a ``DecimalFormat`` pattern string, which are refused).
  Which kind of number ``x`` is the analyzer adds to the call (``typed_calls``).
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr, Lit
from sparkwire.planner.logical.functions.base import Function, checked_call, int_option, plain, shown


def format_number(value: Expr, places: Expr) -> Expr:
    """``places`` an int literal: the worker writes the pattern from it."""
    count = int_option(places)
    if count is None:
        raise AnalysisError(f"format_number takes an int literal number of decimal places here "
                            f"(a column or a DecimalFormat pattern is not supported by sparkwire), "
                            f"got {shown(places)}")
    return checked_call("format_number", value, Lit(value=count))


FUNCTIONS = (plain("soundex"), Function.of("format_number", format_number))
