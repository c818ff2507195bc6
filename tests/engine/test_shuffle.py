"""The shuffle partition column and the vectorised split by partition."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from tests.engine.engine_helpers import exchange, run_fragment

from sparkwire.coordinator.worker.engine import TaskEngine
from sparkwire.coordinator.worker.partitioning import split_by_partition
from sparkwire.coordinator.worker.compile import PARTITION_COLUMN, compile_fragment
from sparkwire.planner.logical.expressions import Column
from sparkwire.planner.logical.plan import Sample
from sparkwire.planner.logical.staged import Boundary

KEYS = ("i", "g", "x", "b", "d", "ts", "dec", "s", "bin")
P = 7


def shuffle(*keys: str, partitions: int = P) -> Boundary:
    return Boundary(kind="shuffle", keys=tuple(Column(name=k) for k in keys), partitions=partitions)


@pytest.mark.parametrize("key", KEYS)
def test_partition_column_in_range_for_every_type(engine: TaskEngine, table: pa.Table, key: str) -> None:
    got = run_fragment(engine, exchange(table), {0: table}, shuffle(key))
    assert got.column_names == [*table.column_names, PARTITION_COLUMN]
    parts = got.column(PARTITION_COLUMN)
    assert parts.type == pa.int64() and parts.null_count == 0
    assert 0 <= pc.min(parts).as_py() and pc.max(parts).as_py() < P
    # Equal keys (nulls included) land in the same partition.
    seen: dict[object, int] = {}
    for value, part in zip(got.column(key).to_pylist(), parts.to_pylist(), strict=True):
        assert seen.setdefault(value, part) == part
    # The hash actually spreads rows out.
    assert len(set(parts.to_pylist())) > 1


def test_other_boundaries_add_nothing(table: pa.Table) -> None:
    for kind in ("coalesce", "broadcast", "result"):
        assert PARTITION_COLUMN not in compile_fragment(exchange(table), Boundary(kind=kind)).sql


# The child runs the same compiled SQL on a plain DuckDB over the same rows (Arrow IPC file):
# no sparkwire import, so only DuckDB's hash decides the partitions.
_CHILD = """
import json, sys
import duckdb, pyarrow as pa
table = pa.ipc.open_file(sys.argv[1]).read_all()
con = duckdb.connect()
con.register(sys.argv[3], table)
result = con.sql(open(sys.argv[2]).read()).to_arrow_table()
print(json.dumps(result.column(sys.argv[4]).to_pylist()))
"""


def test_partitions_are_deterministic_across_processes(
    engine: TaskEngine, table: pa.Table, tmp_path: Path
) -> None:
    boundary = shuffle(*KEYS, partitions=1000)
    mine = run_fragment(engine, exchange(table), {0: table}, boundary).column(PARTITION_COLUMN).to_pylist()
    data, sql = tmp_path / "t.arrow", tmp_path / "q.sql"
    with pa.ipc.new_file(data, table.schema) as writer:
        writer.write_table(table)
    compiled = compile_fragment(exchange(table), boundary)
    sql.write_text(compiled.sql)
    args = [sys.executable, "-c", _CHILD, str(data), str(sql), compiled.tables[0].name, PARTITION_COLUMN]
    runs = [subprocess.run(args, capture_output=True, text=True, check=True, timeout=120) for _ in range(2)]
    first, second = (json.loads(r.stdout.strip().splitlines()[-1]) for r in runs)
    assert first == second == mine
    assert len(set(mine)) > 10


def test_split_by_partition_round_trip() -> None:
    n = 10_000
    batch = pa.record_batch(
        {
            "v": pa.array(range(n), pa.int64()),
            "s": pa.array([f"r{k}" for k in range(n)]),
            PARTITION_COLUMN: pa.array([(k * 31) % 13 for k in range(n)], pa.int64()),
        }
    )
    parts = split_by_partition(batch, 16)
    assert [p for p, _ in parts] == list(range(13))  # 13..15 are empty and omitted
    for p, part in parts:
        assert part.schema.names == ["v", "s"]
        assert all((v * 31) % 13 == p for v in part.column("v").to_pylist())
        # Stable: rows keep their produced order inside a partition.
        assert part.column("v").to_pylist() == sorted(part.column("v").to_pylist())
    union = pa.Table.from_batches([b for _, b in parts]).sort_by("v")
    assert union.equals(pa.Table.from_batches([batch.drop_columns([PARTITION_COLUMN])]))


def test_split_by_partition_edge_cases() -> None:
    empty = pa.record_batch({"v": pa.array([], pa.int64()), PARTITION_COLUMN: pa.array([], pa.int64())})
    assert split_by_partition(empty, 4) == []
    single = pa.record_batch({"v": [1, 2], PARTITION_COLUMN: pa.array([3, 3], pa.int64())})
    assert [(p, b.num_rows) for p, b in split_by_partition(single, 4)] == [(3, 2)]
    with pytest.raises(ValueError, match="outside"):
        split_by_partition(pa.record_batch({"v": [1], PARTITION_COLUMN: pa.array([4], pa.int64())}), 4)
    with pytest.raises(ValueError, match="nulls"):
        split_by_partition(pa.record_batch({"v": [1], PARTITION_COLUMN: pa.array([None], pa.int64())}), 4)
    with pytest.raises(ValueError, match="no"):
        split_by_partition(pa.record_batch({"v": [1]}), 4)


def test_split_by_partition_is_fast_on_a_million_rows() -> None:
    n = 1_000_000
    batch = pa.record_batch(
        {
            "v": pa.array(range(n), pa.int64()),
            "f": pc.cast(pa.array(range(n)), pa.float64()),
            PARTITION_COLUMN: pc.cast(pc.bit_wise_and(pa.array(range(n), pa.int64()), 63), pa.int64()),
        }
    )
    start = time.process_time()  # CPU, not wall: the same on a machine busy with other tests
    parts = split_by_partition(batch, 64)
    elapsed = time.process_time() - start
    assert len(parts) == 64 and sum(b.num_rows for _, b in parts) == n
    assert elapsed < 1.0, f"split took {elapsed:.3f}s"


def test_engine_output_splits_into_single_partition_parts(engine: TaskEngine, table: pa.Table) -> None:
    got = run_fragment(engine, exchange(table), {0: table}, shuffle("g", "d"))
    for part_id, part in split_by_partition(got.combine_chunks().to_batches()[0], P):
        keys = set(zip(part.column("g").to_pylist(), part.column("d").to_pylist(), strict=True))
        full = got.filter(pc.equal(got.column(PARTITION_COLUMN), part_id))
        assert keys == set(zip(full.column("g").to_pylist(), full.column("d").to_pylist(), strict=True))


def test_range_boundary_takes_the_partition_from_its_key_clamped(engine: TaskEngine) -> None:
    """A range stage computes each row's partition itself; values outside [0, P) (a bad
    plan) are clamped rather than naming a partition that does not exist."""
    t = pa.table({"p": pa.array([-3, 0, 1, 2, 9], pa.int64())})
    boundary = Boundary(kind="range", keys=(Column(name="p"),), partitions=3)
    got = run_fragment(engine, exchange(t), {0: t}, boundary)
    assert got.column(PARTITION_COLUMN).to_pylist() == [0, 0, 1, 2, 2]


def test_sample_draws_at_most_its_rows_from_the_input(engine: TaskEngine) -> None:
    """With batches of workers' size (DuckDB's reservoir leans to the first rows of a
    stream of tiny batches: a balance question for range bounds, never correctness)."""
    t = pa.table({"v": pa.array(range(5000), pa.int64())})
    got = run_fragment(engine, Sample(input=exchange(t), rows=100), {0: t}, chunk=1000)
    values = got.column("v").to_pylist()
    assert len(values) == 100 and set(values) <= set(range(5000))
    assert max(values) > 2500  # drawn from the whole input, not its first rows
