"""Issue 35's DataFrame and Column methods and its known bugs, against real PySpark:
``toDF``, ``to(schema)``, ``withColumns``, ``withColumnsRenamed``, ``localCheckpoint``, ``hint`` and
``F.broadcast``, ``isStreaming``, ``df.stat``, SQL without FROM, with parameters and formatted,
``Window`` bounds as constants and infinities, IntEnum and nested ``Row`` values,
self-joins on one DataFrame's column, a function over a window expression and ``drop`` of
every column. Names, types and values are PySpark's (``compare.py``), on 1 and 3 workers.
"""

from __future__ import annotations

import datetime as dt
import decimal
import enum

import pyarrow as pa
import pytest

from sparkwire.planner.errors import AnalysisError
from tests.spark.compare import _assert_rows, assert_same, normalize

pytestmark = [pytest.mark.slow, pytest.mark.connect]  # its programs also run through Spark Connect (compare.Remote)

NAN = float("nan")
DATA = pa.table({
    "id": pa.array(range(1, 9), pa.int64()),
    "k": pa.array(["a", "b", "a", None, "", "b", "a", None], pa.string()),
    "i": pa.array([1, 2, None, 4, 4, -3, 0, 2], pa.int32()),
    "x": pa.array([0.5, 1e8, None, -2.25, -0.0, 3.0, NAN, 2.0], pa.float64()),
    "d": pa.array([dt.date(2024, 2, 29), None, dt.date(1970, 1, 1), dt.date(2024, 2, 29),
                   dt.date(1999, 12, 31), None, dt.date(2023, 1, 31), dt.date(2024, 3, 1)]),
})


class Grade(enum.IntEnum):
    HIGH = 3


def test_renames_checkpoints_and_hints(spark, sessions) -> None:
    def program(api, df):
        F = api.F
        renamed = (df.toDF("n", "key", "v", "y", "day")
                   .withColumnsRenamed({"v": "w", "W": "v2", "absent": "q", "Y": "why"})
                   .withColumns({"v3": F.col("v2") + Grade.HIGH, "N": F.col("n") * 10,
                                 "g": F.lit(Grade.HIGH)}))
        assert not renamed.isStreaming
        kept = renamed.hint("shuffle_merge").localCheckpoint()
        T = api.T  # to(schema): reordered, matched in any case, cast, a column dropped
        schema = T.StructType([T.StructField("K", T.StringType()), T.StructField("ID", T.LongType()),
                               T.StructField("I", T.DoubleType()), T.StructField("d", T.TimestampType()),
                               T.StructField("x", T.StringType()), T.StructField("absent", T.DateType())])
        keys = (df.filter(F.col("id") < 5).to(schema)
                .select(F.col("ID").alias("n"), F.col("K").alias("k2"), "I", "d", "x", "absent"))
        return kept.join(F.broadcast(keys), "n", "left").join(keys.hint("broadcast"), "n")

    assert_same(program, [DATA], spark, sessions)


def test_self_joins_on_one_frames_column(spark, sessions) -> None:
    """Spark resolves ``df.a == df.a`` (and through a filter) as left = right; ``toDF``
    names the six columns apart so each is compared."""
    names = ["id1", "k1", "i1", "x1", "d1", "id2", "k2", "i2", "x2", "d2"]

    def program(api, df):
        F = api.F
        later = df.filter(F.col("i") > 0)
        same = df.join(df, df.i == df.i).toDF(*names)
        derived = df.join(later, later.i == df.i, "left").toDF(*names)
        null_safe = df.join(df, df.k.eqNullSafe(df.k)).toDF(*names)
        return same.union(derived).union(null_safe).select("id1", "i1", "id2", "i2")

    assert_same(program, [DATA], spark, sessions)
    theirs = spark.createDataFrame(DATA)
    with pytest.raises(Exception, match="ambiguous"):
        theirs.join(theirs.filter("i > 0"), theirs.i > theirs.filter("i > 0").i).collect()
    ours = sessions[0].createDataFrame(DATA)
    with pytest.raises(AnalysisError, match="ambiguous"):
        later = ours.filter("i > 0")
        ours.join(later, ours.i > later.i)


