from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from sparkwire.planner.api.sources import create_dataframe
from sparkwire.planner.api import functions as F

if TYPE_CHECKING:
    import pytest
    from tests.planner.conftest import FakeExecutor


def test_explain_shows_stages_boundaries_and_readable_expressions(
    executor: FakeExecutor, sample: pa.Table, capsys: pytest.CaptureFixture[str]
) -> None:
    df = (
        create_dataframe(executor, sample)
        .filter((F.col("x") > 3) & (F.col("k") != "c"))
        .groupBy("k")
        .agg(F.sum("x").alias("sum_qty"), F.avg("y"))
    )
    text = df.explain_string()
    lines = text.splitlines()
    assert lines[0] == '== Staged plan: 3 stage(s), result columns [k, sum_qty, "avg(y)"] =='
    # estimated rows: 100 local rows, 1/3 * 0.9 kept by the filter (x > 3: a range bound;
    # k != 'c': all but one value; planner.optimizer.selectivity), half of those per group
    assert "Stage 0: tasks=3 output=coalesce(partitions=1) rows≈100" in lines
    assert "Stage 1: tasks=3 output=shuffle(keys=[k], partitions=4) rows≈15" in lines
    assert "Stage 2: tasks=4 output=result rows≈7" in lines  # the merge halves again
    assert "    Filter ((x > 3) AND (k != 'c'))" in lines
    assert "  Aggregate keys=[k] aggregates=[sum(x) AS \"sum(x)\", sum(y) AS \"sum(y)\", count(y) AS \"count(y)\"]" in lines
    assert any('"sum(x)" AS sum_qty' in line and '("sum(y)" / "count(y)") AS "avg(y)"' in line for line in lines)
    assert any(line.strip().startswith("Exchange stage=1 [k,") for line in lines)
    # the operator tree is indented under its stage
    filter_line = next(line for line in lines if "Filter" in line)
    assert filter_line.index("Filter") > lines[lines.index("Stage 1: tasks=3 output=shuffle(keys=[k], partitions=4) rows≈15") + 1].index("Aggregate")

    assert df.explain() is None
    assert capsys.readouterr().out.strip() == text

    extended = df.explain_string(extended=True)
    assert extended.startswith("== Logical plan ==\nAggregate keys=[k] aggregates=[sum(x) AS sum_qty, avg(y) AS \"avg(y)\"]")
    assert extended.endswith(text)


def test_explain_sort_limit_and_literals(executor: FakeExecutor, sample: pa.Table) -> None:
    df = create_dataframe(executor, sample)
    text = df.select(F.col("x").cast("long").alias("l"), F.lit("it's")).orderBy(F.col("l").desc()).limit(2).explain_string()
    assert "CAST(x AS int64) AS l, 'it''s' AS \"it's\"" in text
    assert "Sort [l DESC NULLS LAST] limit=2" in text
