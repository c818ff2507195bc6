"""The array and map functions beyond the basics (``array_append`` ... ``sequence``,
``map_concat`` ...) and the higher-order functions (``transform`` ...) against real PySpark
(``compare.py``), on 1 and 3 workers: names, Spark types and values. One table of edge
cases (NULL and empty arrays, NULL elements, repeats, NaN, -0.0, negative and out-of-range
positions), the functions in one ``select`` per family (arrays; maps and lambdas; SQL
text), so they cost three Spark jobs; the failures Spark raises are checked apart, on
sparkwire alone, by their condition."""

from __future__ import annotations

import math

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from sparkwire.transport.errors import QueryError
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

INTS = pa.list_(pa.int32())
DATA = pa.table({
    "a": pa.array([[3, 1, None, 3], [], None, [2, 2, 2], [5, -1], [None], [0, 7, 0], [1]], INTS),
    "b": pa.array([[1, 5], [None], [1], None, [], [None, 4], [7], [2, 3]], INTS),
    "d": pa.array([[1.5, math.nan], [-0.0], [], None, [0.0, math.nan, None], [math.nan], [2.0],
                   [-1.0, -0.0]], pa.list_(pa.float64())),
    "s": pa.array([["x", None, ""], [], None, ["a", "b"], [""], [None], ["q", "q"], ["z"]],
                  pa.list_(pa.string())),
    "i": pa.array([1, 2, None, -1, 3, 4, -3, 5], pa.int32()),
    "n": pa.array([2, 0, 1, -2, 4, 1, -5, None], pa.int32()),
})


def arrays_program(api, df):
    F_ = api.F
    return df.select(
        F_.array_size("a"), F_.cardinality("b"), F_.array_compact("a"), F_.array_compact("s"),
        F_.array_max("a"), F_.array_min("a"), F_.array_max("d"), F_.array_min("d"),
        F_.array_max("s"), F_.array_append("a", 9), F_.array_append("a", None),
        F_.array_append("a", F_.col("i")), F_.array_prepend("s", "p"), F_.array_prepend("a", F_.col("n")),
        F_.array_position("a", 3), F_.array_position("d", math.nan), F_.array_position("d", 0.0),
        F_.array_position("a", F_.col("i")), F_.array_remove("a", 3), F_.array_remove("d", math.nan),
        F_.array_remove("s", ""), F_.array_repeat("i", 2), F_.array_repeat("s", "n"),
        F_.arrays_overlap("a", "b"), F_.array_union("a", "b"), F_.array_intersect("a", "b"),
        F_.array_except("a", "b"), F_.array_union("b", F_.array(F_.lit(0), F_.lit(None))).alias("bu"),
        F_.array_union("d", F_.array(F_.lit(0.0), F_.lit(math.nan))).alias("du"),
        F_.array_intersect("d", F_.array(F_.lit(0.0), F_.lit(math.nan))).alias("di"),
        F_.array_except("d", F_.array(F_.lit(1.5))).alias("de"),
        F_.get("a", 0), F_.get("a", "n"), F_.try_element_at("a", F_.lit(-1)),
        F_.try_element_at("a", F_.col("i")), F_.slice("a", 2, 2), F_.slice("a", -2, 5),
        F_.slice("s", 1, 0), F_.slice("a", F_.col("i"), F_.lit(1)),
        F_.array_insert("a", 2, 9), F_.array_insert("a", 6, 9), F_.array_insert("a", -1, 9),
        F_.array_insert("a", -6, 9), F_.array_insert("s", "i", F_.lit("new")),
        F_.sequence(F_.lit(1), "i"), F_.sequence("n", "i"), F_.sequence(F_.lit(0), F_.lit(10), F_.lit(3)),
        F_.sequence(F_.lit(5), F_.lit(1), F_.lit(-2)), F_.sequence("i", "i", F_.lit(0)),
        F_.array_join("s", ","), F_.array_join("s", "-", "null"), F_.array_join("a", "|"),
        F_.arrays_zip("a", "b"), F_.arrays_zip("s", F_.col("b").alias("bb"), F_.array("i")),
        F_.flatten(F_.array("a", "b")), F_.flatten(F_.array("a", F_.array("i"))),
        F_.str_to_map(F_.array_join(F_.array_distinct("s"), ","), F_.lit(","), F_.lit(":")).alias("sm"),
        F_.str_to_map(F_.lit("a=1;b=2=3;c;"), F_.lit(";"), F_.lit("=")).alias("sm2"),
        # named (named_struct(x, i, y, s) in Spark) by hand: sparkwire names it as F.struct
        F_.named_struct(F_.lit("x"), "i", F_.lit("y"), "s").alias("ns"),
    )


