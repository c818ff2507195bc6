"""Shared benchmark plumbing: timing, result files and plots in ``benchmarks/results/``."""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def as_worker_process() -> None:
    """This process's allocators set as a worker's (``tune_process_memory``, for the
    configured worker): in a cluster, the transports' readers and producers are workers."""
    from sparkwire.coordinator.config import load_settings
    from sparkwire.coordinator.worker.memory import MemoryPlan, tune_process_memory

    tune_process_memory(MemoryPlan.of(load_settings().worker))


@contextmanager
def shared_security(enabled: bool | None = None) -> Iterator[Any]:
    """The transport security of this run, as a cluster shares it: the configured one
    (``SPARKWIRE_TRANSPORT__SECURITY__*``, on by default), switched on or off by ``enabled``
    when given, with generated credentials as files, exported so that child processes
    (``load_settings()``) hold the same. Yields ``Security``."""
    from sparkwire.coordinator.clusters.credentials import SharedCredentials
    from sparkwire.coordinator.config import Settings, load_settings

    configured = load_settings().transport.security
    if enabled is not None:
        configured = configured.model_copy(update={"enabled": enabled})
    shared = SharedCredentials(Settings(transport={"kind": "flight", "security": configured}))
    security = shared.settings.transport.security
    exported = {f"SPARKWIRE_TRANSPORT__SECURITY__{name.upper()}": str(value)
                for name, value in security if value is not None and name != "curve_clients"}
    saved = {name: os.environ.get(name) for name in exported}
    os.environ.update(exported)
    try:
        yield security
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shared.close()


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


def write_report(name: str, rows: dict[str, Any], meta: dict[str, Any],
                 plot: Callable[[dict[str, Any], dict[str, Any], Path], None],
                 markdown: Callable[[dict[str, Any], dict[str, Any]], str]) -> Path:
    """``write`` plus ``<name>.md``, the summary a reader opens first, printed too."""
    path = write(name, rows, lambda png: plot(meta, rows, png), meta)
    summary = markdown(meta, rows)
    path.with_suffix(".md").write_text(summary + "\n")
    print(f"\n{summary}\n\nwrote {path} and its .png and .md", flush=True)
    return path
