"""The later aggregates (``planner.logical.functions.summaries``) and the linear regressions
(``regr_*``, ``planner.optimizer.rules.moments``) against real PySpark, all
in one grouped ``agg`` and one global one over one table of edges: groups of only NULLs,
NaN, -0.0, negative products, ties on the percentile's rank (none on ``max_by``'s ordering,
where Spark picks any row) and one row per group."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

NAN = float("nan")
DATA = pa.table({
    "k": pa.array(["a", "a", "a", "b", "b", "c", "d", "d", "d", "d"]),
    "x": pa.array([1.5, None, -2.0, NAN, 4.0, None, -0.0, 3.0, 10.0, 2.5]),
    "i": pa.array([3, 1, None, 7, -2, 5, 0, 9, 4, 2], pa.int32()),
    "b": pa.array([True, None, True, False, True, None, True, False, None, True]),
    "o": pa.array([1, 2, 3, None, 5, 6, 7, 8, 9, 10], pa.int64()),
})


_REGRESSIONS = ("count", "avgx", "avgy", "sxx", "syy", "sxy", "slope", "intercept", "r2")


def aggregates(F_, frame):
    return frame.agg(
        F_.bool_and("b"), F_.bool_or("b"), F_.every("b"), F_.some("b"),
        F_.product("x"), F_.product("i"), F_.max_by("x", "o"), F_.min_by("i", "o"),
        F_.max_by("b", "i"), F_.median("i"), F_.percentile("x", 0.25), F_.percentile("i", [0.1, 0.5, 1.0]),
        F_.expr("percentile(i, 0.75)"), F_.expr("max_by(k, o)"), F_.expr("some(b AND i > 2)"),
        *(getattr(F_, f"regr_{name}")("x", "i") for name in _REGRESSIONS), F_.expr("regr_r2(i, o)"),
    )


def grouped(api, df):
    return aggregates(api.F, df.groupBy("k"))


def whole(api, df):
    """Without keys, where empty tasks give partials too: the aggregates that merge."""
    F_ = api.F
    return df.where(F_.col("k") != "b").agg(
        F_.bool_and("b"), F_.some("b"), F_.product("x"), F_.regr_count("x", "i"), F_.regr_slope("x", "i"),
        F_.max_by("x", "o"), F_.median("i"))


@pytest.mark.slow
def test_later_aggregates_match_pyspark(spark, sessions) -> None:
    assert_same(grouped, [DATA], spark, sessions)
    assert_same(whole, [DATA], spark, sessions)


def test_unsupported_forms_are_refused() -> None:
    with pytest.raises(AnalysisError, match="frequency other than 1"):
        F.percentile("x", 0.5, 2)
    with pytest.raises(AnalysisError, match="between 0.0 and 1.0"):
        F.percentile("x", 1.5)
