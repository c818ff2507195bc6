"""``collect_union`` against real PySpark: groups of arrays sharing elements, NULL arrays,
NULL elements, empty arrays, a group of NULLs only, NaN; sorted for the comparison (the
order is not defined, in Spark either); one Spark job."""

from __future__ import annotations

import pyarrow as pa
import pytest

from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

ARRAYS = pa.table({
    "g": pa.array([1, 1, 1, 2, 2, 3, 4, 4], pa.int32()),
    "a": pa.array([[1, 2, None], [2, 3], None, [], [5, 5], None, [7], [None]], pa.list_(pa.int64())),
    "f": pa.array([[1.5, float("nan")], [float("nan")], None, [-0.0], [0.0], None, [], [2.5]], pa.list_(pa.float64())),
})


def unions(api, df):
    F_ = api.F
    return df.groupBy("g").agg(F_.sort_array(F_.collect_union("a")).alias("a"),
                               F_.sort_array(F_.collect_union("f")).alias("f"),
                               F_.size(F_.collect_union("a")).alias("n"))


@pytest.mark.slow
def test_collect_union_matches_pyspark(spark, sessions) -> None:
    assert_same(unions, [ARRAYS], spark, sessions)
