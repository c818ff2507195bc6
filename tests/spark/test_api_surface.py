"""Issue 35's non-function API against real PySpark: the Column methods (``bitwiseAND`` ...,
``isNaN``, ``ilike``, ``name``, ``transform``), the DataFrame methods (``unpivot``/``melt``,
``sortWithinPartitions``, ``repartitionByRange``, ``tail``, ``isEmpty``, ``isLocal``,
``sameSemantics``, ``inputFiles``, ``createTempView`` ...), the session's builder, version and
tags, and the catalog's functions, databases and drops. Names, types, values and Spark's
error conditions are PySpark's; where Spark's answer depends on its partitions or its random
stream (``randomSplit``), the properties Spark promises are checked instead.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire.planner.errors import AnalysisError
from tests.spark.compare import assert_same

# connect: passes through Spark Connect too (compare.Remote), at more than the CI budget allows
pytestmark = [pytest.mark.slow, pytest.mark.connect]

NAN = float("nan")
DATA = pa.table({
    "id": pa.array(range(1, 9), pa.int64()),
    "k": pa.array(["ab", "AB", "a", None, "", "Ab", "b", None], pa.string()),
    "i": pa.array([1, -2, None, 2**31 - 1, 0, -(2**31), 7, 6], pa.int32()),
    "x": pa.array([0.5, NAN, None, -0.0, 1e308, -3.0, NAN, 2.0], pa.float64()),
})


def _condition(exc: BaseException) -> str | None:
    get = getattr(exc, "getCondition", None)
    return get() if get is not None else None


def test_column_methods_orders_within_partitions_and_unpivot(spark, sessions) -> None:
    """Two Spark jobs: the Column methods over one task's rows sorted in place (in order,
    a limit of them too), then ``unpivot``/``melt`` and ``repartitionByRange`` as multisets."""

    def within(api, df):
        F = api.F
        one = df.coalesce(1)

        def methods(d):
            return d.select(
                "id", d.i.bitwiseAND(d.id), d.i.bitwiseOR(3), d.i.bitwiseXOR(d.i), d.x.isNaN(),
                d.k.ilike("a%"), d.i.name("j"), d.i.transform(lambda c: c.isNull()),
                F.expr("i & 6"), F.expr("id ^ i"), F.expr("i | -8"),
            )

        return methods(one.sortWithinPartitions(F.col("k").desc(), "id")).union(
            methods(one.sortWithinPartitions("i", "id", ascending=[False, True]).limit(3)))

    def reshaped(api, df):
        F = api.F
        long = df.select("id", "i", "x").melt("id", None, "var", "val")
        ranged = df.repartitionByRange(2, "i").select("id", F.lit("r").alias("var"), "x")
        return long.union(df.unpivot(["id", "k"], ["i"], "var", "val").drop("k")).union(ranged)

    assert_same(within, [DATA], spark, sessions[1:], ordered=True)  # one task: 1 or 3 workers alike
    assert_same(reshaped, [DATA], spark, sessions)
    theirs = spark.createDataFrame(DATA)
    with pytest.raises(Exception) as spark_error:
        theirs.unpivot("id", None, "var", "val").collect()
    with pytest.raises(AnalysisError) as ours:
        sessions[0].createDataFrame(DATA).unpivot("id", None, "var", "val")
    assert _condition(ours.value) == _condition(spark_error.value) == "UNPIVOT_VALUE_DATA_TYPE_MISMATCH"


def test_frame_questions_and_pieces(spark, local_sessions, tmp_path) -> None:
    """Spark runs two jobs here (its ``tail`` is the last rows of the ordered result)."""
    path = tmp_path / "t"
    local_sessions[0].createDataFrame(DATA).write.parquet(str(path))
    files = sorted(p.resolve().as_uri() for p in path.glob("*.parquet"))  # the files as Spark names them
    theirs = spark.createDataFrame(DATA)
    picks = (lambda d: d, lambda d: d.select("id"), lambda d: d.filter("i > 100"))
    local = [pick(theirs).isLocal() for pick in picks]
    empty = theirs.filter("i > 100").isEmpty()
    rows = theirs.orderBy("id").drop("x").collect()  # no NaN: a NaN is not equal to itself
    for session in local_sessions:
        ours = session.createDataFrame(DATA)
        assert [pick(ours).isLocal() for pick in picks] == local
        assert ours.filter("i > 100").isEmpty() == empty and not ours.isEmpty()
        assert ours.orderBy("id").drop("x").tail(3) == rows[-3:]
        assert ours.tail(0) == [] and ours.orderBy("id").drop("x").tail(100) == rows
        assert list(ours.orderBy("id").drop("x").toLocalIterator()) == rows
        for left, right in [(lambda d: d, lambda d: d.select("*")), (lambda d: d.filter("i > 0"),
                            lambda d: d.filter("i > 0")), (lambda d: d, lambda d: d.filter("i > 0"))]:
            same = left(ours).sameSemantics(right(ours))
            assert same == left(theirs).sameSemantics(right(theirs))
            assert (left(ours).semanticHash() == right(ours).semanticHash()) == same
        assert ours.transform(lambda d, n: d.limit(n), 2).count() == 2
        assert ours.sparkSession is session
        assert session.read.parquet(path).inputFiles() == files
        splits = ours.randomSplit([1.0, 3.0], seed=11)
        ids = [sorted(r.id for r in s.collect()) for s in splits]
        assert sorted(ids[0] + ids[1]) == list(range(1, 9)) and not set(ids[0]) & set(ids[1])
        assert ids == [sorted(r.id for r in s.collect()) for s in ours.randomSplit([1.0, 3.0], seed=11)]
    with pytest.raises(Exception) as spark_error:
        theirs.createTempView("api_surface_v")
        theirs.createTempView("API_SURFACE_V")
    spark.catalog.dropTempView("api_surface_v")
    ours = local_sessions[0].createDataFrame(DATA)
    with pytest.raises(AnalysisError) as our_error:
        ours.createTempView("api_surface_v")
        ours.createTempView("API_SURFACE_V")
    ours.registerTempTable("api_surface_v")
    assert local_sessions[0].catalog.dropTempView("api_surface_v")
    assert _condition(our_error.value) == _condition(spark_error.value) == "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS"


def test_session_builder_version_and_tags(spark, sessions) -> None:
    from sparkwire import Session

    made = Session.builder.master("local[1]").appName("t").config("spark.executor.memory", "1g").create()
    try:
        again = Session.builder.config("spark.sql.session.timeZone", "Asia/Tokyo").getOrCreate()
        assert again is made is Session.getActiveSession() is Session.active()
        assert made.workers == 1 and made.conf.get("spark.sql.session.timeZone") == "Asia/Tokyo"
        assert made.version == spark.version
        assert made.emptyDataFrame("a int, b string").schema == spark.emptyDataFrame("a int, b string").schema
        for session in (made, spark):
            session.addTag("a")
            session.addTag("b")
            session.removeTag("a")
        assert made.getTags() == spark.getTags() == {"b"}
        for bad in ("", "a,b"):
            with pytest.raises(Exception) as spark_error:
                spark.addTag(bad)
            with pytest.raises(Exception, match=str(spark_error.value).split("\n")[0]):
                made.addTag(bad)
        made.clearTags()
        spark.clearTags()
        assert made.getTags() == set()
    finally:
        made.stop()
    assert Session.getActiveSession() is None


def test_catalog_functions_databases_and_drops(spark, sessions) -> None:
    ours = sessions[0].catalog
    theirs = spark.catalog
    assert ours.listCatalogs() == theirs.listCatalogs()
    spark_names = {r[0] for r in spark.sql("SHOW FUNCTIONS").collect()}  # listFunctions: slow in py4j
    our_names = {f.name for f in ours.listFunctions()}
    assert our_names <= spark_names and len(our_names) > 300
    for name in ("abs", "explode", "ARRAY_SIZE", "nope"):
        assert ours.functionExists(name) == theirs.functionExists(name)
    got, want = ours.getFunction("abs"), theirs.getFunction("abs")
    assert (got.name, got.catalog, got.namespace, got.isTemporary) == \
        (want.name, want.catalog, want.namespace, want.isTemporary)
    assert [f.name for f in ours.listFunctions(pattern="array_s*|explode*")] == \
        sorted(r[0] for r in spark.sql("SHOW FUNCTIONS LIKE 'array_s*|explode*'").collect())
    sessions[0].createDataFrame(DATA).createOrReplaceTempView("api_cat_v")
    spark.createDataFrame(DATA).createOrReplaceTempView("api_cat_v")
    # This test's views only: the sessions are shared by modules, and a module run through
    # the Spark Connect client makes its views there, not in ours.
    assert ([v.name for v in ours.listViews() if v.name.startswith("api_")]
            == [v.name for v in theirs.listViews() if v.name.startswith("api_")] == ["api_cat_v"])
    calls = [
        lambda c: c.getFunction("nope"), lambda c: c.createDatabase("default"),
        lambda c: c.dropDatabase("default"), lambda c: c.truncateTable("api_cat_v"),
        lambda c: c.dropView("nope"), lambda c: c.dropTable("nope"), lambda c: c.setCurrentCatalog("nope"),
    ]
    for call in calls:
        with pytest.raises(Exception) as spark_error:
            call(theirs)
        with pytest.raises(AnalysisError) as our_error:
            call(ours)
        want_condition = _condition(spark_error.value) or "CATALOG_NOT_FOUND"  # a Java exception in PySpark
        assert _condition(our_error.value) == want_condition
    ours.createDatabase("default", ifNotExists=True)
    theirs.createDatabase("default", ifNotExists=True)
    for catalog in (ours, theirs):
        catalog.dropView("nope", ifExists=True)
        catalog.dropTable("nope", ifExists=True)
        catalog.dropView("api_cat_v")
    assert ours.tableExists("api_cat_v") == theirs.tableExists("api_cat_v") is False
    sessions[0].createDataFrame(DATA).createOrReplaceTempView("api_cat_v")
    spark.createDataFrame(DATA).createOrReplaceTempView("api_cat_v")
    for catalog in (ours, theirs):
        catalog.dropTable("api_cat_v")
    assert ours.tableExists("api_cat_v") == theirs.tableExists("api_cat_v") is False
