"""``planner.optimizer.rules.precount``: where counts are made before a join, and where not."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire.planner.logical.expressions import AggCall, Call, Column, Lit, NamedExpr
from sparkwire.planner.logical.plan import Aggregate, Join, operators
from sparkwire.planner.logical.sources import FileSplit, ParquetScan
from sparkwire.planner.optimizer.rules.precount import count_before_join

LEFT = pa.table({"k": pa.array(range(100), pa.int64()), "g": pa.array([i % 3 for i in range(100)], pa.int64())})


def right_table(rows_per_key: int) -> pa.Table:
    return pa.table({"rk": pa.array([i // rows_per_key for i in range(100)], pa.int64()),
                     "w": pa.array(range(100), pa.int64())})


def counted(write_parquet, rows_per_key: int = 10, how: str = "left", condition=None) -> Aggregate:
    left = ParquetScan(splits=(FileSplit(path=str(write_parquet("l.parquet", table=LEFT))),), columns=("k", "g"))
    right = ParquetScan(splits=(FileSplit(path=str(write_parquet(f"r{rows_per_key}.parquet", table=right_table(rows_per_key)))),),
                        columns=("rk", "w"))
    join = Join(left=left, right=right, how=how, left_keys=(Column(name="k"),), right_keys=(Column(name="rk"),),
                condition=condition)
    return Aggregate(input=join, keys=(NamedExpr(name="g", expr=Column(name="g")),),
                     aggregates=(NamedExpr(name="n", expr=AggCall(fn="count", arg=Column(name="w"))),))


def pre_counts(plan) -> list[Aggregate]:
    return [n for n in operators(plan) if isinstance(n, Aggregate) and n.keys and n.keys[0].name == "rk"]


def test_the_right_side_of_a_left_join_is_counted_per_key_first(write_parquet) -> None:
    plan = count_before_join(counted(write_parquet))
    (made,) = pre_counts(plan)
    assert [k.name for k in made.keys] == ["rk"] and made.aggregates[0].expr == AggCall(fn="count", arg=Column(name="w"))
    assert [a.name for a in plan.aggregates] == ["n"]  # the columns the plan had
    assert isinstance(plan.aggregates[0].expr, Call) and plan.aggregates[0].expr.fn == "coalesce"
    assert plan.aggregates[0].expr.args[1] == Lit(value=0)  # an unmatched row counts 0


@pytest.mark.parametrize("change", ["one row per key", "right join", "full join", "residual condition"])
def test_counts_stay_after_the_join(write_parquet, change) -> None:
    plan = {
        "one row per key": lambda: counted(write_parquet, rows_per_key=1),
        "right join": lambda: counted(write_parquet, how="right"),
        "full join": lambda: counted(write_parquet, how="full"),
        "residual condition": lambda: counted(write_parquet, condition=Call(
            fn="gt", args=(Column(name="w"), Column(name="g")))),
    }[change]()
    assert count_before_join(plan) == plan


def test_a_key_column_met_twice_is_left_alone(write_parquet) -> None:
    """``l.k = r.rk AND l.g = r.rk``: one column twice among the keys would name two of the
    counts' group keys alike."""
    plan = counted(write_parquet, rows_per_key=50)  # two keys: made first, were the key once
    join = plan.input.model_copy(update={"left_keys": (Column(name="k"), Column(name="g")),
                                         "right_keys": (Column(name="rk"), Column(name="rk"))})
    plan = plan.model_copy(update={"input": join})
    assert count_before_join(plan) == plan
