"""UNION ALL of Parquet-reading sides runs as one stage whose tasks are both sides' tasks
(Spark's union of partitions): nothing of either side crosses a boundary before what is
computed over the union, and each task reads only its own side's files."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator import Session
from sparkwire.planner.logical.plan import Exchange, SetOperation, operators
from sparkwire.planner.logical.sources import ParquetScan

QUERY = ("SELECT k, count(*) AS n, sum(v) AS s FROM (SELECT k, v FROM a UNION ALL SELECT k, v FROM b "
         "UNION ALL SELECT k, -v FROM c WHERE v > 50) u JOIN d ON u.k = d.dk GROUP BY k")


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("union")
    for name, rows in (("a", 4000), ("b", 2500), ("c", 3000)):
        (root / name).mkdir()
        for part in range(2):  # two files a side: two tasks a side at two workers
            keys = [(i * 7 + part) % 13 for i in range(rows)]
            pq.write_table(pa.table({"k": keys, "v": [i % 100 for i in range(rows)]}),
                           root / name / f"part-{part}.parquet", row_group_size=500)
    pq.write_table(pa.table({"dk": list(range(0, 13, 2))}), root / "d.parquet")
    return root


def oracle(root: Path) -> list[tuple[object, ...]]:
    con = duckdb.connect()
    for name in ("a", "b", "c"):
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM '{root / name}/*.parquet'")
    con.execute(f"CREATE VIEW d AS SELECT * FROM '{root / 'd.parquet'}'")
    return sorted(con.execute(QUERY).fetchall())


@pytest.mark.parametrize("transport", ["memory", "zmq"])
def test_a_union_of_parquet_sides_is_one_stage_with_both_sides_tasks(tables: Path, transport: str) -> None:
    with Session(workers=2, transport=transport) as session:
        for name in ("a", "b", "c"):
            session.read.parquet(str(tables / name)).createOrReplaceTempView(name)
        session.read.parquet(str(tables / "d.parquet")).createOrReplaceTempView("d")
        frame = session.sql(QUERY)
        plan = frame.staged_plan()
        result = frame.toArrow()
    (stage,) = [s for s in plan.stages if any(isinstance(n, SetOperation) for n in operators(s.fragment))]
    scans = [n for n in operators(stage.fragment) if isinstance(n, ParquetScan)]
    union = next(n for n in operators(stage.fragment) if isinstance(n, SetOperation))
    assert len(scans) == 3 and not any(isinstance(n, Exchange) for n in operators(union))
    assert stage.tasks == len(stage.splits) >= 3  # every side's tasks, each its own splits
    assert sorted(zip(*(c.to_pylist() for c in result.columns))) == oracle(tables)


def test_a_union_of_one_table_with_itself_reads_each_row_once_a_side(tables: Path) -> None:
    """Both sides read the same files: one stage would hand a task's split to both scans,
    so the sides stay apart, and every row is counted once per side."""
    text = "SELECT k, count(*) AS n FROM (SELECT k FROM a UNION ALL SELECT k FROM a) GROUP BY k"
    with Session(workers=2) as session:
        session.read.parquet(str(tables / "a")).createOrReplaceTempView("a")
        got = sorted(zip(*(c.to_pylist() for c in session.sql(text).toArrow().columns)))
    con = duckdb.connect()
    con.execute(f"CREATE VIEW a AS SELECT * FROM '{tables / 'a'}/*.parquet'")
    assert got == sorted(con.execute(text).fetchall())


def test_a_union_of_hive_partitioned_tables_stays_apart(tmp_path: Path) -> None:
    """A Hive-partitioned scan reads whole files (its ``k=v`` columns come from the paths),
    so it cannot give a task an empty selection: such sides are coalesced, and correct."""
    for name in ("a", "b"):
        for p in (1, 2):
            (tmp_path / name / f"p={p}").mkdir(parents=True)
            pq.write_table(pa.table({"k": list(range(50 * p)), "v": list(range(50 * p))}),
                           tmp_path / name / f"p={p}" / "x.parquet")
    text = "SELECT p, count(*) AS n FROM (SELECT k, p FROM a UNION ALL SELECT k, p FROM b) GROUP BY p"
    with Session(workers=2) as session:
        for name in ("a", "b"):
            session.read.parquet(str(tmp_path / name)).createOrReplaceTempView(name)
        got = sorted(zip(*(c.to_pylist() for c in session.sql(text).toArrow().columns)))
    con = duckdb.connect()
    for name in ("a", "b"):
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{tmp_path / name}/*/*.parquet', "
                    "hive_partitioning = true)")
    assert got == sorted(con.execute(text).fetchall())
