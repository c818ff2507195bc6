"""Filters move below projections and joins, toward the scans, so fewer rows are computed
and fewer cross the network: a condition on one side of a join is applied to that side
before it is shuffled or broadcast. A filter's condition moves below a join only to a side
whose rows the join does not pad with NULLs (the left of a left join, either of an inner
one), and below a projection only when every column it reads passes through by name. A
join's own condition is the mirror image: a part reading one side moves into that side
when the join does not keep that side's unmatched rows (the right of a left join, where
``o_comment NOT LIKE ...`` in TPC-H Q13's ``ON`` drops orders before they are shuffled).
A filter moves below a window only where it reads nothing but partition keys that are plain
columns (Spark's rule): it then drops whole partitions, which changes no other row's window
values; any other condition would remove rows a window function counts or ranks. Below an
aggregate, likewise, a deterministic condition on plain grouping keys: TPC-DS q39 reads one
year's inventory aggregate twice, for January and for February, and each month's rows are
now chosen before the join and the aggregate, not after.

A condition goes into both inputs of a set operation, named as each input names its
columns: a row of the result is a row of an input with the same values, so the condition
holds of it there (deterministic conditions; set operations compare rows NULL-equal, a
deterministic condition gives equal rows one answer). An OR that cannot move as a whole
still says something below: each branch that can be true needs its parts that can move true,
so ``(y = 2001 AND total > 0) OR y = 2002`` over an aggregate grouped by ``y`` moves
``y = 2001 OR y = 2002`` below it and stays as it is above (``_implied``; ``disjunctions``
does the same for a join's sides). TPC-DS q04's year totals are filtered so by year
before they are aggregated (``shared_filters``)."""

from __future__ import annotations

from collections import Counter

from sparkwire.planner.logical.expressions import Call, Column, Expr
from sparkwire.planner.logical.function_types import NONDETERMINISTIC
from sparkwire.planner.logical.plan import (
    Aggregate,
    Filter,
    Join,
    Operator,
    Project,
    SetOperation,
    Window,
    children,
    operators,
    output_columns,
    with_children,
)
from sparkwire.planner.logical.predicates import conjunction, conjuncts, disjuncts, nonempty_conjunction
from sparkwire.planner.logical.tree import column_names, transform, walk

#: The joins a filter above may move into the left (right) input of: those that do not pad
#: that side with NULLs. A part of a join's own condition moves into its left input by
#: ``RIGHT_OK`` and into its right by ``LEFT_OK``: the mirror image.
LEFT_OK = ("inner", "left", "semi", "anti", "cross")
RIGHT_OK = ("inner", "right", "cross")
#: The joins a condition on the left keys may be copied to the right keys of (those that keep
#: no right row without a match), and the mirror image (``_across``).
COPY_RIGHT = ("inner", "left", "semi", "anti")
COPY_LEFT = ("inner", "right")


def push_filters(plan: Operator) -> Operator:
    """Top-down: each filter sinks as far as it can, then its inputs are visited. A filter
    stops above a subtree the plan holds more than once (a view or CTE read twice), which
    the stage cutter computes once for all its readers: filtered for one reader, it would be
    computed again for each (``shared_filters`` moves the OR of all readers' conditions
    into it instead)."""
    return _push(plan, _shared(plan))


def _shared(plan: Operator) -> frozenset[Operator]:
    """The subtrees doing work that ``plan`` holds more than once."""
    seen = Counter(op for op in operators(plan) if isinstance(op, Join | Aggregate | SetOperation | Window))
    return frozenset(op for op, n in seen.items() if n > 1)


def _push(plan: Operator, shared: frozenset[Operator]) -> Operator:
    if isinstance(plan, Filter):
        plan = _sink(plan, shared)
    elif isinstance(plan, Join) and plan.condition is not None and not plan.null_aware:
        plan = _sink_condition(plan, shared)
    return with_children(plan, [_push(c, shared) for c in children(plan)])


def _sink_condition(join: Join, shared: frozenset[Operator]) -> Join:
    """The parts of the join's condition that read one side only, moved into that side
    when the join drops that side's unmatched rows."""
    parts = conjuncts(join.condition)
    left_cols, right_cols = set(output_columns(join.left)), set(output_columns(join.right))
    to_left = [p for p in parts if _reads(p) and _reads(p) <= left_cols and join.how in RIGHT_OK]
    to_right = [p for p in parts if _reads(p) and _reads(p) <= right_cols and join.how in LEFT_OK]
    if not to_left and not to_right:
        return join
    kept = [p for p in parts if p not in to_left and p not in to_right]
    moved = with_children(join, [_filtered(join.left, to_left, shared),
                                 _filtered(join.right, to_right, shared)])
    return moved.model_copy(update={"condition": conjunction(kept)})


