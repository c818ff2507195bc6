"""A task's files opened once and checked on the descriptor (``worker.opened``): what was
swapped in while the path was being resolved is refused, nothing stays open after a refusal
or a close, and a task may name only as many files as the worker can hold open."""

from __future__ import annotations

import contextlib
import os
import resource
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator.config import EngineSettings, load_settings
from sparkwire.coordinator.taskplan import TaskPlan, encode_message
from sparkwire.coordinator.worker import opened
from sparkwire.coordinator.worker.compile import compile_fragment
from sparkwire.coordinator.worker.engine import Databases, EngineError
from sparkwire.coordinator.worker.opened import (MAX_TASK_FILES, RESERVED_DESCRIPTORS, OpenedFiles,
                                                 files_per_task)
from sparkwire.coordinator.worker.service import Worker
from sparkwire.planner.logical.sources import FileSplit, ParquetScan
from sparkwire.planner.logical.staged import Boundary
from sparkwire.transport.errors import PlanRejected
from sparkwire.transport.memory import MemoryTransport


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``data/`` (the root) holding ``sub/ok.parquet`` and a FIFO; a secret outside it."""
    (tmp_path / "data" / "sub").mkdir(parents=True)
    pq.write_table(pa.table({"x": [1]}), tmp_path / "data" / "sub" / "ok.parquet")
    pq.write_table(pa.table({"x": [42]}), tmp_path / "secret.parquet")
    (tmp_path / "elsewhere").mkdir()
    pq.write_table(pa.table({"x": [43]}), tmp_path / "elsewhere" / "ok.parquet")
    os.mkfifo(tmp_path / "data" / "fifo.parquet")
    return tmp_path


def _held() -> set[str]:
    """What this process's descriptors name."""
    names = set()
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            names.add(os.readlink(f"/proc/self/fd/{fd}").removesuffix(" (deleted)"))
    return names


@contextlib.contextmanager
def _swap_while_resolving(monkeypatch: pytest.MonkeyPatch, name: Path,
                          swap: Callable[[], None]) -> Iterator[None]:
    """Run ``swap`` right after ``opened`` resolves ``name`` (a file's directory), before it
    opens the file."""
    realpath = os.path.realpath

    def resolving(path: str) -> str:
        real = realpath(path)
        if path == str(name):
            swap()
        return real

    with monkeypatch.context() as patch:
        patch.setattr(opened.os.path, "realpath", resolving)
        yield


