"""``planner.optimizer.rules.expand``: an aggregate over grouping sets aggregates each task's
rows by all the keys before the ``Expand`` copies them, where its calls merge; the results
are checked against DuckDB in ``tests/e2e/test_grouping_sets.py``."""

from __future__ import annotations

from sparkwire.planner.logical.expressions import AggCall, Cast, Column, NamedExpr
from sparkwire.planner.logical.plan import Aggregate, Expand, operators, output_columns
from sparkwire.planner.logical.sources import LocalSource
from sparkwire.planner.optimizer.rules.expand import aggregate_before_expand

SOURCE = LocalSource(source_id="s", chunks=2, columns=("a", "b", "x"))
EXPAND = Expand(input=SOURCE, keys=(NamedExpr(name="a#2", expr=Column(name="a")),
                                    NamedExpr(name="b#2", expr=Column(name="b"))),
                sets=(0, 1, 3), grouping_id="gid")
KEYS = tuple(NamedExpr(name=n, expr=Column(name=n)) for n in ("a#2", "b#2", "gid"))


def grouped(*calls: AggCall) -> Aggregate:
    return Aggregate(input=EXPAND, keys=KEYS,
                     aggregates=tuple(NamedExpr(name=f"c{i}", expr=c) for i, c in enumerate(calls)))


def test_mergeable_calls_are_aggregated_by_every_key_below_the_expand() -> None:
    plan = aggregate_before_expand(grouped(AggCall(fn="sum", arg=Column(name="x")),
                                           AggCall(fn="count"), AggCall(fn="max", arg=Column(name="x"))))
    assert isinstance(plan, Aggregate) and isinstance(plan.input, Expand)
    local = plan.input.input
    assert isinstance(local, Aggregate) and local.local and local.input == SOURCE
    assert [k.expr for k in local.keys] == [Column(name="a"), Column(name="b")]
    assert output_columns(plan) == ["a#2", "b#2", "gid", "c0", "c1", "c2"]  # as before
    merged = [a.expr for a in plan.aggregates]
    assert isinstance(merged[1], Cast) and merged[1].to == "int64"  # a count: the sum of counts
    assert [m.fn for m in (merged[0], merged[2])] == ["sum", "max"]  # type: ignore[union-attr]


def test_a_call_without_a_merge_leaves_the_plan_alone() -> None:
    plan = grouped(AggCall(fn="sum", arg=Column(name="x")), AggCall(fn="count_distinct", arg=Column(name="x")))
    assert aggregate_before_expand(plan) == plan
    assert not any(isinstance(n, Aggregate) and n.local for n in operators(aggregate_before_expand(plan)))
