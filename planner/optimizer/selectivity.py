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

One exception, where the footers do know: a column compared with constants (``<``, ``<=``,
``>``, ``>=``, ``BETWEEN``, and those of one ``AND`` on the same column taken together as one
interval) keeps the share of the column's ``(min, max)`` over the scanned files that the
interval covers, values taken as spread evenly. TPC-H Q7's two years of ``l_shipdate`` keep
29 % of ``lineitem``, not the 11 % of two range guesses: at 11 % the planner broadcast those
1.8M rows (96 MB) to one task that joined everything, on one core. Likewise a whole-numbered
column (an integer or a date) equal to a constant, or ``IN`` a list of them, keeps one value's
share of its span each: TPC-DS's ``d_year = 2000`` keeps 1/201 of ``date_dim`` and ``d_moy =
11`` 1/12, where 10 % each made Q47's date filter, an ``OR`` of such ``AND``s, look twenty
times its size once sqlglot no longer rewrote it into conjunctions.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable

from sparkwire.planner.logical.expressions import Call, Column, Expr, Lit, ScalarFunction

#: A column's ``(min, max)`` in the scanned files (``ParquetFileInfo.value_ranges``), or None.
Spans = Callable[[str], "tuple[float, float] | None"]

EQUAL = 0.1
RANGE = 1 / 3
BETWEEN = 0.25
LIKE = 0.25
NULL = 0.1
UNKNOWN = 0.5
_COMPARISONS = frozenset({"lt", "le", "gt", "ge"})


def selectivity(predicate: Expr, spans: Spans | None = None) -> float:
    """The share of rows ``predicate`` is guessed to keep, in ``(0, 1]``; ``spans`` gives
    the value range of a column where the files' statistics know it."""
    return max(_conjunction((predicate,), spans or _unknown), 1e-6)


def _unknown(column: str) -> None:
    return None


def _guess(node: Expr, spans: Spans) -> float:
    """The textbook share of one term; ``spans`` reaches the terms nested in it."""
    if not isinstance(node, Call):
        return UNKNOWN
    args = node.args
    match node.fn:
        case "and":
            return _conjunction(args, spans)
        case "or":
            kept = 0.0
            for arg in args:
                share = _conjunction((arg,), spans)
                kept = kept + share - kept * share
            return kept
        case "not":
            return 1.0 - _conjunction(args[:1], spans) if args else UNKNOWN
        case "eq":
            return _points(args, spans, 1, EQUAL)
        case "ne":
            return 1.0 - EQUAL
        case fn if fn in _COMPARISONS:
            return RANGE
        case "between":
            return BETWEEN
        case "in":
            return _points(args, spans, len(args) - 1, min(UNKNOWN, EQUAL * max(1, len(args) - 1)))
        case "like":
            return LIKE
        case "is_null":
            return NULL
        case "is_not_null":
            return 1.0 - NULL
        case _:
            return UNKNOWN


def _points(args: tuple[Expr, ...], spans: Spans, values: int, guess: float) -> float:
    """The share ``values`` whole numbers keep of a column whose span the footers know and
    whose ends are whole (an integer or a date column, taken as holding every value between
    them evenly): ``1 / (max - min + 1)`` each, none outside the span; ``guess`` for anything
    else (two columns, text, a fraction). ``eq`` is ``column = value`` either way round,
    ``in`` is ``column IN (values...)``."""
    column, constants = (args[0], args[1:]) if isinstance(args[0], Column) else (args[-1], args[:-1])
    span = spans(column.name) if isinstance(column, Column) and values >= 1 else None
    if span is None or not all(float(end).is_integer() for end in span):
        return guess
    numbers = [_number(c) for c in constants]
    if any(n is None or not n.is_integer() for n in numbers):
        return guess
    lowest, highest = span
    inside = sum(1 for n in set(numbers) if n is not None and lowest <= n <= highest)
    return min(1.0, inside / (highest - lowest + 1))


def _conjunction(terms: tuple[Expr, ...], spans: Spans) -> float:
    """Terms taken as independent (each ``_guess``), except that bounds on one column with a
    known span make one interval, which keeps the share of the span it covers."""
    share = 1.0
    intervals: dict[str, tuple[float, float]] = {}
    for term in terms:
        bound = _bound(term)
        if bound is None or spans(bound[0]) is None:
            share *= _guess(term, spans)
            continue
        name, low, high = bound
        known = intervals.get(name, (-math.inf, math.inf))
        intervals[name] = (max(known[0], low), min(known[1], high))
    for name, (low, high) in intervals.items():
        span = spans(name)
        assert span is not None
        lowest, highest = span
        if highest <= lowest:
            share *= 1.0 if low <= lowest <= high else 0.0
            continue
        covered = min(high, highest) - max(low, lowest)
        share *= min(1.0, max(covered, 0.0) / (highest - lowest))
    return share


_FLIPPED: dict[ScalarFunction, ScalarFunction] = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}


def _bound(term: Expr) -> tuple[str, float, float] | None:
    """``(column, low, high)`` for a column compared with constants, else None."""
    if not isinstance(term, Call):
        return None
    args = term.args
    if term.fn == "between" and len(args) == 3 and isinstance(args[0], Column):
        low, high = _number(args[1]), _number(args[2])
        return None if low is None or high is None else (args[0].name, low, high)
    if term.fn not in _COMPARISONS or len(args) != 2:
        return None
    fn, (left, right) = term.fn, args
    if isinstance(right, Column) and not isinstance(left, Column):
        fn, left, right = _FLIPPED[fn], right, left
    value = _number(right)
    if not isinstance(left, Column) or value is None:
        return None
    return (left.name, -math.inf, value) if fn in ("lt", "le") else (left.name, value, math.inf)


def _number(node: Expr) -> float | None:
    """A literal number or date (as its day number) as a float; None for anything else."""
    if not isinstance(node, Lit) or isinstance(node.value, bool) or node.value is None:
        return None
    value = node.value
    try:
        if node.type == "date" and isinstance(value, str):
            return float(dt.date.fromisoformat(value).toordinal())
        if node.type is None or (isinstance(node.type, str) and node.type.startswith(("decimal", "int", "float", "double"))):
            return float(value)
    except (TypeError, ValueError):
        return None
    return None
