"""PySpark programs, unchanged, through a Spark Connect client against sparkwire's server
(``sparkwire.connect``), compared with classic PySpark on the same data
(``compare.assert_same_remote``); all 22 TPC-H queries as SQL, and those written with the
DataFrame API (``benchmarks.queries.dataframes``), through the client against DuckDB;
an interrupt from the client; the errors a client sees.

One server (on a two-worker session) and one remote client for the module: the client is
made with the Spark Connect session's own builder, so this process's classic Spark session
(shared with the other Spark tests) stays classic.
"""

from __future__ import annotations

import datetime as dt
import decimal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchmarks.queries import QUERY_NAMES, sql_query
from benchmarks.queries.dataframes import QUERIES
from sparkwire.connect import ConnectServer, serve
from sparkwire.coordinator import Session
from sparkwire.coordinator.tpch import TPCH_TABLES, ensure_tpch
from tests.e2e.tpch import expected_answers, same
from tests.spark.compare import Api, active, assert_same_remote

PEOPLE = pa.table({
    "id": pa.array([1, 2, 3, 4, 5, 6], pa.int64()),
    "name": ["ann", "bob", None, "dan", "eve", "bob"],
    "dept": ["a", "b", "a", None, "b", "b"],
    "pay": [10.5, 20.0, None, 7.25, 20.0, 3.0],
    "born": [dt.date(1990, 1, 2), None, dt.date(1985, 5, 6), dt.date(2000, 12, 31),
             dt.date(1990, 1, 2), dt.date(1970, 7, 1)],
})
DEPTS = pa.table({"dept": ["a", "b", "c"], "floor": pa.array([1, 2, 3], pa.int32())})


@pytest.fixture(scope="module")
def server() -> Iterator[ConnectServer]:
    with Session(workers=2) as session, serve(session) as running:
        yield running
        running.close()  # and once more on leaving the block: closing twice is safe


@pytest.fixture(scope="module")
def remote(server: ConnectServer) -> Iterator[Any]:
    from pyspark.sql.connect.session import SparkSession as RemoteSession

    client = RemoteSession.builder.remote(server.address).create()
    yield client
    client.stop()


def _columns(api: Api, people: Any) -> Any:  # project, literals, cast, functions, filter, sort, offset, limit
    F = api.F
    return people.filter((F.col("pay") >= 5) | F.col("name").isNull()).select(
        "id", (F.col("pay") * 2 + 1).alias("twice"), F.upper(people.name).alias("up"),
        F.lit(7).cast("smallint").alias("small"), F.lit(decimal.Decimal("1.25")).alias("dec"),
        F.lit(dt.date(2024, 2, 29)).alias("day"), F.lit(None).cast("string").alias("nothing"),
        F.col("id").cast("string").alias("text"), (F.col("id") % 4 == 1).alias("odd"),
        F.when(F.col("pay") > 10, "high").when(F.col("pay").isNull(), "none").otherwise("low").alias("band"),
        F.coalesce(F.col("name"), F.lit("?")).alias("named"), F.col("dept").isin("a", "c").alias("ac"),
        F.year("born").alias("year"), F.concat_ws("-", "name", "dept").alias("joined"),
        (~F.col("name").startswith("b")).alias("not_b"), F.col("name").like("%n%").alias("has_n"),
    ).orderBy(F.col("twice").desc_nulls_last(), "id").offset(1).limit(3)


def _join_and_aggregate(api: Api, people: Any, depts: Any) -> Any:
    F = api.F
    return people.join(depts, "dept", "left").groupBy("dept", "floor").agg(
        F.count("*").alias("n"), F.sum("pay"), F.avg("pay").alias("mean"), F.max("born"))


def _joins_on_columns(api: Api, people: Any, depts: Any) -> Any:  # columns of a frame: plan ids
    on = people.dept == depts.dept
    matched = people.join(depts, on, "left").select(people.id, depts.floor)
    unmatched = people.join(depts, on, "left_anti").select("id", (api.F.col("id") * 10).alias("floor"))
    return matched.union(unmatched).union(matched).distinct()  # distinct: a deduplicate of all columns


