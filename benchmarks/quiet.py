"""Waiting for the machine to go quiet before a timed execution.

A system keeps working after its query returned: Spark's JVM compiles and collects garbage,
worker processes free memory. Whichever system runs next pays for that, and in an
interleaved run it is always the same one. Measured on this 2-core machine, 22 TPC-H SF1
queries: DuckDB, which ran right after Spark SQL, took 2.79 s with Spark SQL in the run and
1.90 s without it; sparkwire-memory 4.04 s against 3.18 s. So before each timed execution
the benchmark waits until the whole machine (``/proc/stat``, every process, not only the
benchmark's) is close to idle, up to a limit, and reports how often the limit was reached.
On a machine that others keep busy the limit is reached every time; a lower one (``limit_s``,
``--quiet-limit``) then keeps the run from waiting ten seconds per execution for nothing.

"Close to idle" is a share of the machine, not a number of cores: on 2 cores it is 0.15
cores, at most one busy tick in a window; on 16 cores, where more daemons tick and a
benchmark's idle workers are many, 1.2 cores. Leftover work of that share takes from the
next execution what 0.15 cores take from one on 2 cores.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

#: Busy share of all CPUs over a window below which the machine counts as quiet.
QUIET_SHARE = 0.075  # 100 ms on 2 cores is 20 ticks: at most one busy
#: The floor, in cores: on one CPU a share would allow no busy tick in a window at all.
QUIET_MIN_CORES = 0.15
WINDOW_S = 0.1
LIMIT_S = 10.0


def quiet_below(cpus: int) -> float:
    """Busy cores over a window below which a machine of ``cpus`` CPUs counts as quiet."""
    return max(QUIET_SHARE * cpus, QUIET_MIN_CORES)


def _ticks() -> tuple[int, int]:
    """(busy, total) clock ticks of all CPUs since boot."""
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


@dataclass
class Quiet:
    """Waits for a quiet machine; counts the waits and the ones that hit the limit."""

    limit_s: float = LIMIT_S
    waited_s: float = 0.0
    waits: int = 0
    unsettled: int = 0

    def wait(self) -> None:
        started = time.monotonic()
        cpus = os.cpu_count() or 1
        below = quiet_below(cpus)
        busy, total = _ticks()
        while True:
            time.sleep(WINDOW_S)
            now_busy, now_total = _ticks()
            spent = now_total - total
            if spent > 0 and (now_busy - busy) / spent * cpus < below:
                break
            if time.monotonic() - started > self.limit_s:
                self.unsettled += 1
                break
            busy, total = now_busy, now_total
        self.waits += 1
        self.waited_s += time.monotonic() - started

    def to_json(self) -> dict[str, float | int]:
        return {"quiet_below_cores": quiet_below(os.cpu_count() or 1), "window_s": WINDOW_S, "limit_s": self.limit_s,
                "waits": self.waits, "waited_s": round(self.waited_s, 1),
                "hit_limit": self.unsettled}

