"""``session.read.csv`` / ``.json`` and ``df.write.parquet`` against real PySpark: the same
files read by both give the same names, types and rows; what sparkwire writes, PySpark
reads back whole; the save modes and ``_SUCCESS`` behave as Spark's; and a worker with
data roots refuses to read or write outside them."""

from __future__ import annotations

import datetime as dt
import decimal
import os
from pathlib import Path

import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.planner.errors import AnalysisError
from sparkwire.transport.errors import SparkwireError
from tests.spark.compare import _assert_rows, normalize

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

CSV = (
    "id,name,score,day,flag,big,at\n"
    "1,ann,1.5,2024-02-29,true,1,2024-02-29 23:59:59\n"
    "2,,,2024-01-31,false,3000000000,2024-01-01T10:00:00.125\n"
    "-3,\"quoted, comma\",-0.25,,TRUE,,\n"
    ",\"esc \\\"q\\\"\",NaN,1999-12-31,,0,1999-12-31\n"
    "0,zed,1e3,2023-12-31,false,-7,2023-12-31 00:00\n"
)
JSON = (
    '{"b": 1, "a": "x", "c": true}\n'
    '{"b": 2.5, "d": null}\n'
    '\n'
    '{"a": "", "b": -3, "c": false, "e": 12}\n'
    '{"a": null, "e": 9007199254740993}\n'
)

# Objects and arrays at every depth; fields in no particular order; a struct only ever empty
# (dropped), an array only ever empty (strings); mixes that widen (bigint and double) and
# that become strings (written compactly: a non-string read as a string is its JSON text).
NESTED = (
    '{"id": 1, "s": {"z": 1, "a": "x", "m": [1, 2]}, "arr": [1, 2.5, null], "mix": 1, '
    '"objs": [{"b": 1}, {"a": "q", "b": null}], "e": [], "big": 123456789012345678901234, "es": {}}\n'
    '{"id": 2, "s": {"a": null, "n": {"y": true}}, "arr": null, "mix": "text", "objs": [], "e": [], '
    '"big": 1, "ms": 2.5}\n'
    '{"id": 3, "s": null, "arr": [3], "mix": {"k":[1,"2"]}, "objs": [{"c": [1.5]}], "big": null, '
    '"ms": {"a":[true,null]}}\n'
    '\n'
    '{"id": 4, "mix": [1,2], "ms": "x", "s": {"z": 2.5}, "deep": [[{"q": [[1]]}], null, []]}\n'
    '{"id": null, "deep": [[{"q": [[2, 3.5]], "r": false}]], "es": {}}\n'
)


def _expected(theirs) -> tuple[list[tuple[str, str]], list[tuple]]:
    types = [(f.name, f.dataType.simpleString()) for f in theirs.schema.fields]
    return types, [normalize(r.asDict(recursive=True), types) for r in theirs.collect()]


def _same(ours, expected) -> None:
    want_types, want = expected
    assert ours.dtypes == want_types
    got = [normalize(r, want_types) for r in ours.toArrow().to_pylist()]
    _assert_rows(got, want, ordered=False, rel=1e-12, where="files")


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "csv").mkdir()
    (tmp_path / "csv" / "a.csv").write_text(CSV)
    (tmp_path / "csv" / "b.csv").write_text(CSV.replace("ann", "bob").replace("1.5", "2.5"))
    (tmp_path / "csv" / "_ignored.csv").write_text("not,data\n")
    (tmp_path / "semi.csv").write_text("x;y\n1;a\n2;b\n")
    (tmp_path / "j.json").write_text(JSON)
    (tmp_path / "nested.json").write_text(NESTED)
    (tmp_path / "multi").mkdir()
    (tmp_path / "multi" / "one.json").write_text('{\n  "a": 1,\n  "b": {"c": [1,\n 2]}\n}\n')
    (tmp_path / "multi" / "many.json").write_text('[\n {"a": 2.5},\n {"b": {"c": [3], "d": "x"}}\n]\n')
    return tmp_path


