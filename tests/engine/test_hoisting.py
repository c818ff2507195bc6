"""Quotients of quotients: each operand is written once per level of nesting
(``compile.hoisting``), the answers stay Python's exact ``decimal`` ones, and an operand a
``CASE`` guards is not computed for rows the guard keeps it from."""

from __future__ import annotations

import decimal
from decimal import Decimal

import pyarrow as pa
import pytest
from tests.engine.engine_helpers import exchange, run_fragment

from sparkwire.coordinator.worker.compile import compile_fragment
from sparkwire.coordinator.worker.engine import TaskEngine
from sparkwire.planner.logical.expressions import Call, Case, Cast, Column, Expr, Lit, NamedExpr
from sparkwire.planner.logical.plan import Project
from sparkwire.planner.logical.staged import Boundary

TYPE = "decimal(18,2)"
ROWS = [("1.00", "3.00"), ("-2.50", "7.00"), ("10.01", "-0.03"), ("0.00", "1.00")]


def _quotient(a: Expr, b: Expr, scale: int = 2) -> Call:
    return Call(fn="decimal_div", args=(Cast(expr=a, to=TYPE), Cast(expr=b, to=TYPE), Lit(value=scale)))


def _nested(depth: int) -> Expr:
    """``a / (a / (a / ... (a + b) ...))``, ``depth`` quotients deep."""
    expr: Expr = Call(fn="add", args=(Column(name="a"), Column(name="b")))
    for _ in range(depth):
        expr = _quotient(Column(name="a"), expr)
    return expr


def _exact(depth: int, a: str, b: str) -> Decimal | None:
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        value = Decimal(a) + Decimal(b)
        for _ in range(depth):
            if value == 0:
                return None
            value = (Decimal(a) / value).quantize(Decimal("0.01"), rounding=decimal.ROUND_HALF_UP)
        return value


def _table() -> pa.Table:
    return pa.table({name: pa.array([Decimal(row[i]) for row in ROWS], pa.decimal128(18, 2))
                     for i, name in enumerate("ab")})


def test_nested_quotients_grow_linearly_and_stay_exact(engine: TaskEngine) -> None:
    table = _table()
    sizes = []
    for depth in (1, 2, 3, 4):
        fragment = Project(input=exchange(table), columns=(NamedExpr(name="q", expr=_nested(depth)),))
        sizes.append(len(compile_fragment(fragment, Boundary(kind="result")).sql))
        got = run_fragment(engine, fragment, {0: table}, ansi=False).column("q").to_pylist()
        assert got == [_exact(depth, a, b) for a, b in ROWS], depth
    steps = [later - earlier for earlier, later in zip(sizes, sizes[1:])]
    # each level adds about what the first did; written in place, each level tripled the text
    assert max(steps) < 2 * min(steps), sizes


def test_an_operand_under_a_case_is_left_where_its_guard_is(engine: TaskEngine) -> None:
    """``CASE WHEN b <> 0 THEN a / (a / b) END``: the inner quotient divides by zero where
    ``b`` is 0, a row the ``CASE`` never computes it for, so ANSI mode raises nothing."""
    table = pa.table({"a": pa.array([Decimal("1.00"), Decimal("2.00")], pa.decimal128(18, 2)),
                      "b": pa.array([Decimal("0.00"), Decimal("4.00")], pa.decimal128(18, 2))})
    guarded = Case(branches=((Call(fn="ne", args=(Column(name="b"), Cast(expr=Lit(value=0), to=TYPE))),
                              _quotient(Column(name="a"), _quotient(Column(name="a"), Column(name="b")))),))
    fragment = Project(input=exchange(table), columns=(NamedExpr(name="q", expr=guarded),))
    got = run_fragment(engine, fragment, {0: table}, ansi=True).column("q").to_pylist()
    assert got == [None, Decimal("4.00")]


@pytest.mark.parametrize("name", ["_operand0", "_OPERAND0"])
def test_a_hoisted_operand_never_takes_an_input_column_s_name(engine: TaskEngine, name: str) -> None:
    table = _table().append_column(name, pa.array([1, 2, 3, 4], pa.int64()))
    fragment = Project(input=exchange(table), columns=(
        NamedExpr(name="q", expr=_nested(2)), NamedExpr(name="kept", expr=Column(name=name))))
    got = run_fragment(engine, fragment, {0: table}, ansi=False)
    assert got.column("kept").to_pylist() == [1, 2, 3, 4]
    assert got.column("q").to_pylist() == [_exact(2, a, b) for a, b in ROWS]