def _set_operations(api: Api, people: Any) -> Any:  # and range, with/drop/rename/toDF
    F = api.F
    some, others = people.filter("id < 4").select("dept"), people.filter("id > 2").select("dept")
    shaped = (people.withColumns({"k": F.col("id") + 100}).drop("born", people.pay)
              .withColumnRenamed("name", "who").toDF("i", "w", "d", "k").select("w"))
    ids = people.sparkSession.range(3, 20, 4).select(F.col("id").cast("string").alias("dept"))
    return some.union(others).unionByName(shaped.toDF("dept")).union(ids).intersect(some.union(shaped))


#: SQL over temporary views runs through the client in the TPC-H test below.
PROGRAMS = [(_columns, 1), (_join_and_aggregate, 2), (_joins_on_columns, 2), (_set_operations, 1)]


@pytest.mark.parametrize(("program", "inputs"), PROGRAMS, ids=[p.__name__.strip("_") for p, _ in PROGRAMS])
def test_a_program_runs_unchanged_through_spark_connect(program: Any, inputs: int, spark: Any, remote: Any) -> None:
    assert_same_remote(program, [PEOPLE, DEPTS][:inputs], spark, remote, ordered=program is _columns)


def test_show_prints_what_pyspark_prints(spark: Any, remote: Any, capsys: pytest.CaptureFixture[str]) -> None:
    spark.createDataFrame(PEOPLE).orderBy("id").show(3)
    want = capsys.readouterr().out
    remote.createDataFrame(PEOPLE).orderBy("id").show(3)
    assert capsys.readouterr().out == want


def test_parquet_and_a_named_table(remote: Any, tmp_path: Path) -> None:
    pq.write_table(PEOPLE, tmp_path / "people.parquet")
    remote.read.parquet(str(tmp_path / "people.parquet")).createOrReplaceTempView("people_file")
    got = remote.table("people_file").filter("dept = 'b'").select("id", "born").collect()
    want = duckdb.sql(f"SELECT id, born FROM '{tmp_path / 'people.parquet'}' WHERE dept = 'b'").fetchall()
    assert sorted(tuple(row) for row in got) == sorted(want)


def test_config_get_set_and_schema_analysis(remote: Any) -> None:
    remote.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
    assert remote.conf.get("spark.sql.session.timeZone") == "Asia/Tokyo"
    remote.conf.set("spark.sql.session.timeZone", "UTC")
    df = remote.createDataFrame(PEOPLE).select("id", "born")
    assert df.columns == ["id", "born"]
    assert df.schema.simpleString() == "struct<id:bigint,born:date>"
    assert "Stage" in remote.createDataFrame(PEOPLE).groupBy("dept").count()._explain_string()  # noqa: SLF001


@pytest.fixture(scope="module")
def tpch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_tpch(0.01, tables=TPCH_TABLES, parts=1, root=tmp_path_factory.mktemp("tpch"))


@pytest.fixture(scope="module")
def expected(tpch: Path) -> dict[str, pa.Table]:
    return expected_answers(tpch)


def test_tpch_queries_through_the_client_match_duckdb(remote: Any, tpch: Path, expected: dict[str, pa.Table]) -> None:
    for table in TPCH_TABLES:
        remote.read.parquet(str(tpch / table)).createOrReplaceTempView(table)
    wrong = [name for name in QUERY_NAMES if not same(remote.sql(sql_query(name)).toArrow(), expected[name])]
    assert wrong == []
    assert len(QUERY_NAMES) == 22 and all(expected[name].num_rows > 0 for name in QUERY_NAMES)


def test_tpch_dataframe_queries_through_the_client_match_duckdb(remote: Any, tpch: Path,
                                                                expected: dict[str, pa.Table]) -> None:
    """The same query functions a sparkwire program calls, given the client's frames and
    PySpark's functions module: a PySpark program, unchanged, through the client."""
    from pyspark.sql.connect import functions
    from pyspark.sql.connect.dataframe import DataFrame as RemoteFrame

    tables = {table: remote.read.parquet(str(tpch / table)) for table in TPCH_TABLES}
    frames = {name: query(tables, functions) for name, query in QUERIES.items()}
    assert all(isinstance(df, RemoteFrame) for df in frames.values())
    wrong = [name for name, df in frames.items() if not same(df.toArrow(), expected[name])]
    assert wrong == []
    assert len(frames) == 8


