"""A plan whose stages would run one task each, or one task more than that in all, is
planned as one stage: chaining single-task stages only adds hand-offs and network hops to
work one DuckDB does alone, and one more task does not buy them back (TPC-DS SF1 on 2
workers: the 40 queries cut so ran in 0.79 of their time as one stage)."""

from __future__ import annotations

import pyarrow as pa

from sparkwire.planner.logical.expressions import Column
from sparkwire.planner.logical.plan import Join, output_columns
from sparkwire.planner.logical.sources import FileSplit, ParquetScan
from sparkwire.planner.physical.stages import plan_stages

FACT = pa.table({"fk": pa.array([i % 100 for i in range(10_000)], pa.int64()),
                 "q": pa.array(range(10_000), pa.int64())})
DIM = pa.table({"dk": pa.array(range(100), pa.int64()), "name": pa.array([f"n{i % 7}" for i in range(100)])})


def joined(write_parquet, fact_row_group: int) -> Join:
    fact = write_parquet("fact.parquet", fact_row_group, FACT)
    dim = write_parquet("dim.parquet", 100, DIM)
    return Join(left=ParquetScan(splits=(FileSplit(path=str(fact)),), columns=("fk", "q")),
                right=ParquetScan(splits=(FileSplit(path=str(dim)),), columns=("dk", "name")),
                how="inner", left_keys=(Column(name="fk"),), right_keys=(Column(name="dk"),))


def test_every_stage_of_one_task_makes_one_stage(write_parquet) -> None:
    join = joined(write_parquet, 10_000)  # one row group: the scan cannot be split
    plan = plan_stages(join, output_columns(join), cores=2, task_bytes=1)  # not small
    assert [s.tasks for s in plan.stages] == [1]
    assert plan.stages[0].notes == ("one stage: the stages cut would run at most one task more than one each",)


def test_one_task_more_than_the_stages_makes_one_stage(write_parquet) -> None:
    join = joined(write_parquet, 1000)  # ten row groups: two tasks on two cores, the dimension one
    plan = plan_stages(join, output_columns(join), cores=2, task_bytes=1)
    assert [s.tasks for s in plan.stages] == [1]
    assert plan.stages[0].notes == ("one stage: the stages cut would run at most one task more than one each",)


def test_a_stage_of_several_tasks_keeps_the_cut(write_parquet) -> None:
    join = joined(write_parquet, 1000)  # ten row groups, split over four cores
    plan = plan_stages(join, output_columns(join), cores=4, task_bytes=1)
    assert len(plan.stages) > 1 and max(s.tasks for s in plan.stages) > 2


def test_without_task_sizing_plans_are_always_cut(write_parquet) -> None:
    join = joined(write_parquet, 10_000)
    plan = plan_stages(join, output_columns(join), cores=2, task_bytes=0)
    assert len(plan.stages) > 1
