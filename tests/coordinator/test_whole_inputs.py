"""Exchange inputs that end within what is left of the worker's ``MemoryPlan.whole_input``
reach DuckDB as tables (so its join orderer knows their rows); larger ones stream, starting
with the batches already read. Either way every row arrives once: a join with inputs of
each kind equals DuckDB's, and the budget is whole again afterwards."""

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
ROWS = 2_000_000  # 2 x int64: 32 MB, more than twice a 128 MiB worker's 12.8 MiB
BIG = pa.table({"k": rng.integers(0, 5_000, ROWS), "w": rng.integers(0, 1_000, ROWS)})
SMALL = pa.table({"k2": np.arange(0, 5_000, 3), "v": rng.integers(0, 9, 1_667)})
QUERY = "SELECT v, count(*) AS n, sum(w) AS s FROM big JOIN small ON k = k2 GROUP BY v"


@pytest.mark.parametrize("threshold", [0, 1 << 40], ids=["shuffle", "broadcast"])
def test_inputs_over_and_under_the_cap_give_every_row(threshold: int) -> None:
    """Shuffled, the tasks read quarters of BIG (together over the cap) and of SMALL;
    broadcast, SMALL whole."""
    settings = {"worker": {"memory": "128MiB", "engine": {"batch_rows": 8192}},
                "broadcast_threshold": threshold, "local_chunk_rows": ROWS // 2}
    cap = MemoryPlan.of(load_settings(**settings).worker).whole_input
    assert SMALL.nbytes < cap < BIG.nbytes // 2  # what each of the 2 workers reads of BIG
    oracle = duckdb.connect()
    oracle.register("big", BIG)
    oracle.register("small", SMALL)
    expected = oracle.sql(QUERY).to_arrow_table()
    with Session(workers=2, **settings) as session:
        session.createDataFrame(BIG).createOrReplaceTempView("big")
        session.createDataFrame(SMALL).createOrReplaceTempView("small")
        assert rows_close(session.sql(QUERY).toArrow(), expected)
        for worker in [session.cluster.driver, *session.cluster.workers]:
            assert worker._whole_inputs.take(cap) and not worker._whole_inputs.take(1)
