"""The share of its input rows a filter keeps, guessed from the predicate's shape alone.

The planner has no column statistics beyond the footers, so each predicate kind gets the
textbook guess (System R's, as DataFusion and Spark without CBO use them): equality with a
constant (or another column) keeps 10 %, an ``IN`` list 10 % per value (at most half), a
range bound (``<``, ``<=``, ``>``, ``>=``, against a constant or a column) a third,
``BETWEEN`` a quarter, ``LIKE`` a quarter, ``IS NULL``
10 % and ``IS NOT NULL`` 90 %; ``AND`` multiplies (independence), ``OR`` adds the
shares it does not double-count, ``NOT`` keeps the rest; anything else keeps half.

Why it matters: "a filter keeps half" made a scan filtered by five predicates look as big as
half the table, so TPC-H Q12 broadcast all of ``orders`` (1.5M rows, built into a hash table
by every lineitem task) instead of the ~30K lineitem rows its filters keep. The guesses are
deliberately not clever: they only choose join sides and orders, never correctness.
"""

from __future__ import annotations

from sparkwire.planner.expressions import Call, Expr

EQUAL = 0.1
RANGE = 1 / 3
BETWEEN = 0.25
LIKE = 0.25
NULL = 0.1
UNKNOWN = 0.5
_COMPARISONS = frozenset({"lt", "le", "gt", "ge"})


def selectivity(predicate: Expr) -> float:
    """The share of rows ``predicate`` is guessed to keep, in ``(0, 1]``."""
    return max(_guess(predicate), 1e-6)


def _guess(node: Expr) -> float:
    if not isinstance(node, Call):
        return UNKNOWN
    args = node.args
    match node.fn:
        case "and":
            share = 1.0
            for arg in args:
                share *= _guess(arg)
            return share
        case "or":
            kept = 0.0
            for arg in args:
                share = _guess(arg)
                kept = kept + share - kept * share
            return kept
        case "not":
            return 1.0 - _guess(args[0]) if args else UNKNOWN
        case "eq":
            return EQUAL
        case "ne":
            return 1.0 - EQUAL
        case fn if fn in _COMPARISONS:
            return RANGE
        case "between":
            return BETWEEN
        case "in":
            return min(UNKNOWN, EQUAL * max(1, len(args) - 1))
        case "like":
            return LIKE
        case "is_null":
            return NULL
        case "is_not_null":
            return 1.0 - NULL
        case _:
            return UNKNOWN