def test_window_bounds_and_functions_over_windows(spark, sessions) -> None:
    def program(api, df):
        F, W = api.F, api.Window
        ordered = W.partitionBy("k").orderBy("id")
        return df.select(
            "id",
            F.sum("i").over(ordered.rowsBetween(float("-inf"), float("inf"))).alias("all"),
            F.sum("i").over(ordered.rowsBetween(W.unboundedPreceding, W.currentRow)).alias("run"),
            F.sum("i").over(ordered.rowsBetween(-1, W.unboundedFollowing)).alias("rest"),
            F.max("i").over(ordered.rangeBetween(float("-inf"), 0)).alias("top"),
            F.size(F.collect_list("i").over(ordered)).alias("seen"),
            (F.count("x").over(W.partitionBy("k")) + 1).alias("n"),
        )

    assert_same(program, [DATA], spark, sessions)
    theirs = spark.createDataFrame(DATA)
    from pyspark.sql import Window as SparkWindow
    from pyspark.sql import functions as SF

    with pytest.raises(Exception, match="INVALID_BOUNDARY"):
        theirs.select(SF.sum("i").over(SparkWindow.orderBy("id").rowsBetween(-(1 << 40), 0))).collect()
    from sparkwire import Window, functions as F

    with pytest.raises(AnalysisError, match="beyond"):
        sessions[0].createDataFrame(DATA).select(F.sum("i").over(Window.orderBy("id").rowsBetween(-(1 << 40), 0)))


def test_drop_of_every_column_keeps_the_rows(spark, sessions) -> None:
    assert_same(lambda api, df: df.drop("id", "k", "i", "x", "d"), [DATA], spark, sessions)
    assert_same(lambda api, df: df.drop(*df.columns).withColumn("one", api.F.lit(1)),
                [DATA], spark, sessions)
    assert sessions[1].createDataFrame(DATA).drop(*DATA.column_names).count() == DATA.num_rows


def _run_sql(text, args=None, **values):
    """A program running ``text`` over its frame as the view ``t``; ``values``, what the text
    is formatted with, each a value or a function of (api, frame) giving one (frames and
    columns are each engine's own)."""
    def program(api, df):
        df.createOrReplaceTempView("t")
        run = df.sparkSession.sql if hasattr(df, "sparkSession") else df._executor.sql
        return run(text, args=args, **{k: v(api, df) if callable(v) else v for k, v in values.items()})

    return program


def test_sql_without_from_and_with_parameters(spark, sessions) -> None:
    assert_same(_run_sql("SELECT 1 AS x, 'a', 1.5, 1e3, current_date() = current_date() AS today, "
                         "NULL AS nothing"), [DATA], spark, sessions)
    assert_same(_run_sql("SELECT count(*) AS n, 2 * 3 AS six UNION ALL SELECT 5, 1 WHERE 1 = 2"),
                [DATA], spark, sessions)
    named = {"key": "a", "low": 0, "ratio": 0.5, "day": dt.date(2024, 2, 29), "cents": decimal.Decimal("1.25"),
             "flag": True, "unused": 9, "quote": "it's"}
    assert_same(_run_sql("SELECT id, :ratio * i AS r, :day AS day, :cents AS cents, :flag AS flag, :quote, "
                         ":low FROM t WHERE k = :key OR i > :low", named), [DATA], spark, sessions)
    assert_same(_run_sql("SELECT id, ?, ? AS s FROM t WHERE i >= ? ORDER BY id", [7, "x", 2]),
                [DATA], spark, sessions)


def test_sql_formatted_with_frames_columns_and_values(spark, sessions) -> None:
    """``spark.sql(text, **kwargs)``: a frame is read as a view of that query, a plain column
    by its name, a string as a quoted literal, anything else as ``str.format`` writes it;
    with ``args`` bound too. Without kwargs the braces stay (PySpark formats nothing)."""
    assert_same(_run_sql("SELECT {df.id}, {c}, {n} AS n, {s} AS s, {v:.1f} AS v, '{{x}}' AS braces "
                         "FROM {df} WHERE id IN (SELECT id FROM {small}) OR k <> {s} AND i > :low", {"low": 1},
                         df=lambda api, df: df, small=lambda api, df: df.filter("i < 3"),
                         c=lambda api, df: api.F.col("k"), n=2, s="it's \\ 'quoted'", v=2.25),
                [DATA], spark, sessions)
    assert_same(_run_sql("SELECT '{x}' AS kept, id FROM t WHERE id = ?", [3]), [DATA], spark, sessions)


def test_sql_formats_only_plain_column_references(spark, local_sessions) -> None:
    from pyspark.errors import PySparkValueError
    from pyspark.sql import functions as SF

    from sparkwire import functions as F

    with pytest.raises(PySparkValueError) as theirs:
        spark.sql("SELECT {c} FROM {df}", c=SF.col("id") + 1, df=spark.createDataFrame(DATA))
    for session in local_sessions:
        df = session.createDataFrame(DATA)
        with pytest.raises(PySparkValueError) as ours:
            session.sql("SELECT {c} FROM {df}", c=F.col("id") + 1, df=df)
        assert ours.value.getCondition() == theirs.value.getCondition()
        assert session.sql("SELECT {c} FROM {df}", c=df.k, df=df).count() == DATA.num_rows
        assert not [name for name in session.views if name.startswith("_pyspark")], "views of one query only"


