"""A semi or anti join on a join key filters the other side of that join too.

In ``L JOIN (R SEMI JOIN S ON R.k = S.k) ON L.k = R.k`` every ``L`` row that finds a partner
has ``L.k = R.k``, one of ``S``'s keys: so ``L SEMI JOIN S ON L.k = S.k`` keeps every row
that can still match, and the join's inputs may shrink on both sides before they are
shuffled to meet. The same holds for an anti join (a partner's key is none of ``S``'s),
but not for a null-aware one (``NOT IN``), nor for an anti join with a residual condition,
which drops only some of a key's rows. A semi join's residual condition is left out of the
copy: a weaker filter still keeps every row that can match.

TPC-H Q18 keeps the orders ``IN`` 57 big orders before its join with ``lineitem``; with the
copy, ``lineitem`` too is cut to those orders' lines in its scan tasks, instead of all of
its 6M rows being shuffled to meet 57 orders.

Only a small ``S`` is copied (at most ``DEFAULT_BROADCAST_THRESHOLD`` estimated bytes, so it
is broadcast), and only onto a big other side (one that would be shuffled). ``S`` is then a
subtree the plan holds twice; the stage cutter computes it once and reads it twice.
"""

from __future__ import annotations

from collections.abc import Iterator

from sparkwire.planner.optimizer.estimates import DEFAULT_BROADCAST_THRESHOLD, estimate_bytes
from sparkwire.planner.logical.expressions import Column
from sparkwire.planner.logical.plan import Filter, Join, Operator, Project, transform_up


def copy_semi_joins(plan: Operator) -> Operator:
    return transform_up(plan, _copy_across)


def _copy_across(node: Operator) -> Operator:
    if not (isinstance(node, Join) and node.how == "inner" and node.left_keys):
        return node
    pairs = [(a.name, b.name) for a, b in zip(node.left_keys, node.right_keys, strict=True)
             if isinstance(a, Column) and isinstance(b, Column)]
    for side, other, mapping in (("left", "right", dict(pairs)),
                                 ("right", "left", {b: a for a, b in pairs})):
        target: Operator = getattr(node, other)
        if estimate_bytes(target) <= DEFAULT_BROADCAST_THRESHOLD:
            continue  # broadcast as it is: a filter on it would save nothing on the network
        present = [semi.right for semi in _filters(target)]
        for semi in _filters(getattr(node, side)):
            keys = [mapping.get(key.name) if isinstance(key, Column) else None for key in semi.left_keys]
            if (None in keys or semi.right in present or not _copyable(semi)
                    or estimate_bytes(semi.right) > DEFAULT_BROADCAST_THRESHOLD):
                continue
            target = Join(left=target, right=semi.right, how=semi.how,
                          left_keys=tuple(Column(name=k) for k in keys if k is not None),
                          right_keys=semi.right_keys)
            present.append(semi.right)
        node = node.model_copy(update={other: target})
    return node


def _copyable(semi: Join) -> bool:
    return semi.how == "semi" or (semi.condition is None and not semi.null_aware)


def _filters(op: Operator) -> Iterator[Join]:
    """The semi and anti joins that filter ``op``'s rows: found down through filters,
    projections that pass columns through, and other semi and anti joins' left inputs. Only
    joins whose left keys pass up unchanged to ``op`` are reported."""
    passing: set[str] | None = None  # column names that pass through every projection so far
    while True:
        match op:
            case Join(how="semi" | "anti"):
                names = {key.name for key in op.left_keys if isinstance(key, Column)}
                if op.left_keys and len(names) == len(op.left_keys) and (passing is None or names <= passing):
                    yield op
                op = op.left
            case Filter():
                op = op.input
            case Project():
                through = {c.name for c in op.columns if c.expr == Column(name=c.name)}
                passing = through if passing is None else passing & through
                op = op.input
            case _:
                return
