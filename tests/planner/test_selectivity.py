"""The filter selectivity guesses (``planner.selectivity``), and the join side they choose."""

from __future__ import annotations

import pytest

from sparkwire.planner import functions as F
from sparkwire.planner.selectivity import EQUAL, NULL, RANGE, UNKNOWN, selectivity

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
