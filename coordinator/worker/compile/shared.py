"""Subtrees a fragment reads more than once, computed once: DuckDB's materialized CTEs.

SQL's ``WITH`` names a query once however often it is read (TPC-DS q47/q57 read one
aggregate over a join three times, q31 two such six times), but the plan is a tree: each
reference is its own copy of the subtree. Compiled as nested derived tables, DuckDB then
scans, joins and aggregates each copy again (q57's one task: 0.30 s where DuckDB takes 0.11 s
on the text). A subtree the fragment reads twice or more is compiled once, as a
``MATERIALIZED`` CTE, and every reference reads that.

Only subtrees that do real work are shared (a join, an aggregate, a window, an expand, a
generate): re-reading a filtered scan costs less than materializing it. A ``Sort`` is never
a CTE's root, so no order has to survive a materialization; its input may be shared. An
exchange or a cached source read twice is always shared: the worker registers it as a
stream, which DuckDB can scan once (a UNION ALL of a table with itself failed with "this
RecordBatchReader has already been consumed").

Equal subtrees are found by one key per node, built bottom-up from the node's own fields
and its inputs' keys, so each node is hashed once: hashing every subtree whole (the plan
models' own hash) cost 12 ms of a TPC-DS query's compilation.
"""

from __future__ import annotations

from collections import Counter

from sparkwire.planner.logical.plan import (Aggregate, Exchange, Expand, Generate, Join, Operator,
                                            Sort, Window, children, operators)
from sparkwire.planner.logical.sources import CachedSource

__all__ = ["shared_subtrees"]

#: Operators whose work is worth more than materializing their output.
_WORK = (Join, Aggregate, Window, Expand, Generate)
#: Leaves the worker hands DuckDB as streams, which can be read once.
_STREAMS = (Exchange, CachedSource)


def shared_subtrees(root: Operator) -> dict[int, int]:
    """For each node of ``root`` (by ``id``) in a subtree to compile once, the number of
    its class of equal subtrees: those read twice or more once each shared subtree is
    compiled once (a subtree only inside a shared one counts once)."""
    keys = _keys(root)
    works: dict[int, bool] = {}
    reads: Counter[int] = Counter()
    pending = [root]
    while pending:
        op = pending.pop()
        key = keys[id(op)]
        reads[key] += 1
        if reads[key] == 1 or not _shareable(op, works):
            pending.extend(children(op))
    shared = {key for key, n in reads.items() if n > 1}
    classes: dict[int, int] = {}
    found: dict[int, int] = {}
    for op in operators(root):
        key = keys[id(op)]
        if key in shared and _shareable(op, works):
            found[id(op)] = classes.setdefault(key, len(classes))
    return found


def _keys(root: Operator) -> dict[int, int]:
    """A key per node (by ``id``) equal for equal subtrees: the class of equal ``(own
    fields, input keys)`` it falls in, numbered as met bottom-up."""
    classes: dict[tuple[object, ...], int] = {}
    keys: dict[int, int] = {}
    for op in reversed(list(operators(root))):  # every input before its parent
        own = tuple((name, value) for name, value in op.__dict__.items() if name not in op.INPUTS)
        signature = (type(op), own, tuple(keys[id(c)] for c in children(op)))
        keys[id(op)] = classes.setdefault(signature, len(classes))
    return keys


def _shareable(op: Operator, works: dict[int, bool]) -> bool:
    return isinstance(op, _STREAMS) or (not isinstance(op, Sort) and _works(op, works))


def _works(op: Operator, works: dict[int, bool]) -> bool:
    """Whether ``op``'s subtree holds an operator of ``_WORK`` (memoized per node)."""
    found = works.get(id(op))
    if found is None:
        found = isinstance(op, _WORK) or any(_works(c, works) for c in children(op))
        works[id(op)] = found
    return found