def test_a_directory_swapped_for_a_link_out_while_resolving_is_refused(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data, sub = tree / "data", tree / "data" / "sub"
    roots = [data.resolve()]

    def swap() -> None:
        sub.rename(data / "moved")
        sub.symlink_to(tree / "elsewhere")

    with _swap_while_resolving(monkeypatch, sub, swap):
        with pytest.raises(PlanRejected, match="outside the worker's data roots"):
            OpenedFiles([str(sub / "ok.parquet")], roots, lambda: tree)
    assert str(tree / "elsewhere" / "ok.parquet") not in _held()


def test_a_file_swapped_for_a_link_while_resolving_is_refused(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ok = tree / "data" / "sub" / "ok.parquet"

    def swap() -> None:
        ok.unlink()
        ok.symlink_to(tree / "secret.parquet")

    with _swap_while_resolving(monkeypatch, ok.parent, swap):
        with pytest.raises(PlanRejected, match="outside the worker's data roots"):
            OpenedFiles([str(ok)], [tree / "data"], lambda: tree)  # the link not followed, but checked


def test_a_link_the_plan_names_is_read_where_it_leads_within_the_roots(tree: Path) -> None:
    (tree / "data" / "alias.parquet").symlink_to(tree / "data" / "sub" / "ok.parquet")
    with OpenedFiles([str(tree / "data" / "alias.parquet")], [tree / "data"], lambda: tree) as files:
        assert pq.read_table(files.path(str(tree / "data" / "alias.parquet"))).column("x").to_pylist() == [1]


def test_a_fifo_is_refused_at_once_and_nothing_stays_open(tree: Path) -> None:
    ok = str(tree / "data" / "sub" / "ok.parquet")
    started = time.monotonic()
    with pytest.raises(PlanRejected, match="not a regular file"):
        OpenedFiles([ok, str(tree / "data" / "fifo.parquet")], [tree / "data"], lambda: tree)
    assert time.monotonic() - started < 1
    assert ok not in _held()  # the first file's descriptor went with the refusal


def test_descriptors_hive_links_and_messages(tree: Path) -> None:
    """A file is read through its descriptor; a partitioned one through a link that keeps
    only its ``k=v`` directories (no ``..``), namesakes apart, in a private directory gone
    with the close."""
    for table, x in (("t", 5), ("u", 6)):
        part = tree / "data" / table / "k=1" / "day=2024-01-01"
        part.mkdir(parents=True)
        pq.write_table(pa.table({"x": [x]}), part / "f.parquet")
    ok = str(tree / "data" / "sub" / "ok.parquet")
    partitioned = [str(tree / "data" / "sub" / ".." / table / "k=1" / "day=2024-01-01" / "f.parquet")
                   for table in ("t", "u")]
    files = OpenedFiles([ok, *partitioned, ok], [tree / "data"], lambda: tree)
    with files:
        assert pq.read_table(files.path(ok)).column("x").to_pylist() == [1]
        links = [files.hive_path(name) for name in partitioned]
        farm = Path(links[0]).parents[2]
        assert farm.parent == tree and len(set(links)) == 2
        assert all(link.endswith("/k=1/day=2024-01-01/f.parquet") for link in links)
        assert [pq.read_table(link).column("x").to_pylist() for link in links] == [[5], [6]]
        message = f"cannot read {files.path(ok)} nor {links[1]}, nor /proc/self/fd/{2**20}"
        assert files.named(message) == f"cannot read {ok} nor {partitioned[1]}, nor /proc/self/fd/{2**20}"
    assert not farm.exists() and ok not in _held()
    files.close()  # twice is safe


def test_a_task_may_name_only_the_files_its_worker_can_hold_open(tree: Path) -> None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert files_per_task(4) <= MAX_TASK_FILES
    assert soft == resource.RLIM_INFINITY or 4 * files_per_task(4) + RESERVED_DESCRIPTORS <= soft
    transport = MemoryTransport()
    worker = Worker("w0", load_settings(workers=1, worker={"task_slots": 4}), transport.connect)
    try:
        many = files_per_task(4) + 1  # the count is refused before any path is looked at
        scan = ParquetScan(splits=tuple(FileSplit(path=f"/nowhere/{i}.parquet") for i in range(many)),
                           columns=("x",))
        plan = TaskPlan(query_id="q", stage=0, task=0, fragment=scan, output=Boundary(kind="result"))
        with pytest.raises(PlanRejected, match=f"reads {many} files"):
            worker.submit(encode_message(plan))
    finally:
        worker.close()
        transport.close()


@pytest.mark.parametrize("ending", ["failed", "interrupted"])
def test_a_task_lets_go_of_its_files_however_its_query_ends(tree: Path, ending: str) -> None:
    ok = str(tree / "data" / "sub" / "ok.parquet")
    settings = EngineSettings(threads=1, temp_directory=tree, data_roots=(tree / "data",))
    scan = ParquetScan(splits=(FileSplit(path=ok),), columns=("x",))
    compiled = compile_fragment(scan, Boundary(kind="result"))
    sql = f"SELECT error('fails reading x = ' || x) FROM ({compiled.sql})" if ending == "failed" \
        else compiled.sql
    with Databases(settings, tree, 64 << 20) as databases:
        with databases.task() as engine:
            engine.open_files(compiled.files, compiled.file_lists)
            assert ok in _held()
            if ending == "interrupted":
                engine.interrupt()
            with pytest.raises(EngineError):
                list(engine.run(sql))
        assert ok not in _held()


def test_duckdb_errors_name_the_file_the_plan_named(tree: Path) -> None:
    """DuckDB's message names ``/proc/self/fd/N``; the task's error names the plan's path."""
    broken = tree / "data" / "broken.parquet"
    broken.write_bytes(b"not parquet at all")
    settings = EngineSettings(threads=1, temp_directory=tree, data_roots=(tree / "data",))
    compiled = compile_fragment(ParquetScan(splits=(FileSplit(path=str(broken)),), columns=("x",)),
                                Boundary(kind="result"))
    with Databases(settings, tree, 64 << 20) as databases, databases.task() as engine:
        engine.open_files(compiled.files, compiled.file_lists)
        with pytest.raises(EngineError) as failed:
            list(engine.run(compiled.sql))
    assert str(broken) in str(failed.value) and "/proc/self/fd" not in str(failed.value)
