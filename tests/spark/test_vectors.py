"""The vector functions, ``collation``, ``current_path`` and ``call_function`` against real
PySpark: one table of edge cases (NULL arrays and elements, empty and zero vectors, NaN,
negative elements, a NULL string) and one select of every function, in the DataFrame API and
in SQL text (``F.expr``), so the family costs one Spark job; the aggregates
``vector_sum``/``vector_avg`` over one grouped table of their own (a second job); the
refusals and Spark's errors apart."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import AnalysisError, Window
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

_FLOATS = pa.list_(pa.float32())
VECTORS = pa.table({
    "a": pa.array([[1.0, 2.0, 3.0], [], None, [1.0, None], [0.0, 0.0], [float("nan"), 1.0], [3.0, -4.0],
                   [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.1]], _FLOATS),
    "b": pa.array([[4.0, 5.0, 6.0], [], [1.0], [1.0, 2.0], [1.0, 1.0], [1.0, 1.0], [1.0, 2.0],
                   [1.5, -2.5, 3.5, 1e-3, 7.0, 8.0, -9.0, 10.0, 11.0, 12.0]], _FLOATS),
    "s": pa.array(["x", None, "", "é", "a", "b", "c", "d"]),
    "i": pa.array([1, 2, 3, 4, 5, 6, 7, 8], pa.int64()),
})


def vectors(api, df):
    F_ = api.F
    one, inf = F_.lit(1.0).cast("float"), F_.lit(float("inf")).cast("float")
    return df.select(
        F_.vector_inner_product("a", "b"), F_.vector_cosine_similarity("a", "b"), F_.vector_l2_distance("a", "b"),
        F_.vector_norm("a"), F_.vector_norm("b", one).alias("l1"), F_.vector_norm("a", inf).alias("linf"),
        F_.vector_normalize("a"), F_.vector_normalize("b", one).alias("n1"), F_.vector_normalize("a", inf).alias("ninf"),
        F_.expr("vector_inner_product(b, a) AS sql_ip"), F_.expr("vector_norm(b) AS sql_norm"),
        F_.collation("s"), F_.expr("collation(s) AS sql_collation"), F_.current_path(),
        F_.expr("current_path() AS sql_path"), F_.call_function("upper", "s"),
        F_.call_function("system.builtin.`vector_l2_distance`", "b", "a"), "i",
    )


@pytest.mark.slow
def test_vector_functions_match_pyspark(spark, sessions) -> None:
    assert_same(vectors, [VECTORS], spark, sessions)


#: Groups of vectors: plain, all NULL, empty, one holding a NULL (skipped), float overflow
#: (an infinite sum), NaN, -0.0, sums that round, and a group with no whole vector.
GROUPED = pa.table({
    "g": pa.array([1, 1, 1, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 8, 8, 8, 9], pa.int32()),
    "v": pa.array([[1.0, 2.0], [3.0, 4.0], None, None, [], [], [1.0, None], [2.0, 3.0],
                   [3e38, -3e38], [3e38, -3e38], [float("nan"), 1.0], [2.0, 1.0], [-0.0, 0.0],
                   [0.1, 0.2], [0.2, 0.3], [0.3, 0.4], [None]], _FLOATS),
})


def vector_aggregates(api, df):
    F_ = api.F
    return df.groupBy("g").agg(F_.vector_sum("v"), F_.vector_avg("v"), F_.expr("vector_sum(v) AS sql_sum"),
                               F_.expr("vector_avg(v) AS sql_avg"))


@pytest.mark.slow
def test_vector_aggregates_match_pyspark(spark, sessions) -> None:
    # Spark folds floats in its input order; another order may differ in the last bits
    assert_same(vector_aggregates, [GROUPED], spark, sessions, rel=1e-6)


def test_refused_and_failing_as_spark(sessions) -> None:
    df = sessions[0].createDataFrame(VECTORS)
    for build, why in [
        (lambda: F.vector_norm("a", F.lit(3.0).cast("float")), "INVALID_VECTOR_NORM_DEGREE"),
        (lambda: F.vector_norm("a", F.col("i")), "float literal degree"),
        (lambda: df.select(F.vector_norm(F.array(F.lit(1.0)))).schema, "ARRAY<FLOAT>"),
        (lambda: df.select(F.collation("i")).schema, "takes a string"),
        (lambda: F.call_function("no_such_function", "i"), "not supported"),
    ]:
        with pytest.raises(AnalysisError, match=why):
            build()
    short = df.select(F.vector_inner_product("a", F.array(F.lit(1.0).cast("float"))))
    with pytest.raises(Exception, match="VECTOR_DIMENSION_MISMATCH"):
        short.collect()
    with pytest.raises(AnalysisError, match="ARRAY<FLOAT>"):
        df.agg(F.vector_sum("i")).schema
    with pytest.raises(AnalysisError, match="vector_avg over a window is not supported"):
        df.select(F.vector_avg("a").over(Window.partitionBy("s")))
    with pytest.raises(Exception, match="VECTOR_DIMENSION_MISMATCH"):
        df.agg(F.vector_avg("b")).collect()
