"""``listagg``, ``listagg_distinct``, ``string_agg`` and ``string_agg_distinct``
(``planner.logical.functions.listaggs``) against real PySpark: one table of edges (groups of
only NULLs, empty strings, non-ASCII text, a delimiter of several characters, NULL
delimiters, one row per group) and two grouped ``agg``s, ``WITHIN GROUP`` in SQL text (``F.expr``)
included: ``DISTINCT ... WITHIN GROUP`` apart (Spark 4.3 fails it beside another DISTINCT
aggregate with a ``ClassCastException``), so the family costs two Spark jobs. Without ``WITHIN GROUP`` the
order of the values is unspecified in Spark, so those calls read ``u``, which has one
distinct value per group."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

DATA = pa.table({
    "k": pa.array(["a", "a", "a", "b", "b", "c", "d", "d", "d", "d", "e"]),
    "s": pa.array(["x", None, "", "é€", "y", None, "b", "a", "b", "", "solo"]),
    "u": pa.array(["x", None, "x", "", "", None, "ü", "ü", None, "ü", "solo"]),
    "o": pa.array([3, 1, 2, 5, 4, 6, 9, 7, 8, 10, 11], pa.int64()),
})


def joined(api, df):
    F_ = api.F
    return df.groupBy("k").agg(
        F_.listagg("u"), F_.listagg("u", ", "), F_.string_agg("u", "-"), F_.listagg(F_.lit(1.5)),
        F_.listagg_distinct("u", ";"), F_.string_agg_distinct("u"),
        F_.expr("listagg(s, '|') WITHIN GROUP (ORDER BY o) AS by_o"),
        F_.expr("listagg(s, '|') WITHIN GROUP (ORDER BY o DESC) AS by_o_desc"),
        F_.expr("listagg(s) WITHIN GROUP (ORDER BY s) AS by_s"),
        F_.expr("string_agg(o, '+') WITHIN GROUP (ORDER BY o DESC) AS numbers"),
        F_.expr("listagg(o % 2 = 0, '/') WITHIN GROUP (ORDER BY o) AS flags"),
    )


def distinct(api, df):
    """Alone: Spark 4.3 fails it beside another DISTINCT aggregate."""
    F_ = api.F
    return df.groupBy("k").agg(
        F_.expr("listagg(DISTINCT u, ',') WITHIN GROUP (ORDER BY u DESC NULLS FIRST) AS distinct_desc"),
    )


@pytest.mark.slow
def test_listagg_family_matches_pyspark(spark, sessions) -> None:
    assert_same(joined, [DATA], spark, sessions)
    assert_same(distinct, [DATA], spark, sessions)


def test_refused_with_a_reason(sessions) -> None:
    df = sessions[0].createDataFrame(DATA)
    for build, why in [
        (lambda: F.listagg("s", F.col("k")), "string literal or NULL delimiter"),
        (lambda: F.listagg("s", b","), "binary delimiter"),
        (lambda: df.groupBy("k").agg(F.listagg(F.col("s").cast("binary"))).schema, "binary column"),
        (lambda: df.agg(F.expr("listagg(DISTINCT s) WITHIN GROUP (ORDER BY o)")).schema, "orders by x itself"),
    ]:
        with pytest.raises(AnalysisError, match=why):
            build()
