"""The filter selectivity guesses (``planner.optimizer.selectivity``), and the join side they choose."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from sparkwire.planner.api import functions as F
from sparkwire.planner.optimizer.estimates import estimate_bytes, estimate_rows
from sparkwire.planner.logical.plan import Filter
from sparkwire.planner.logical.sources import FileSplit, ParquetScan
from sparkwire.planner.optimizer.selectivity import EQUAL, NULL, RANGE, UNKNOWN, selectivity

x, y, k = F.col("x"), F.col("y"), F.col("k")


@pytest.mark.parametrize(("predicate", "share"), [
    (x == 1, EQUAL),
    (x != 1, 1 - EQUAL),
    (x < 3, RANGE),
    (x >= y, RANGE),
    (x.between(1, 5), 0.25),
    (k.isin("a", "b", "c"), 3 * EQUAL),
    (k.isin(*"abcdefghij"), UNKNOWN),  # an IN list keeps at most half
    (x.isNull(), NULL),
    (x.isNotNull(), 1 - NULL),
    (~(x == 1), 1 - EQUAL),
    ((x > 1) & (y < 2) & (k == "a"), RANGE * RANGE * EQUAL),
    ((x == 1) | (y == 2), EQUAL + EQUAL - EQUAL * EQUAL),
    (F.lit(True), UNKNOWN),
])
def test_guesses(predicate, share):
    assert selectivity(predicate.expr) == pytest.approx(share)


def test_never_zero():
    conjunction = x > 0
    for _ in range(30):
        conjunction = conjunction & (x > 0)
    assert 0 < selectivity(conjunction.expr) <= 1e-6


SPANS = {"x": (0.0, 100.0), "d": (float(dt.date(1992, 1, 1).toordinal()), float(dt.date(1999, 1, 1).toordinal()))}


@pytest.mark.parametrize(("predicate", "share"), [
    (x.between(25, 75), 0.5),
    ((x >= 25) & (x < 75), 0.5),  # two bounds on one column make one interval
    (F.lit(90) < x, 0.1),  # the constant on the left
    ((x > 50) & (k == "a"), 0.5 * EQUAL),
    ((x > 50) & (y < 2), 0.5 * RANGE),  # y's span is unknown: the guess
    (x > y, RANGE),  # not a constant
    ((x > 10) | (x < 0), 0.9),
    (F.col("d") >= F.lit(dt.date(1995, 7, 2)), 0.5),
])
def test_bounds_within_a_known_span(predicate, share):
    assert selectivity(predicate.expr, SPANS.get) == pytest.approx(share, rel=1e-3)


def test_an_interval_outside_the_span_keeps_almost_nothing():
    assert selectivity(((x > 200) & (x < 300)).expr, SPANS.get) == pytest.approx(1e-6)


def test_a_filter_on_a_scan_keeps_the_share_of_its_column_range(write_parquet):
    """The footers' min and max of ``v`` (0..999) over two files place the bounds."""
    paths = [write_parquet(f"p{i}.parquet", 100, pa.table({"v": pa.array(range(500 * i, 500 * i + 500), pa.int64())}))
             for i in range(2)]
    scan = ParquetScan(splits=tuple(FileSplit(path=str(p)) for p in paths), columns=("v",))
    kept = Filter(input=scan, predicate=((F.col("v") >= 100) & (F.col("v") < 400)).expr)
    assert estimate_rows(kept) == pytest.approx(300, rel=0.01)
    assert estimate_bytes(kept) == pytest.approx(estimate_bytes(scan) * 0.3, rel=0.01)


@pytest.mark.parametrize(("predicate", "share"), [
    (x == 40, 1 / 101),  # one of the 101 whole numbers 0..100
    (F.lit(40) == x, 1 / 101),
    (x.isin(1, 2, 3), 3 / 101),
    (x.isin(1, 2, 2, 500), 2 / 101),  # repeats count once, values outside the span not at all
    (F.col("d") == F.lit(dt.date(1995, 7, 2)), 1 / 2558),  # 1992-01-01..1999-01-01, each day
    ((x == 1) | ((x == 2) & (F.col("d") == F.lit(dt.date(1995, 7, 2)))),
     1 / 101 + 1 / 101 / 2558 - 1 / 101 / 101 / 2558),
    (x == 40.5, EQUAL),  # a fraction: the guess
    (x == y, EQUAL),  # two columns: the guess
    (k == "a", EQUAL),  # no span: the guess
])
def test_whole_numbers_equal_to_constants_keep_one_value_of_the_span_each(predicate, share):
    assert selectivity(predicate.expr, SPANS.get) == pytest.approx(share, rel=1e-3)


def test_a_constant_outside_the_span_keeps_almost_nothing():
    assert selectivity((x == 500).expr, SPANS.get) == pytest.approx(1e-6)
    assert selectivity((x == 500).expr, {"x": (500.0, 500.0)}.get) == 1.0
