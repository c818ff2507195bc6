"""SQL and DataFrame functions analytical queries need, distributed, against DuckDB
computing the same thing (its own spelling where Spark's semantics differ from its
defaults: ``||`` for Spark's NULL-propagating ``concat``)."""

from __future__ import annotations

import datetime as dt

import duckdb
import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.planner.api import functions as F
from tests.e2e.conftest import canonical

T = pa.table({
    "id": list(range(8)),
    "s": ["  a ", "b", None, " c", "d  ", "", "ee", "f"],
    "g": ["x", None, "y", "z", "x", "y", None, "z"],
    "d": [dt.date(2020, 1, 31), dt.date(2020, 2, 29), None, dt.date(2019, 12, 31),
          dt.date(2021, 3, 1), dt.date(2020, 6, 15), dt.date(2024, 2, 29), dt.date(1999, 1, 1)],
    "x": [1.7, -1.7, None, 2.5, -0.5, 0.0, 9.99, -9.99],
})

CASES = {
    "strings": (
        "select id, trim(s) t, ltrim(s) l, rtrim(s) r, concat(s, '-', g) c, s || g p, "
        "substring(s, 2, 2) sub from t where s like '%' or s is null",
        "select id, trim(s) t, ltrim(s) l, rtrim(s) r, s || '-' || g c, s || g p, "
        "substring(s, 2, 2) sub from t",
    ),
    "dates": (
        "select id, d + interval '1' month m, d - interval 3 day b, d + interval '1' year y, "
        "extract(year from d) yr from t where d >= date '2000-01-01'",
        "select id, cast(d + interval 1 month as date) m, cast(d - interval 3 day as date) b, "
        "cast(d + interval 1 year as date) y, year(d) yr from t where d >= date '2000-01-01'",
    ),
    "casts_truncate_as_in_spark": (
        "select id, cast(x as int) i, cast(x * 10 as bigint) b from t",
        "select id, cast(trunc(x) as int) i, cast(trunc(x * 10) as bigint) b from t",
    ),
}


@pytest.fixture(scope="module")
def session():
    with Session(workers=2, local_chunk_rows=3) as s:
        s.createDataFrame(T).createOrReplaceTempView("t")
        yield s


@pytest.mark.parametrize("case", sorted(CASES))
def test_sql_functions_match_duckdb(session, case: str) -> None:
    ours, reference = CASES[case]
    con = duckdb.connect()
    con.register("t", T)
    got = session.sql(ours).toArrow()
    want = con.sql(reference).to_arrow_table()
    assert got.column_names == want.column_names
    assert canonical(got) == canonical(want)


def test_dataframe_date_and_string_functions(session) -> None:
    df = session.createDataFrame(T).select(
        "id", F.date_add("d", 10).alias("a"), F.date_sub("d", 1).alias("b"),
        F.add_months("d", -1).alias("m"), F.concat("s", F.lit("/"), "g").alias("c"),
    )
    con = duckdb.connect()
    con.register("t", T)
    want = con.sql(
        "select id, cast(d + interval 10 day as date) a, cast(d - interval 1 day as date) b, "
        "cast(d - interval 1 month as date) m, s || '/' || g c from t"
    ).to_arrow_table()
    assert canonical(df.toArrow()) == canonical(want)
    assert df.dtypes == [("id", "bigint"), ("a", "date"), ("b", "date"), ("m", "date"), ("c", "string")]
