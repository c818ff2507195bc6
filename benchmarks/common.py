"""Shared benchmark plumbing: timing, result files and plots in ``benchmarks/results/``."""

from __future__ import annotations

import json
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def best_of(fn: Callable[[], Any], repeat: int = 5) -> tuple[float, float]:
    """(best, median) wall seconds of ``repeat`` runs after one warm-up."""
    fn()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times), statistics.median(times)


def write(name: str, rows: Any, plot: Callable[[Path], None],
          meta: dict[str, Any] | None = None) -> Path:
    """Write ``<name>.json`` (with machine facts, plus ``meta``: what was measured and how)
    and ``<name>.png``; return the JSON path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    meta = {"python": platform.python_version(), "machine": platform.machine(),
            "cpus": __import__("os").cpu_count(), "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
            **(meta or {})}
    path.write_text(json.dumps({"meta": meta, "results": rows}, indent=2))
    plot(RESULTS / f"{name}.png")
    return path
