"""The semi-join reduction rule (``planner.optimizer.rules.reduction``): which joins it rewrites, and how."""

from __future__ import annotations

import pytest

from sparkwire.planner.logical.expressions import AggCall, Call, Column, Lit, NamedExpr
from sparkwire.planner.logical.plan import Aggregate, Filter, Join, output_columns, Project
from sparkwire.planner.logical.sources import LocalSource
from sparkwire.planner.optimizer.rules.reduction import reduce_semi_join_inputs

MiB = 1 << 20
SMALL = Filter(input=LocalSource(source_id="small", chunks=1, columns=("k", "v"), bytes=MiB, rows=1000),
               predicate=Call(fn="gt", args=(Column(name="v"), Lit(value=0))))
BIG = LocalSource(source_id="big", chunks=4, columns=("k2", "w"), bytes=100 * MiB, rows=10_000_000)


def semi(left, right, how="semi", **more) -> Join:
    return Join(left=left, right=right, how=how, left_keys=(Column(name="k"),),
                right_keys=(Column(name="k2"),), **more)


@pytest.mark.parametrize("how", ["semi", "anti"])
def test_big_right_side_is_cut_to_the_small_sides_keys(how):
    plan = reduce_semi_join_inputs(semi(SMALL, BIG, how))
    assert isinstance(plan, Join) and plan.how == how and plan.left == SMALL
    reduced = plan.right
    assert isinstance(reduced, Join) and reduced.how == "semi" and reduced.left == BIG
    assert reduced.left_keys == (Column(name="k2"),)
    keys = reduced.right
    assert isinstance(keys, Project) and keys.input == SMALL
    assert [c.expr for c in keys.columns] == [Column(name="k")]
    assert reduced.right_keys == (Column(name=keys.columns[0].name),)
    assert keys.columns[0].name not in {"k", "v", "k2", "w"}
    assert output_columns(plan) == ["k", "v"]


SELECTIVE = Call(fn="and", args=tuple(Call(fn="eq", args=(Column(name="w"), Lit(value=i))) for i in range(3)))
AGGREGATED = Aggregate(  # small output, but computing it again would read BIG again
    input=Filter(input=BIG, predicate=SELECTIVE), keys=(NamedExpr(name="k", expr=Column(name="k2")),),
    aggregates=(NamedExpr(name="v", expr=AggCall(fn="count")),))
TINY = LocalSource(source_id="tiny", chunks=1, columns=("k2", "w"), bytes=MiB, rows=10)


@pytest.mark.parametrize("plan", [
    semi(SMALL, BIG, "anti", null_aware=True),  # NOT IN: a NULL key of the big side matters
    semi(BIG.model_copy(update={"columns": ("k", "v")}), BIG),  # both sides big
    semi(SMALL, TINY),  # both small: the right side is broadcast anyway
    semi(AGGREGATED, BIG),  # the small side is not cheap
    semi(SMALL, BIG, "inner"),  # not a semi join
], ids=["null-aware anti", "both big", "both small", "aggregate small side", "inner join"])
def test_other_joins_stay(plan):
    assert reduce_semi_join_inputs(plan) == plan


def test_a_small_side_joined_to_a_small_dimension_is_cheap_enough():
    joined = Join(left=SMALL, right=TINY.model_copy(update={"columns": ("d", "e"), "bytes": 1000}), how="inner",
                  left_keys=(Column(name="v"),), right_keys=(Column(name="d"),))
    plan = reduce_semi_join_inputs(semi(joined, BIG))
    assert isinstance(plan.right, Join) and plan.right.right.input == joined


def test_keys_below_a_semi_join_reduce_the_join_above_it_too():
    """TPC-H Q21: ``(L SEMI l2) ANTI l3``: the anti join's left rows are some of ``L``'s,
    so ``L``'s keys cut ``l3`` as well, through the same keys subtree (one stage)."""
    other = BIG.model_copy(update={"source_id": "other"})
    plan = reduce_semi_join_inputs(semi(semi(SMALL, BIG), other, "anti"))
    inner_keys = plan.left.right.right
    outer_keys = plan.right.right
    assert plan.right.left == other and outer_keys == inner_keys and outer_keys.input == SMALL


def test_an_aggregate_joined_on_its_group_keys_aggregates_only_the_small_sides_keys():
    """TPC-H Q17: ``small JOIN (SELECT k2, avg(w) FROM big GROUP BY k2)``: an inner join
    drops whole groups, so the aggregate's input is cut to the small side's keys first."""
    grouped = Aggregate(input=BIG, keys=(NamedExpr(name="g", expr=Column(name="k2")),),
                        aggregates=(NamedExpr(name="n", expr=AggCall(fn="count")),))
    plan = reduce_semi_join_inputs(Join(left=SMALL, right=grouped, how="inner",
                                        left_keys=(Column(name="k"),), right_keys=(Column(name="g"),)))
    cut = plan.right.input
    assert isinstance(cut, Join) and cut.how == "semi" and cut.left == BIG
    assert cut.left_keys == (Column(name="k2"),) and cut.right.input == SMALL


def test_keys_come_from_the_smaller_input_of_a_join_that_holds_them():
    dimension = TINY.model_copy(update={"columns": ("d", "e"), "bytes": 1000})
    joined = Join(left=SMALL, right=dimension, how="inner", left_keys=(Column(name="v"),),
                  right_keys=(Column(name="d"),))
    plan = reduce_semi_join_inputs(Join(left=joined, right=BIG, how="semi", left_keys=(Column(name="d"),),
                                        right_keys=(Column(name="k2"),)))
    assert plan.right.right.input == dimension  # not the join: its d values are a subset of these


GROUPED = Aggregate(input=BIG, keys=(NamedExpr(name="g", expr=Column(name="k2")),),
                    aggregates=(NamedExpr(name="n", expr=AggCall(fn="count")),))
WHOLE = LocalSource(source_id="whole", chunks=1, columns=("k", "v"), bytes=2 * MiB, rows=2000)


def test_an_aggregate_with_no_more_groups_than_the_keys_stays():
    """TPC-H Q15: as many supplier keys as revenue groups cut none, and cutting would cost
    the aggregate's reuse as one stage."""
    every = WHOLE.model_copy(update={"rows": BIG.rows})
    plan = Join(left=every, right=GROUPED, how="inner", left_keys=(Column(name="k"),),
                right_keys=(Column(name="g"),))
    assert reduce_semi_join_inputs(plan) == plan


def test_a_semi_joined_small_side_cuts_the_aggregate():
    """TPC-H Q20: ``partsupp`` of the ``forest`` parts (a semi join) meets the lineitem sums
    per part and supplier: its keys cut the lineitems before they are summed."""
    kept = Join(left=WHOLE, right=TINY, how="semi", left_keys=(Column(name="v"),),
                right_keys=(Column(name="k2"),))
    plan = reduce_semi_join_inputs(Join(left=kept, right=GROUPED, how="inner",
                                        left_keys=(Column(name="k"),), right_keys=(Column(name="g"),)))
    cut = plan.right.input
    assert isinstance(cut, Join) and cut.how == "semi" and cut.left == BIG and cut.right.input == kept
