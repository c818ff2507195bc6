"""How steady the machine's CPU is during a run: the noise floor every ratio sits on.

A fixed unit of pure-Python work is timed again and again, each rate taken against the
fastest the machine runs it. The unit touches no memory beyond the interpreter's own, so its
speed is the CPU's alone: no I/O, no memory bandwidth, no other process of the run. On this
2-core KVM guest (no CPU quota in its cgroup, steal about 0), three 20 s probes in a row
found it below 0.8 of full speed in 48 %, 72 % and 59 % of 17 ms samples, the slowest 5 % at
0.53-0.55, on either core, with the other idle or busy. Slow stretches last from one sample
to 1.6 s. The cause lies below the guest, most likely the host core's other hyperthread busy
with another tenant, which the guest does not see as steal. A 1 GiB read takes about 0.25 s,
so a stretch can slow one read of a pair by nearly half and not the other.
``benchmarks.transports`` probes before and after its measurements and reports this next to
its ratios, so a run on a quiet machine shows it is one.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

#: Loop iterations in one unit of work: about 17 ms on this machine's Python 3.11.
UNIT = 600_000
#: Rates below this share of full speed count as slow.
SLOW = 0.8
#: Pause between units, so the probe samples stretches instead of heating one.
PAUSE_S = 0.02


def _unit() -> int:
    total = 0
    for i in range(UNIT):
        total += i
    return total


def probe(seconds: float) -> list[float]:
    """Units of work per second, one rate per unit, for about ``seconds``."""
    rates: list[float] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        _unit()
        rates.append(1.0 / (time.perf_counter() - started))
        time.sleep(PAUSE_S)
    return rates


def steadiness(rates: list[float]) -> dict[str, Any]:
    """The spread of ``rates`` below the machine's full speed (their 95th percentile, so
    one lucky sample does not set it): the 5th percentile and the median as shares of it,
    and the share of slow samples (below ``SLOW`` of it). A quiet machine reads near 1, 1
    and 0. Against the median instead, a machine slow half the time would look steady."""
    if len(rates) < 20:
        raise ValueError(f"{len(rates)} samples cannot give a 5th percentile; probe longer")
    cuts = statistics.quantiles(rates, n=20)
    full = cuts[-1]
    return {"samples": len(rates), "p5": round(cuts[0] / full, 3),
            "median": round(statistics.median(rates) / full, 3),
            "slow_share": round(sum(r < SLOW * full for r in rates) / len(rates), 3)}
