"""Exchange inputs that end within ``MemoryPlan.whole_input`` reach DuckDB as tables (so its
join orderer knows their rows); larger ones stream, starting with the batches already read.
Either way every row arrives once: a join with one input of each kind equals DuckDB's."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.config import load_settings
from sparkwire.coordinator.worker.memory import MemoryPlan
from tests.e2e.conftest import rows_close

rng = np.random.default_rng(7)
ROWS = 400_000  # 2 x int64: ~6 MiB, several batches over the cap of a 128 MiB worker
BIG = pa.table({"k": rng.integers(0, 5_000, ROWS), "w": rng.integers(0, 1_000, ROWS)})
SMALL = pa.table({"k2": np.arange(0, 5_000, 3), "v": rng.integers(0, 9, 1_667)})
QUERY = "SELECT v, count(*) AS n, sum(w) AS s FROM big JOIN small ON k = k2 GROUP BY v"


@pytest.mark.parametrize("threshold", [0, 1 << 40], ids=["shuffle", "broadcast"])
def test_inputs_over_and_under_the_cap_give_every_row(threshold: int) -> None:
    """Shuffled, each task reads a quarter of BIG (over the cap) and of SMALL (under it);
    broadcast, SMALL whole."""
    settings = {"worker": {"memory": "128MiB", "engine": {"batch_rows": 8192}},
                "broadcast_threshold": threshold, "local_chunk_rows": ROWS // 2}
    cap = MemoryPlan.of(load_settings(**settings).worker).whole_input
    assert SMALL.nbytes < cap < BIG.nbytes // 4
    oracle = duckdb.connect()
    oracle.register("big", BIG)
    oracle.register("small", SMALL)
    expected = oracle.sql(QUERY).to_arrow_table()
    with Session(workers=2, **settings) as session:
        session.createDataFrame(BIG).createOrReplaceTempView("big")
        session.createDataFrame(SMALL).createOrReplaceTempView("small")
        assert rows_close(session.sql(QUERY).toArrow(), expected)
