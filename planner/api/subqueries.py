"""``df.scalar()`` and ``df.exists()``: Spark 4's subqueries from the DataFrame API, planned
by the SQL front end's machinery for uncorrelated scalar subqueries (``planner.sql.scalars``,
``planner.logical.scalars``).

A subquery's value is one row of one column: ``one_row`` makes it (with Spark's
``SCALAR_SUBQUERY_TOO_MANY_ROWS`` check, run where the row count is merged), and the frame
that uses it cross-joins that row in (broadcast by the cutter, a few bytes), computes its
expression, then drops the value's column: the plan SQL's ``WHERE x < (SELECT max(y) ...)``
gets. ``exists()`` is the scalar ``count(*) > 0`` of the subquery's first row.

A Column is an expression only, with nowhere to carry a relation, so the value's Column is a
``Ref`` to the value's own plan id, and the relation waits here under that id until a frame
meets the Ref (``with_values``). The table is bounded: a value built and never used is
forgotten after ``MAX_PENDING`` newer ones, and using it then fails as a column of another
DataFrame does.

Correlated subqueries (``Column.outer``) are refused (``planner.api.refused``): a sparkwire
DataFrame resolves each column where it is written, so the subquery's frame would have to
resolve a column of a query not built yet.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from sparkwire.planner.api.column import Column
from sparkwire.planner.api.frame import Frame
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.analyzer import Relation, analyze_join, new_plan_id
from sparkwire.planner.logical.expressions import Expr, Ref
from sparkwire.planner.logical.scalars import one_row
from sparkwire.planner.logical.tree import walk
from sparkwire.planner.sql.scalars import subquery_tag

FrameT = TypeVar("FrameT", bound=Frame)

#: How many values built and not yet used are kept (``with_values``).
MAX_PENDING = 1024

_pending: OrderedDict[int, Relation] = OrderedDict()


def value_column(frame: Frame, name: str) -> Column:
    """The one value of ``frame`` (one column, at most one row, else Spark's error when it
    runs) as a Column named ``name``, as Spark names it (``scalarsubquery()``)."""
    if len(frame._attrs) != 1:
        raise AnalysisError(
            f"a scalar subquery has exactly one column; this one has {len(frame._attrs)}",
            condition="INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_COLUMN",
            parameters={"number": str(len(frame._attrs))},
        )
    value = one_row(frame.relation, subquery_tag())
    plan_id = new_plan_id()
    attr = replace(value.attrs[0], origins=frozenset({plan_id}))
    _pending[plan_id] = Relation(value.plan, (attr,))
    while len(_pending) > MAX_PENDING:
        _pending.popitem(last=False)
    return Column(Ref(name=attr.name, plan_id=plan_id), alias=name)


def with_values(frame: FrameT, exprs: Sequence[Expr], then: Callable[[FrameT], FrameT]) -> FrameT | None:
    """``then`` applied to ``frame`` with the value of every subquery ``exprs`` use joined
    in, those values' own columns dropped again after (a value selected is a column
    computed under its alias, which stays); None when they use none (the caller
    goes on as usual)."""
    known = {i for a in frame._attrs for i in a.origins}
    wanted = {node.plan_id for e in exprs for node in walk(e)
              if isinstance(node, Ref) and node.plan_id in _pending and node.plan_id not in known}
    if not wanted:
        return None
    plan, attrs = frame._plan, frame._attrs
    for plan_id in sorted(wanted):
        value = _pending[plan_id]
        plan, attrs = analyze_join(plan, attrs, value.plan, value.attrs, "cross", None)
    added = {a.internal for a in attrs[len(frame._attrs):]}
    done = then(frame._derive(plan, attrs))
    kept = [(a.name, a.column) for a in done._attrs if a.internal not in added]
    return done._project(kept)
