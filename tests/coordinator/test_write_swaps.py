"""A task's writes go through the output directory it checked, opened once: neither a
directory swapped for a link out of the data roots as the task writes, nor a link planted
where its file is made, is written through (``worker.writer``)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.worker import writer
from sparkwire.planner.logical.plan import ParquetWrite
from sparkwire.planner.logical.sources import RangeSource
from sparkwire.transport.errors import SparkwireError


def _everything_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize("partitioned", [False, True])
def test_an_output_directory_swapped_for_a_link_out_as_the_task_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, partitioned: bool) -> None:
    data, outside = tmp_path / "data", tmp_path / "outside"
    data.mkdir()
    outside.mkdir()
    out = data / "out"
    make_writer, swapped = pq.ParquetWriter, []

    def swapping_writer(*args: object, **kwargs: object) -> pq.ParquetWriter:
        if not swapped:  # the directory was checked and made: now it leads out of the roots
            swapped.append(True)
            out.rename(data / "moved")
            out.symlink_to(outside)
        return make_writer(*args, **kwargs)

    monkeypatch.setattr(writer.pq, "ParquetWriter", swapping_writer)
    with Session(workers=1, worker={"engine": {"data_roots": [data]}}) as s:
        df = s.range(10).selectExpr("id", "id % 2 AS k").coalesce(1)
        with contextlib.suppress(SparkwireError):  # failing is fine; writing out is not
            (df.write.partitionBy("k") if partitioned else df.write).parquet(str(out))
    # the driver's own _SUCCESS marker follows the path it was given; no task file does
    assert swapped and [p.name for p in _everything_under(outside)] in ([], ["_SUCCESS"])
    assert len(list((data / "moved").rglob("part-*.parquet"))) == (2 if partitioned else 1)


def test_a_link_planted_where_the_task_makes_its_file_is_not_followed(tmp_path: Path) -> None:
    data, victim = tmp_path / "data", tmp_path / "victim.parquet"
    (data / "out").mkdir(parents=True)
    pq.write_table(pa.table({"x": [42]}), victim)
    before = victim.read_bytes()
    target = ParquetWrite(input=RangeSource(start=0, end=3, step=1), directory=str(data / "out"),
                          job="j1", names=("x",))
    (data / "out" / f".{writer.part_name(0, 'j1')}.inprogress").symlink_to(victim)
    rows = pa.record_batch([pa.array([1, 2, 3], pa.int64())], names=["id"])
    written = writer.write_task(target, 0, rows.schema, [rows], [data])
    assert victim.read_bytes() == before
    assert written.column(1).to_pylist() == [3]
    assert pq.read_table(data / "out" / written.column(0)[0].as_py()).column("x").to_pylist() == [1, 2, 3]
