"""Arrays, maps, structs and the explode family against real PySpark (``compare.py``),
on 1 and 3 workers: names, Spark types and values.

The data has NULL and empty collections, NULL elements, duplicates, empty strings,
negatives, zero and NaN; element lookups stay in bounds (out of bounds fails the query in
Spark with ANSI on, and here: see ``test_out_of_bounds_fails_like_spark``)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from tests.spark.compare import assert_same

# its programs pass through Spark Connect too (compare.Remote), at more than the CI budget allows
pytestmark = pytest.mark.connect

INTS = pa.list_(pa.int32())
DATA = pa.table({
    "k": ["a", "a", "b", None, "b", "c", "a", ""],
    "i": pa.array([1, 2, None, -4, 2, 0, 7, 1], pa.int32()),
    "x": [1.5, float("nan"), None, -2.0, 0.0, 3.25, 1.5, -0.5],
    "s": ["a,b,,c", "", None, "x", "a1b22c", ",,", "q,q,q", "a,b,"],
    "arr": pa.array([[3, 1, None, 3], [], None, [2, 2, 2], [5, -1], [None], [0, 7, 0], [1]], INTS),
})


def collections(api, df):
    F = api.F
    m = F.create_map(F.lit("a"), F.col("i"), F.lit("b"), F.col("x"))
    st = F.struct("i", F.col("s").alias("text"), F.lit(1))
    return df.select(
        "k",
        F.split("s", ",").alias("parts"),
        F.split("s", "[0-9]+", 2).alias("two"),
        F.split("s", ",", 0).alias("zero"),
        F.split("s", "").alias("chars"),
        F.split("s", ","),
        F.array("i", F.lit(3)).alias("pair"),
        F.array(F.col("x"), F.lit(0.0)).alias("floats"),
        F.size("arr").alias("n"),
        F.size(F.split("s", ",")),
        F.element_at(F.array("i", F.lit(3)), -1).alias("last"),
        F.element_at(F.split("s", ","), 1),
        F.split("s", ",")[0],
        F.split("s", ",").getItem(0).alias("first"),
        m.alias("m"),
        F.map_keys(m).alias("mk"),
        F.map_values(m).alias("mv"),
        F.element_at(m, "b").alias("mb"),
        m["zz"].alias("missing"),
        F.size(m).alias("msize"),
        st.alias("st"),
        st.getField("text").alias("text"),
        st["i"].alias("si"),
        F.struct("i", "s").s,
        F.array_distinct("arr").alias("distinct"),
        F.sort_array("arr").alias("up"),
        F.sort_array("arr", asc=False).alias("down"),
        F.sort_array(F.array(F.col("x"), F.lit(None), F.lit(-1.0))).alias("nan_sorted"),
        F.array_contains("arr", 2).alias("has2"),
        F.array_contains(F.split("s", ","), "a"),
        F.array_contains(F.array(F.col("k"), F.lit("a")), F.lit(None).cast("string")).alias("null_value"),
        F.col("arr").cast("array<bigint>").alias("wide"),
        F.col("arr").cast("array<string>").alias("texts"),
        F.create_map(F.lit("a"), F.col("i")).cast("map<string,bigint>").alias("mwide"),
    )


@pytest.mark.slow
def test_collection_functions(spark, sessions) -> None:
    assert_same(collections, [DATA], spark, sessions)


def generators(api, df):
    F = api.F
    return [
        df.select("k", F.explode("arr")),
        df.select(F.posexplode_outer("arr"), "i"),
        df.select("*", F.explode_outer(F.split("s", ",")).alias("piece")),
        df.select(F.explode(F.create_map(F.lit("a"), F.col("i"), F.lit("b"), F.lit(0)))),
        df.select(F.posexplode_outer(F.create_map(F.coalesce("s", F.lit("none")), F.col("x"))).alias("p", "key2", "v"), "k"),
        df.select("k", F.explode("arr").alias("v")).groupBy("v").agg(
            F.count("*").alias("n"), F.sort_array(F.collect_list("k")).alias("ks")),
        df.withColumn("arr", F.explode_outer("arr")).withColumn("piece", F.explode(F.split("s", ","))),
        df.select("k", "arr").join(df.select("k", F.col("i").alias("j")), "k")
          .select("j", F.posexplode("arr")).orderBy("j", "pos", "col"),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("which", range(8))
def test_generators(spark, sessions, which: int) -> None:
    assert_same(lambda api, df: generators(api, df)[which], [DATA], spark, sessions)


@pytest.mark.slow
def test_out_of_bounds_fails_like_spark(sessions) -> None:
    from sparkwire import functions as F

    # one failing query (each costs the task's retries); element_at's: tests/engine/test_collections.py
    df = sessions[0].createDataFrame(DATA)
    with pytest.raises(Exception, match="INVALID_ARRAY_INDEX"):
        df.select(F.col("arr")[4]).toArrow()


def test_refusals_name_the_problem(sessions) -> None:
    from sparkwire import functions as F

    df = sessions[0].createDataFrame(DATA)
    with pytest.raises(AnalysisError, match="invalid regex pattern"):
        F.split("s", "(")
    with pytest.raises(AnalysisError, match="only one generator"):
        df.select(F.explode("arr"), F.explode("arr"))
    with pytest.raises(AnalysisError, match="not supported by sparkwire"):
        F.explode("arr") + 1
    with pytest.raises(AnalysisError, match="takes an array or a map"):
        df.select(F.explode("i"))
    with pytest.raises(AnalysisError, match="makes 2 column"):
        df.select(F.explode(F.create_map(F.lit("a"), F.col("i"))).alias("only"))
    with pytest.raises(AnalysisError, match="takes an array"):
        df.select(F.sort_array("s"))
    with pytest.raises(AnalysisError, match="array_sort with a comparator is not supported"):
        F.array_sort("arr", lambda a, b: a - b)
    with pytest.raises(AnalysisError, match="takes an array"):
        df.select(F.array_sort("s"))


#: Doubles Java prints in both notations, floats whose Java text is their shortest digits
#: (Java 17's differs for some, ``coordinator.worker.compile.texts``), decimals keeping their scale.
TEXTS = pa.table({
    "x": [float("nan"), float("inf"), -float("inf"), -0.0, 1e10, 1e-5, 123456.7, None, 0.001, 1e7],
    "f": pa.array([0.1, 1.5, None, -0.0, 1e10, float("nan"), 3.25, 2.5e-5, -7.0, 1e7], pa.float32()),
    "d": pa.array([None, "1.500", "-0.001", "0", "12345.678", None, "1", "-2", "0.5", "3"],
                  pa.string()),
    "s": ["a", "", None, "b, c", "null", "x", "[y]", "z", "é", "{k}"],
    "arr": pa.array([[1.5, None], [], None, [float("nan")], [-0.0, 1e21], [2.0], [None], [3.0, 4.0],
                     [1e-7], [0.5]], pa.list_(pa.float64())),
})


def casts_to_string(api, df):
    F = api.F
    dec = F.col("d").cast("decimal(10,3)")
    st = F.struct("x", "f", dec.alias("dec"), "s", (F.col("x") > 0).alias("b"))
    return df.select(
        "x",
        F.col("f").cast("string").alias("f_text"),
        F.array("x", F.lit(None).cast("double")).cast("string").alias("xs"),
        F.array("f").cast("string").alias("fs"),
        F.array(dec, F.lit(None).cast("decimal(10,3)")).cast("string").alias("decs"),
        F.col("arr").cast("string").alias("arr_text"),
        st.cast("string").alias("st_text"),
        F.create_map(F.lit("k"), "x", F.lit("n"), F.lit(None).cast("double")).cast("string").alias("m_text"),
        F.create_map(F.lit(1), "s", F.lit(-2), "d").cast("string").alias("int_keys"),
        F.array(F.col("arr"), F.array(F.lit(1.0))).cast("string").alias("nested"),
        F.array(st).cast("string").alias("structs"),
        F.struct(F.col("arr"), F.create_map(F.lit("s"), "s")).cast("string").alias("deep"),
    )


@pytest.mark.slow
def test_nested_values_cast_to_string_as_spark_prints_them(spark, sessions) -> None:
    """``[a, null]``, ``{a, b}``, ``{k -> v}``, doubles and floats as Java prints them."""
    assert_same(casts_to_string, [TEXTS], spark, sessions)


def sorted_structs(api, df):
    F = api.F
    inner = F.struct(F.col("i").alias("n"), F.col("s").alias("t"))
    element = F.struct("i", "s", "x")
    nested = F.struct(inner.alias("in"), F.col("k").alias("k"))
    none = F.lit(None).cast("struct<i:int,s:string,x:double>")
    no_s = F.struct("i", F.lit(None).cast("string").alias("s"), F.lit(None).cast("double").alias("x"))
    pairs = F.array(element, F.struct(F.lit(None).cast("int").alias("i"), "s", "x"), no_s, none, element)
    return df.select(
        "k",
        F.sort_array(pairs).alias("up"),
        F.sort_array(pairs, asc=False).alias("down"),
        F.sort_array(F.array(nested, F.struct(F.lit(None).cast("struct<n:int,t:string>").alias("in"),
                                              F.col("k").alias("k")),
                             F.lit(None).cast("struct<in:struct<n:int,t:string>,k:string>"))).alias("nested"),
        F.array_sort(pairs).alias("array_sorted"),
        F.array_sort("arr").alias("ints_nulls_last"),
        F.array_sort(F.array(F.col("x"), F.lit(None), F.lit(-1.0))).alias("doubles"),
    )


@pytest.mark.slow
def test_sort_array_of_structs_puts_null_fields_first(spark, sessions) -> None:
    """Spark orders structs field by field with NULL first (ascending), NULL structs first;
    descending is the reverse (DuckDB puts NULL fields after values). ``array_sort`` puts
    NULL elements last, NULL fields still first."""
    assert_same(sorted_structs, [DATA], spark, sessions)
