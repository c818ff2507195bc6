"""DataFrame leftovers of issue 35 against real PySpark: ``colRegex`` (backticked regexes
over the column names, case ignored, possessive quantifiers; a plain name), ``toJSON``
(each row's JSON text: NULL fields left out, nested values, non-ASCII text: the client sends
it as ``to_json(struct("*"))``), ``struct("*")`` and the names of a struct's fields; ``offset``
(alone, under and over a limit, nested, past the end; over rows spread across tasks) and
SQL's ``LIMIT n OFFSET m`` against DuckDB as the oracle: Spark's offset is standard SQL's,
and DuckDB's same clause answers in milliseconds where a Spark job of sorts takes seconds."""

from __future__ import annotations

import datetime as dt

import duckdb
import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

FRAME = pa.table({
    "Col1": [1, 2, None], "col2": ["a", None, "é\"q"], "x_y": [1.5, None, -0.0],
    "d": [dt.date(2020, 1, 1), None, dt.date(1969, 12, 31)], "arr": [[1, None], [], None],
})

#: Unique keys over several chunks (``SPARKWIRE_TASK_BYTES=0``: a task per core).
KEYED = pa.table({"k": list(range(11, -1, -1)), "v": [f"r{i}" for i in range(12)]})


def regex_selects(api, df):
    return df.select(df.colRegex("`COL1`"), df.colRegex("`(col2)?+.+_.+`"), df.colRegex("d"),
                     df.colRegex("`nothing`"), df.colRegex("`[a-b].*`"), df.colRegex("`c.L2`"))


def struct_fields(api, df):
    """``struct("*")`` and ``struct("t.*")`` (every column, named after it, also in the result
    column's name), ``struct(s["f"])`` named ``f`` for a struct ``s`` and ``col<n>`` for a map."""
    F = api.F  # noqa: N806 - this engine's functions module
    nested = df.select("Col1", "col2", F.struct("Col1", "col2").alias("s"),
                       F.create_map(F.lit("k"), "x_y").alias("m"))
    return nested.alias("t").select(
        F.struct("*").alias("every"), F.to_json(F.struct("*")), F.struct("t.*", F.lit(1).alias("o")),
        F.struct(F.col("s")["Col1"], F.col("s").col2, F.col("m")["k"]))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:The return type of DataFrame.toJSON")  # PySpark's own: it will be a DataFrame
def test_col_regex_and_to_json_match_pyspark(spark, sessions) -> None:
    assert_same(regex_selects, [FRAME], spark, sessions)
    assert_same(struct_fields, [FRAME], spark, sessions)
    want = sorted(spark.createDataFrame(FRAME).toJSON().collect())
    for session in sessions:
        got = session.createDataFrame(FRAME).toJSON()
        assert got.columns == ["value"]
        assert sorted(row.value for row in got.collect()) == want


def test_col_regex_only_in_select_and_offset_not_negative(sessions) -> None:
    df = sessions[0].createDataFrame(FRAME)
    for build, why in [
        (lambda: df.filter(df.colRegex("`c.*`")).schema, "cannot resolve"),
        (lambda: df.select(df.colRegex("`c.*`").alias("a")).schema, "cannot resolve"),
        (lambda: df.colRegex("t.`c.*`"), "qualified"),
        (lambda: df.colRegex("`(`"), "invalid"),
        (lambda: df.offset(-1), "non-negative"),
    ]:
        with pytest.raises(AnalysisError, match=why):
            build()


#: DataFrame offsets and the DuckDB query that answers the same (rows in order).
OFFSETS = [
    (lambda df: df.orderBy("k").limit(5).offset(2), "SELECT * FROM t ORDER BY k LIMIT 3 OFFSET 2"),
    (lambda df: df.orderBy("k").offset(9), "SELECT * FROM t ORDER BY k OFFSET 9"),
    (lambda df: df.orderBy("k").offset(3).limit(2), "SELECT * FROM t ORDER BY k LIMIT 2 OFFSET 3"),
    (lambda df: df.orderBy("k").offset(2).offset(1).limit(4).limit(3), "SELECT * FROM t ORDER BY k LIMIT 3 OFFSET 3"),
    (lambda df: df.offset(20), "SELECT * FROM t OFFSET 20"),
]


@pytest.mark.parametrize(("build", "query"), OFFSETS)
def test_offset_matches_duckdb(sessions, build, query) -> None:
    """Standard SQL's ``OFFSET``, which Spark's ``offset`` is: DuckDB answers the same."""
    t = KEYED  # noqa: F841 - the table DuckDB's query reads
    want = duckdb.sql(query).fetchall()
    for session in sessions:
        assert [tuple(r.values()) for r in build(session.createDataFrame(KEYED)).toArrow().to_pylist()] == want


@pytest.mark.parametrize("query", ["SELECT k, v FROM t ORDER BY k DESC LIMIT 3 OFFSET 2",
                                   "SELECT k FROM t ORDER BY k OFFSET 10", "SELECT k FROM t ORDER BY k OFFSET 12"])
def test_sql_offset_matches_duckdb(sessions, query) -> None:
    session = sessions[-1]
    session.createDataFrame(KEYED).createOrReplaceTempView("t")
    t = KEYED  # noqa: F841 - the table DuckDB's query reads
    assert [tuple(r.values()) for r in session.sql(query).toArrow().to_pylist()] == duckdb.sql(query).fetchall()
