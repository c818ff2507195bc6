"""Moving semi and anti joins below inner joins (``planner.optimizer.rules.semijoins``): small right
sides always, larger ones only under a join on their own keys."""

from __future__ import annotations

import pytest

from sparkwire.planner.logical.expressions import Call, Column
from sparkwire.planner.logical.plan import Join
from sparkwire.planner.logical.sources import LocalSource
from sparkwire.planner.optimizer.rules.semijoins import push_semi_joins

MiB = 1 << 20
FACT = LocalSource(source_id="fact", chunks=4, columns=("fk", "q"), bytes=600 * MiB, rows=60_000_000)
DIM = LocalSource(source_id="dim", chunks=4, columns=("dk", "ck"), bytes=300 * MiB, rows=15_000_000)
SMALL = LocalSource(source_id="keys", chunks=1, columns=("sk",), bytes=MiB, rows=1000)
LARGE = LocalSource(source_id="many", chunks=4, columns=("sk",), bytes=40 * MiB, rows=5_000_000)


def joined(on_dim_key: bool = True) -> Join:
    """FACT joined to DIM on fk = dk, or on fk = ck (not the semi join's key)."""
    return Join(left=FACT, right=DIM, how="inner", left_keys=(Column(name="fk"),),
                right_keys=(Column(name="dk" if on_dim_key else "ck"),))


def semi(left, right, how: str = "semi", **more) -> Join:
    return Join(left=left, right=right, how=how, left_keys=(Column(name="dk"),),
                right_keys=(Column(name="sk"),), **more)


@pytest.mark.parametrize("how", ["semi", "anti"])
@pytest.mark.parametrize("on_dim_key", [True, False])
def test_a_small_right_side_moves_to_the_input_it_filters(how, on_dim_key):
    plan = push_semi_joins(semi(joined(on_dim_key), SMALL, how))
    assert plan == joined(on_dim_key).model_copy(update={"right": semi(DIM, SMALL, how)})


@pytest.mark.parametrize("how", ["semi", "anti"])
def test_a_large_one_moves_under_a_join_on_its_own_keys(how):
    plan = push_semi_joins(semi(joined(), LARGE, how))
    assert plan == joined().model_copy(update={"right": semi(DIM, LARGE, how)})


def test_a_large_one_stays_above_a_join_on_other_keys():
    plan = semi(joined(on_dim_key=False), LARGE)
    assert push_semi_joins(plan) == plan


def test_a_large_one_with_a_residual_condition_stays():
    plan = semi(joined(), LARGE, condition=Call(fn="gt", args=(Column(name="ck"), Column(name="sk"))))
    assert push_semi_joins(plan) == plan


#: Small in bytes (a broadcast), but with as many rows as the input it would probe below.
MANY_SMALL = LocalSource(source_id="many_small", chunks=1, columns=("sk",), bytes=MiB, rows=15_000_000)
RESIDUAL = Call(fn="gt", args=(Column(name="ck"), Column(name="sk")))


def test_a_small_one_with_a_residual_condition_moves_where_it_has_far_fewer_rows():
    plan = push_semi_joins(semi(joined(), SMALL, condition=RESIDUAL))
    assert plan == joined().model_copy(update={"right": semi(DIM, SMALL, condition=RESIDUAL)})


def test_a_small_one_with_a_residual_condition_stays_where_it_would_probe_as_many_rows():
    """TPC-DS q16: an EXISTS over the same table is a join, not a lookup; below the joins
    that select its rows it would probe all of them."""
    plan = semi(joined(), MANY_SMALL, condition=RESIDUAL)
    assert push_semi_joins(plan) == plan
    assert push_semi_joins(semi(joined(), MANY_SMALL)) != semi(joined(), MANY_SMALL)  # no condition: a lookup