@pytest.mark.slow
def test_reads_match_pyspark(spark, sessions, files: Path) -> None:
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    csv_dir, one = str(files / "csv"), str(files / "csv" / "a.csv")
    cases = [
        lambda r: r.csv(csv_dir, header=True, inferSchema=True),
        lambda r: r.csv(one, header=True),
        lambda r: r.csv(one),
        lambda r: r.csv(one, inferSchema=True),
        lambda r: r.csv(one, header=True, schema="id bigint, name string, score double, day date, "
                                                   "flag boolean, big decimal(12,0), at timestamp"),
        lambda r: r.csv(str(files / "semi.csv"), sep=";", header="true", inferSchema="true"),
        lambda r: r.json(str(files / "j.json")),
        lambda r: r.json(str(files / "j.json"), schema="a string, b double, e bigint"),
        lambda r: r.json(str(files / "nested.json")),
        lambda r: r.json(str(files / "nested.json"),
                         schema="s struct<z:double,a:string>, id string, arr array<string>, nope int"),
        lambda r: r.json(str(files / "multi"), multiLine=True),
        lambda r: r.json(str(files / "multi" / "one.json"), multiLine="true"),
    ]
    expected = [_expected(case(spark.read)) for case in cases]
    for session in sessions:
        for n, (case, want) in enumerate(zip(cases, expected)):
            try:
                _same(case(session.read), want)
            except AssertionError as exc:
                raise AssertionError(f"case {n}: {exc}") from None


DATA = pa.table({
    "k": pa.array(["a", None, "", "b"] * 25, pa.string()),
    "v": pa.array([1, -2, None, 0] * 25, pa.int32()),
    "x": pa.array([0.5, float("nan"), None, -1e300] * 25, pa.float64()),
    "d": pa.array([decimal.Decimal("1.10"), None, decimal.Decimal("-0.01"), decimal.Decimal("0")] * 25,
                  pa.decimal128(9, 2)),
    "day": pa.array([dt.date(2024, 2, 29), dt.date(1970, 1, 1), None, dt.date(2023, 12, 31)] * 25),
})


@pytest.mark.slow
def test_written_parquet_reads_back_in_pyspark(spark, local_sessions, tmp_path: Path) -> None:
    source = spark.createDataFrame(DATA)
    want = _expected(source)
    for session in local_sessions:
        out = tmp_path / f"out{session.workers}"
        df = session.createDataFrame(DATA).repartition(3)
        df.write.parquet(str(out))
        parts = sorted(p.name for p in out.iterdir() if p.name.startswith("part-"))
        assert (out / "_SUCCESS").exists()
        assert len(parts) == 3  # one file per task of the final stage
        assert not [p for p in out.iterdir() if p.name.startswith(".")]
        _same(session.read.parquet(str(out)), want)
        back = spark.read.parquet(str(out))
        assert _expected(back)[0] == want[0]
        _assert_rows(sorted(_expected(back)[1], key=repr), sorted(want[1], key=repr),
                     ordered=True, rel=0, where="PySpark reading sparkwire's files")

        with pytest.raises(AnalysisError, match="already exists"):
            df.write.parquet(str(out))
        df.limit(3).write.mode("ignore").parquet(str(out))
        assert session.read.parquet(str(out)).count() == 100
        df.limit(3).write.parquet(str(out), mode="append")
        assert session.read.parquet(str(out)).count() == 103
        df.limit(3).write.mode("overwrite").parquet(str(out))
        assert session.read.parquet(str(out)).count() == 3
        assert (out / "_SUCCESS").exists()


def test_a_failed_write_leaves_no_directory(sessions, tmp_path: Path) -> None:
    session = sessions[0]
    df = session.createDataFrame(pa.table({"a": pa.array(["1", "x"])}))
    bad = df.select(df["a"].cast("int").alias("n"))  # 'x' fails the task
    target = tmp_path / "failed"
    with pytest.raises(SparkwireError):
        bad.write.parquet(str(target))
    assert not target.exists()


