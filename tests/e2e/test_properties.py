"""Distributed results equal a single-node DuckDB computation of the same query.

Random data covers ints, floats, decimals, strings, dates, nulls, empty inputs and heavily
skewed keys; clusters of 1 to 4 workers; several partition counts via the cluster size.
"""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sparkwire.coordinator import Session
from sparkwire.transport.registry import available_transports
from sparkwire.planner.api import functions as F
from tests.e2e.conftest import canonical, oracle, rows_close

SCHEMA = pa.schema([
    ("id", pa.int64()),
    ("k", pa.int64()),
    ("v", pa.int64()),
    ("s", pa.string()),
    ("x", pa.float64()),
    ("d", pa.decimal128(12, 2)),
    ("day", pa.date32()),
])

ints = st.one_of(st.none(), st.integers(-5, 5), st.integers(-(2**40), 2**40))
skewed_key = st.one_of(st.just(1), st.just(1), st.just(1), st.none(), st.integers(0, 50))
strings = st.one_of(st.none(), st.sampled_from(["", "a", "b", "é", "long" * 10]), st.text(max_size=5))
floats = st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False))
decimals = st.one_of(st.none(), st.decimals(-10**6, 10**6, places=2, allow_nan=False, allow_infinity=False))
days = st.one_of(st.none(), st.dates(dt.date(1990, 1, 1), dt.date(2030, 12, 31)))


@st.composite
def tables(draw: st.DrawFn) -> pa.Table:
    n = draw(st.integers(0, 300))
    rows = {
        "k": draw(st.lists(skewed_key, min_size=n, max_size=n)),
        "v": draw(st.lists(ints, min_size=n, max_size=n)),
        "s": draw(st.lists(strings, min_size=n, max_size=n)),
        "x": draw(st.lists(floats, min_size=n, max_size=n)),
        "d": draw(st.lists(decimals, min_size=n, max_size=n)),
        "day": draw(st.lists(days, min_size=n, max_size=n)),
    }
    rows["id"] = list(range(n))
    return pa.table({name: pa.array(rows[name], SCHEMA.field(name).type) for name in SCHEMA.names})


# One cluster per size and transport, reused across examples: hypothesis varies the data.
# Out-of-process transports start real worker processes, so they get two cluster sizes.
SIZES = {"memory": (1, 2, 3, 4)}
OTHER_SIZES = (2, 4)


@pytest.fixture(scope="module", params=sorted(available_transports()))
def sessions(request):
    sizes = SIZES.get(request.param, OTHER_SIZES)
    # Small chunks so even a few hundred rows spread over every worker.
    opened = {}
    try:
        for n in sizes:
            opened[n] = Session(workers=n, transport=request.param, local_chunk_rows=20)
        yield opened
    finally:
        for session in opened.values():
            session.close()


COMMON = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
workers = st.sampled_from([1, 2, 3, 4])


def session_for(sessions, n):
    """The cluster of ``n`` workers, or the nearest size this transport runs."""
    return sessions[min(sessions, key=lambda size: abs(size - n))]


def assert_same(got: pa.Table, expected: pa.Table) -> None:
    assert got.column_names == expected.column_names
    assert rows_close(got, expected), (canonical(got), canonical(expected))


@COMMON
@given(table=tables(), workers=workers)
def test_group_by_aggregates(sessions, table, workers):
    df = session_for(sessions, workers).createDataFrame(table)
    got = df.groupBy("k", "s").agg(
        F.sum("d").alias("sd"), F.sum("v").alias("sv"), F.count("*").alias("n"), F.avg("x").alias("ax"),
        F.min("day").alias("mind"), F.max("s").alias("maxs"), F.count("x").alias("cx"),
    ).toArrow()
    expected = oracle(table, "select k, s, sum(d) sd, sum(v) sv, count(*) n, avg(x) ax, min(day) mind, "
                             "max(s) maxs, count(x) cx from t group by k, s")
    assert_same(got, expected)


@COMMON
@given(table=tables(), workers=workers)
def test_global_aggregate(sessions, table, workers):
    df = session_for(sessions, workers).createDataFrame(table)
    got = df.agg(F.sum("k").alias("sk"), F.count("*").alias("n"), F.max("d").alias("md"),
                 F.avg("d").alias("ad")).toArrow()
    expected = oracle(table, "select sum(k) sk, count(*) n, max(d) md, avg(d) ad from t")
    assert got.num_rows == 1
    assert_same(got, expected)


@COMMON
@given(table=tables(), workers=workers)
def test_filter_project_with_column(sessions, table, workers):
    df = session_for(sessions, workers).createDataFrame(table)
    got = (
        df.filter((F.col("k") > 0) | F.col("s").isNull())
        .withColumn("y", F.col("x") * 2 + F.col("k"))
        .withColumn("band", F.when(F.col("d") > 0, "pos").when(F.col("d") < 0, "neg").otherwise("zero"))
        .select("id", "y", "band", F.col("day").isin(dt.date(2000, 1, 1)).alias("is_y2k"))
        .toArrow()
    )
    expected = oracle(table, "select id, x * 2 + k as y, case when d > 0 then 'pos' when d < 0 "
                             "then 'neg' else 'zero' end as band, day in (DATE '2000-01-01') "
                             "as is_y2k from t where k > 0 or s is null")
    assert_same(got, expected)


@COMMON
@given(table=tables(), workers=workers)
def test_count_distinct(sessions, table, workers):
    df = session_for(sessions, workers).createDataFrame(table)
    got = df.groupBy("k").agg(F.countDistinct("s").alias("ds"), F.sum("x").alias("sx")).toArrow()
    expected = oracle(table, "select k, count(distinct s) ds, sum(x) sx from t group by k")
    assert_same(got, expected)


@COMMON
@given(table=tables(), workers=workers, n=st.integers(0, 20))
def test_top_k_and_limit(sessions, table, workers, n):
    df = session_for(sessions, workers).createDataFrame(table)
    got = df.orderBy(F.col("x").desc(), "id").limit(n).select("id", "x").toArrow()
    expected = oracle(table, f"select id, x from t order by x desc nulls last, id limit {n}")
    assert got.to_pylist() == expected.to_pylist()
    limited = df.filter(F.col("k") == 1).limit(n).toArrow()
    assert limited.num_rows == min(n, oracle(table, "select count(*) c from t where k = 1")["c"][0].as_py())


@COMMON
@given(table=tables(), workers=workers)
def test_full_sort(sessions, table, workers):
    df = session_for(sessions, workers).createDataFrame(table)
    got = df.orderBy("s", F.col("id").desc()).select("s", "id").toArrow()
    expected = oracle(table, "select s, id from t order by s nulls first, id desc")
    assert got.to_pylist() == expected.to_pylist()


def test_empty_input_keeps_schema(sessions):
    empty = pa.table({name: pa.array([], SCHEMA.field(name).type) for name in SCHEMA.names})
    df = session_for(sessions, 2).createDataFrame(empty)
    grouped = df.groupBy("k").agg(F.sum("x").alias("sx")).toArrow()
    assert grouped.num_rows == 0 and grouped.column_names == ["k", "sx"]
    total = df.agg(F.count("*").alias("n"), F.sum("x").alias("sx")).toArrow().to_pylist()
    assert total == [{"n": 0, "sx": None}]
