"""The cluster's cores, which plans are sized by (``ClusterBase.cores``): this machine's
CPUs for workers on it, or fewer when their task slots are fewer; each worker's slots for
workers elsewhere; ``worker.cores`` each where the settings give it."""

from __future__ import annotations

import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.clusters import base
from sparkwire.coordinator.clusters.local import LocalCluster
from sparkwire.coordinator.config import load_settings


@pytest.fixture
def four_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SPARKWIRE_WORKER__CORES", raising=False)  # tests/conftest.py pins it
    monkeypatch.setattr(base, "_machine_cpus", lambda: 4)


@pytest.mark.parametrize(("workers", "slots", "threads", "cores"),
                         [(1, 2, 1, 2), (2, 2, 1, 4), (16, 2, 1, 4), (3, 1, 1, 3), (1, 2, 2, 4)])
def test_workers_on_this_machine_share_its_cpus(four_cpus: None, workers: int, slots: int,
                                                threads: int, cores: int) -> None:
    settings = load_settings(workers=workers, worker={"task_slots": slots, "engine": {"threads": threads}})
    with LocalCluster(settings) as cluster:
        assert cluster.cores == cores


def test_workers_elsewhere_count_their_slots(four_cpus: None) -> None:
    with LocalCluster(load_settings(workers=16)) as cluster:
        cluster.on_this_host = False  # as a Spark cluster or placed worker processes
        assert cluster.cores == 32


def test_configured_cores_are_per_worker(four_cpus: None) -> None:
    with Session(workers=3, worker={"cores": 5}) as session:
        assert session.cores == 15
        assert session.workers == 3
