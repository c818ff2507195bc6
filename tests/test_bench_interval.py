"""The confidence interval the transport benchmark judges its ratios with
(``benchmarks.measure.median_interval``): the order statistics it picks, and that the
coverage it claims is what sampling gives."""

from __future__ import annotations

import math
import random

import pytest

from benchmarks.measure import median_interval


@pytest.mark.parametrize(("n", "low", "high"), [(5, 1, 5), (7, 1, 7), (9, 2, 8), (12, 3, 10)])
def test_picks_the_narrowest_interval_that_keeps_the_coverage(n: int, low: int, high: int) -> None:
    values = random.Random(n).sample(range(1, n + 1), n)  # order must not matter
    got_low, got_high, coverage = median_interval(values)
    assert (got_low, got_high) == (low, high)
    assert coverage >= 0.95 or (low, high) == (1, n)


@pytest.mark.parametrize("n", [7, 9, 15])
def test_claimed_coverage_holds_when_sampled(n: int) -> None:
    """Skewed samples (the ratio of two rates is), true median known: the interval holds it
    about as often as it claims."""
    rng = random.Random(1000 + n)
    mu = math.log(2) / 2  # lognormvariate(mu, 1) has median e**mu = sqrt 2
    trials, hits, claimed = 4000, 0, 0.0
    for _ in range(trials):
        low, high, claimed = median_interval([rng.lognormvariate(mu, 1.0) for _ in range(n)])
        hits += low <= math.sqrt(2) <= high
    assert abs(hits / trials - claimed) < 0.02