def test_stat_functions(spark, sessions) -> None:
    theirs = spark.createDataFrame(DATA)
    def numbers(df):
        return (df.approxQuantile("x", [0.0, 0.25, 0.5, 1.0], 0.0),
                df.stat.approxQuantile(["i", "id"], [0.1, 0.5], 0.0),
                df.corr("i", "x"), df.stat.cov("id", "i"))

    want = numbers(theirs)
    for n, session in enumerate(sessions):
        got = numbers(session.createDataFrame(DATA))
        _assert_rows([got], [want], ordered=True, rel=1e-9, where=f"engine {n} ({type(session).__name__})")

    def tables(api, df):
        F = api.F
        sampled = df.sampleBy("k", {"a": 1.0, "b": 0.0}, 7).select("id").withColumn("src", F.lit("s"))
        items = df.freqItems(["i", "k"], 0.2)
        return (df.crosstab("k", "i").crossJoin(
            items.select(F.sort_array("i_freqItems").alias("fi"), F.sort_array("k_freqItems").alias("fk")))
            .crossJoin(sampled.groupBy().agg(F.sort_array(F.collect_list("id")).alias("ids"))))

    assert_same(tables, [DATA], spark, sessions)


def test_literals_of_enums_and_nested_rows(spark, local_sessions) -> None:
    from pyspark.sql import Row as SparkRow
    from pyspark.sql import functions as SF

    from sparkwire.types import Row

    def rows(row):
        return [row(a=1, s=row(p=1, q="x"), l=[row(p=2, q="y")]),
                row(a=2, s=row(p=3, q=None), l=[row(p=4, q=None)]),
                row(a=3, s=None, l=None)]

    def frame(df, F):
        return df.select("a", "s", "l", F.col("s.q"), F.col("l")[0]["p"].alias("p0"),
                         (F.col("a") * Grade.HIGH).alias("m"), F.lit(Grade.HIGH))

    expected = frame(spark.createDataFrame(rows(SparkRow)), SF)
    want_types = [(f.name, f.dataType.simpleString()) for f in expected.schema.fields]
    want = [normalize(r.asDict(recursive=True), want_types) for r in expected.collect()]
    from sparkwire import functions as F

    for session in local_sessions:
        ours = frame(session.createDataFrame(rows(Row)), F)
        assert ours.dtypes == want_types
        got = [normalize(r, want_types) for r in ours.toArrow().to_pylist()]
        _assert_rows(got, want, ordered=False, rel=0, where=f"{session.settings.workers} worker(s)")


def test_broadcast_hint_steers_the_join_strategy(sessions) -> None:
    """No PySpark needed: the plan says which side is broadcast and why."""
    from sparkwire import Session, functions as F

    with Session(workers=2, broadcast_threshold=0) as session:
        big, small = session.range(100), session.range(10)
        assert "broadcast right (a broadcast hint)" in big.join(F.broadcast(small), "id").explain_string()
        assert "broadcast left (a broadcast hint)" in big.hint("mapjoin").join(small, "id", "right").explain_string()
        # a full join emits both sides' unmatched rows: the hint cannot be followed
        full = big.join(small.hint("broadcast"), "id", "full")
        assert "shuffle both sides" in full.explain_string()
        assert full.count() == 100
        assert "shuffle both sides" in big.join(small, "id").explain_string()


def test_to_a_schema_fails_where_pyspark_does(spark, sessions) -> None:
    """A missing column the schema says is never NULL, a string into an int and a nullable
    column into a field never NULL fail in both, before anything runs (a missing nullable
    one is NULL: in the program above)."""
    from pyspark.errors import AnalysisException
    from pyspark.sql import types as PT

    from sparkwire import types as T

    cases = [(["id"], "missing", "long"), (["k"], "k", "int"), (["i"], "i", "int")]
    for (_, name, kind), nullable in zip(cases, (False, True, False), strict=True):
        for types, frame, error in ((PT, spark.createDataFrame(DATA), AnalysisException),
                                    (T, sessions[0].createDataFrame(DATA), AnalysisError)):
            atomic = types.LongType() if kind == "long" else types.IntegerType()
            with pytest.raises(error):
                frame.to(types.StructType([types.StructField(name, atomic, nullable)])).schema
