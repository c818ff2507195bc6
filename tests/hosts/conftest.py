"""Fixtures for tests on simulated hosts (``tests/hosts/network.py``): skipped, with the
reason, where network and mount namespaces cannot be made (not root, no ``ip``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from sparkwire.coordinator.tpch import TPCH_TABLES, ensure_tpch
from tests.e2e.tpch import expected_answers
from tests.hosts.network import SimulatedNetwork, unavailable


@pytest.fixture(scope="session")
def namespaces_available() -> None:
    reason = unavailable()
    if reason is not None:
        pytest.skip(reason)


@pytest.fixture(scope="module")
def network(namespaces_available: None) -> Iterator[SimulatedNetwork]:
    """Two simulated hosts, ``a`` and ``b``, for the tests of one module."""
    with SimulatedNetwork(hosts=2) as made:
        yield made


@pytest.fixture(scope="session")
def tpch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every TPC-H table at scale factor 0.01, four files each: small, so tests stay fast."""
    return ensure_tpch(0.01, tables=TPCH_TABLES, parts=4, root=tmp_path_factory.mktemp("tpch"))


@pytest.fixture(scope="session")
def expected(tpch: Path) -> dict[str, pa.Table]:
    """DuckDB's answers on the same files: the oracle."""
    return expected_answers(tpch)
