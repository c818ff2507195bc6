"""``map_zip_with`` against real PySpark: maps sharing some keys, one empty, one NULL,
NULL values, string and int keys; the lambda reading each side, the key and a column
outside it, in the DataFrame API and in SQL text; one Spark job."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

_INTS = pa.map_(pa.int32(), pa.int64())
MAPS = pa.table({
    "m1": pa.array([[(1, 10), (2, 20)], None, [], [(7, None), (8, 1)], [(-1, 5)]], _INTS),
    "m2": pa.array([[(1, 1), (3, 3)], [(1, 1)], [(5, 5)], [(8, None)], []], _INTS),
    "s1": pa.array([[("a", "x")], [("b", "")], None, [], [("k", "v")]], pa.map_(pa.string(), pa.string())),
    "s2": pa.array([[("a", "y"), ("c", "z")], [], [("q", "r")], [("", None)], [("k", "w")]],
                   pa.map_(pa.string(), pa.string())),
    "n": pa.array([100, 200, None, 0, -1], pa.int64()),
})


def zipped(api, df):
    F_ = api.F
    return df.select(
        F_.map_zip_with("m1", "m2", lambda k, a, b: F_.coalesce(a, F_.lit(0)) + F_.coalesce(b, F_.col("n")) + k)
        .alias("sums"),
        F_.map_zip_with("s1", "s2", lambda k, a, b: F_.concat_ws("|", k, a, b)).alias("joined"),
        F_.expr("map_zip_with(m1, m2, (k, a, b) -> a IS NULL) AS only_second"),
    )


@pytest.mark.slow
def test_map_zip_with_matches_pyspark(spark, sessions) -> None:
    assert_same(zipped, [MAPS], spark, sessions)


def test_refused_as_spark(sessions) -> None:
    df = sessions[0].createDataFrame(MAPS)
    for build, why in [
        (lambda: df.select(F.map_zip_with("m1", "s2", lambda k, a, b: a)).schema, "one key type"),
        (lambda: df.select(F.map_zip_with("m1", "n", lambda k, a, b: a)).schema, "two maps"),
    ]:
        with pytest.raises(AnalysisError, match=why):
            build()
