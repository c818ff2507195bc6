"""Semi and anti joins of a small side with a big one, after the semi-join reduction
(``planner.rules.reduction``) cut the big side down: the same rows as DuckDB."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from tests.e2e.conftest import rows_close

rng = np.random.default_rng(7)
BIG_ROWS = 1_200_000  # 2 x int64: ~19 MB, over the 10 MiB the rule calls big
SMALL = pa.table({"k": pa.array(list(range(0, 3000, 3)) + [None], pa.int64()),
                  "v": pa.array(rng.integers(0, 100, 1001))})
null_every_1000th = np.arange(BIG_ROWS) % 1000 == 0  # NULL keys on the big side match nothing
BIG = pa.table({"k2": pa.array(rng.integers(0, 2000, BIG_ROWS), mask=null_every_1000th),
                "w": pa.array(rng.integers(0, 100, BIG_ROWS))})

CASES = {
    "semi": ("left_semi", False, "SELECT * FROM s WHERE k IN (SELECT k2 FROM b)"),
    "anti": ("left_anti", False, "SELECT * FROM s WHERE NOT EXISTS (SELECT 1 FROM b WHERE k2 = k)"),
    "semi with condition": ("left_semi", True,
                            "SELECT * FROM s WHERE EXISTS (SELECT 1 FROM b WHERE k2 = k AND w > v)"),
    "anti with condition": ("left_anti", True,
                            "SELECT * FROM s WHERE NOT EXISTS (SELECT 1 FROM b WHERE k2 = k AND w > v)"),
}


@pytest.fixture(scope="module")
def session():
    with Session(workers=2) as instance:
        yield instance


@pytest.mark.parametrize("case", CASES)
def test_reduced_semi_and_anti_joins_match_duckdb(session, case):
    how, residual, sql = CASES[case]
    small, big = session.createDataFrame(SMALL), session.createDataFrame(BIG)
    condition = small.k == big.k2
    if residual:
        condition = condition & (big.w > small.v)
    df = small.join(big, condition, how)
    assert "Join semi keys=[k2 = _key]" in df.explain_string()  # the rule fired
    con = duckdb.connect()
    con.register("s", SMALL)
    con.register("b", BIG)
    expected = con.sql(sql).to_arrow_table()
    assert 0 < expected.num_rows < SMALL.num_rows
    assert rows_close(df.toArrow(), expected)
