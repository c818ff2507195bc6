"""DataFrame leftovers of issue 35 against real PySpark: ``colRegex`` (backticked regexes
over the column names, case ignored, possessive quantifiers; a plain name), ``toJSON``
(each row's JSON text: NULL fields left out, nested values, non-ASCII text); ``offset``
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

FRAME = pa.table({
    "Col1": [1, 2, None], "col2": ["a", None, "é\"q"], "x_y": [1.5, None, -0.0],
    "d": [dt.date(2020, 1, 1), None, dt.date(1969, 12, 31)], "arr": [[1, None], [], None],
})

#: Unique keys over several chunks (``SPARKWIRE_TASK_BYTES=0``: a task per core).
KEYED = pa.table({"k": list(range(11, -1, -1)), "v": [f"r{i}" for i in range(12)]})


def regex_selects(api, df):
    return df.select(df.colRegex("`COL1`"), df.colRegex("`(col2)?+.+_.+`"), df.colRegex("d"),
                     df.colRegex("`nothing`"), df.colRegex("`[a-b].*`"), df.colRegex("`c.L2`"))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:The return type of DataFrame.toJSON")  # PySpark's own: it will be a DataFrame
def test_col_regex_and_to_json_match_pyspark(spark, sessions) -> None:
    assert_same(regex_selects, [FRAME], spark, sessions)
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