def test_reads_and_writes_outside_the_data_roots_are_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "t.csv").write_text("a\n1\n")
    (outside / "t.json").write_text('{"a": 1}\n')
    (root / "t.csv").write_text("a\n1\n")
    (root / "link").symlink_to(outside, target_is_directory=True)
    with Session(workers=1, worker={"engine": {"data_roots": [str(root)]}}) as session:
        assert session.read.csv(str(root / "t.csv"), header=True).count() == 1
        for df in (session.read.csv(str(outside / "t.csv"), header=True),
                   session.read.json(str(outside / "t.json")),
                   session.read.csv(str(root / "link" / "t.csv"), header=True)):
            with pytest.raises(SparkwireError, match="outside the worker's data roots"):
                df.collect()
        rows = session.range(3)
        for target in (outside / "w", root / "link" / "w", root / ".." / "outside" / "w2"):
            with pytest.raises(SparkwireError, match="outside the worker's data roots"):
                rows.write.parquet(str(target))
            assert not target.exists()
        with pytest.raises(SparkwireError, match="outside the worker's data roots"):
            session.range(3).selectExpr("id", "id % 2 AS k").write.partitionBy("k").parquet(str(outside / "p"))
        assert not (outside / "p").exists()
        (outside / "hive" / "k=1").mkdir(parents=True)
        session.range(3).write.parquet(str(root / "hive" / "k=1"))
        os.replace(root / "hive" / "k=1", outside / "hive" / "k=2")
        with pytest.raises(SparkwireError, match="outside the worker's data roots"):
            session.read.parquet(str(outside / "hive")).collect()
        rows.write.parquet(str(root / "ok"))
        assert (root / "ok" / "_SUCCESS").exists()
    assert sorted(os.listdir(outside)) == ["hive", "t.csv", "t.json"]


def test_read_errors(sessions, files: Path) -> None:
    read = sessions[0].read
    with pytest.raises(AnalysisError, match="does not exist"):
        read.csv(str(files / "missing.csv"))
    with pytest.raises(AnalysisError, match="sep"):
        read.csv(str(files / "semi.csv"), sep="\n")
    with pytest.raises(AnalysisError, match="one.json line 1 is not one JSON value"):
        read.json(str(files / "multi" / "one.json"))
    (files / "scalar.json").write_text('{"a": 1}\n[1]\n')
    with pytest.raises(AnalysisError, match="line 2 is not a JSON object"):
        read.json(str(files / "scalar.json"))
    with pytest.raises(AnalysisError, match="is not one JSON value"):
        read.json(str(files / "nested.json"), multiLine=True)
    with pytest.raises(AnalysisError, match="DataFrameWriter.csv is not supported by sparkwire"):
        sessions[0].range(3).write.csv(str(files / "p"))
    with pytest.raises(AnalysisError, match="DataFrameReader.orc is not supported by sparkwire"):
        read.orc(str(files / "p"))


RANGES = [(5,), (2, 11, 3), (10, 0, -4), (-3, 3), (3, 3), (0, 5, -1), (0, 10, 1, 4), (7, -8, -2, 3),
          (0, 1000, 7, 6), (-(2**62), 2**62, 2**60, 3)]


@pytest.mark.slow
def test_range_matches_pyspark(spark, sessions) -> None:
    """Rows in order, ``id bigint``, and each task's slice the rows Spark puts in that
    partition (``glom``), for the same ``numPartitions``."""
    from sparkwire.planner.logical.ranges import range_source, task_slice

    for args in RANGES:
        theirs = spark.range(*args)
        want = _expected(theirs)
        for session in sessions:
            ours = session.range(*args)
            assert ours.dtypes == want[0] == [("id", "bigint")]
            assert [normalize(r, want[0]) for r in ours.toArrow().to_pylist()] == want[1], args
        if len(args) == 4:
            source = range_source(*args)
            slices = [task_slice(source, i, args[3]) for i in range(args[3])]
            assert [list(range(s.start, s.end, s.step)) for s in slices] == \
                [[r.id for r in part] for part in theirs.rdd.glom().collect()], args


def test_range_is_generated_by_the_workers(local_sessions) -> None:
    """A billion rows are a plan of four numbers, never rows on the driver."""
    from sparkwire.planner.logical.sources import RangeSource

    for session in local_sessions:
        df = session.range(10**9)
        assert isinstance(df._plan, RangeSource) and len(df._plan.model_dump_json()) < 200
        assert df.count() == 10**9
        assert session.range(0, 10**9, 1000, 7).selectExpr("sum(id)").collect()[0][0] == \
            sum(range(0, 10**9, 1000))


def test_range_errors(sessions) -> None:
    session = sessions[0]
    for args, message in [((1, 5, 0), "step must not be 0"), ((2**63,), "does not fit a bigint"),
                          ((1.5,), "must be an int"), ((0, 5, 1, 0), "numPartitions")]:
        with pytest.raises(AnalysisError, match=message):
            session.range(*args)


