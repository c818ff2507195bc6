"""``fillna``/``na.fill``, ``dropna``/``na.drop`` and ``replace``/``na.replace`` against real
PySpark (``planner.api.na``): which columns a value touches, NaN as missing in floating columns,
conversions to the column's type, ``how``/``thresh``/``subset``."""

from __future__ import annotations

import decimal

import pyarrow as pa
import pytest

from sparkwire.planner.errors import AnalysisError
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

NAN = float("nan")
DATA = pa.table({
    "i": pa.array([1, None, 3, 1, 0, -5], pa.int32()),
    "l": pa.array([None, 2, 2, None, 0, -1], pa.int64()),
    "f": pa.array([NAN, None, 2.5, 1.5, -0.0, 1.5], pa.float64()),
    "d": pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("-3.50"), None,
                   decimal.Decimal("0.00"), decimal.Decimal("1.25")], pa.decimal128(6, 2)),
    "s": pa.array(["a", None, "", "a", "b", None], pa.string()),
    "b": pa.array([True, None, False, None, True, True], pa.bool_()),
})


@pytest.mark.slow
def test_fill(spark, sessions) -> None:
    def program(api, df):
        F = api.F
        parts = [
            df.fillna(1.9), df.na.fill(7, subset=["i", "s", "f"]), df.fillna("z"),
            df.na.fill(False), df.fillna({"i": 9, "s": "q", "b": True, "d": 2.675, "f": -1}),
            df.fillna("x", subset="s"), df.na.fill(-4),
        ]
        tagged = [p.withColumn("case", F.lit(n)) for n, p in enumerate(parts)]
        out = tagged[0]
        for p in tagged[1:]:
            out = out.union(p)
        return out

    assert_same(program, [DATA], spark, sessions)


@pytest.mark.slow
def test_drop_and_replace(spark, sessions) -> None:
    def program(api, df):
        F = api.F
        parts = [
            df.dropna(), df.na.drop(how="all", subset=["l", "d"]), df.dropna(thresh=5),
            df.dropna(subset=["f"]), df.na.drop("any", 2, ["i", "l", "f"]),
            df.replace(1, 100), df.na.replace(1.5, 9.0), df.replace(["a", ""], ["A", None]),
            df.replace({"a": "b", "b": "c"}, subset=["s"]), df.replace(True, False),
            df.replace([0, 2], [None, 20], "l"),
        ]
        tagged = [p.withColumn("case", F.lit(n)) for n, p in enumerate(parts)]
        out = tagged[0]
        for p in tagged[1:]:
            out = out.union(p)
        return out

    assert_same(program, [DATA], spark, sessions)


def test_mixed_replacements_are_refused(sessions) -> None:
    df = sessions[0].createDataFrame(DATA)
    with pytest.raises(AnalysisError, match="Mixed type replacements are not supported"):
        df.replace({1: "a"})
    with pytest.raises(AnalysisError, match="how must be"):
        df.dropna(how="some")
    with pytest.raises(AnalysisError, match="cannot resolve|not found|unknown|no column"):
        df.fillna(0, subset=["nope"])
