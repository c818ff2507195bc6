"""The optimizer's rewrites keep answers: filters over outer joins (which may turn the join
inner or one-sided, or move below it) give DuckDB's answer for the same SQL."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sparkwire.coordinator import Session
from sparkwire.planner.api import functions as F
from tests.e2e.conftest import canonical

PREDICATES = [
    "a.v > 0", "b.w > 0", "b.w is null", "a.v is null or b.w > 1", "coalesce(b.w, 0) > 0",
    "not (b.w > 1)", "b.w in (1, 2)", "a.v + b.w > 1", "a.v > 0 and b.w < 3",
    "(a.v > 0 or b.w > 0) and a.k is not null", "b.k is not null", "a.k is null",
]
values = st.one_of(st.none(), st.integers(-2, 3))


@st.composite
def tables(draw: st.DrawFn, value: str) -> pa.Table:
    n = draw(st.integers(0, 12))
    return pa.table({
        "k": pa.array(draw(st.lists(values, min_size=n, max_size=n)), pa.int64()),
        value: pa.array(draw(st.lists(values, min_size=n, max_size=n)), pa.int64()),
    })


def duckdb_answer(a: pa.Table, b: pa.Table, query: str) -> list[tuple]:
    """The oracle: the same SQL on DuckDB over the same two tables."""
    con = duckdb.connect()
    con.register("a", a)
    con.register("b", b)
    return canonical(con.sql(query).to_arrow_table())


def views(session, a: pa.Table, b: pa.Table) -> None:
    session.createDataFrame(a).createOrReplaceTempView("a")
    session.createDataFrame(b).createOrReplaceTempView("b")


@pytest.fixture(scope="module")
def session():
    with Session(workers=2, local_chunk_rows=4) as s:
        yield s


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=tables("v"), b=tables("w"), how=st.sampled_from(["left", "right", "full", "inner"]),
       predicate=st.sampled_from(PREDICATES))
def test_filters_over_joins_keep_their_answer(session, a, b, how, predicate) -> None:
    views(session, a, b)
    query = f"select a.k, a.v, b.k as bk, b.w from a {how} join b on a.k = b.k where {predicate}"
    assert canonical(session.sql(query).toArrow()) == duckdb_answer(a, b, query)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=tables("v"), b=tables("w"), extra=st.sampled_from(["", " and a.v > 0", " or a.v > 0"]))
def test_left_join_where_right_key_is_null_is_an_anti_join(session, a, b, extra) -> None:
    views(session, a, b)
    query = f"select a.k, a.v from a left join b on a.k = b.k where b.k is null{extra}"
    df = session.sql(query)
    if not extra.startswith(" or"):
        assert "Join anti" in df.explain_string()
    assert canonical(df.toArrow()) == duckdb_answer(a, b, query)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=tables("v"), b=tables("w"),
       how=st.sampled_from(["left", "right", "full", "inner", "semi", "anti"]),
       condition=st.sampled_from(["b.w > 0", "a.v > 0", "a.v > 0 and b.w is null",
                                  "b.w in (1, 2) and a.v is not null", "a.v + b.w > 1",
                                  "(a.v > 0 and b.w > 0) or (a.v > 0 and b.w is null)",
                                  "(b.w > 0 and a.v = b.w) or (b.w > 0 and a.v is null) or b.w > 0"]))
def test_join_conditions_on_one_side_keep_their_answer(session, a, b, how, condition) -> None:
    """An ``ON`` condition reading one side moves into that side only where the join drops
    that side's unmatched rows, also when it is common to every branch of an OR; everywhere
    the answer is DuckDB's."""
    views(session, a, b)
    columns = "a.k, a.v" if how in ("semi", "anti") else "a.k, a.v, b.k as bk, b.w"
    query = f"select {columns} from a {how} join b on a.k = b.k and {condition}"
    assert canonical(session.sql(query).toArrow()) == duckdb_answer(a, b, query)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=tables("v"), b=tables("w"), how=st.sampled_from(["left", "right", "full", "inner"]),
       subquery=st.sampled_from([
           "a.v in (select w from b)", "a.v not in (select w from b)", "b.w in (select v from a)",
           "exists (select 1 from b as c where c.w = a.v)",
           "not exists (select 1 from b as c where c.w = a.v and c.k > a.k)",
       ]))
def test_semi_joins_over_joins_keep_their_answer(session, a, b, how, subquery) -> None:
    """A semi or anti join moves below a join to the side whose rows it filters, only where
    that join does not pad the side with NULLs; everywhere the answer is DuckDB's."""
    views(session, a, b)
    query = f"select a.k, a.v, b.k as bk, b.w from a {how} join b on a.k = b.k where {subquery}"
    assert canonical(session.sql(query).toArrow()) == duckdb_answer(a, b, query)


ACROSS = [
    "(a.v > 0 and b.w > 1) or (a.v is null and b.w < 1)",
    "(a.v > 1 and b.w is null) or (a.v < 0 and b.w > 0) or (a.v = 0 and b.w = 0)",
    "(a.v > 1 and b.w is null) or a.v < 0",
    "(a.v > 0 and (b.w > 1 or b.w is null)) or (not (a.v > 0) and b.w = 1)",
]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=tables("v"), b=tables("w"), how=st.sampled_from(["left", "right", "full", "inner", "semi"]),
       where=st.booleans(), predicate=st.sampled_from(ACROSS))
def test_ors_across_sides_keep_their_answer(session, a, b, how, where, predicate) -> None:
    """An OR over both sides filters each side by what every branch says about it first
    (``rules.disjunctions``), in a filter or the join's condition, where the join does not
    pad that side with NULLs; the answer, NULLs included, is DuckDB's for the same SQL.
    DataFrames, not SQL: sqlglot turns the small ORs of SQL text into ANDs of ORs first."""
    left, right = session.createDataFrame(a).alias("a"), session.createDataFrame(b).alias("b")
    where = where and how != "semi"
    on = "a.k = b.k" if where else f"a.k = b.k and ({predicate})"
    df = left.join(right, F.expr(on), "left_semi" if how == "semi" else how)
    df = df.where(F.expr(predicate)) if where else df
    columns = "a.k, a.v" if how == "semi" else "a.k, a.v, b.k as bk, b.w"
    df = df.select(*(F.expr(c) for c in columns.split(", ")))
    query = f"select {columns} from a {how} join b on {on}" + (f" where {predicate}" if where else "")
    assert canonical(df.toArrow()) == duckdb_answer(a, b, query)