PARTITIONED = pa.table({
    "k": pa.array(["a", None, "", "b/c:d", "x y", "a=%"] * 5, pa.string()),
    "n": pa.array([1, None, 3000000000, -2, 1, 0] * 5, pa.int64()),
    "day": pa.array([dt.date(2024, 2, 29), None, dt.date(1999, 12, 31)] * 10),
    "v": pa.array(range(30), pa.int32()),
    "x": pa.array([0.5, None, -1.25] * 10, pa.float64()),
})


def _partition_dirs(root: Path) -> set[str]:
    return {str(p.parent.relative_to(root)) for p in root.rglob("*.parquet")}


@pytest.mark.slow
def test_partitioned_writes_match_pyspark(spark, local_sessions, tmp_path: Path) -> None:
    """Spark's directories (escaped names, ``__HIVE_DEFAULT_PARTITION__``) and, read back by
    either engine, Spark's partition column types and rows."""
    for keys in (["k", "n"], ["day"], ["n", "k", "day"]):
        theirs = tmp_path / f"spark-{'-'.join(keys)}"
        spark.createDataFrame(PARTITIONED).write.partitionBy(*keys).parquet(str(theirs))
        want = _expected(spark.read.parquet(str(theirs)))
        for session in local_sessions:
            ours = tmp_path / f"ours{session.workers}-{'-'.join(keys)}"
            session.createDataFrame(PARTITIONED).repartition(3).write.partitionBy(*keys).parquet(str(ours))
            assert (ours / "_SUCCESS").exists()
            assert _partition_dirs(ours) == _partition_dirs(theirs)
            _same(session.read.parquet(str(ours)), want)
            _same(session.read.parquet(str(theirs)), want)
            back = _expected(spark.read.parquet(str(ours)))
            assert back[0] == want[0]
            _assert_rows(back[1], want[1], ordered=False, rel=0, where="PySpark reading ours")


def test_partitioned_write_modes(local_sessions, tmp_path: Path) -> None:
    for session in local_sessions:
        out = tmp_path / f"modes{session.workers}"
        df = session.createDataFrame(PARTITIONED)
        df.write.partitionBy("k").parquet(str(out))
        with pytest.raises(AnalysisError, match="already exists"):
            df.write.partitionBy("k").parquet(str(out))
        df.limit(2).write.mode("ignore").partitionBy("k").parquet(str(out))
        assert session.read.parquet(str(out)).count() == 30
        df.limit(2).write.parquet(str(out), mode="append", partitionBy="k")
        assert session.read.parquet(str(out)).count() == 32
        df.where("k = 'a'").write.mode("overwrite").partitionBy(["k"]).parquet(str(out))
        assert _partition_dirs(out) == {"k=a"} and (out / "_SUCCESS").exists()
        assert sorted(r.v for r in session.read.parquet(str(out)).collect()) == list(range(0, 30, 6))

        failed = tmp_path / f"failed{session.workers}"
        bad = session.createDataFrame(pa.table({"k": ["a", "b"], "a": ["1", "x"]}))
        with pytest.raises(SparkwireError):
            bad.select("k", bad["a"].cast("int").alias("n")).write.partitionBy("k").parquet(str(failed))
        assert not failed.exists()
        with pytest.raises(SparkwireError):
            bad.select("k", bad["a"].cast("int").alias("n")).write.mode("append").partitionBy("k").parquet(str(out))
        assert _partition_dirs(out) == {"k=a"} and not [p for p in out.rglob(".*")]


def test_partitioned_write_errors(sessions, tmp_path: Path) -> None:
    df = sessions[0].createDataFrame(PARTITIONED.drop_columns(["x"]))
    with pytest.raises(AnalysisError, match="not supported by sparkwire"):
        sessions[0].createDataFrame(PARTITIONED).write.partitionBy("x").parquet(str(tmp_path / "e"))
    for keys, message in [(["nope"], "not one of"),
                          (["k", "K"], "distinct"), (["k", "n", "day", "v"], "at least one column")]:
        with pytest.raises(AnalysisError, match=message):
            df.write.partitionBy(*keys).parquet(str(tmp_path / "e"))
        assert not (tmp_path / "e").exists()
