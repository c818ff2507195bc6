"""SQL text over arrays, maps and structs against real PySpark, on 1 and 3 workers:
``spark.sql`` and ``session.sql`` on the same view, and ``F.expr``/``selectExpr``/
``df.s["f"]`` in the DataFrame API. Names, Spark types and values must match.

The data has NULL and empty collections, NULL elements and values, NULL structs and
fields, duplicates, negatives and empty strings. Subscripts stay in bounds (out of bounds
fails in Spark with ANSI on, and here: tests/spark/test_arrays.py)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from tests.spark.compare import assert_same, sql_program as sql

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

INTS = pa.list_(pa.int32())
STRUCT = pa.struct([("f", pa.int32()), ("g", pa.string())])
DATA = pa.table({
    "k": ["a", "a,b", "b", None, "b", ""],
    "i": pa.array([1, 2, None, -4, 2, 0], pa.int32()),
    "arr": pa.array([[3, 1, None, 3], [], None, [2, 2, 2], [5, -1], [None]], INTS),
    "m": pa.array([[("x", 1), ("y", None)], [], None, [("x", -5)], [("z", 0), ("x", 7)], [("y", 2)]],
                  pa.map_(pa.string(), pa.int64())),
    "s": pa.array([{"f": 1, "g": "p"}, {"f": None, "g": None}, None, {"f": -3, "g": ""},
                   {"f": 1, "g": "p"}, {"f": 0, "g": "q"}], STRUCT),
})


COLLECTIONS = """
SELECT k, size(arr), size(m), array_contains(arr, 2), array_contains(arr, CAST(NULL AS INT)) AS has_null,
       element_at(array(i, 3), -1), split(k, ',')[0], split(k, ',', 2) AS two,
       m['x'], element_at(m, 'y'), map_keys(m) AS mk, map_values(m) AS mv,
       s.f, s['g'], t.s.f AS qualified, s.f + 1, upper(s.g),
       array(i, 3), map(coalesce(k, 'none'), i), map('a', i, 'b', 0), struct(i, k AS kk, i + 1, s.f),
       named_struct('x', i, 'y', k) AS ns, named_struct('x', i).x AS nx,
       sort_array(arr), sort_array(arr, false), array_distinct(arr)
FROM t
WHERE array_contains(arr, 3) OR s.f IS NULL OR m['x'] < 0 OR size(arr) = 0
"""

GENERATORS = [
    "SELECT k, explode(arr) FROM t",
    "SELECT posexplode_outer(arr), i FROM t",
    "SELECT explode(m) FROM t",
    "SELECT k, posexplode(m) AS (p, mk, mv) FROM t",
    "SELECT i, explode_outer(split(k, ',')) AS piece FROM t",
    "SELECT k, x FROM t LATERAL VIEW explode(arr) tt AS x WHERE x > 1 OR x IS NULL",
    "SELECT k, p, x, y FROM t LATERAL VIEW OUTER posexplode(arr) t1 AS p, x "
    "LATERAL VIEW explode(array(x, i)) t2 AS y",
    "SELECT tt.*, t.i FROM t LATERAL VIEW explode(m) tt AS mk, mv",
    "SELECT x, count(*) AS n, sort_array(collect_list(k)) AS ks FROM t "
    "LATERAL VIEW explode(arr) tt AS x GROUP BY x",
    "SELECT t.k, x FROM t, LATERAL explode(arr) AS tt(x)",
    "SELECT a.k, b.i, x FROM t a JOIN t b ON a.k = b.k LATERAL VIEW explode_outer(a.arr) tt AS x",
]


@pytest.mark.slow
def test_collection_functions_in_sql_match_pyspark(spark, sessions) -> None:
    assert_same(sql(COLLECTIONS), [DATA], spark, sessions)


@pytest.mark.slow
@pytest.mark.parametrize("query", GENERATORS, ids=range(len(GENERATORS)))
def test_generators_and_lateral_views_match_pyspark(spark, sessions, query: str) -> None:
    assert_same(sql(query), [DATA], spark, sessions)


def expressions(api, df):  # noqa: ANN001, ANN201
    F = api.F
    return df.where("array_contains(arr, 2) OR s.f > 0").selectExpr(
        "k", "s['f']", "s.g", "m['x']", "split(k, ',')[0]", "size(arr) AS n", "sort_array(arr)",
        "struct(i, s.f) AS st", "map('a', i) AS mp", "array_distinct(arr)",
    ).select(
        "*", F.expr("element_at(mp, 'a') + 1 AS a1"), F.expr("st.f"),
    )


def subscripts(api, df):  # noqa: ANN001, ANN201
    F = api.F
    return df.select(
        df.s["f"], F.col("s")["g"], F.col("s.f"), F.col("s").getField("g").alias("g"), df.s.f + 1,
        F.struct(F.col("s").f, "i"), F.col("m")["x"], F.upper(df.s["g"]),
    )


@pytest.mark.slow
def test_sql_expressions_over_nested_types_match_pyspark(spark, sessions) -> None:
    assert_same(expressions, [DATA], spark, sessions)


@pytest.mark.slow
def test_struct_subscripts_are_named_as_in_pyspark(spark, sessions) -> None:
    assert_same(subscripts, [DATA], spark, sessions)
