from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sparkwire.planner.api.sources import DataFrameReader, create_dataframe
from sparkwire.planner.errors import PlanError
from sparkwire.planner.physical.stages import plan_stages
from sparkwire.planner.api import functions as F
from sparkwire.planner.logical.expressions import AggCall, Call, Cast, Column
from sparkwire.planner.logical.plan import Aggregate, Exchange, Filter, Limit, Project, Sort
from sparkwire.planner.logical.sources import FileSplit, LocalSource, ParquetScan
from sparkwire.planner.logical.staged import Boundary, StagedPlan
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.optimizer.estimates import planning
from sparkwire.planner.spark.parquet_meta import file_info
from sparkwire.planner.physical.clustering import task_ranges
from sparkwire.planner.physical.splits import group_splits, row_groups
from sparkwire.planner.optimizer.rules import optimize
from sparkwire.planner.logical.plan import output_columns
from sparkwire.planner.physical.sizing import MAX_SHUFFLE_PARTITIONS

if TYPE_CHECKING:
    from tests.planner.conftest import FakeExecutor


@pytest.fixture
def scan(executor: FakeExecutor, write_parquet: Callable[..., Path]):
    """Two files of 100 rows in 10 row groups each: 20 units, more than the 4 cores."""
    write_parquet("t/a.parquet", row_group_size=10)
    path = write_parquet("t/b.parquet", row_group_size=10)
    return DataFrameReader(executor).parquet(path.parent)


@pytest.fixture
def local(executor: FakeExecutor, sample: pa.Table):
    return create_dataframe(executor, sample)  # 3 chunks


def stages_of(df) -> StagedPlan:
    """The cutter's work on the optimized plan, without the result-type projection that
    ``df.staged_plan()`` adds on top (tested in test_analyzer)."""
    plan = plan_stages(optimize(df.plan), output_columns(df.plan), df._executor.cores)
    assert StagedPlan.model_validate_json(plan.model_dump_json()) == plan
    for stage in plan.stages:
        assert stage.id == plan.stages.index(stage)
        for node in _operators(stage.fragment):
            if isinstance(node, Exchange):
                assert node.stage < stage.id, "producers come first"
                assert list(node.columns) == output_columns(plan.stages[node.stage].fragment)
    assert plan.final.output.kind == "result"
    assert all(s.output.kind != "result" for s in plan.stages[:-1])
    assert list(plan.columns) == output_columns(plan.final.fragment)
    return plan


def _operators(op):
    yield op
    if hasattr(op, "input"):
        yield from _operators(op.input)


def test_logical_and_staged_plans_round_trip_through_json(scan) -> None:
    df = (
        scan.filter((F.col("x") > 3) & F.col("k").isin("a", "b") | F.col("y").isNull())
        .withColumn("d", F.when(F.col("x") > 50, F.lit(1.5)).otherwise(F.col("y").cast("decimal(10,2)")))
        .groupBy(F.upper("k").alias("K"))
        .agg(F.avg("y"), F.countDistinct("x"), (F.max("x") - F.min("d")).alias("r"))
        .orderBy(F.col("K").desc())
        .limit(3)
    )
    logical = type(df.plan).model_validate_json(df.plan.model_dump_json())
    assert logical == df.plan
    stages_of(df)


def test_group_by_is_two_phase_with_a_keyed_shuffle(scan) -> None:
    plan = stages_of(scan.groupBy("k").agg(F.sum("x"), F.count("*"), F.min("y"), F.max("y")))
    producer, consumer = plan.stages
    assert producer.tasks == 4 and isinstance(producer.fragment.input, ParquetScan)  # a task per core
    assert producer.output.kind == "shuffle"
    assert producer.output.keys == (Column(name="k"),)
    assert producer.output.partitions == 4 == consumer.tasks
    partial = producer.fragment
    assert isinstance(partial, Aggregate)
    assert [(a.name, a.expr.fn) for a in partial.aggregates] == [
        ("sum(x)", "sum"), ("count(1)", "count"), ("min(y)", "min"), ("max(y)", "max")
    ]
    assert partial.aggregates[1].expr == AggCall(fn="count")
    # merge: count partials are summed and cast back to a count's type
    final = consumer.fragment
    assert isinstance(final, Project) and isinstance(final.input, Aggregate)
    merge = final.input
    assert isinstance(merge.input, Exchange) and merge.input.stage == 0
    assert [a.expr.fn for a in merge.aggregates] == ["sum", "sum", "min", "max"]
    assert final.columns[2].expr == Cast(expr=Column(name="count(1)"), to="int64")
    assert plan.columns == ("k", "sum(x)", "count(1)", "min(y)", "max(y)")


