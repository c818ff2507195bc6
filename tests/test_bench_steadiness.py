"""The CPU probe the transport benchmark reports its noise floor with
(``benchmarks.steadiness``): what its summary says of known samples, and that it probes."""

from __future__ import annotations

import random
import time

import pytest

from benchmarks.steadiness import SLOW, probe, steadiness


def test_a_steady_machine_reads_as_one() -> None:
    got = steadiness([100.0] * 50)
    assert got == {"samples": 50, "p5": 1.0, "median": 1.0, "slow_share": 0.0}


@pytest.mark.parametrize("slow", [25, 60])
def test_slow_stretches_show_against_full_speed(slow: int) -> None:
    """Samples at 0.57 of full speed, as this machine's CPU often runs: a quarter of them,
    and more than half, which a summary against the median would hide."""
    rates = [100.0] * (100 - slow) + [57.0] * slow
    random.Random(slow).shuffle(rates)  # order must not matter
    got = steadiness(rates)
    assert got["slow_share"] == slow / 100
    assert got["p5"] == pytest.approx(0.57)
    assert got["median"] == (pytest.approx(0.57) if slow > 50 else 1.0)
    assert steadiness([100.0] * 75 + [SLOW * 100.0] * 25)["slow_share"] == 0.0  # below, not at


def test_too_few_samples_for_a_percentile_is_an_error() -> None:
    with pytest.raises(ValueError, match="probe longer"):
        steadiness([1.0] * 19)


def test_probe_times_units_for_about_the_time_asked() -> None:
    started = time.monotonic()
    rates = probe(0.3)
    elapsed = time.monotonic() - started
    assert rates and all(rate > 0 for rate in rates)
    units = sum(1 / rate for rate in rates)
    assert units < elapsed  # each rate is one unit's own time, pauses left out
    assert 0.3 <= elapsed < 0.3 + max(1 / rate for rate in rates) + 0.5  # stops once past