def _sink(op: Filter, shared: frozenset[Operator]) -> Operator:
    """The filter's conditions placed as low as one step allows; what cannot move stays."""
    below = op.input
    if below in shared:
        return op
    parts = conjuncts(op.predicate)
    if isinstance(below, Join):
        left_cols, right_cols = set(output_columns(below.left)), set(output_columns(below.right))
        to_left = [p for p in parts if _reads(p) and _reads(p) <= left_cols and below.how in LEFT_OK]
        to_right = [p for p in parts if _reads(p) and _reads(p) <= right_cols and below.how in RIGHT_OK]
        kept = [p for p in parts if p not in to_left and p not in to_right]
        if not to_left and not to_right:
            return op
        left_to_right = _key_names(below.left_keys, below.right_keys)
        right_to_left = _key_names(below.right_keys, below.left_keys)
        copied_right = _across(to_left, left_to_right, below, COPY_RIGHT)
        copied_left = _across(to_right, right_to_left, below, COPY_LEFT)
        join = with_children(below, [_filtered(below.left, to_left + copied_left, shared),
                                     _filtered(below.right, to_right + copied_right, shared)])
        return _filtered(join, kept, shared)
    if isinstance(below, Project | Window | Aggregate):
        passing = _passing(below)
        moved = [p for p in parts if _movable(p, passing, below)]
        kept = [p for p in parts if p not in moved]
        implied = [i for p in kept if (i := _implied(p, passing, below)) is not None]
        if not moved and not implied:
            return op
        renamed = [_renamed(p, passing) for p in moved + implied]
        # what stays cannot move from here: filtered again, an OR would imply its part anew
        sunk = with_children(below, [_filtered(below.input, renamed, shared)])
        return Filter(input=sunk, predicate=op.predicate if not moved else nonempty_conjunction(kept)) \
            if kept else sunk
    if isinstance(below, SetOperation):
        moved = [p for p in parts if _deterministic(p)]
        if not moved:
            return op
        kept = [p for p in parts if p not in moved]
        names = output_columns(below.left)
        right = dict(zip(names, output_columns(below.right), strict=True))
        inputs = [_filtered(below.left, moved, shared),
                  _filtered(below.right, [_renamed(p, right) for p in moved], shared)]
        return _filtered(with_children(below, inputs), kept, shared)
    return op


def _key_names(keys: tuple[Expr, ...], others: tuple[Expr, ...]) -> dict[str, str]:
    """Each join key that is a plain column, with the plain column it equals on the other side."""
    return {k.name: o.name for k, o in zip(keys, others, strict=True)
            if isinstance(k, Column) and isinstance(o, Column)}


def _across(parts: list[Expr], keys: dict[str, str], join: Join, allowed: tuple[str, ...]) -> list[Expr]:
    """The parts that read only one side's join keys, written over the other side's keys:
    a row there that fails one could match no row that passes it (keys are equal, and a NULL
    key matches nothing), so where the join keeps no unmatched row of that side, it may be
    dropped before the join (Spark's InferFiltersFromConstraints). TPC-DS q78 asks for
    2000's store sales left-joined to web and catalog sales by year, item and customer; the
    other two are now aggregated for 2000 alone, not for every year."""
    if join.how not in allowed or join.null_aware:
        return []
    return [_renamed(p, keys) for p in parts
            if _reads(p) and _reads(p) <= keys.keys() and _deterministic(p)]


def _movable(part: Expr, passing: dict[str, str], below: Operator) -> bool:
    return (bool(_reads(part)) and _reads(part) <= passing.keys()
            and (not isinstance(below, Aggregate) or _deterministic(part)))


def _implied(part: Expr, passing: dict[str, str], below: Operator) -> Expr | None:
    """What an OR that cannot move below ``below`` implies there: the OR of each branch's
    parts that can move, where every branch has one; else None."""
    branches = disjuncts(part)
    if len(branches) < 2:
        return None
    sides = [conjunction([p for p in conjuncts(b) if _movable(p, passing, below)]) for b in branches]
    if any(side is None for side in sides):
        return None
    unique = list(dict.fromkeys(side for side in sides if side is not None))
    return unique[0] if len(unique) == 1 else Call(fn="or", args=tuple(unique))


def _passing(op: Project | Window | Aggregate) -> dict[str, str]:
    """The columns a condition may read to move below ``op``, each with its name below:
    a projection's plain columns (renamed or not), a window's partition keys, an
    aggregate's plain grouping keys (a condition on them keeps or drops whole groups:
    Spark's rule, for deterministic conditions)."""
    if isinstance(op, Window):
        return {k.name: k.name for k in op.partition_by if isinstance(k, Column)}
    named = op.columns if isinstance(op, Project) else op.keys
    return {c.name: c.expr.name for c in named if isinstance(c.expr, Column)}


def _renamed(predicate: Expr, names: dict[str, str]) -> Expr:
    return transform(predicate, lambda e: Column(name=names[e.name]) if isinstance(e, Column) else None)


def _deterministic(predicate: Expr) -> bool:
    """Whether ``predicate`` gives one answer for one row; moved below an aggregate it runs
    once per input row, not once per group."""
    return not any(isinstance(n, Call) and n.fn in NONDETERMINISTIC for n in walk(predicate))


def _reads(predicate: Expr) -> set[str]:
    return set(column_names(predicate))


def _filtered(op: Operator, parts: list[Expr], shared: frozenset[Operator]) -> Operator:
    """``op`` under a filter of ``parts`` (merged into a filter already there), sunk."""
    predicate = conjunction(parts)
    if predicate is None:
        return op
    if isinstance(op, Filter):  # a part already there is not added twice
        merged = list(dict.fromkeys([*conjuncts(op.predicate), *parts]))
        return Filter(input=op.input, predicate=nonempty_conjunction(merged))
    return _sink(Filter(input=op, predicate=predicate), shared)
