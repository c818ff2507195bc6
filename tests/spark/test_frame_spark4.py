"""Spark 4's DataFrame, session and catalog methods of issue 35 against real PySpark:
``scalar``/``exists`` subqueries (in ``filter``, ``withColumn`` and ``select``; no row,
NULLs, SELECT names equal but for case), ``transpose``, ``storageLevel``, ``tvf``, SQL's SELECT names equal but for case, and the catalog's answers on a Parquet table with Hive partitions;
``observe``, ``zip``, ``zipWithIndex`` and ``nearestByJoin`` against DuckDB as the oracle of the values. Few Spark jobs: each program
holds a family."""

from __future__ import annotations

import os

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire import AnalysisError, Observation, StorageLevel
from sparkwire import functions as F
from sparkwire.transport.errors import QueryError
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

FRAME = pa.table({"x": pa.array([1, None, 3, -(2**31)], pa.int32()), "s": ["a", "", None, "é"],
                  "d": [2.5, float("nan"), None, -0.0]})
OTHER = pa.table({"y": pa.array([5, None, 2**31 - 1], pa.int32())})
#: transpose: an index with a NULL and unsorted values; an int and a bigint column widen to bigint
WIDE = pa.table({"k": ["b", None, "a", "c"], "i": pa.array([1, 3, 5, None], pa.int32()),
                 "j": pa.array([2, 4, None, 2**40], pa.int64())})


def subqueries(api, df, other):
    F = api.F  # noqa: N806 - this engine's functions module
    top = other.select(F.max("y")).scalar()
    none = other.filter(F.col("y") > 2**31 - 1)
    return (df.filter(F.col("x") < top).withColumn("top", top)
            .select("x", "top", other.exists().alias("e"), none.exists().alias("ne"),
                    none.select("y").scalar().alias("nothing"), F.col("s").alias("S2"),
                    F.length("s").alias("s2")))


def generated(api, df):
    F = api.F  # noqa: N806
    tvf = df.sparkSession.tvf
    cased = df.sparkSession.sql("SELECT 1 AS a, 'x' AS A")  # two columns to Spark
    return tvf.posexplode(F.array(F.lit(1), F.lit(None).cast("int"))).crossJoin(
        tvf.stack(F.lit(2), F.lit(1), F.lit("a"), F.lit(2), F.lit(None).cast("string"))).crossJoin(cased)


@pytest.mark.slow
def test_spark4_frame_methods_match_pyspark(spark, sessions) -> None:
    assert_same(subqueries, [FRAME, OTHER], spark, sessions)
    assert_same(lambda api, df: df.transpose(), [WIDE], spark, sessions, ordered=True)
    assert_same(generated, [FRAME], spark, sessions)


def test_zip_with_index_numbers_the_rows_in_order(local_sessions) -> None:
    frame = FRAME  # noqa: F841 - read by DuckDB below
    want = duckdb.sql("SELECT *, row_number() OVER (ORDER BY x DESC NULLS LAST) - 1 AS n "
                      "FROM frame ORDER BY n").to_arrow_table()
    for session in local_sessions:
        got = session.createDataFrame(FRAME).orderBy(F.desc_nulls_last("x")).zipWithIndex("n")
        assert got.dtypes[-1] == ("n", "bigint") and not got.schema["n"].nullable  # Spark's LongType
        assert list(map(str, got.toArrow().to_pylist())) == list(map(str, want.to_pylist()))


USERS = pa.table({"user_id": pa.array([1, 2, 3, 4], pa.int32()), "score": [10.0, 20.0, None, 40.0]})
PRODUCTS = pa.table({"product": ["A", "B", "C", "D"], "pscore": [11.0, 22.0, 5.0, None]})


@pytest.mark.parametrize(("how", "direction", "order"), [("inner", "distance", "ASC"),
                                                         ("leftouter", "similarity", "DESC")])
def test_nearest_by_join_keeps_the_best_ranked_not_null(local_sessions, how, direction, order) -> None:
    # Spark's rules (checked with PySpark 4.3): a NULL ranking is never a match, a left
    # outer join keeps a row without one, with NULLs
    users, products = USERS, PRODUCTS  # noqa: F841 - read by DuckDB below
    join = "JOIN" if how == "inner" else "LEFT JOIN"
    want = duckdb.sql(
        f"SELECT user_id, score, product, pscore FROM (SELECT *, row_number() OVER (PARTITION BY "
        f"user_id ORDER BY abs(score - pscore) {order}) AS r FROM users {join} products "
        f"ON abs(score - pscore) IS NOT NULL) WHERE r <= 2").to_arrow_table()
    for session in local_sessions:
        u, p = session.createDataFrame(USERS), session.createDataFrame(PRODUCTS)
        got = u.nearestByJoin(p, F.abs(u.score - p.pscore), 2, "exact", direction, joinType=how)
        assert got.columns == want.column_names
        assert sorted(map(str, got.toArrow().to_pylist())) == sorted(map(str, want.to_pylist()))
    with pytest.raises(AnalysisError, match="1 to 100000"):
        u.nearestByJoin(p, F.abs(u.score - p.pscore), 0, "exact", direction)