def test_interrupt_all_from_the_client_stops_a_running_query(remote: Any) -> None:
    from pyspark.errors.exceptions.connect import SparkException

    slow = remote.range(0, 2_000_000_000).selectExpr("sum(id * id % 7) AS s")
    failure: list[BaseException] = []

    def run() -> None:
        try:
            slow.collect()
        except BaseException as e:  # noqa: BLE001 - what the client raised is the point
            failure.append(e)

    thread = threading.Thread(target=run)
    started = time.monotonic()
    thread.start()
    time.sleep(0.3)  # let the query reach the workers: the interrupt must cancel running tasks
    interrupted: list[str] = []
    while not interrupted and thread.is_alive() and time.monotonic() - started < 30:
        interrupted = remote.interruptAll()
        time.sleep(0.02)
    thread.join(30)
    assert interrupted and not thread.is_alive()
    assert len(failure) == 1 and isinstance(failure[0], SparkException)
    assert failure[0].getCondition() == "SPARK_JOB_CANCELLED"
    assert time.monotonic() - started < 20


def test_a_persisted_frame_is_kept_on_the_workers_until_unpersisted(server: ConnectServer, spark: Any,
                                                                   remote: Any) -> None:
    """The client sends a persisted frame again in each later plan; the server finds the frame
    it persisted (``kept``), so the workers' stores hold it, and ``unpersist`` frees them."""
    from pyspark import StorageLevel

    workers = server.service.session.cluster.workers
    theirs = spark.createDataFrame(PEOPLE).filter("pay > 5")
    ours = remote.createDataFrame(PEOPLE).filter("pay > 5").persist(StorageLevel.DISK_ONLY_2)
    assert ours.groupBy("dept").count().count() == theirs.groupBy("dept").count().count()
    assert sum(w.store.memory_bytes for w in workers) > 0
    assert str(ours.storageLevel) == str(theirs.persist(StorageLevel.DISK_ONLY_2).storageLevel)
    ours.unpersist(), theirs.unpersist()
    assert [w.store.memory_bytes for w in workers] == [0] * len(workers)
    assert str(ours.storageLevel) == str(theirs.storageLevel)


def test_an_unsupported_relation_names_itself_in_sparks_error_shape(remote: Any) -> None:
    from pyspark.errors.exceptions.connect import InvalidPlanInput

    with pytest.raises(InvalidPlanInput) as caught:
        remote.createDataFrame(PEOPLE).tail(2)
    assert caught.value.getCondition() == "CONNECT_INVALID_PLAN.INVALID_ONE_OF_FIELD_NOT_SUPPORTED"
    assert caught.value.getMessageParameters()["name"] == "tail"


def test_an_unknown_column_is_pysparks_analysis_exception(remote: Any) -> None:
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException) as caught:
        remote.createDataFrame(PEOPLE).select("nope").columns
    assert caught.value.getCondition().startswith("UNRESOLVED_COLUMN")


def test_the_server_refuses_an_address_other_machines_could_reach(server: ConnectServer) -> None:
    from sparkwire.transport.errors import ConfigError

    with pytest.raises(ConfigError, match="loopback"):
        serve(server.service.session, host="0.0.0.0")


def test_a_checkpoint_belongs_to_the_client_session_active_when_it_was_made(server: ConnectServer,
                                                                            remote: Any) -> None:
    """Why ``localCheckpoint`` then ``kept.join(kept, "id")`` once failed through the client
    with "no cached relation ... in this session": PySpark's client binds a checkpoint's
    result to ``SparkSession.active()`` (the first client session of the thread not yet
    stopped), not to the session that made it, so the frame's later plans go to that other
    session, which holds no such relation. ``compare.active`` makes the harness's client the
    active one while a program runs."""
    from pyspark.errors import PySparkException
    from pyspark.sql.connect.session import SparkSession as RemoteSession

    other = RemoteSession.builder.remote(server.address).create()
    try:
        with active(other):
            stray = remote.range(5).localCheckpoint()
        with pytest.raises(PySparkException, match="no cached relation"):
            stray.join(stray, "id").collect()
        with active(remote):
            kept = remote.range(5).localCheckpoint()
            assert sorted(row.id for row in kept.join(kept, "id").collect()) == list(range(5))
    finally:
        other.stop()
