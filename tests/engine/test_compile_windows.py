"""A compiled ``Window`` operator runs on a TaskEngine and matches hand-written DuckDB SQL;
window functions anywhere else are refused by the compiler."""

from __future__ import annotations

import pyarrow as pa
import pytest
from tests.engine.engine_helpers import exchange, oracle, run_fragment

from sparkwire.coordinator.worker.compile import CompileError, compile_fragment
from sparkwire.coordinator.worker.engine import TaskEngine
from sparkwire.planner.logical.expressions import (
    AggCall,
    Column,
    Frame,
    Lit,
    NamedExpr,
    Over,
    SortKey,
    WindowCall,
    WindowItem,
)
from sparkwire.planner.logical.plan import Project, Window
from sparkwire.planner.logical.staged import Boundary


def test_window_items_with_frames(engine: TaskEngine, table: pa.Table) -> None:
    x, i = Column(name="x"), Column(name="i")
    fragment = Window(
        input=exchange(table), partition_by=(Column(name="g"),),
        order_by=(SortKey(expr=Column(name="id"), ascending=False, nulls_first=True),),
        functions=(
            WindowItem(name="rn", function=WindowCall(fn="row_number")),
            WindowItem(name="prev x", function=WindowCall(fn="lag", arg=x, offset=2, default=Lit(value=0.5))),
            WindowItem(name="nt", function=WindowCall(fn="ntile", offset=3)),
            WindowItem(name="sm", function=AggCall(fn="sum", arg=i), frame=Frame(unit="rows", start=-2, end=1)),
            WindowItem(name="f", function=AggCall(fn="first", arg=i, ignore_nulls=True),
                       frame=Frame(unit="rows", start=1, end=None)),
            WindowItem(name="l", function=AggCall(fn="last", arg=i),
                       frame=Frame(unit="range", start=None, end=0)),
            WindowItem(name="c", function=AggCall(fn="count"), frame=Frame(unit="range", start=-3, end=3)),
        ),
    )
    got = run_fragment(engine, fragment, {0: table})
    want = oracle(table, """
        SELECT *, row_number() OVER w AS rn, lag(x, 2, 0.5) OVER w AS "prev x",
               ntile(3) OVER w AS nt,
               sum(i) OVER (w ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS sm,
               first_value(i IGNORE NULLS) OVER (w ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS f,
               last_value(i) OVER (w RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS l,
               count(*) OVER (w RANGE BETWEEN 3 PRECEDING AND 3 FOLLOWING) AS c
        FROM t WINDOW w AS (PARTITION BY g ORDER BY id DESC NULLS FIRST)
    """)
    key = lambda r: r["id"]  # noqa: E731
    assert sorted(got.to_pylist(), key=key) == sorted(want.to_pylist(), key=key)


def test_window_functions_outside_a_window_operator_are_refused(table: pa.Table) -> None:
    loose = Project(input=exchange(table), columns=(NamedExpr(name="r", expr=WindowCall(fn="rank")),))
    with pytest.raises(CompileError, match="outside a Window operator"):
        compile_fragment(loose, Boundary(kind="result"))
    over = Over(function=AggCall(fn="sum", arg=Column(name="i")))
    with pytest.raises(CompileError, match="unsupported expression Over"):
        compile_fragment(Project(input=exchange(table), columns=(NamedExpr(name="o", expr=over),)),
                         Boundary(kind="result"))


def test_ranks_are_integers_as_in_spark(engine: TaskEngine, table: pa.Table) -> None:
    fragment = Window(
        input=exchange(table), order_by=(SortKey(expr=Column(name="id")),),
        functions=tuple(WindowItem(name=fn, function=WindowCall(fn=fn))
                        for fn in ("row_number", "rank", "dense_rank", "percent_rank")),
    )
    schema = run_fragment(engine, fragment, {0: table}).schema
    assert [schema.field(n).type for n in ("row_number", "rank", "dense_rank", "percent_rank")] == [
        pa.int32(), pa.int32(), pa.int32(), pa.float64()]
