"""``Column.withField`` and ``Column.dropFields`` (``planner.logical.struct_updates``) against
real PySpark in one ``select``: a field set, appended, set in another case, set from another
field, dropped (in another case too), nested paths with a NULL inner struct, a NULL struct
that stays NULL; and dropping every field refused as Spark refuses it."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

_INNER = pa.struct([("x", pa.int32()), ("y", pa.string())])
_STRUCT = pa.struct([("a", pa.int32()), ("b", pa.string()), ("n", _INNER)])
DATA = pa.table({
    "s": pa.array([{"a": 1, "b": "x", "n": {"x": 1, "y": ""}}, None, {"a": None, "b": "", "n": None},
                   {"a": -2147483648, "b": None, "n": {"x": None, "y": None}}], _STRUCT),
    "v": pa.array([10, None, 0, -1], pa.int64()),
})


def updates(api, df):
    F_, s = api.F, api.F.col("s")
    return df.select(
        s.withField("b", F_.lit(2)), s.withField("c", F_.col("s.a") + F_.col("v")), s.withField("A", F_.col("v")),
        s.dropFields("a"), s.dropFields("B", "n"), s.dropFields("missing").alias("kept"),
        s.withField("n.z", F_.lit("z")), s.withField("n.x", F_.col("v")), s.dropFields("n.x"),
        s.withField("b", F_.lit("q")).dropFields("a"),
    )


@pytest.mark.slow
def test_struct_updates_match_pyspark(spark, sessions) -> None:
    assert_same(updates, [DATA], spark, sessions)


def test_dropping_every_field_is_refused(sessions) -> None:
    df = sessions[0].createDataFrame(DATA)
    with pytest.raises(AnalysisError, match="cannot drop all fields"):
        df.select(F.col("s").dropFields("a", "b", "n")).schema
    with pytest.raises(AnalysisError, match="take a struct"):
        df.select(F.col("v").withField("a", F.lit(1))).schema
