"""The per-worker fixed-costs benchmark reads a process's memory as it says it does."""

from __future__ import annotations

import os

from benchmarks.fixed_costs import _status_mb


def test_a_process_s_memory_is_read_from_proc() -> None:
    memory = _status_mb(os.getpid())
    assert set(memory) == {"VmRSS", "RssAnon", "Pss"}
    assert 0 < memory["RssAnon"] <= memory["VmRSS"]
    assert 0 < memory["Pss"] <= memory["VmRSS"]
