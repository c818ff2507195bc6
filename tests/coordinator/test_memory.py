"""One memory setting bounds a worker: ``worker.memory`` is cut into the partition store,
DuckDB's limit, the transport's read-ahead and small inputs read whole, and a shuffle five times the cluster's
memory stays within it, on real worker processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.reliability import memory as shuffle_five_times_the_memory
from sparkwire.coordinator.clusters.hosting import HostedWorker
from sparkwire.coordinator.config import load_settings
from sparkwire.coordinator.worker.memory import STREAMS_PER_SLOT, MemoryPlan
from sparkwire.transport.errors import ConfigError
from sparkwire.transport.registry import create_transport
from tests.credentials import SECURITY

MiB = 1 << 20


@pytest.mark.parametrize("memory", ["128MiB", "2GiB", 3 << 30])
@pytest.mark.parametrize("slots", [1, 4, 16])
def test_the_shares_never_add_up_to_more_than_the_setting(memory: object, slots: int) -> None:
    worker = load_settings(worker={"memory": memory, "task_slots": slots}).worker
    plan = MemoryPlan.of(worker)
    streams = slots * STREAMS_PER_SLOT
    assert plan.store + plan.engine + plan.window * streams + plan.whole_input <= 0.75 * worker.memory
    assert plan.engine > plan.store > 0 and plan.window >= 64 << 10 and plan.whole_input > 0


_REUSE = """
import resource, sys
from sparkwire.coordinator.config import load_settings
from sparkwire.coordinator.worker.memory import MemoryPlan, tune_process_memory
if sys.argv[1] == "tuned":
    tune_process_memory(MemoryPlan.of(load_settings().worker))
def rounds(n):  # a window of received frames, freed and received again
    for _ in range(n):
        held = [bytearray(2 << 20) for _ in range(12)]
        del held
rounds(2)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
rounds(20)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def test_a_worker_process_reuses_a_window_of_freed_heap_instead_of_faulting_it_in_again() -> None:
    def faults(mode: str) -> int:
        return int(subprocess.run([sys.executable, "-c", _REUSE, mode], check=True, timeout=60,
                                  capture_output=True, text=True).stdout)
    plain, tuned = faults("plain"), faults("tuned")
    assert plain > 20 * 12 * 256  # glibc's default: a fault per page, every round
    assert tuned < plain // 20


def test_a_memory_setting_below_what_a_worker_needs_is_refused() -> None:
    with pytest.raises(ConfigError, match="memory"):
        load_settings(worker={"memory": "64MiB"})
    assert load_settings(worker={"memory": "1.5GiB"}).worker.memory == 3 << 29


def test_the_read_ahead_window_goes_to_transports_that_have_one() -> None:
    with create_transport("zmq", {}, SECURITY, window=3 * MiB) as zmq:
        assert zmq.capabilities.max_inflight_bytes == 3 * MiB
    with create_transport("zmq", {"credit_bytes": 5 * MiB}, SECURITY, window=3 * MiB) as zmq:
        assert zmq.capabilities.max_inflight_bytes == 5 * MiB  # what the user set wins
    with create_transport("flight", {}, SECURITY, window=3 * MiB) as flight:
        assert flight.capabilities.window_option is None


@pytest.mark.parametrize("kind", ["zmq", "flight"])
def test_a_worker_facing_the_network_needs_data_roots(kind: str) -> None:
    """Refused before anything binds: 192.0.2.1 (TEST-NET-1) is on no interface here."""
    settings = load_settings(transport=kind)
    settings = settings.model_copy(update={"transport": settings.transport.model_copy(
        update={"security": SECURITY})})
    with pytest.raises(ConfigError, match="data_roots"):
        HostedWorker(settings, "w0", host="192.0.2.1")


@pytest.mark.slow
def test_a_shuffle_five_times_the_clusters_memory_stays_within_it(tmp_path: Path) -> None:
    """Two worker processes with 128 MiB each join 1.25 GiB; each worker's peak RSS stays
    within its baseline (its RSS after a small query: interpreter, libraries, an open
    database, connected peers) plus ``worker.memory``, and the answer is DuckDB's."""
    result = shuffle_five_times_the_memory(tmp_path, 128 * MiB)
    assert result["correct"]
    assert result["shuffle_over_cluster_memory"] >= 5 - 1e-6
    for peak, baseline in zip(result["peak_rss_bytes"], result["idle_rss_bytes"], strict=True):
        assert peak <= baseline + 128 * MiB, (peak // MiB, baseline // MiB)
