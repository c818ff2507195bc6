"""``conv(num, from_base, to_base)``: a number's digits from one base to another, with
Spark's semantics (``NumberConverter``; the rules in full and the worker's builder:
``coordinator.worker.compile.calls_radix``); checked against PySpark
(``tests/spark/test_radix.py``).

``num`` is cast to a string, as Spark casts it implicitly (hidden from the name); the bases
are int literals here (PySpark's ``conv`` takes ints; Spark SQL would also take columns,
which are refused). Overflow is -1 read as unsigned, or with ANSI on an error, as in Spark.
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Cast, Expr, Lit
from sparkwire.planner.logical.functions.base import Function, checked_call, int_option, shown


def conv(num: Expr, from_base: Expr, to_base: Expr) -> Expr:
    bases = [int_option(b) for b in (from_base, to_base)]
    if None in bases:
        raise AnalysisError(f"conv takes int literal bases here (a column is not supported by sparkwire), "
                            f"got {shown(from_base)}, {shown(to_base)}")
    return checked_call("conv", Cast(expr=num, to="string"), *(Lit(value=b) for b in bases))


FUNCTIONS = (Function.of("conv", conv),)
