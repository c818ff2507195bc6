"""Files clustered by an integer key: aggregates and joins on it without a shuffle.

When the footers show that no value of an integer key is read by two scan tasks (each
task's files span a range below the next task's, and no file holds a NULL), an aggregate
grouping by it finishes in the scan stage, and an equi-join on it with another scan whose
files' ranges are known runs in the same stage (each task reads the other side's files that
overlap its bucket, keeping the bucket's keys). Anything short of that proof (overlapping
ranges, a NULL, a file split between tasks, an unsigned or non-integer key) keeps the
shuffles. Either way the answer equals DuckDB's over the same files.
"""

from __future__ import annotations

import random
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator import Session
from sparkwire.planner.api import functions as F
from tests.e2e.conftest import canonical

NOTE = "aggregate: each group in one task (no two tasks share a value of k)"


def write_files(root: Path, ranges: list[tuple[int, int]], key_type: pa.DataType = pa.int64(),
                nulls_in: tuple[int, ...] = (), key: str = "k", row_group_size: int = 8,
                shuffled: bool = False) -> Path:
    """One file per range, keys ``lo..hi`` twice each (the first one NULL in the files
    ``nulls_in``; in a fixed random order when ``shuffled``), a value per row."""
    root.mkdir()
    for i, (lo, hi) in enumerate(ranges):
        keys: list[int | None] = [k for k in range(lo, hi + 1) for _ in range(2)]
        if shuffled:
            random.Random(i).shuffle(keys)
        if i in nulls_in:
            keys[0] = None
        pq.write_table(pa.table({key: pa.array(keys, key_type),
                                 "x": pa.array(range(len(keys)), pa.int64())}),
                       root / f"part-{i}.parquet", row_group_size=row_group_size)
    return root


@pytest.fixture(scope="module")
def session():
    with Session(workers=2, transport="memory") as s:  # task_bytes=0: a task per file
        yield s


def run(session: Session, root: Path) -> tuple[pa.Table, list[str]]:
    df = session.read.parquet(str(root)).groupBy("k").agg(
        F.sum("x").alias("s"), F.count("*").alias("n"), F.countDistinct("x").alias("d"))
    expected = duckdb.sql(f"select k, sum(x) as s, count(*) as n, count(distinct x) as d "
                          f"from read_parquet('{root}/*.parquet') group by k").to_arrow_table()
    got = df.toArrow()
    assert canonical(got) == canonical(expected)
    return got, df.explain_string().splitlines()


def test_disjoint_files_aggregate_in_the_scan_stage(session, tmp_path) -> None:
    root = write_files(tmp_path / "t", [(-40, -21), (-20, -1), (0, 19), (20, 39)])
    _, plan = run(session, root)
    assert any(NOTE in line for line in plan)
    assert not any("shuffle" in line for line in plan)


def test_files_out_of_order_still_disjoint(session, tmp_path) -> None:
    root = write_files(tmp_path / "t", [(30, 39), (0, 9), (20, 29), (10, 19)], key_type=pa.int32())
    _, plan = run(session, root)
    assert any(NOTE in line for line in plan)


def test_a_sorted_file_split_between_tasks_aggregates_in_the_scan_stage(session, tmp_path) -> None:
    """One file of 25 row groups, cut into runs of row groups: each task's keys are those
    of its row groups, whose footer ranges ascend, so no two tasks share a key."""
    root = write_files(tmp_path / "t", [(0, 99)])
    _, plan = run(session, root)
    assert "row_groups=" in "\n".join(plan) and "tasks=1 " not in plan[1]
    assert any(NOTE in line for line in plan)
    assert not any("shuffle" in line for line in plan)


@pytest.mark.parametrize("case", ["overlap", "touching", "null", "unsigned", "one_file_unsorted",
                                  "one_file_a_key_in_two_row_groups"])
def test_without_the_proof_the_aggregate_shuffles(session, tmp_path, case) -> None:
    ranges = {"overlap": [(0, 10), (10, 20), (21, 30), (31, 40)],
              "touching": [(0, 9), (9, 9), (10, 19), (20, 29)],
              "one_file_unsorted": [(0, 99)],
              "one_file_a_key_in_two_row_groups": [(0, 99)]}.get(case, [(0, 9), (10, 19), (20, 29), (30, 39)])
    root = write_files(tmp_path / "t", ranges, key_type=pa.uint32() if case == "unsigned" else pa.int64(),
                       nulls_in=(1, 2) if case == "null" else (), shuffled=case == "one_file_unsorted",
                       row_group_size=7 if case == "one_file_a_key_in_two_row_groups" else 8)
    _, plan = run(session, root)
    assert "tasks=1 " not in plan[1]
    assert not any(NOTE in line for line in plan)
    assert any("shuffle" in line for line in plan)


JOINED = "co-located, no exchange (the files' ranges of k and kb put each key in one task)"
HOWS = {"inner": "inner join", "left": "left join", "left_semi": "semi join", "left_anti": "anti join"}


