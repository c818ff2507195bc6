"""``decimal_div`` is Spark's exact decimal quotient: the engine's result equals Python's
``decimal`` arithmetic (28+ digits of context, rounded HALF_UP to the scale), on ties,
signs, zero dividends and the widest scales, where dividing doubles would be off."""

from __future__ import annotations

import decimal
from decimal import Decimal

import pyarrow as pa
import pytest
from tests.engine.engine_helpers import exchange, run_fragment

from sparkwire.coordinator.worker.engine import TaskEngine
from sparkwire.planner.logical.expressions import Call, Cast, Column, Lit, NamedExpr
from sparkwire.planner.logical.plan import Project

PAIRS = [
    ("1.00", "3"), ("2.00", "3"), ("-2.00", "3"), ("1.00", "-8"), ("-1.00", "-8"),  # ties at 3
    ("0.00", "7"), ("12345678901234567890123456.78", "7"), ("-0.01", "2"), ("0.05", "-2"),
    ("99999999999999999999999999999999.99", "1"), ("1.00", "99999999999999999999999999"),
]


def _exact(a: str, b: str, scale: int) -> Decimal:
    with decimal.localcontext() as ctx:
        ctx.prec = 100
        return (Decimal(a) / Decimal(b)).quantize(Decimal(1).scaleb(-scale), rounding=decimal.ROUND_HALF_UP)


@pytest.mark.parametrize("scale", [0, 3, 6])  # Spark gives decimal(34,2) / decimal(26,0) scale 6
def test_quotients_are_exact_and_round_half_up(engine: TaskEngine, scale: int) -> None:
    table = pa.table({
        "a": pa.array([Decimal(a) for a, _ in PAIRS], pa.decimal128(34, 2)),
        "b": pa.array([Decimal(b) for _, b in PAIRS], pa.decimal128(26, 0)),
    })
    quotient = Call(fn="decimal_div", args=(
        Cast(expr=Column(name="a"), to="decimal(34,2)"), Cast(expr=Column(name="b"), to="decimal(26,0)"),
        Lit(value=scale)))
    fragment = Project(input=exchange(table), columns=(NamedExpr(name="q", expr=quotient),))
    got = run_fragment(engine, fragment, {0: table}).column("q")
    assert got.type == pa.decimal128(38, scale)
    assert got.to_pylist() == [_exact(a, b, scale) for a, b in PAIRS]


def test_the_widest_scale(engine: TaskEngine) -> None:
    table = pa.table({"a": pa.array([Decimal("1"), Decimal("-2")], pa.decimal128(1, 0))})
    quotient = Call(fn="decimal_div", args=(
        Cast(expr=Column(name="a"), to="decimal(1,0)"), Cast(expr=Lit(value=3), to="decimal(1,0)"),
        Lit(value=37)))
    fragment = Project(input=exchange(table), columns=(NamedExpr(name="q", expr=quotient),))
    got = run_fragment(engine, fragment, {0: table}).column("q").to_pylist()
    assert got == [_exact("1", "3", 37), _exact("-2", "3", 37)]


NARROW = [("1.00", "3"), ("2.00", "3"), ("-2.00", "3"), ("1.00", "-8"), ("-1.00", "-8"),
          ("0.00", "7"), ("-0.01", "2"), ("0.05", "-2"), ("99999999.99", "1"), ("-99999999.99", "99999"),
          ("2.50", "5"), ("-7.50", "3"), ("12.34", "0"), (None, "3"), ("5.00", None)]


