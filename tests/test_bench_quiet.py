"""The quiet-machine wait of the TPC-H and scaling benchmarks (``benchmarks.quiet``): what
counts as quiet grows with the machine, so a 16-core machine with a few daemons and a
benchmark's idle workers ticking still counts as quiet, as 2 cores do with one busy tick."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from benchmarks import quiet
from benchmarks.quiet import Quiet, quiet_below


@pytest.mark.parametrize(("cpus", "cores"), [(1, 0.15), (2, 0.15), (4, 0.3), (16, 1.2)])
def test_quiet_is_a_share_of_the_machine(cpus: int, cores: float) -> None:
    assert quiet_below(cpus) == pytest.approx(cores)


def _machine(monkeypatch: pytest.MonkeyPatch, cpus: int, busy_cores: float) -> None:
    """A machine of ``cpus`` CPUs, ``busy_cores`` of them busy, as ``/proc/stat`` counts."""
    def ticks() -> Iterator[tuple[int, int]]:
        busy = total = 0
        while True:
            yield busy, total
            busy += round(busy_cores * 10)  # ten ticks per CPU in a 100 ms window
            total += cpus * 10

    readings = ticks()
    monkeypatch.setattr(quiet.os, "cpu_count", lambda: cpus)
    monkeypatch.setattr(quiet, "_ticks", lambda: next(readings))
    monkeypatch.setattr(quiet, "WINDOW_S", 0.001)


@pytest.mark.parametrize(("cpus", "busy", "settles"),
                         [(2, 0.1, True), (2, 0.3, False), (16, 1.0, True), (16, 1.5, False)])
def test_waits_until_the_machine_is_quiet_for_its_size(monkeypatch: pytest.MonkeyPatch, cpus: int,
                                                       busy: float, settles: bool) -> None:
    _machine(monkeypatch, cpus, busy)
    waiting = Quiet(limit_s=0.05)  # the limit is per wait since --quiet-limit
    waiting.wait()
    assert (waiting.waits, waiting.unsettled) == (1, 0 if settles else 1)
    assert waiting.to_json()["quiet_below_cores"] == quiet_below(cpus)