def test_simple_merge_needs_no_projection_and_keeps_user_names(scan) -> None:
    plan = stages_of(scan.groupBy("k").agg(F.sum("y").alias("total"), F.max("x")))
    final = plan.final.fragment
    assert isinstance(final, Aggregate)  # a pure rename is folded into the merge
    assert [a.name for a in final.aggregates] == ["total", "max(x)"]
    assert final.aggregates[0].expr == AggCall(fn="sum", arg=Column(name="sum(y)"))


def test_avg_is_split_into_sum_and_count_and_restores_user_order(scan) -> None:
    plan = stages_of(scan.groupBy("k").agg(F.avg("x").alias("mean"), F.sum("x")))
    partial = plan.stages[0].fragment
    assert [(a.name, a.expr) for a in partial.aggregates] == [
        ("sum(x)", AggCall(fn="sum", arg=Column(name="x"))),  # shared by avg and sum
        ("count(x)", AggCall(fn="count", arg=Column(name="x"))),
    ]
    final = plan.final.fragment
    assert isinstance(final, Project)
    assert [c.name for c in final.columns] == ["k", "mean", "sum(x)"]
    assert final.columns[1].expr == Call(fn="div", args=(Column(name="sum(x)"), Column(name="count(x)")))


def test_expression_keys_are_projected_before_the_partial_aggregate(scan) -> None:
    plan = stages_of(scan.groupBy(F.upper("k").alias("k"), "x").agg(F.count("k")))
    partial = plan.stages[0].fragment
    prepare = partial.input
    assert isinstance(prepare, Project)
    # the key `k` shadows the input column `k` the count reads: it passes under a fresh name
    assert [(c.name, c.expr) for c in prepare.columns] == [
        ("k", Call(fn="upper", args=(Column(name="k"),))),
        ("x", Column(name="x")),
        ("k#2", Column(name="k")),
    ]
    assert [k.expr for k in partial.keys] == [Column(name="k"), Column(name="x")]
    assert partial.aggregates[0].expr == AggCall(fn="count", arg=Column(name="k#2"))
    assert plan.stages[0].output.keys == (Column(name="k"), Column(name="x"))
    assert plan.columns == ("k", "x", "count(k)")


def test_global_aggregate_coalesces_to_one_task(scan) -> None:
    plan = stages_of(scan.agg(F.count("*"), F.sum("x")))
    producer, final = plan.stages
    assert producer.tasks == 4
    assert producer.output.kind == "coalesce" and producer.output.partitions == 1
    assert producer.output.keys == ()
    assert final.tasks == 1
    assert isinstance(producer.fragment, Aggregate) and producer.fragment.keys == ()


def test_count_distinct_is_single_phase_over_a_raw_shuffle(scan) -> None:
    plan = stages_of(scan.groupBy("k").agg(F.countDistinct("x"), F.max("x")))
    producer, final = plan.stages
    assert producer.output.kind == "shuffle" and producer.output.keys == (Column(name="k"),)
    # no partial aggregate; only the columns the aggregate reads cross the network
    assert isinstance(producer.fragment, ParquetScan)
    assert output_columns(producer.fragment) == ["k", "x"]
    assert isinstance(final.fragment, Aggregate)
    assert [a.expr.fn for a in final.fragment.aggregates] == ["count_distinct", "max"]
    assert isinstance(final.fragment.input, Exchange)


