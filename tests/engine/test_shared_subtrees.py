"""A subtree a fragment reads twice compiles once, as a materialized CTE, and the answer is
the oracle's (``compile.shared``)."""

from __future__ import annotations

import pyarrow as pa
from tests.engine.engine_helpers import exchange, oracle, run_fragment

from sparkwire.coordinator.worker.compile import compile_fragment
from sparkwire.coordinator.worker.engine import TaskEngine
from sparkwire.planner.logical.expressions import AggCall, Call, Column, Lit, NamedExpr, SortKey
from sparkwire.planner.logical.plan import Aggregate, Filter, Join, Operator, Project, SetOperation, Sort
from sparkwire.planner.logical.staged import Boundary


def col(name: str) -> Column:
    return Column(name=name)


def named(name: str, expr: object) -> NamedExpr:
    return NamedExpr(name=name, expr=expr)


def sums(table: pa.Table) -> Aggregate:
    """Sum of x per g: the work both sides of the joins below read."""
    return Aggregate(input=exchange(table), keys=(named("g", col("g")),),
                     aggregates=(named("sx", AggCall(fn="sum", arg=col("x"))),))


def renamed(op: Operator) -> Project:
    return Project(input=op, columns=(named("g2", col("g")), named("sx2", col("sx"))))


def sql(fragment: Operator) -> str:
    return compile_fragment(fragment, Boundary(kind="result")).sql


def test_an_aggregate_read_twice_is_computed_once(engine: TaskEngine, table: pa.Table) -> None:
    agg = sums(table)
    fragment = Join(left=agg, right=renamed(sums(table)), how="inner",
                    left_keys=(col("g"),), right_keys=(col("g2"),))
    text = sql(fragment)
    assert text.count("MATERIALIZED") == 1
    assert text.count("SUM(") == 1
    got = run_fragment(engine, fragment, {0: table})
    want = oracle(table, "WITH a AS (SELECT g, sum(x) AS sx FROM t GROUP BY g) "
                         "SELECT a.g, a.sx, b.g AS g2, b.sx AS sx2 FROM a JOIN a AS b ON a.g = b.g")
    key = lambda r: str(r["g"])  # noqa: E731
    assert sorted(got.to_pylist(), key=key) == sorted(want.to_pylist(), key=key)


def test_a_subtree_read_once_or_without_work_is_inlined(table: pa.Table) -> None:
    assert "MATERIALIZED" not in sql(renamed(sums(table)))


def test_an_input_stream_read_twice_is_read_once(engine: TaskEngine, table: pa.Table) -> None:
    """A filter is not worth materializing, but the exchange under it is a stream DuckDB can
    scan once: the union of an input with itself reads it through one CTE (it failed with
    "this RecordBatchReader has already been consumed")."""
    filtered = Filter(input=exchange(table), predicate=Call(fn="gt", args=(col("x"), Lit(value=0))))
    fragment = SetOperation(left=filtered, right=filtered, kind="union", all=True)
    text = sql(fragment)
    assert text.count("MATERIALIZED") == 1 and text.count("WHERE") == 2
    got = run_fragment(engine, fragment, {0: table})
    want = oracle(table, "SELECT * FROM t WHERE x > 0 UNION ALL SELECT * FROM t WHERE x > 0")
    key = lambda r: (r["id"],)  # noqa: E731
    assert sorted(got.to_pylist(), key=key) == sorted(want.to_pylist(), key=key)


def test_a_shared_sort_shares_its_input_not_its_order(engine: TaskEngine, table: pa.Table) -> None:
    ordered = Sort(input=sums(table), keys=(SortKey(expr=col("sx"), nulls_first=True),), limit=2)
    fragment = SetOperation(left=ordered, right=renamed(ordered), kind="union", all=True)
    text = sql(fragment)
    assert text.count("MATERIALIZED") == 1
    assert text.count("ORDER BY") == 2
    got = run_fragment(engine, fragment, {0: table})
    want = oracle(table, "(SELECT g, sum(x) AS sx FROM t GROUP BY g ORDER BY sx NULLS FIRST LIMIT 2) "
                         "UNION ALL (SELECT g, sum(x) AS sx FROM t GROUP BY g "
                         "ORDER BY sx NULLS FIRST LIMIT 2)")
    key = lambda r: (str(r["g"]), str(r["sx"]))  # noqa: E731
    assert sorted(got.to_pylist(), key=key) == sorted(want.to_pylist(), key=key)