@pytest.fixture(scope="module")
def shuffling():
    with Session(workers=2, transport="memory", broadcast_threshold=0) as s:
        yield s


def join(session: Session, left: Path, right: Path, how: str) -> list[str]:
    a = session.read.parquet(str(left))
    b = session.read.parquet(str(right)).withColumnRenamed("x", "y")
    df = a.join(b, a.k == b.kb, how).groupBy("k").agg(F.count("*").alias("n"))
    keyword = {"inner": "join", "left": "left join", "left_semi": "semi join", "left_anti": "anti join"}[how]
    expected = duckdb.sql(f"select k, count(*) as n from read_parquet('{left}/*.parquet') a {keyword} "
                          f"read_parquet('{right}/*.parquet') b on a.k = b.kb group by k").to_arrow_table()
    assert canonical(df.toArrow()) == canonical(expected)
    return df.explain_string().splitlines()


@pytest.mark.parametrize("how", sorted(HOWS))
def test_a_join_on_clustered_keys_runs_in_one_stage(shuffling, tmp_path, how) -> None:
    """The right side's files straddle the left tasks' buckets and reach below and above
    every left key; each row is read by exactly one task, whatever the join type."""
    left = write_files(tmp_path / "a", [(0, 24), (25, 49), (50, 74), (75, 99)])
    right = write_files(tmp_path / "b", [(-5, 30), (31, 60), (61, 120)], key="kb")
    plan = join(shuffling, left, right, how)
    assert any(JOINED in line for line in plan)
    assert not any("shuffle(" in line for line in plan[:-1] if "output=" in line and "coalesce" not in line)


@pytest.mark.parametrize("how", sorted(HOWS))
def test_a_join_on_a_sorted_file_split_between_tasks_runs_in_one_stage(shuffling, tmp_path, how) -> None:
    """More tasks than files: the left file is cut into runs of row groups, whose footer
    ranges give each task its bucket of the right side as whole files do."""
    left = write_files(tmp_path / "a", [(0, 99)])
    right = write_files(tmp_path / "b", [(-5, 30), (31, 60), (61, 120)], key="kb")
    plan = join(shuffling, left, right, how)
    assert "row_groups=" in "\n".join(plan)
    assert any(JOINED in line for line in plan)
    assert not any("shuffle(" in line for line in plan[:-1] if "output=" in line and "coalesce" not in line)


@pytest.mark.parametrize("how", sorted(HOWS))
def test_a_small_side_that_could_be_broadcast_is_co_located(session, tmp_path, how) -> None:
    """Co-located beats a broadcast: each task reads and builds only its bucket of the
    small side, and no stage waits for another to publish it."""
    left = write_files(tmp_path / "a", [(0, 24), (25, 49), (50, 74), (75, 99)])
    right = write_files(tmp_path / "b", [(-5, 30), (31, 60), (61, 120)], key="kb")
    plan = join(session, left, right, how)
    assert any(JOINED in line for line in plan)
    assert not any("broadcast" in line for line in plan)


@pytest.mark.parametrize("how", sorted(HOWS))
def test_a_null_key_on_the_right_keeps_the_shuffle(shuffling, tmp_path, how) -> None:
    left = write_files(tmp_path / "a", [(0, 24), (25, 49), (50, 74), (75, 99)])
    right = write_files(tmp_path / "b", [(-5, 30), (31, 60), (61, 120)], key="kb", nulls_in=(1,))
    plan = join(shuffling, left, right, how)
    assert not any(JOINED in line for line in plan)


@pytest.mark.parametrize("how", ["inner", "left"])
def test_grouping_by_the_other_sides_key_of_a_co_located_join(shuffling, tmp_path, how) -> None:
    """After an inner co-located join the right key equals the left key in every row, so an
    aggregate grouping by it finishes in the join's stage too (TPC-H Q18 groups by
    ``o_orderkey`` after joining ``l_orderkey``). After a left join it is NULL in every task
    that has an unmatched row, so that aggregate still shuffles."""
    left = write_files(tmp_path / "a", [(0, 24), (25, 49), (50, 74), (75, 99)])
    right = write_files(tmp_path / "b", [(-5, 30), (31, 60), (61, 90)], key="kb")
    a = shuffling.read.parquet(str(left))
    b = shuffling.read.parquet(str(right)).withColumnRenamed("x", "y")
    df = a.join(b, a.k == b.kb, how).groupBy("kb").agg(F.count("*").alias("n"), F.sum("y").alias("s"))
    expected = duckdb.sql(
        f"select kb, count(*) as n, sum(y) as s from read_parquet('{left}/*.parquet') a "
        f"{'join' if how == 'inner' else 'left join'} "
        f"(select kb, x as y from read_parquet('{right}/*.parquet')) b on a.k = b.kb group by kb").to_arrow_table()
    assert canonical(df.toArrow()) == canonical(expected)
    plan = df.explain_string()
    assert JOINED in plan
    assert ("aggregate: each group in one task (no two tasks share a value of kb)" in plan) == (how == "inner")
    assert ("shuffle(" in plan) == (how == "left")
