"""Plans at and past the limits of ``planner.limits``: deep but valid plans run, or are
refused up front with the limit named, never with a RecursionError from inside the stack;
the session stays usable either way."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.planner.api import functions as F
from sparkwire.planner.errors import AnalysisError, PlanError
from sparkwire.planner.limits import MAX_IN_LIST
from sparkwire.transport.errors import PlanRejected

DATA = pa.table({"x": pa.array(range(100), pa.int64())})


@pytest.fixture(scope="module")
def session():
    with Session(workers=2) as s:
        yield s


def oracle(sql: str) -> object:
    con = duckdb.connect()
    con.register("t", DATA)
    return con.sql(sql).fetchall()[0][0]


def test_a_hundred_chained_columns_run(session) -> None:
    df = session.createDataFrame(DATA)
    for _ in range(100):
        df = df.withColumn("x", F.col("x") + 1)
    assert df.agg(F.sum("x")).collect()[0][0] == oracle("select sum(x + 100) from t")


def test_a_plan_past_the_depth_limit_is_refused_naming_it(session) -> None:
    df = session.createDataFrame(DATA)
    for _ in range(300):
        df = df.withColumn("x", F.col("x") + 1).filter(F.col("x") > -5)
    with pytest.raises(PlanError, match="too deep|levels deep"):
        df.count()
    assert session.createDataFrame(DATA).count() == 100  # still usable


def test_a_plan_too_deep_to_compile_is_rejected_not_crashed(session) -> None:
    df = session.createDataFrame(DATA)
    for _ in range(60):
        df = df.withColumn("x", F.col("x") + 1).filter(F.col("x") > -5)
    try:
        got = df.agg(F.sum("x")).collect()[0][0]
    except (PlanError, PlanRejected) as exc:
        assert "deep" in str(exc)
    else:
        assert got == oracle("select sum(x + 60) from t")
    assert session.createDataFrame(DATA).count() == 100


def test_an_in_list_past_the_limit_is_refused_on_the_driver(session) -> None:
    df = session.createDataFrame(DATA)
    with pytest.raises(AnalysisError, match=str(MAX_IN_LIST)):
        df.filter(F.col("x").isin(list(range(MAX_IN_LIST + 1))))
    df.createOrReplaceTempView("t")
    values = ", ".join(map(str, range(MAX_IN_LIST + 1)))
    with pytest.raises(AnalysisError, match=str(MAX_IN_LIST)):
        session.sql(f"select x from t where x in ({values})")
    assert df.filter(F.col("x").isin(list(range(50)))).count() == 50