@pytest.mark.parametrize(("types", "scale"), [
    (("decimal(10,2)", "decimal(5,0)"), 6),   # both fit 18 digits: the BIGINT path
    (("decimal(10,2)", "decimal(5,0)"), 0),
    (("decimal(10,8)", "decimal(5,0)"), 6),   # a scale below the dividend's: the divisor moves up
])
def test_narrow_quotients_round_half_up_and_divide_by_zero_as_spark(
        engine: TaskEngine, types: tuple[str, str], scale: int) -> None:
    """Operands of at most 18 digits divide as BIGINTs; the answer is the same exact,
    HALF_UP quotient, NULL for a NULL operand or (ANSI off) a zero divisor."""
    a_type, b_type = (pa.decimal128(*map(int, t[8:-1].split(","))) for t in types)
    pairs = [(a, b) for a, b in NARROW if a is None or len(Decimal(a).as_tuple().digits) <= a_type.precision - a_type.scale + 2]
    table = pa.table({
        "a": pa.array([None if a is None else Decimal(a).quantize(Decimal(1).scaleb(-a_type.scale)) for a, _ in pairs], a_type),
        "b": pa.array([None if b is None else Decimal(b) for _, b in pairs], b_type),
    })
    quotient = Call(fn="decimal_div", args=(
        Cast(expr=Column(name="a"), to=types[0]), Cast(expr=Column(name="b"), to=types[1]), Lit(value=scale)))
    fragment = Project(input=exchange(table), columns=(NamedExpr(name="q", expr=quotient),))
    got = run_fragment(engine, fragment, {0: table}, ansi=False).column("q").to_pylist()
    want = [None if a is None or b is None or Decimal(b) == 0 else _exact(a, b, scale) for a, b in pairs]
    assert got == want


def test_a_literal_divisor_needs_no_zero_check(engine: TaskEngine) -> None:
    table = pa.table({"a": pa.array([Decimal("2.50"), Decimal("-2.50"), None], pa.decimal128(10, 2))})
    quotient = Call(fn="decimal_div", args=(
        Cast(expr=Column(name="a"), to="decimal(10,2)"), Cast(expr=Lit(value=2), to="decimal(1,0)"),
        Lit(value=1)))
    fragment = Project(input=exchange(table), columns=(NamedExpr(name="q", expr=quotient),))
    got = run_fragment(engine, fragment, {0: table}).column("q").to_pylist()
    assert got == [_exact("2.50", "2", 1), _exact("-2.50", "2", 1), None]


def _average(total: str, rows: int, scale: int) -> Decimal:
    with decimal.localcontext() as ctx:
        ctx.prec = 100
        return (Decimal(total) / rows).quantize(Decimal(1).scaleb(-scale), rounding=decimal.ROUND_HALF_UP)


# (sum, count): ties at a third and an eighth, signs, one row, sums near their type's limit
SUMS = [("1.00", 3), ("2.00", 3), ("-2.00", 3), ("0.01", 8), ("-0.01", 8), ("0.05", 2),
        ("-0.05", 2), ("0.00", 5), ("7.77", 1), ("-123456.79", 7), (None, 0)]


@pytest.mark.parametrize(("precision", "scale"), [(15, 6), (25, 6), (33, 6), (38, 6)])
def test_decimal_averages_are_exact_and_round_half_up(engine: TaskEngine, precision: int,
                                                      scale: int) -> None:
    """``decimal_avg`` of a sum of 2 decimals: one rounded division while the sum and the 4
    added digits fit 37 digits (15, 25, 33), long division past that (38); the widest sums
    of each type too (of decimal(38,2), the widest whose average fits decimal(38,6))."""
    widest = "9" * (min(precision, 32) - 2) + ".99"
    pairs = [*SUMS, (widest, 1), (widest, 3), ("-" + widest, 7)]
    table = pa.table({
        "s": pa.array([None if s is None else Decimal(s) for s, _ in pairs], pa.decimal128(precision, 2)),
        "n": pa.array([n for _, n in pairs], pa.int64()),
    })
    average = Call(fn="decimal_avg", args=(
        Cast(expr=Column(name="s"), to=f"decimal({precision},2)"), Column(name="n"), Lit(value=scale)))
    fragment = Project(input=exchange(table), columns=(NamedExpr(name="a", expr=average),))
    got = run_fragment(engine, fragment, {0: table}).column("a").to_pylist()
    assert got == [None if s is None else _average(s, n, scale) for s, n in pairs]
