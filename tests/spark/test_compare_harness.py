import pyarrow as pa, pytest
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

DATA = pa.table({"k": ["a", "b", "a", None], "v": pa.array([1, 2, None, 4], pa.int64())})

@pytest.mark.slow
def test_harness_agrees_on_a_group_by(spark, sessions):
    assert_same(lambda api, df: df.groupBy("k").agg(api.F.sum("v").alias("s"), api.F.count("*").alias("n")), [DATA], spark, sessions)

@pytest.mark.slow
def test_harness_sees_a_difference(spark, sessions):
    with pytest.raises(AssertionError):
        assert_same(lambda api, df: df.select((api.F.col("v") + (1 if api.F.__name__.startswith("sparkwire") else 0)).alias("x")), [DATA], spark, sessions)
