"""A task plan may name only regular files, by absolute path, under the worker's data roots
(when it has any), symlinks resolved: anything else is refused when the plan arrives,
before a slot could block on a FIFO, and the same way whether the file exists or not."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator.config import load_settings
from sparkwire.coordinator.taskplan import TaskPlan, encode_message
from sparkwire.coordinator.worker.files import check_files
from sparkwire.coordinator.worker.service import Worker
from sparkwire.planner.logical.sources import FileSplit, ParquetScan
from sparkwire.planner.logical.staged import Boundary
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import PlanRejected
from sparkwire.transport.memory import MemoryTransport


def scan_plan(path: str, query_id: str = "q1") -> bytes:
    fragment = ParquetScan(splits=(FileSplit(path=path),), columns=("x",))
    return encode_message(TaskPlan(query_id=query_id, stage=0, task=0, fragment=fragment,
                                     output=Boundary(kind="result")))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``data/`` (the root) with a Parquet file, a FIFO and a symlink out; a secret outside."""
    data = tmp_path / "data"
    data.mkdir()
    pq.write_table(pa.table({"x": [1, 2, 3]}), data / "ok.parquet")
    pq.write_table(pa.table({"x": [42]}), tmp_path / "secret.parquet")
    os.mkfifo(data / "fifo.parquet")
    (data / "escape.parquet").symlink_to(tmp_path / "secret.parquet")
    return tmp_path


def serve(roots: tuple[Path, ...]):
    transport = MemoryTransport()
    worker = Worker("w0", load_settings(workers=1, worker={"engine": {"data_roots": roots}}),
                    transport.connect)
    server = transport.serve(worker)
    return transport, worker, transport.connect(server.address)


@pytest.mark.parametrize("roots", ["configured", "unconfigured"])
def test_only_regular_files_by_absolute_path_and_under_the_roots(tree: Path, roots: str) -> None:
    data = tree / "data"
    transport, worker, client = serve((data,) if roots == "configured" else ())
    try:
        started = time.monotonic()
        with pytest.raises(PlanRejected, match="not a regular file"):
            client.deliver(scan_plan(str(data / "fifo.parquet")))
        assert time.monotonic() - started < 5  # refused, not blocked on the FIFO
        with pytest.raises(PlanRejected, match="absolute"):
            client.deliver(scan_plan("data/ok.parquet"))
        if roots == "configured":
            for outside in (data / "escape.parquet", tree / "secret.parquet",
                            data / ".." / "secret.parquet", tree / "missing.parquet"):
                with pytest.raises(PlanRejected, match="outside the worker's data roots"):
                    client.deliver(scan_plan(str(outside)))
        client.deliver(scan_plan(str(data / "ok.parquet"), query_id="good"))
        with client.read(PartitionKey("good", 0, 0, 0), timeout=10) as reader:
            assert pa.Table.from_batches(list(reader), reader.schema).column("x").to_pylist() == [1, 2, 3]
        assert worker.store.partitions_held() >= 1  # only the good task was accepted
    finally:
        client.close()
        worker.close()
        transport.close()


def test_files_sharing_a_directory_are_each_resolved_in_full(tree: Path) -> None:
    """Directories are resolved once per plan, yet every file in one is still judged on its
    own: a file that is a symlink out, and a directory that is one, are refused beside
    files that pass, whichever comes first."""
    data = tree / "data"
    (data / "inside").mkdir()
    pq.write_table(pa.table({"x": [1]}), data / "inside" / "a.parquet")
    (data / "alias").symlink_to(data / "inside")  # a directory link that stays within
    (data / "out").symlink_to(tree)  # a directory link out of the root
    roots = (data,)
    fine = [str(data / "ok.parquet"), str(data / "inside" / "a.parquet"),
            str(data / "alias" / "a.parquet"), str(data / "inside" / ".." / "ok.parquet")]
    check_files(fine, roots)
    for bad, why in ((data / "escape.parquet", "outside"), (data / "out" / "secret.parquet", "outside"),
                     (data / "inside" / "..", "not a regular file"),
                     (data / "fifo.parquet", "not a regular file"),
                     (data / "inside" / "gone.parquet", "cannot read")):
        for files in ([*fine, str(bad)], [str(bad), *fine]):
            with pytest.raises(PlanRejected, match=why):
                check_files(files, roots)
