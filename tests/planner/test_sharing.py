"""A subtree the plan both broadcasts (as keys) and shuffles is one stage
(``planner.physical.sharing``): the broadcast's readers read the shuffled stage whole; one that a
one-task stage computes again is read from the broadcast."""

from __future__ import annotations

import pytest

from sparkwire.planner.logical.expressions import Call, Column, Lit, NamedExpr
from sparkwire.planner.logical.plan import Exchange, Filter, Join, operators, Project
from sparkwire.planner.logical.sources import FileSplit, ParquetScan
from sparkwire.planner.physical.sharing import reuse_broadcasts, share_broadcasts
from sparkwire.planner.logical.staged import Boundary, Stage

SCAN = ParquetScan(splits=(FileSplit(path="/d/a.parquet"),), columns=("k", "v"))
OTHER = ParquetScan(splits=(FileSplit(path="/d/b.parquet"),), columns=("kb",))
SHUFFLE = Boundary(kind="shuffle", keys=(Column(name="k"),), partitions=2)


def keys(stage: int) -> Exchange:
    return Exchange(stage=stage, columns=("_key",))


def semi(left, right, lkey: str, rkey: str) -> Join:
    return Join(left=left, right=right, how="semi", left_keys=(Column(name=lkey),), right_keys=(Column(name=rkey),))


def stages(reader_reads_kept: bool = False) -> list[Stage]:
    """0: the keys of SCAN, broadcast; 1: SCAN's rows, shuffled; 2: OTHER cut by the keys;
    3: the rows semi-joined to what is left of OTHER (the result)."""
    cut = semi(OTHER, keys(0), "kb", "_key")
    if reader_reads_kept:
        cut = semi(cut, Exchange(stage=1, columns=("k", "v")), "kb", "k")
    rows = Project(input=SCAN, columns=(NamedExpr(name="k", expr=Column(name="k")),
                                        NamedExpr(name="v", expr=Column(name="v"))))
    return [
        Stage(id=0, fragment=Project(input=SCAN, columns=(NamedExpr(name="_key", expr=Column(name="k")),)),
              tasks=2, output=Boundary(kind="broadcast")),
        Stage(id=1, fragment=rows, tasks=2, output=SHUFFLE),
        Stage(id=2, fragment=cut, tasks=2, output=Boundary(kind="shuffle", keys=(Column(name="kb"),), partitions=2)),
        Stage(id=3, fragment=semi(Exchange(stage=1, columns=("k", "v")), Exchange(stage=2, columns=("kb",)), "k", "kb"),
              tasks=2, output=Boundary(kind="result")),
    ]


def exchanges(stage: Stage) -> list[tuple[int, bool]]:
    return [(n.stage, n.whole) for n in operators(stage.fragment) if isinstance(n, Exchange)]


def test_the_broadcast_stage_goes_and_its_readers_read_the_other_whole() -> None:
    shared = share_broadcasts(stages())
    assert [s.id for s in shared] == [0, 1, 2]
    assert shared[0].output == SHUFFLE and "also read whole" in shared[0].notes[-1]
    assert exchanges(shared[1]) == [(0, True)]
    projected = next(n for n in operators(shared[1].fragment) if isinstance(n, Project))
    assert [c.name for c in projected.columns] == ["_key"]
    assert sorted(exchanges(shared[2])) == [(0, False), (1, False)]


def test_a_reader_of_both_keeps_the_broadcast() -> None:
    assert share_broadcasts(stages(reader_reads_kept=True)) == stages(reader_reads_kept=True)


def test_other_tasks_keep_the_broadcast() -> None:
    plan = stages()
    plan[1] = plan[1].model_copy(update={"tasks": 3})
    assert share_broadcasts(plan) == plan


# ``reuse_broadcasts``: TPC-H Q4's shape. 0: the keys of a filtered scan, broadcast; 1: OTHER
# cut by them; 2: one task joining the filtered scan itself to what is left of OTHER. The
# scan is of a real file: the rule asks how big the subtree is.
BIG = 1 << 30


@pytest.fixture
def filtered(write_parquet) -> Filter:
    scan = ParquetScan(splits=(FileSplit(path=str(write_parquet("a.parquet"))),), columns=("k", "x"))
    return Filter(input=scan, predicate=Call(fn="gt", args=(Column(name="x"), Lit(value=3))))


def recomputing(filtered: Filter, reader_tasks: int = 1) -> list[Stage]:
    split = filtered.input.splits[0]
    key = Project(input=filtered, columns=(NamedExpr(name="_key", expr=Column(name="k")),))
    return [
        Stage(id=0, fragment=key, tasks=1, output=Boundary(kind="broadcast"), splits=((split,),)),
        Stage(id=1, fragment=semi(OTHER, keys(0), "kb", "_key"), tasks=2, output=Boundary(kind="broadcast")),
        Stage(id=2, fragment=semi(filtered, Exchange(stage=1, columns=("kb",)), "k", "kb"), tasks=reader_tasks,
              output=Boundary(kind="result"), splits=tuple((split,) for _ in range(reader_tasks))),
    ]


def test_a_one_task_stage_reads_the_rows_the_broadcast_now_carries(filtered) -> None:
    reused = reuse_broadcasts(recomputing(filtered), BIG)
    carried = ("_key", "k", "x")
    assert [c.name for c in reused[0].fragment.columns] == list(carried)
    assert [(n.stage, n.columns) for n in operators(reused[1].fragment) if isinstance(n, Exchange)] == [(0, carried)]
    assert [c.name for c in reused[1].fragment.right.columns] == ["_key"]  # what it read before
    assert not [n for n in operators(reused[2].fragment) if isinstance(n, ParquetScan)]
    assert sorted((n.stage, n.columns) for n in operators(reused[2].fragment) if isinstance(n, Exchange)) == [
        (0, carried), (1, ("kb",))]
    assert reused[2].splits == ((),)
    assert "not computing them again" in reused[2].notes[-1]


def test_a_stage_of_several_tasks_or_a_big_subtree_computes_it_again(filtered) -> None:
    assert reuse_broadcasts(recomputing(filtered, reader_tasks=2), BIG) == recomputing(filtered, reader_tasks=2)
    assert reuse_broadcasts(recomputing(filtered), threshold=0) == recomputing(filtered)


def test_a_stage_left_projecting_a_broadcast_is_folded_into_its_readers(filtered) -> None:
    """TPC-H Q17's shape: two broadcasts of the same filtered scan under other names."""
    same = Project(input=filtered, columns=(NamedExpr(name="k", expr=Column(name="k")),))
    renamed = Project(input=filtered, columns=(NamedExpr(name="_key", expr=Column(name="k")),))
    plan = [Stage(id=0, fragment=same, tasks=1, output=Boundary(kind="broadcast")),
            Stage(id=1, fragment=renamed, tasks=1, output=Boundary(kind="broadcast")),
            Stage(id=2, fragment=semi(OTHER, keys(1), "kb", "_key"), tasks=2, output=Boundary(kind="result"))]
    reused = reuse_broadcasts(plan, BIG)
    assert [s.id for s in reused] == [0, 1]
    assert [(n.stage, n.columns) for n in operators(reused[1].fragment) if isinstance(n, Exchange)] == [
        (0, ("k", "x"))]
    assert [c.name for c in reused[1].fragment.right.columns] == ["_key"]
