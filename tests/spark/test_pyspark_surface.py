"""The PySpark details users see, against real PySpark on the same data: ``df.schema`` as a
``StructType`` (equal, printed, serialized, nullability as Spark reports it, usable in
``createDataFrame``), ``printSchema``, column names in backticks, the Arrow names of nested
types in ``toArrow()``, and ``show()``'s text, character for character."""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import io
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

from tests.spark.compare import assert_same, pyspark_api, sparkwire_api

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

NUMBERS = pa.table({
    "i": pa.array([1, None, -300], pa.int32()),
    "l": pa.array([12345678901, 0, None], pa.int64()),
    "f": pa.array([1.5, 0.1, 3.4028235e38], pa.float32()),
    "d": pa.array([0.001, 1e-4, float("nan")], pa.float64()),
    "e": pa.array([9999999.0, 1e7, 1.2345678901234567e-10], pa.float64()),
    "inf": pa.array([float("inf"), float("-inf"), -0.0], pa.float64()),
    "dec": pa.array([decimal.Decimal("1.50"), None, decimal.Decimal("-0.05")], pa.decimal128(6, 2)),
})
TEXTS = pa.table({
    "s": pa.array(["a", None, "a much longer string than twenty chars"]),
    "wide": pa.array(["日本語", "é", "tab\there"]),
    "b": pa.array([True, False, None]),
    "day": pa.array([dt.date(2024, 2, 29), None, dt.date(1, 1, 1)]),
    "ts": pa.array([dt.datetime(2024, 1, 2, 3, 4, 5, 123000), dt.datetime(2024, 1, 2, 3, 4, 5), None],
                   pa.timestamp("us", tz="UTC")),
    "ntz": pa.array([dt.datetime(2024, 1, 2, 3, 4, 5, 120), None, dt.datetime(2024, 1, 2)], pa.timestamp("us")),
    "bin": pa.array([b"ab", None, b"\x00\xff"]),
})
NESTED = pa.table({
    "arr": pa.array([[1, None, 3], [], None], pa.list_(pa.int64())),
    "m": pa.array([[("a", 1), ("b", None)], [], None], pa.map_(pa.string(), pa.int64())),
    "st": pa.array([{"x": 1, "y": "q"}, None, {"x": None, "y": None}],
                   pa.struct([("x", pa.int64()), ("y", pa.string())])),
    "nest": pa.array([[{"k": [1.5], "t": True}], None, [None]],
                     pa.list_(pa.struct([("k", pa.list_(pa.float64())), ("t", pa.bool_())]))),
})
# a column declared not null, as Spark keeps it from an Arrow table
KEYED = pa.Table.from_arrays(
    [pa.array([1, 2, 2], pa.int64()), pa.array([1, None, 3], pa.int32()), pa.array(["x", None, "y"])],
    schema=pa.schema([pa.field("id", pa.int64(), nullable=False), ("i", pa.int32()), ("s", pa.string())]),
)
DOTTED = pa.table({"a.b": [1, 2, 2], "a b": [10, 20, 30], "c": ["x", "y", "z"]})