def test_zip_is_both_projections_row_by_row(local_sessions) -> None:
    frame = FRAME  # noqa: F841 - read by DuckDB below
    want = duckdb.sql("SELECT x, x + 1 AS x1, upper(s) AS u, d FROM frame").to_arrow_table()
    for session in local_sessions:
        df = session.createDataFrame(FRAME)
        got = df.select("x", (F.col("x") + 1).alias("x1")).zip(df.select(F.upper("s").alias("u"), "d"))
        assert got.columns == want.column_names
        assert sorted(map(str, got.toArrow().to_pylist())) == sorted(map(str, want.to_pylist()))
    with pytest.raises(AnalysisError, match="cannot be merged"):
        df.select("x").zip(df.filter(F.col("x") > 0).select("s"))


def test_storage_level_reports_what_persist_asked(spark, sessions) -> None:
    from pyspark import StorageLevel as SparkLevel

    theirs = spark.createDataFrame(FRAME)
    ours = sessions[0].createDataFrame(FRAME)
    levels = [(theirs.storageLevel, ours.storageLevel)]
    levels.append((theirs.cache().storageLevel, ours.cache().storageLevel))
    picked = (theirs.select("x").persist(SparkLevel.DISK_ONLY_2),
              ours.select("x").persist(StorageLevel.DISK_ONLY_2))
    levels.append((picked[0].storageLevel, picked[1].storageLevel))
    theirs.unpersist(), ours.unpersist(), picked[0].unpersist(), picked[1].unpersist()
    levels.append((theirs.storageLevel, ours.storageLevel))
    for want, got in levels:
        assert got == want and str(got) == str(want)


def test_scalar_of_more_than_one_row_fails_as_spark(sessions) -> None:
    df = sessions[0].createDataFrame(FRAME)
    with pytest.raises(QueryError, match="SCALAR_SUBQUERY_TOO_MANY_ROWS"):
        df.select(sessions[0].createDataFrame(OTHER).scalar()).collect()
    with pytest.raises(AnalysisError, match="exactly one column"):
        df.select(df.scalar())
    with pytest.raises(AnalysisError, match="least common type"):
        df.transpose()


def test_observe_reads_the_frames_aggregates(sessions) -> None:
    observation = Observation("m")
    df = sessions[1].createDataFrame(FRAME)
    observed = df.observe(observation, F.count(F.lit(1)).alias("n"), F.max("x").alias("top"),
                          F.sum("d").alias("total"))
    assert observed.filter(F.col("x") > 0).count() == 2
    frame = FRAME  # noqa: F841 - read by DuckDB below
    want = duckdb.sql("SELECT count(*) AS n, max(x) AS top, sum(d) AS total FROM frame").fetchall()[0]
    got = observation.get
    assert (got["n"], got["top"]) == want[:2] and str(got["total"]) == str(want[2])
    with pytest.raises(AnalysisError, match="one DataFrame only"):
        df.observe(observation, F.count(F.lit(1)).alias("n"))
    with pytest.raises(AnalysisError, match="before get"):
        Observation().get


def test_new_session_shares_the_cluster_alone(sessions) -> None:
    parent = sessions[0]
    parent.createDataFrame(OTHER).createOrReplaceTempView("only_parent")
    child = parent.newSession()
    try:
        assert child.cluster is parent.cluster and not child.catalog.tableExists("only_parent")
        assert child.range(3).count() == 3
    finally:
        child.stop()
    assert parent.range(4).count() == 4 and parent.catalog.tableExists("only_parent")
    parent.catalog.dropTempView("only_parent")


def test_catalog_answers_for_a_partitioned_table_match_pyspark(spark, sessions, tmp_path) -> None:
    root = str(tmp_path / "t")
    table = pa.table({"x": pa.array([1, 2, 3], pa.int32()), "s": ["a", None, "c"]})
    written = {"p=20": [1], "p=10": [0, 2]}
    for spec, rows in written.items():
        os.makedirs(f"{root}/{spec}")
        pq.write_table(table.take(rows), f"{root}/{spec}/part-0.parquet")
    theirs = spark.catalog
    theirs.createTable("sw_parts", path=root, source="parquet")
    ours = sessions[0].catalog
    ours.createTable("sw_parts", path=root, source="parquet")
    try:
        assert ours.getCreateTableString("sw_parts") == theirs.getCreateTableString("sw_parts")
        assert ours.getTableProperties("sw_parts") == theirs.getTableProperties("sw_parts")
        # the directories written, sorted, as Spark lists them once recoverPartitions put
        # them in its metastore (sparkwire reads them from the start)
        assert [p.partition for p in ours.listPartitions("sw_parts")] == sorted(written)
        ours.analyzeTable("sw_parts"), ours.refreshByPath(root), ours.recoverPartitions("sw_parts")
        assert sessions[0].table("sw_parts").count() == 3
    finally:
        theirs.dropTable("sw_parts"), ours.dropTable("sw_parts")
