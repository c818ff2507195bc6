"""``ProcessCluster`` placements: one per worker or none (where they are used: tests/hosts)."""

from __future__ import annotations

import pytest

from sparkwire.coordinator.clusters.process import Placement, ProcessCluster
from sparkwire.coordinator.config import load_settings
from sparkwire.transport.errors import ConfigError


def test_placements_must_match_the_workers() -> None:
    with pytest.raises(ConfigError, match="1 placements for 2 workers"):
        ProcessCluster(load_settings(workers=2, transport="zmq"), placements=[Placement()])


def test_a_launcher_and_an_interface_place_each_worker() -> None:
    """``env`` execs the worker, as a launcher must; the worker serves on the interface given."""
    placements = [Placement(launcher=("env", "SPARKWIRE_PLACED=1"), host="127.0.0.1"), Placement()]
    with ProcessCluster(load_settings(workers=2, transport="zmq"), placements=placements) as cluster:
        first, second = cluster.announcements
        assert first.address.startswith("tcp://127.0.0.1:")
        with open(f"/proc/{first.pid}/environ", "rb") as environ:
            assert b"SPARKWIRE_PLACED=1" in environ.read().split(b"\0")
        with open(f"/proc/{second.pid}/environ", "rb") as environ:
            assert b"SPARKWIRE_PLACED=1" not in environ.read().split(b"\0")
