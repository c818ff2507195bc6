"""Grouping sets (``ROLLUP``, ``CUBE``, ``GROUPING SETS``, ``grouping()``/``grouping_id()``)
on three workers, each group's rows spread over several tasks, against DuckDB, which plans
grouping sets natively: one ``Expand`` below an ordinary two-phase aggregate must give
DuckDB's rows. The keys hold NULL values of their own, which the grouping id tells apart
from the NULLs a set puts in the keys it leaves out."""

from __future__ import annotations

import decimal

import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.planner.api import functions as F
from sparkwire.planner.errors import AnalysisError
from tests.e2e.conftest import canonical, oracle, rows_close

N = 3000
T = pa.table({
    "a": pa.array([None if i % 17 == 0 else i % 5 for i in range(N)], pa.int32()),
    "b": pa.array([None if i % 11 == 0 else f"b{i % 7}" for i in range(N)]),
    "c": pa.array([i % 3 for i in range(N)], pa.int64()),
    "v": pa.array([decimal.Decimal(i % 101) / 4 for i in range(N)], pa.decimal128(9, 2)),
    "x": pa.array([None if i % 13 == 0 else (i * 7919) % 1000 / 8 for i in range(N)], pa.float64()),
})

#: Ours, then DuckDB's spelling where it differs (DuckDB's grouping_id needs its columns).
CASES = {
    "rollup": (
        "select a, b, grouping(a) ga, grouping(b) gb, grouping_id() gid, sum(v) s, count(*) n, "
        "avg(x) m from t group by rollup(a, b)",
        "select a, b, grouping(a) ga, grouping(b) gb, grouping_id(a, b) gid, sum(v) s, count(*) n, "
        "avg(x) m from t group by rollup(a, b)",
    ),
    "cube_of_three_with_an_expression": (
        "select a, b, c + 1 c1, grouping_id(a, b, c + 1) gid, max(x) mx, min(b) mb "
        "from t group by cube(a, b, c + 1)",
        None,
    ),
    "grouping_sets_with_the_grand_total": (
        "select a, c, sum(x) s, count(b) nb from t group by grouping sets ((a, c), (c), ())",
        None,
    ),
    "plain_key_crossed_with_a_rollup": (
        "select c, a, b, grouping(b) gb, sum(v) s from t group by c, rollup(a, b)",
        None,
    ),
    "having_on_grouping": (
        "select a, b, sum(v) s from t group by rollup(a, b) having grouping(b) = 1 and sum(v) > 0",
        None,
    ),
    "averages_of_nothing_but_nulls": (
        "select a, b, avg(x) m, avg(c) mc, count(x) n from t where x is null or c = 2 "
        "group by rollup(a, b)",
        None,
    ),
    "windows_and_order_by_over_grouping": (  # TPC-DS q86's shape
        "select a, b, sum(v) s, grouping(a) + grouping(b) lh, rank() over (partition by "
        "grouping(a) + grouping(b), case when grouping(b) = 0 then a end order by sum(v) desc) r "
        "from t group by rollup(a, b) order by lh desc, case when grouping(a) + grouping(b) = 0 "
        "then a end, r",
        None,
    ),
    "a_key_aggregated_too": (
        "select a, sum(a) sa, count(distinct b) db from t group by rollup(a)",
        None,
    ),
}


@pytest.fixture(scope="module")
def session():
    with Session(workers=3, local_chunk_rows=400) as s:
        s.createDataFrame(T).repartition(4).createOrReplaceTempView("t")
        yield s


@pytest.mark.parametrize("case", sorted(CASES))
def test_grouping_sets_match_duckdb(session, case: str) -> None:
    ours, theirs = CASES[case]
    got = session.sql(ours).toArrow()
    expected = oracle(T, theirs or ours)
    assert got.column_names == expected.column_names
    assert len(got) > 0 and rows_close(got, expected), case


def test_with_rollup_is_rollup_and_order_by_grouping_sorts_the_outputs(session) -> None:
    got = session.sql("select a, grouping(a), sum(c) s from t group by a with rollup "
                      "order by grouping(a) desc, a nulls last").toArrow()
    expected = oracle(T, "select a, grouping(a), sum(c) s from t group by rollup(a) "
                         "order by grouping(a) desc, a nulls last")
    assert got.to_pylist() == expected.rename_columns(got.column_names).to_pylist()
    assert got.column(1).type == pa.int8()  # Spark's tinyint


def test_dataframe_rollup_and_cube_match_duckdb(session) -> None:
    df = session.sql("select * from t")
    rolled = df.rollup("a", "b").agg(F.sum("v").alias("s"), F.grouping_id().alias("gid"))
    assert canonical(rolled.toArrow()) == canonical(oracle(
        T, "select a, b, sum(v) s, grouping_id(a, b) gid from t group by rollup(a, b)"))
    cubed = df.cube("c", F.col("a").alias("k")).agg(F.count("*").alias("n"), F.grouping("a").alias("gk"))
    assert canonical(cubed.toArrow()) == canonical(oracle(
        T, "select c, a k, count(*) n, grouping(a) gk from t group by cube(c, a)"))


def test_expand_runs_below_the_partial_aggregate_in_the_scan_stage(session) -> None:
    """Spark's plan: the Expand stays in its input's stage, and the shuffle moves partial
    aggregates keyed by the expanded keys and the grouping id."""
    plan = session.sql("select a, b, sum(v) from t group by rollup(a, b)").explain_string()
    partial = next(stage for stage in plan.split("Stage ")[1:] if "Expand" in stage)
    assert "spark_grouping_id" in partial.splitlines()[0]  # the shuffle's keys
    assert partial.index("Aggregate") < partial.index("Expand")


@pytest.mark.parametrize(("query", "message"), [
    ("select a, grouping(a) from t group by a", "can only be used with GroupingSets/Cube/Rollup"),
    ("select a, grouping_id(b) from t group by rollup(a, b)", "do not match the grouping columns"),
    ("select a, grouping(c) from t group by rollup(a, b)", "is not a grouping column"),
    ("select a, sum(c) from t group by grouping sets ((a), (a))", "the same grouping set twice"),
    ("select b, sum(c) from t group by rollup(a)", "neither grouped nor aggregated"),
    ("select grouping(a) from t", "can only be used with GroupingSets/Cube/Rollup"),
])
def test_what_spark_refuses_or_sparkwire_does_not_support(session, query: str, message: str) -> None:
    with pytest.raises(AnalysisError, match=message):
        session.sql(query).toArrow()


def test_grouping_outside_an_aggregate_is_refused_before_running(session) -> None:
    df = session.sql("select * from t")
    for build in (lambda: df.select(F.grouping("a")), lambda: df.filter(F.grouping_id() == 0),
                  lambda: df.groupBy("a").agg(F.grouping("a"))):
        with pytest.raises(AnalysisError, match="can only be used with GroupingSets/Cube/Rollup"):
            build()