def _printed(action: Callable[[], None]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        action()
    return out.getvalue()


@pytest.fixture(scope="module")
def one(sessions: list[Any]) -> Any:
    """The one-worker session: ``show()`` prints the first rows in the order of the data."""
    return sessions[0]


def test_show_prints_what_pyspark_prints(spark, one) -> None:
    table = pa.Table.from_arrays([*NUMBERS.columns, *TEXTS.columns, *NESTED.columns],
                                 names=NUMBERS.column_names + TEXTS.column_names + NESTED.column_names)
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    theirs, ours = spark.createDataFrame(table), one.createDataFrame(table)
    for args in [{}, {"truncate": False}, {"n": 1, "truncate": 5}, {"n": 2, "truncate": 3, "vertical": True},
                 {"n": 0, "vertical": True}]:
        assert _printed(lambda: ours.show(**args)) == _printed(lambda: theirs.show(**args)), args


def _schemas(api, df):
    """Frames whose schemas exercise each nullability rule."""
    F, W = api.F, api.Window
    by_id = W.orderBy("id")
    return {
        "table": df,
        "select": df.select(
            F.lit(1).alias("one"), F.lit(None).cast("int").alias("none"), (F.col("id") + 1).alias("id1"),
            (F.col("id") / 2).alias("half"), F.col("id").cast("string").alias("text"),
            F.col("i").isNull().alias("missing"), F.coalesce("i", F.lit(0)).alias("filled"),
            F.array(F.lit(1), F.col("id")).alias("arr"), F.struct(F.lit(1).alias("x"), "i").alias("st"),
            F.create_map(F.lit("k"), F.col("id")).alias("m"), F.split("s", ",").alias("parts"),
            F.upper("s").alias("up"), (F.col("id") > F.col("i")).alias("gt")),
        "aggregate": df.groupBy("s").agg(
            F.count("*").alias("n"), F.sum("id").alias("total"), F.collect_list("i").alias("all"),
            F.countDistinct("i").alias("kinds"), F.max("id").alias("top")),
        "window": df.select("id", F.row_number().over(by_id).alias("rn"), F.rank().over(by_id).alias("rk"),
                            F.lag("id").over(by_id).alias("before")),
        "left join": df.select("id").join(df.select(F.col("id").alias("r")), F.col("id") == F.col("r"), "left"),
        "rollup": df.rollup("id").count(),
        "union": df.select("id").union(df.select(F.col("i").cast("bigint"))),
        "explode": df.select("id", F.explode(F.array("id", "id")).alias("e")),
    }


def test_schema_is_pysparks_struct_type(spark, one) -> None:
    theirs = _schemas(pyspark_api(), spark.createDataFrame(KEYED))
    ours = _schemas(sparkwire_api(), one.createDataFrame(KEYED))
    for name, df in ours.items():
        want = theirs[name].schema
        assert df.schema == want, name
        assert (df.schema.json(), repr(df.schema), df.schema.simpleString()) == \
               (want.json(), repr(want), want.simpleString()), name
        assert _printed(df.printSchema) == _printed(theirs[name].printSchema), name
    assert ours["select"].schema != theirs["table"].schema
    # nullability is part of equality, as in PySpark
    flipped = theirs["table"].schema.fields[0]
    assert ours["table"].schema.fields[0] != type(flipped)(flipped.name, flipped.dataType, True)


def test_schema_round_trips_through_create_dataframe(spark, one) -> None:
    from sparkwire import types as T
    from sparkwire.planner.errors import AnalysisError

    rows = [(1, "a", [1, 2]), (2, None, None)]
    schema = T.StructType([T.StructField("id", T.LongType(), False), T.StructField("s", T.StringType()),
                           T.StructField("xs", T.ArrayType(T.IntegerType()))])
    ours = one.createDataFrame(rows, schema)
    # Spark keeps an Arrow table's not-null column as it keeps a schema's
    declared = pa.schema([pa.field("id", pa.int64(), nullable=False), ("s", pa.string()),
                          ("xs", pa.list_(pa.int32()))])
    table = pa.Table.from_pylist([dict(zip(schema.names, r)) for r in rows], declared)
    # ours on the left: PySpark's __eq__ is False for any object not of its classes
    assert ours.schema == spark.createDataFrame(table).schema and ours.schema == schema
    again = one.createDataFrame(rows, ours.schema)
    assert again.schema == schema and [tuple(r) for r in again.collect()] == rows
    assert ours.arrow_schema == ours.toArrow().schema  # the Arrow schema, one call away
    with pytest.raises(AnalysisError, match="not nullable"):
        one.createDataFrame([(None, "a", None)], schema)


def test_backticks_name_columns_as_in_pyspark(spark, sessions) -> None:
    def program(api, df):
        F = api.F
        return df.select("`a.b`", F.col("`a b`"), df["`a.b`"].alias("again"), (F.col("`a.b`") + 1).alias("q.r"))

    assert_same(program, [DOTTED], spark, sessions)
    theirs, ours = spark.createDataFrame(DOTTED), sessions[0].createDataFrame(DOTTED)
    for df in (theirs, ours):
        assert df.groupBy("`a.b`").count().orderBy("`a.b`").columns == ["a.b", "count"]
        # withColumnRenamed and drop take a name as it is: a quoted one matches nothing
        assert df.withColumnRenamed("a.b", "x").withColumnRenamed("`a b`", "y").drop("`c`").columns \
            == ["x", "a b", "c"]

    def sql(api, df):
        df.createOrReplaceTempView("dotted")
        run = df.sparkSession.sql if hasattr(df, "sparkSession") else df._executor.sql
        return run("SELECT `a.b` AS `x y`, sum(`a b`) + 1 FROM dotted WHERE `a.b` > 0 GROUP BY `a.b`")

    assert_same(sql, [DOTTED], spark, sessions)


def _names(t: pa.DataType) -> Any:
    """A nested type's field names, all the way down."""
    if pa.types.is_list(t):
        return ["list", t.value_field.name, _names(t.value_type)]
    if pa.types.is_map(t):
        return ["map", t.key_field.name, t.item_field.name, _names(t.item_type)]
    if pa.types.is_struct(t):
        return ["struct", *[(f.name, _names(f.type)) for f in t]]
    return str(t)


def test_to_arrow_names_nested_fields_as_spark(spark, one) -> None:
    def program(api, df):
        F = api.F
        return df.select("arr", "m", "nest", F.array("st").alias("sts"), F.collect_list("arr").over(
            api.Window.partitionBy(F.lit(1))).alias("lists"), F.split(F.lit("a,b"), ",").alias("parts"))

    theirs = program(pyspark_api(), spark.createDataFrame(NESTED)).toArrow().schema
    ours = program(sparkwire_api(), one.createDataFrame(NESTED)).toArrow().schema
    assert [(f.name, _names(f.type)) for f in ours] == [(f.name, _names(f.type)) for f in theirs]