@pytest.mark.slow
def test_array_functions_match_pyspark(spark, sessions) -> None:
    assert_same(arrays_program, [DATA], spark, sessions)


#: The same functions written in SQL (``F.expr``: the SQL front end, as ``session.sql``).
SQL = [
    "cardinality(a)", "array_append(a, 1)", "array_prepend(s, 'p')", "array_compact(a)",
    "array_max(d)", "array_min(a)", "array_position(a, 3)", "array_remove(a, 3)",
    "array_repeat(i, 2)", "array_join(s, ',', '?')", "array_join(s, '/')", "slice(a, 2, 3)",
    "flatten(array(a, b))", "arrays_overlap(a, b)", "array_union(a, b)", "array_intersect(a, b)",
    "array_except(a, b)", "sequence(1, i)", "sequence(10, 0, -4)", "get(a, 1)",
    "try_element_at(a, -2)", "arrays_zip(a, b)", "array_insert(a, 2, 0)",
    "map_contains_key(map('k', i), 'k')", "map_entries(map('k', i))",
    "map_from_arrays(array('x'), array(i))", "map_from_entries(array(struct(i, n))) AS fe",
    "map_concat(map('k', i), map('j', n)) AS mc", "try_element_at(map('k', i), 'k')",
    # one call of each form sqlglot parses a lambda's function into, named by hand (Spark
    # numbers lambda parameters from a counter in its JVM)
    "str_to_map('k:1,j:2') AS sm",
    "transform(a, (x, k) -> x + k) AS tr", "filter(a, x -> x > i) AS fi",
    "exists(a, x -> x > 2) AS e", "aggregate(a, 0, (acc, x) -> acc + coalesce(x, 0), acc -> acc * 10) AS ag",
    "map_filter(map(1, i), (k, v) -> v > 1) AS mf",
    "transform(array(named_struct('f', i)), s -> s.f + 1) AS sf",
]


def sql_program(api, df):
    return df.where("i IS NOT NULL AND coalesce(NOT exists(a, x -> x = 99), true)").select(
        *(api.F.expr(text) for text in SQL))


@pytest.mark.slow
def test_sql_text_matches_pyspark(spark, sessions) -> None:
    assert_same(sql_program, [DATA], spark, sessions[:1])


@pytest.mark.parametrize(("column", "condition"), [
    (F.try_element_at(F.col("a"), F.lit(0)), "INVALID_INDEX_OF_ZERO"),
    (F.slice("a", 0, 1), "INVALID_PARAMETER_VALUE.START"),
    (F.slice("a", 1, -1), "INVALID_PARAMETER_VALUE.LENGTH"),
    (F.array_insert("a", 0, 1), "INVALID_INDEX_OF_ZERO"),
    (F.map_from_arrays("b", "b"), "NULL_MAP_KEY"),
    (F.map_from_arrays(F.array(F.lit(1), F.lit(1)), F.array("i", "n")), "DUPLICATED_MAP_KEY"),
    (F.map_concat(F.create_map(F.lit(1), "i"), F.create_map(F.lit(1), "n")), "DUPLICATED_MAP_KEY"),
])
def test_failures_are_sparks(sessions, column, condition) -> None:
    """Spark fails these queries with these conditions (each checked against PySpark 4.3
    while writing this test; a comparison here would start a Spark job per case)."""
    with pytest.raises(QueryError) as failure:
        sessions[0].createDataFrame(DATA).select(column).collect()
    assert failure.value.getCondition() == condition