def test_top_k_sorts_per_task_then_once_more_in_one_task(scan) -> None:
    plan = stages_of(scan.orderBy(F.col("x").desc()).limit(5))
    producer, final = plan.stages
    assert isinstance(producer.fragment, Sort) and producer.fragment.limit == 5
    assert producer.output.kind == "coalesce"
    assert final.tasks == 1
    assert isinstance(final.fragment, Sort) and final.fragment.limit == 5
    assert isinstance(final.fragment.input, Exchange)


def test_full_sort_gathers_into_one_task(scan) -> None:
    plan = stages_of(scan.filter(F.col("x") > 1).orderBy("x"))
    producer, final = plan.stages
    assert isinstance(producer.fragment, Filter)
    assert producer.output.kind == "coalesce" and final.tasks == 1
    assert isinstance(final.fragment, Sort) and final.fragment.limit is None


def test_limit_is_pushed_into_tasks_then_applied_again(scan) -> None:
    plan = stages_of(scan.select("x").limit(7))
    producer, final = plan.stages
    assert isinstance(producer.fragment, Limit) and producer.fragment.n == 7
    # the select of the one column read is no projection at all
    assert isinstance(producer.fragment.input, ParquetScan) and producer.fragment.input.columns == ("x",)
    assert producer.output.kind == "coalesce"
    assert final.tasks == 1 and isinstance(final.fragment, Limit) and final.fragment.n == 7


def test_single_task_input_needs_no_boundary(executor: FakeExecutor, write_parquet) -> None:
    path = write_parquet("one.parquet", row_group_size=1000)  # one row group: one task
    df = DataFrameReader(executor).parquet(path)
    plan = stages_of(df.groupBy("k").agg(F.avg("x")).orderBy("k").limit(2))
    assert len(plan.stages) == 1
    assert plan.final.tasks == 1
    assert isinstance(plan.final.fragment, Sort)
    aggregate = plan.final.fragment.input
    assert isinstance(aggregate, Aggregate) and isinstance(aggregate.input, ParquetScan)
    assert aggregate.aggregates[0].expr.fn == "avg"  # one phase: nothing to split


def test_local_source_is_its_own_stage(local) -> None:
    plan = stages_of(local.filter(F.col("x") > 1))
    source, consumer = plan.stages
    assert isinstance(source.fragment, LocalSource)
    assert source.tasks == 3 and source.splits == ()
    assert source.output.kind == "coalesce"
    assert consumer.tasks == 3  # one chunk per task
    assert isinstance(consumer.fragment, Filter) and isinstance(consumer.fragment.input, Exchange)

    direct = stages_of(local)
    assert len(direct.stages) == 1 and isinstance(direct.final.fragment, LocalSource)


def test_local_source_is_only_ever_coalesced(local) -> None:
    plan = stages_of(local.groupBy("k").agg(F.max("x")))
    source, partial, final = plan.stages
    assert isinstance(source.fragment, LocalSource)
    assert source.output.kind == "coalesce" and partial.tasks == source.tasks == 3
    assert isinstance(partial.fragment, Aggregate) and isinstance(partial.fragment.input, Exchange)
    assert partial.output.kind == "shuffle" and partial.output.keys == (Column(name="k"),)
    assert isinstance(final.fragment, Aggregate)

    distinct = stages_of(local.groupBy("k").agg(F.countDistinct("x")))
    assert [s.output.kind for s in distinct.stages] == ["coalesce", "shuffle", "result"]

    top = stages_of(local.orderBy("x").limit(3))  # gathering reads the chunks directly
    assert len(top.stages) == 2 and top.stages[0].output.kind == "coalesce"
    assert top.final.tasks == 1


