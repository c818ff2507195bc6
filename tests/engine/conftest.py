"""Fixtures for the engine tests: a locked-down TaskEngine per test and the sample table.

Compiled fragments are checked against an oracle (``engine_helpers.oracle``): a separate,
unrestricted DuckDB running hand-written SQL over the same Arrow table.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest
from tests.engine.engine_helpers import engine_for, make_table

from sparkwire.coordinator.worker.engine import EngineSettings, TaskEngine


@pytest.fixture
def settings(tmp_path: Path) -> EngineSettings:
    spill = tmp_path / "spill"
    spill.mkdir()
    return EngineSettings(threads=1, temp_directory=spill, batch_rows=1000)


@pytest.fixture
def table() -> pa.Table:
    return make_table()


@pytest.fixture
def engine(settings: EngineSettings) -> Iterator[TaskEngine]:
    with engine_for(settings) as eng:
        yield eng
