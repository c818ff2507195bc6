"""Copying a semi or anti join across an inner join's keys (``planner.optimizer.rules.transitivity``),
and the stage cutter computing the copied small side once."""

from __future__ import annotations

import pytest

from sparkwire.planner.logical.expressions import AggCall, Call, Column, Lit, NamedExpr
from sparkwire.planner.logical.plan import Aggregate, Exchange, Join, operators, Project
from sparkwire.planner.logical.sources import LocalSource
from sparkwire.planner.optimizer.rules.transitivity import copy_semi_joins
from sparkwire.planner.physical.stages import plan_stages

MiB = 1 << 20
FACT = LocalSource(source_id="fact", chunks=4, columns=("fk", "q"), bytes=100 * MiB, rows=6_000_000)
DIM = LocalSource(source_id="dim", chunks=4, columns=("dk", "p"), bytes=30 * MiB, rows=1_500_000)
KEYS = LocalSource(source_id="keys", chunks=1, columns=("sk", "x"), bytes=MiB, rows=1000)


def filtered(how: str = "semi", right=KEYS, **more) -> Join:
    return Join(left=DIM, right=right, how=how, left_keys=(Column(name="dk"),),
                right_keys=(Column(name="sk"),), **more)


def inner(left, right) -> Join:
    return Join(left=left, right=right, how="inner", left_keys=(Column(name="fk"),),
                right_keys=(Column(name="dk"),))


@pytest.mark.parametrize("how", ["semi", "anti"])
def test_the_semi_join_on_a_key_filters_the_other_side_too(how):
    plan = copy_semi_joins(inner(FACT, filtered(how)))
    assert isinstance(plan, Join) and plan.right == filtered(how)
    assert plan.left == Join(left=FACT, right=KEYS, how=how, left_keys=(Column(name="fk"),),
                             right_keys=(Column(name="sk"),))


def test_through_a_projection_that_passes_the_key():
    passing = Project(input=filtered(), columns=(NamedExpr(name="dk", expr=Column(name="dk")),))
    plan = copy_semi_joins(inner(FACT, passing))
    assert isinstance(plan.left, Join) and plan.left.right == KEYS


def test_a_semi_joins_residual_condition_is_left_out_of_the_copy():
    condition = Call(fn="gt", args=(Column(name="p"), Column(name="x")))
    plan = copy_semi_joins(inner(FACT, filtered(condition=condition)))
    assert plan.left.how == "semi" and plan.left.condition is None


def test_copying_is_idempotent():
    once = copy_semi_joins(inner(FACT, filtered()))
    assert copy_semi_joins(once) == once


BIG_KEYS = KEYS.model_copy(update={"bytes": 50 * MiB})
RENAMED = Project(input=filtered(), columns=(NamedExpr(name="dk", expr=Call(
    fn="add", args=(Column(name="dk"), Lit(value=1)))),))


@pytest.mark.parametrize("plan", [
    inner(FACT, filtered("anti", null_aware=True)),  # NOT IN: a NULL in the keys matters
    inner(FACT, filtered("anti", condition=Call(fn="gt", args=(Column(name="p"), Column(name="x"))))),
    inner(FACT, filtered(right=BIG_KEYS)),  # the keys would be shuffled, not broadcast
    inner(FACT.model_copy(update={"bytes": MiB}), filtered()),  # the other side is broadcast anyway
    inner(FACT, RENAMED),  # the join key is computed above the semi join
], ids=["null-aware anti", "anti with condition", "big keys", "small other side", "key computed"])
def test_other_plans_stay(plan):
    assert copy_semi_joins(plan) == plan


def test_a_subtree_held_twice_is_one_stage_read_twice():
    totals = Aggregate(input=FACT, keys=(NamedExpr(name="fk", expr=Column(name="fk")),),
                       aggregates=(NamedExpr(name="n", expr=AggCall(fn="count")),))
    renamed = Project(input=totals, columns=(NamedExpr(name="fk2", expr=Column(name="fk")),
                                             NamedExpr(name="n2", expr=Column(name="n"))))
    twice = Join(left=totals, right=renamed, how="inner", left_keys=(Column(name="n"),),
                 right_keys=(Column(name="n2"),))
    staged = plan_stages(twice, ["fk", "n", "fk2", "n2"], cores=4, broadcast_threshold=0)
    partial = [s.id for s in staged.stages if isinstance(s.fragment, Aggregate)
               and s.output.kind == "shuffle" and s.output.keys == (Column(name="fk"),)]
    readers = [s.id for s in staged.stages for node in operators(s.fragment)
               if isinstance(node, Exchange) and node.stage in partial]
    assert len(partial) == 1 and len(readers) == 2  # both sides merge the same partial sums