def test_row_groups_of_a_sorted_file_keep_their_own_key_ranges(write_parquet) -> None:
    """Tasks reading runs of a sorted file's row groups read disjoint key ranges, which the
    footer's per-row-group statistics prove; a row group read by two tasks proves nothing."""
    table = pa.table({"k": pa.array(range(100), pa.int64()),
                      "s": pa.array([{"a": i, "b": -i} for i in range(100)])})
    path = str(write_parquet("sorted.parquet", row_group_size=10, table=table))
    info = file_info(path)
    assert info.row_group_int_ranges["k"] == tuple((10 * i, 10 * i + 9) for i in range(10))
    assert "s" not in info.row_group_int_ranges  # a struct's leaves are no one range
    first, rest = FileSplit(path=path, row_groups=(0, 1, 2)), FileSplit(path=path, row_groups=tuple(range(3, 10)))
    assert task_ranges(((first,), (rest,)), "k") == [(0, 29), (30, 99)]
    assert task_ranges(((first,), (rest, FileSplit(path=path, row_groups=(2,)))), "k") is None
    assert task_ranges(((FileSplit(path=path),), (rest,)), "k") is None  # a whole file holds them all


def test_parquet_splits_by_row_group_balanced_by_rows(write_parquet) -> None:
    big = write_parquet("big.parquet", row_group_size=10)  # 10 row groups of 10 rows
    small = write_parquet("small.parquet", row_group_size=50, table=pa.table({"x": list(range(50))}))
    splits = (FileSplit(path=str(big)), FileSplit(path=str(small)))
    groups = group_splits(splits, wanted=3)
    assert len(groups) == 3
    rows = [sum(10 if s.path == str(big) else 50 for s in g for _ in row_groups(s)) for g in groups]
    assert rows == [50, 50, 50]
    read = [(s.path, rg) for g in groups for s in g for rg in row_groups(s)]
    assert read == [(str(big), i) for i in range(10)] + [(str(small), 0)]
    assert all(len(g) == 1 for g in groups[:2])  # adjacent row groups of a file merge


def test_many_files_are_whole_file_splits(write_parquet) -> None:
    paths = [write_parquet(f"f{i}.parquet", row_group_size=10) for i in range(6)]
    splits = tuple(FileSplit(path=str(p)) for p in paths)
    groups = group_splits(splits, wanted=4)
    assert len(groups) == 4
    assert [s for g in groups for s in g] == list(splits)  # whole files, in order
    assert [len(g) for g in groups] in ([2, 1, 2, 1], [1, 2, 1, 2], [2, 2, 1, 1], [1, 1, 2, 2])


def test_whole_files_once_there_are_as_many_files_as_tasks_wanted(write_parquet) -> None:
    paths = [write_parquet(f"w{i}.parquet", row_group_size=10) for i in range(4)]
    splits = tuple(FileSplit(path=str(p)) for p in paths)
    assert group_splits(splits, wanted=4) == tuple((s,) for s in splits)
    assert len(group_splits(splits, wanted=8)) == 8  # row groups, fewer files
    assert group_splits(splits, wanted=8, whole_files=True) == tuple((s,) for s in splits)


def test_scan_stage_carries_every_split_in_task_order(scan) -> None:
    plan = stages_of(scan.filter(F.col("x") > 0))
    stage = plan.final
    assert stage.tasks == len(stage.splits) == 4  # two files, four cores: runs of row groups
    fragment_scan = stage.fragment.input
    assert isinstance(fragment_scan, ParquetScan)
    assert fragment_scan.splits == tuple(s for task in stage.splits for s in task)
    covered = sorted((Path(s.path).name, rg) for s in fragment_scan.splits for rg in row_groups(s))
    assert covered == sorted((n, rg) for n in ("a.parquet", "b.parquet") for rg in range(10))


def test_task_and_partition_counts_follow_the_cores(scan) -> None:
    grouped = scan.groupBy("k").agg(F.sum("x"))
    two = plan_stages(grouped.plan, grouped.columns, cores=2)
    assert two.stages[0].tasks == 2 and two.stages[0].output.partitions == 2  # a file each
    sixteen = plan_stages(grouped.plan, grouped.columns, cores=16)
    assert sixteen.stages[0].tasks == 16  # 20 row groups, 16 wanted
    assert sixteen.stages[0].output.partitions == 16 == sixteen.final.tasks
    huge = plan_stages(grouped.plan, grouped.columns, cores=2000)
    assert huge.stages[0].tasks == 20  # one row group each
    assert huge.stages[0].output.partitions == MAX_SHUFFLE_PARTITIONS


