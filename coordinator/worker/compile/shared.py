"""Subtrees a fragment reads more than once, computed once: DuckDB's materialized CTEs.

SQL's ``WITH`` names a query once however often it is read (TPC-DS q47/q57 read one
aggregate over a join three times, q31 two such six times), but the plan is a tree: each
reference is its own copy of the subtree. Compiled as nested derived tables, DuckDB then
scans, joins and aggregates each copy again (q57's one task: 0.30 s where DuckDB takes 0.11 s
on the text). A subtree the fragment reads twice or more is compiled once, as a
``MATERIALIZED`` CTE, and every reference reads that.

Only subtrees that do real work are shared (a join, an aggregate, a window, an expand, a
generate): re-reading a filtered scan costs less than materializing it. A ``Sort`` is never
a CTE's root, so no order has to survive a materialization; its input may be shared.
"""

from __future__ import annotations

from collections import Counter

from sparkwire.planner.logical.plan import (Aggregate, Expand, Generate, Join, Operator, Sort,
                                            Window, children)

__all__ = ["shared_subtrees"]

#: Operators whose work is worth more than materializing their output.
_WORK = (Join, Aggregate, Window, Expand, Generate)


def shared_subtrees(root: Operator) -> frozenset[Operator]:
    """The subtrees of ``root`` to compile once: those read twice or more once each shared
    subtree is compiled once (a subtree only inside a shared one counts once)."""
    reads: Counter[Operator] = Counter()
    works: dict[Operator, bool] = {}
    pending = [root]
    while pending:
        op = pending.pop()
        reads[op] += 1
        if reads[op] == 1 or not _shareable(op, works):
            pending.extend(children(op))
    return frozenset(op for op, n in reads.items() if n > 1 and _shareable(op, works))


def _shareable(op: Operator, works: dict[Operator, bool]) -> bool:
    return not isinstance(op, Sort) and _works(op, works)


def _works(op: Operator, works: dict[Operator, bool]) -> bool:
    """Whether ``op``'s subtree holds an operator of ``_WORK`` (memoized per subtree)."""
    found = works.get(op)
    if found is None:
        found = isinstance(op, _WORK) or any(_works(c, works) for c in children(op))
        works[op] = found
    return found
