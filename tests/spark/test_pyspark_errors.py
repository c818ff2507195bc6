"""PySpark's errors, ``spark.conf`` and ``spark.catalog`` against real PySpark.

The same failing programs run under PySpark and sparkwire: every class of
``pyspark.errors`` that catches PySpark's exception catches ours, with the same condition,
SQLSTATE and the message parameters sparkwire knows. The same ``conf`` and ``catalog``
calls give the same answers. (Without ``pyspark.errors`` loaded, our errors are ours alone
and PySpark is not imported for them: ``tests/coordinator/test_worker_footprint.py``.)"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator import Session
from sparkwire.planner.errors import AnalysisError
from tests.spark.compare import pyspark_api, sparkwire_api

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

ROWS = pa.table({"i": pa.array([1, 2], pa.int32()), "s": ["a", "x"]})
#: The classes a PySpark program catches.
CLASSES = ("PySparkException", "AnalysisException", "ParseException", "ArithmeticException",
           "NumberFormatException", "IllegalArgumentException", "ArrayIndexOutOfBoundsException",
           "SparkRuntimeException", "SparkNoSuchElementException", "PySparkTypeError")

# program(session, df, api) -> anything; it must raise. With the message parameters both
# engines give alike.
PROGRAMS: dict[str, tuple[Callable[[Any, Any, Any], Any], tuple[str, ...]]] = {
    "unresolved column": (lambda s, df, api: df.select(api.F.col("nope") + 1), ("objectName",)),
    "unresolved column in SQL": (lambda s, df, api: s.sql("SELECT nope FROM errs_t"), ("objectName",)),
    "unknown table": (lambda s, df, api: s.sql("SELECT * FROM errs_missing"), ("relationName",)),
    "syntax": (lambda s, df, api: s.sql("SELEC 1"), ()),
    "expression syntax": (lambda s, df, api: df.selectExpr("i +"), ()),
    "path": (lambda s, df, api: s.read.parquet("/nonexistent/errs"), ("path",)),
    "argument type": (lambda s, df, api: df.select(1.5), ("expected_type", "arg_name", "arg_type")),
    "division by zero": (lambda s, df, api: s.sql("SELECT i / 0 FROM errs_t").collect(), ("config",)),
    "cast": (lambda s, df, api: df.select(df.s.cast("int")).collect(), ("expression",)),
    "element_at": (lambda s, df, api: df.select(api.F.element_at(api.F.array(df.i), 5)).collect(), ()),
    "raise_error": (lambda s, df, api: df.select(api.F.raise_error(api.F.lit("boom"))).collect(),
                    ("errorMessage",)),
    "static conf": (lambda s, df, api: s.conf.set("spark.sql.warehouse.dir", "/tmp/x"), ("key",)),
    "conf not set": (lambda s, df, api: s.conf.get("spark.sql.errs.never.set"), ("sqlConf",)),
    "conf value": (lambda s, df, api: s.conf.set("spark.sql.ansi.enabled", "maybe"),
                   ("confName", "confValue", "confType")),
    "conf zone": (lambda s, df, api: s.conf.set("spark.sql.session.timeZone", "Mars/Olympus"),
                  ("confName", "confValue")),
    "core conf": (lambda s, df, api: s.conf.set("spark.executor.memory", "1g"), ("key",)),
    "catalog": (lambda s, df, api: s.catalog.listColumns("errs_missing"), ("relationName",)),
}


@pytest.fixture(scope="module")
def one(sessions: list[Any]) -> Iterator[Any]:
    yield sessions[0]


def _raised(program: Callable[[], Any]) -> BaseException:
    try:
        program()
    except Exception as exc:  # noqa: BLE001 - what was raised is the point
        return exc
    raise AssertionError("the program did not fail")


def test_failing_programs_are_caught_as_in_pyspark(spark: Any, one: Any) -> None:
    import pyspark.errors

    theirs_df, ours_df = spark.createDataFrame(ROWS), one.createDataFrame(ROWS)
    theirs_df.createOrReplaceTempView("errs_t")
    ours_df.createOrReplaceTempView("errs_t")
    try:
        for name, (program, same) in PROGRAMS.items():
            theirs = _raised(lambda: program(spark, theirs_df, pyspark_api()))
            ours = _raised(lambda: program(one, ours_df, sparkwire_api()))
            for cls in CLASSES:
                caught = getattr(pyspark.errors, cls)
                assert isinstance(ours, caught) == isinstance(theirs, caught), f"{name}: {cls}"
            assert ours.getCondition() == theirs.getCondition(), name  # type: ignore[attr-defined]
            assert ours.getSqlState() == theirs.getSqlState(), name  # type: ignore[attr-defined]
            want = {k: theirs.getMessageParameters()[k] for k in same}  # type: ignore[attr-defined]
            assert {k: ours.getMessageParameters()[k] for k in same} == want, name  # type: ignore[attr-defined]
    finally:
        spark.catalog.dropTempView("errs_t")
        one.catalog.dropTempView("errs_t")


def test_a_combined_error_pickles_and_keeps_sparkwire_classes(one: Any) -> None:
    import pyspark.errors

    error = _raised(lambda: one.createDataFrame(ROWS).select("nope"))
    assert isinstance(error, AnalysisError) and isinstance(error, ValueError)
    back = pickle.loads(pickle.dumps(error))
    assert isinstance(back, pyspark.errors.AnalysisException) and isinstance(back, AnalysisError)
    assert (str(back), back.getCondition()) == (str(error), "UNRESOLVED_COLUMN.WITH_SUGGESTION")


def _conf_calls(conf: Any) -> list[Any]:
    answers: list[Any] = []
    try:
        for key in ("spark.sql.ansi.enabled", "spark.sql.adaptive.enabled", "spark.sql.caseSensitive",
                    "spark.sql.autoBroadcastJoinThreshold"):
            answers.append((key, conf.get(key), conf.isModifiable(key)))
        conf.set("spark.sql.errs.custom", 12)
        conf.set("spark.sql.ansi.enabled", False)
        conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
        conf.set("spark.sql.session.timeZone", "+01:00")
        answers += [conf.get("spark.sql.errs.custom"), conf.get("spark.sql.ansi.enabled"),
                    conf.get("spark.sql.autoBroadcastJoinThreshold"), conf.get("spark.sql.session.timeZone"),
                    conf.isModifiable("spark.sql.errs.custom"), conf.isModifiable("spark.sql.warehouse.dir")]
        conf.unset("spark.sql.errs.custom")
        conf.unset("spark.sql.ansi.enabled")
        answers += [conf.get("spark.sql.errs.custom", "fallback"), conf.get("spark.sql.ansi.enabled")]
    finally:
        for key in ("spark.sql.autoBroadcastJoinThreshold", "spark.sql.ansi.enabled", "spark.sql.errs.custom"):
            conf.unset(key)
        conf.set("spark.sql.session.timeZone", "UTC")
    return answers


def test_conf_answers_as_pyspark(spark: Any, one: Any) -> None:
    theirs = _conf_calls(spark.conf)
    ours = _conf_calls(one.conf)
    assert ours == theirs
    assert one.broadcast_threshold == 10 * 1024 * 1024 and one.ansi is True


def _catalog_calls(session: Any, df: Any) -> list[Any]:
    catalog = session.catalog
    df.createOrReplaceTempView("errs_view")
    answers = [catalog.currentDatabase(), catalog.currentCatalog(),
               # (listDatabases runs a Spark job of 10 s: getDatabase answers alike, cheaply)
               tuple(catalog.getDatabase("default"))[:3],
               catalog.databaseExists("default"), catalog.databaseExists("errs_none"),
               [t for t in catalog.listTables() if t.name == "errs_view"],
               catalog.tableExists("errs_view"), catalog.tableExists("errs_none"),
               catalog.getTable("errs_view"), catalog.listColumns("errs_view"), catalog.isCached("errs_view")]
    catalog.cacheTable("errs_view")
    answers.append(catalog.isCached("errs_view"))
    catalog.uncacheTable("errs_view")
    answers.append(catalog.isCached("errs_view"))
    catalog.cacheTable("errs_view")
    catalog.clearCache()
    answers += [catalog.isCached("errs_view"), catalog.dropTempView("errs_view"),
                catalog.dropTempView("errs_view"), catalog.dropGlobalTempView("errs_none")]
    return answers


def test_catalog_answers_as_pyspark(spark: Any, one: Any) -> None:
    theirs = _catalog_calls(spark, spark.createDataFrame(ROWS))
    ours = _catalog_calls(one, one.createDataFrame(ROWS))
    assert [tuple(t) if isinstance(t, tuple) else t for t in ours] == \
        [tuple(t) if isinstance(t, tuple) else t for t in theirs]


def test_create_table_over_parquet(tmp_path: Path, one: Any) -> None:
    """A Parquet table reads the files, in SQL and by ``table``, listed as Spark lists an
    external table; a managed one is refused; refreshing sees files added."""
    pq.write_table(ROWS, tmp_path / "a.parquet")
    catalog = one.catalog
    try:
        assert catalog.createTable("errs_ext", path=str(tmp_path)).toArrow().equals(ROWS)
        assert catalog.getTable("errs_ext") == ("errs_ext", "spark_catalog", ["default"], None, "EXTERNAL", False)
        assert catalog.dropTempView("errs_ext") is False
        with pytest.raises(AnalysisError, match="already exists"):
            catalog.createTable("errs_ext", path=str(tmp_path))
        with pytest.raises(AnalysisError, match="managed table"):
            catalog.createTable("errs_managed")
        pq.write_table(ROWS, tmp_path / "b.parquet")
        catalog.refreshTable("errs_ext")
        assert one.sql("SELECT count(*) AS n FROM errs_ext").toArrow().column(0).to_pylist() == [4]
        assert one.table("errs_ext").count() == 4
    finally:
        one.drop_view("errs_ext")
