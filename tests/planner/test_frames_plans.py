"""Plan shapes of the DataFrame methods of issue 12: repartition and coalesce become stage
boundaries, a sample runs in each task, a write is the final stage, a text scan splits its
files over tasks; and the models refuse what a worker must not run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pytest
from pydantic import ValidationError

from sparkwire.planner.api.sources import create_dataframe
from sparkwire.planner.api import functions as F
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Column
from sparkwire.planner.logical.plan import Exchange, operators, ParquetWrite, Repartition, RowSample
from sparkwire.planner.logical.sources import CsvScan, FileSplit
from sparkwire.planner.pipeline import plan_query

if TYPE_CHECKING:
    from tests.planner.conftest import FakeExecutor

TABLE = pa.table({"k": ["a", "b", None, "c"] * 5, "v": list(range(20))})


def _staged(df):
    return df.staged_plan()


def test_repartition_is_a_shuffle_into_n_tasks(executor: FakeExecutor) -> None:
    df = create_dataframe(executor, TABLE).repartition(5, "k").filter(F.col("v") > 1)
    stages = _staged(df).stages
    shuffles = [s for s in stages if s.output.kind == "shuffle"]
    assert len(shuffles) == 1
    assert shuffles[0].output.partitions == 5
    assert shuffles[0].output.keys == (Column(name="k"),)
    assert stages[-1].tasks == 5
    everything = create_dataframe(executor, TABLE).repartition(3)
    shuffle = next(s for s in _staged(everything).stages if s.output.kind == "shuffle")
    assert shuffle.output.keys == (Column(name="k"), Column(name="v"))  # every column


def test_coalesce_merges_tasks_and_never_adds_any(executor: FakeExecutor) -> None:
    df = create_dataframe(executor, TABLE)  # 3 chunks
    merged = _staged(df.filter(F.col("v") > 0).coalesce(2))
    assert merged.stages[-1].tasks == 2
    assert [s.output.kind for s in merged.stages][-2] == "coalesce"
    wider = _staged(df.filter(F.col("v") > 0).coalesce(8))
    assert wider.stages[-1].tasks == 3


def test_sample_runs_in_every_task_with_its_seed(executor: FakeExecutor) -> None:
    staged = _staged(create_dataframe(executor, TABLE).sample(0.25, seed=11))
    samples = [op for s in staged.stages for op in operators(s.fragment) if isinstance(op, RowSample)]
    assert samples == [samples[0]] and samples[0].fraction == 0.25 and samples[0].seed == 11
    with pytest.raises(AnalysisError, match="not supported by sparkwire"):
        create_dataframe(executor, TABLE).sample(True, 0.5)
    with pytest.raises(AnalysisError, match=r"fraction must be a number in \[0, 1\]"):
        create_dataframe(executor, TABLE).sample(1.5)


def test_a_write_is_the_final_stage(executor: FakeExecutor) -> None:
    df = create_dataframe(executor, TABLE).repartition(4)
    plan = ParquetWrite(input=df.plan, directory="/data/out", job="j1", names=("k", "v"))
    staged = plan_query(plan, ["file", "rows"], 2, 0)
    final = staged.stages[-1]
    assert isinstance(final.fragment, ParquetWrite) and final.tasks == 4
    assert final.output.kind == "result"
    assert staged.columns == ("file", "rows")


def test_a_text_scan_spreads_its_files_over_tasks(executor: FakeExecutor, tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"f{i}.csv").write_text("a,b\n1,x\n")
    df = executor_read(executor).csv(str(tmp_path), header=True, inferSchema=True)
    assert df.dtypes == [("a", "int"), ("b", "string")]
    staged = _staged(df.select("b"))
    scan_stage = staged.stages[0]
    assert scan_stage.tasks == 4  # a task per core
    assert sum(len(s) for s in scan_stage.splits) == 5
    scan = next(op for op in operators(scan_stage.fragment) if isinstance(op, CsvScan))
    assert scan.columns == ("b",) and scan.schema_names == ("a", "b")  # pruned, schema kept


def executor_read(executor: FakeExecutor):
    from sparkwire.planner.api.sources import DataFrameReader

    return DataFrameReader(executor)


def test_the_models_refuse_bad_scans_and_boundaries() -> None:
    split = (FileSplit(path="/d/a.csv"),)
    for sep in ("\n", '"', "\\", "ab", ""):
        with pytest.raises(ValidationError):
            CsvScan(splits=split, schema_names=("a",), schema_types=("int32",), columns=("a",), sep=sep)
    with pytest.raises(ValidationError):
        CsvScan(splits=split, schema_names=("a",), schema_types=("int32",), columns=("z",))
    with pytest.raises(ValidationError):
        CsvScan(splits=split, schema_names=("a",), schema_types=("varchar; DROP",), columns=("a",))
    with pytest.raises(ValidationError):
        ParquetWrite(input=Exchange(stage=0, columns=("a",)), directory="/d", job="../x", names=("a",))
    with pytest.raises(ValidationError):
        Repartition(input=Exchange(stage=0, columns=("a",)), partitions=0)
