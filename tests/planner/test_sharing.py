"""A subtree the plan both broadcasts (as keys) and shuffles is one stage
(``planner.sharing``): the broadcast's readers read the shuffled stage whole."""

from __future__ import annotations

from sparkwire.planner.expressions import Column, NamedExpr
from sparkwire.planner.plan import Exchange, FileSplit, Join, ParquetScan, Project, operators
from sparkwire.planner.sharing import share_broadcasts
from sparkwire.planner.staged import Boundary, Stage

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
