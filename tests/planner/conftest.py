"""Fixtures: a fake executor (records what it is asked, replays canned batches) and small
Parquet files with several row groups."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.planner.logical.sources import LocalSource
from sparkwire.planner.logical.staged import StagedPlan


class FakeStream:
    def __init__(self, schema: pa.Schema, batches: list[pa.RecordBatch]) -> None:
        self.schema = schema
        self._batches = batches
        self.closed = 0
        self.yielded = 0

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        for batch in self._batches:
            self.yielded += 1
            yield batch

    def close(self) -> None:
        self.closed += 1

    def __enter__(self) -> FakeStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FakeExecutor:
    """Holds its state in the instance; answers ``execute`` with ``result``."""

    def __init__(self, workers: int = 2, chunks: int = 3, cores: int | None = None) -> None:
        self.workers = workers
        self.cores = 2 * workers if cores is None else cores  # two tasks a worker, by default
        self.broadcast_threshold = 10 * 1024 * 1024
        self.range_sort_rows = 0
        self.task_bytes = 0
        self.ansi = True
        self.time_zone = "UTC"
        self.chunks = chunks
        self.registered: list[pa.Table] = []
        self.views: dict[str, object] = {}
        self.executed: list[StagedPlan] = []
        self.streams: list[FakeStream] = []
        self.result = pa.table({"x": pa.array([], pa.int64())})

    def register_view(self, name: str, df: object) -> None:
        self.views[name.casefold()] = df

    def register_local(self, table: pa.Table) -> LocalSource:
        self.registered.append(table)
        return LocalSource(
            source_id=f"local{len(self.registered)}", chunks=self.chunks,
            columns=tuple(table.column_names), bytes=table.nbytes, rows=table.num_rows,
        )

    def cache(self, plan: object) -> None:
        raise NotImplementedError("the fake executor keeps no caches")

    uncache = cache

    def has_caches(self) -> bool:
        return False

    def storage_level(self, plan: object) -> None:
        return None

    def cached_source(self, plan: object) -> None:
        return None

    def execute(self, plan: StagedPlan) -> FakeStream:
        self.executed.append(plan)
        stream = FakeStream(self.result.schema, self.result.to_batches(max_chunksize=2))
        self.streams.append(stream)
        return stream


@pytest.fixture
def executor() -> FakeExecutor:
    return FakeExecutor()


SAMPLE = pa.table(
    {
        "k": ["a", "b", "c", None] * 25,
        "x": list(range(100)),
        "y": [float(i) / 2 for i in range(100)],
    }
)


@pytest.fixture
def sample() -> pa.Table:
    return SAMPLE


@pytest.fixture
def write_parquet(tmp_path: Path) -> Callable[..., Path]:
    """Writes SAMPLE (or ``table``) with ``row_group_size`` rows per row group."""

    def write(name: str, row_group_size: int = 10, table: pa.Table = SAMPLE) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, path, row_group_size=row_group_size)
        return path

    return write
