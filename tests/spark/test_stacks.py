"""``stack`` (``planner.logical.functions.stacks``) against real PySpark: values laid out
row by row, the last row padded with NULLs typed as their column, NULL values, one row and
one column, and expressions among the values; one select per shape, in one Spark job."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

DATA = pa.table({
    "a": pa.array([1, 2, None, -7], pa.int64()),
    "b": ["x", None, "z", ""],
    "c": pa.array([10, 20, 30, None], pa.int64()),
})


def stacked(api, df):
    f = api.F
    padded = df.select("c", f.stack(f.lit(2), "a", "b", "c"))  # (a, b), (c, NULL string)
    one_column = df.select(f.stack(f.lit(3), "a", f.col("c") * 2, f.lit(None)).alias("v"))
    one_row = df.select("b", f.stack(f.lit(1), "b", "a", f.lit(1.5)))
    return padded.crossJoin(one_column).crossJoin(one_row.withColumnRenamed("b", "b2")
                                                  .withColumnRenamed("col0", "r0")
                                                  .withColumnRenamed("col1", "r1")
                                                  .withColumnRenamed("col2", "r2"))


@pytest.mark.slow
def test_stack_matches_pyspark(spark, sessions) -> None:
    assert_same(stacked, [DATA], spark, sessions)


@pytest.mark.parametrize(("build", "why"), [
    (lambda: F.stack(F.col("a"), "b"), "positive integer literal"),
    (lambda: F.stack(F.lit(0), "b"), "positive integer literal"),
    (lambda: F.stack(F.lit(2)), "at least one value"),
])
def test_refused_with_a_reason(build, why) -> None:
    with pytest.raises(AnalysisError, match=why):
        build()