def test_a_shuffle_into_one_partition_is_a_coalesce_into_one_task(scan) -> None:
    """Nothing to hash or cut: every row goes to the one task whatever its keys, which
    holds each key's rows all the same, so the aggregate on them runs there in one phase."""
    plan = stages_of(scan.repartition(1, "k").groupBy("k").agg(F.sum("x")))
    producer, consumer = plan.stages
    assert producer.tasks == 4 and producer.output == Boundary(kind="coalesce")
    assert consumer.tasks == 1
    aggregate = next(n for n in _operators(consumer.fragment) if isinstance(n, Aggregate))
    assert isinstance(aggregate.input, Exchange)  # one phase, over the rows as they came
    into_two = stages_of(scan.repartition(2, "k").groupBy("k").agg(F.sum("x")))
    assert into_two.stages[0].output == Boundary(kind="shuffle", keys=(Column(name="k"),), partitions=2)


def test_plan_stages_refuses_inconsistent_input(scan) -> None:
    with pytest.raises(PlanError, match="do not match"):
        plan_stages(scan.plan, ["wrong"], cores=2)
    with pytest.raises(PlanError, match="core"):
        plan_stages(scan.plan, scan.columns, cores=0)
    with pytest.raises(PlanError, match="Exchange"):
        plan_stages(Exchange(stage=0, columns=("x",)), ["x"], cores=2)
    empty = ParquetScan(splits=(), columns=("x",))
    with pytest.raises(PlanError, match="without files"):
        plan_stages(empty, ["x"], cores=2)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[FileSplit]:
    """Files of 1, 3, 7 and 12 row groups of uneven sizes, and one empty file."""
    root = tmp_path_factory.mktemp("splits")
    splits = []
    for i, (rows, size) in enumerate([(5, 5), (30, 10), (70, 11), (120, 10), (0, 10)]):
        path = root / f"f{i}.parquet"
        pq.write_table(pa.table({"x": pa.array(range(rows), pa.int64())}), path, row_group_size=size)
        splits.append(FileSplit(path=str(path)))
    return splits


@settings(max_examples=60, deadline=None)
@given(wanted=st.integers(1, 40), picks=st.lists(st.integers(0, 4), min_size=1, max_size=5, unique=True))
def test_grouping_reads_every_row_group_once_in_order(
    files: list[FileSplit], wanted: int, picks: list[int]
) -> None:
    splits = [files[i] for i in sorted(picks)]
    groups = group_splits(splits, wanted)
    assert 1 <= len(groups) <= wanted
    assert all(groups), "no task without splits"
    read = [(s.path, rg) for g in groups for s in g for rg in row_groups(s)]
    expected = [(s.path, rg) for s in splits for rg in row_groups(s)]
    if len(splits) < wanted and expected:
        assert read == expected  # row-group units, order kept
        sizes = {(p, rg): file_info(p).row_group_rows[rg] for p, rg in read}
        loads = [sum(sizes[(s.path, rg)] for s in g for rg in row_groups(s)) for g in groups]
        ideal = sum(loads) / min(wanted, len(read))
        assert max(loads) <= ideal + max(sizes.values())  # balanced within one unit
    else:
        assert [s for g in groups for s in g] == splits  # whole files


def test_a_planning_sees_one_version_of_each_file(tmp_path: Path) -> None:
    """Within one planning a file's footer is looked up once, so every estimate is about
    the same version of it; the next planning sees a rewritten file."""
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"x": [1, 2, 3]}), path)
    with planning():
        before = file_info(str(path))
        pq.write_table(pa.table({"x": list(range(100)), "y": list(range(100))}), path)
        assert file_info(str(path)) is before  # no stat, no second footer
        path.unlink()
        assert file_info(str(path)).row_group_rows == (3,)
    with pytest.raises(AnalysisError, match="cannot read Parquet file"):
        file_info(str(path))
    pq.write_table(pa.table({"x": list(range(100)), "y": list(range(100))}), path)
    assert sum(file_info(str(path)).row_group_rows) == 100