def test_sequence_of_a_wrong_step_fails_as_sparks(sessions) -> None:
    """Spark's message, a bare requirement without an error condition."""
    df = sessions[0].createDataFrame(DATA).select(F.sequence(F.lit(1), F.lit(5), F.lit(-1)))
    with pytest.raises(QueryError, match="Illegal sequence boundaries: 1 to 5 by -1") as failure:
        df.collect()
    assert failure.value.getCondition() is None


def test_refusals_name_the_type(sessions) -> None:
    df = sessions[0].createDataFrame(DATA)
    with pytest.raises(AnalysisError, match="array_join takes an array of strings"):
        df.select(F.array_join("d", ","))
    with pytest.raises(AnalysisError, match="sequence takes integers"):
        df.select(F.sequence(F.lit(1.0), F.lit(2.0)))
    with pytest.raises(AnalysisError, match="takes 3 argument"):
        F.transform("a", lambda x, y, z: x)
    with pytest.raises(AnalysisError, match="the merge function gives double"):
        df.select(F.aggregate("d", F.lit(0), lambda acc, x: acc + x))
    with pytest.raises(AnalysisError, match="filter takes a lambda giving a boolean"):
        df.select(F.filter("a", lambda x: x + 1))


def maps_and_lambdas_program(api, df):
    """Lambdas named by hand: PySpark numbers their parameters from a counter in its JVM."""
    F_ = api.F
    m = F_.map_from_arrays(F_.array(F_.lit("k"), F_.lit("j")), F_.array("i", "n"))
    keys = F_.array_compact(F_.array_distinct("b"))  # a map key is never NULL nor repeated
    return df.select(
        m.alias("m"), F_.map_contains_key(m, "k"), F_.map_contains_key(m, "z"),
        F_.map_entries(m).alias("me"), F_.try_element_at(m, F_.lit("j")).alias("mj"),
        F_.try_element_at(m, F_.lit("q")).alias("mq"), F_.cardinality(m).alias("mn"),
        F_.map_from_arrays(keys, keys).alias("kk"),
        F_.map_from_entries(F_.arrays_zip(keys, F_.transform(keys, lambda x: x * 2))).alias("fe"),
        F_.map_concat(m, F_.create_map(F_.lit("z"), F_.col("i"))).alias("mc"),
        F_.map_concat(m).alias("one"),
        F_.transform("a", lambda x: x + F_.col("i")).alias("t"),
        F_.transform("s", lambda x, i: F_.concat(x, i.cast("string"))).alias("ti"),
        F_.filter("a", lambda x: x > 1).alias("f"), F_.filter("d", lambda x, i: i > 0).alias("fi"),
        F_.exists("a", lambda x: x > 2).alias("e"), F_.forall("a", lambda x: x > 0).alias("fa"),
        F_.exists("d", lambda x: x.isNull()).alias("en"),
        F_.aggregate("a", F_.lit(0), lambda acc, x: acc + F_.coalesce(x, F_.lit(0))).alias("ag"),
        F_.reduce("d", F_.lit(0.0), lambda acc, x: acc + x, lambda acc: acc * 2).alias("r"),
        F_.zip_with("a", "b", lambda x, y: F_.coalesce(x, y)).alias("z"),
        F_.transform("a", lambda x: F_.transform("b", lambda y: y - x)).alias("nested"),
        F_.map_filter(m, lambda k, v: v > 0).alias("mf"),
        F_.transform_values(m, lambda k, v: F_.concat(k, v.cast("string"))).alias("tv"),
        F_.transform_keys(m, lambda k, v: F_.upper(k)).alias("tk"),
    )


@pytest.mark.slow
def test_map_and_higher_order_functions_match_pyspark(spark, sessions) -> None:
    assert_same(maps_and_lambdas_program, [DATA], spark, sessions)
