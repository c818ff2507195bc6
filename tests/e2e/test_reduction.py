"""Semi and anti joins of a small side with a big one, after the semi-join reduction
(``planner.optimizer.rules.reduction``) cut the big side down: the same rows as DuckDB."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
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


def duckdb_answer(sql: str, tables: dict[str, pa.Table]) -> pa.Table:
    """The oracle: ``sql`` over ``tables`` in a single DuckDB."""
    con = duckdb.connect()
    for name, table in tables.items():
        con.register(name, table)
    return con.sql(sql).to_arrow_table()


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
    expected = duckdb_answer(sql, {"s": SMALL, "b": BIG})
    assert 0 < expected.num_rows < SMALL.num_rows
    assert rows_close(df.toArrow(), expected)


# A fact joined with a dimension filtered by IN / NOT EXISTS on the join key: the filter is
# copied onto the fact side (``planner.optimizer.rules.transitivity``), which then ships only the rows
# that can match, computing the small side once (TPC-H Q18's shape).
DIM = pa.table({"dk": pa.array(range(2000), pa.int64()), "p": pa.array(rng.integers(0, 9, 2000))})
COPIED = {
    "in": "SELECT dk, p, sum(w) AS s FROM b JOIN d ON k2 = dk "
          "WHERE dk IN (SELECT k2 FROM b GROUP BY k2 HAVING sum(w) > 31000) GROUP BY dk, p",
    "not exists": "SELECT dk, p, count(*) AS n FROM b JOIN d ON k2 = dk "
                  "WHERE NOT EXISTS (SELECT 1 FROM s WHERE k = dk) GROUP BY dk, p",
}


@pytest.mark.parametrize("case", COPIED)
def test_semi_joins_copied_across_join_keys_match_duckdb(session, case):
    for name, table in (("s", SMALL), ("b", BIG), ("d", DIM)):
        session.createDataFrame(table).createOrReplaceTempView(name)
    df = session.sql(COPIED[case])
    plan = df.explain_string()
    assert plan.count("Join semi" if case == "in" else "Join anti") == 2  # on d and, copied, on b
    expected = duckdb_answer(COPIED[case], {"s": SMALL, "b": BIG, "d": DIM})
    assert 0 < expected.num_rows < DIM.num_rows
    assert rows_close(df.toArrow(), expected)


def test_an_aggregate_cut_to_the_joined_keys_matches_duckdb(session):
    """TPC-H Q17's shape: a small side joined to a per-key aggregate of a big one."""
    wide = BIG.append_column("x", pa.array(rng.integers(0, 100, BIG_ROWS)))  # ~29 MB
    query = ("SELECT k, v, a, n FROM s JOIN (SELECT k2 AS g, avg(w) AS a, count(x) AS n "
             "FROM b GROUP BY k2) ON k = g WHERE v < a")
    for name, table in (("s", SMALL), ("b", wide)):
        session.createDataFrame(table).createOrReplaceTempView(name)
    df = session.sql(query)
    assert "Join semi keys=[k2 = _key" in df.explain_string()  # the aggregate's input was cut
    expected = duckdb_answer(query, {"s": SMALL, "b": wide})
    assert 0 < expected.num_rows < SMALL.num_rows
    assert rows_close(df.toArrow(), expected)


def test_a_one_task_stage_reads_the_broadcast_it_would_compute_again(tmp_path):
    """TPC-H Q4's shape: the quarter's orders are broadcast as keys to cut the big side,
    and the one-task stage that counts them reads those rows (``planner.physical.sharing``) instead
    of scanning and filtering the orders again. On Parquet files: the rule needs their
    estimates, and the big side (random 40-bit integers) is over 10 MiB on disk; the stages
    sized by bytes, as by default (the suite fans out every stage: tests/conftest.py)."""
    orders = pa.table({"okey": pa.array(np.arange(60_000) * 4, pa.int64()),
                       "odate": pa.array(rng.integers(0, 1000, 60_000), pa.int64()),
                       "prio": pa.array([f"p{i}" for i in rng.integers(0, 5, 60_000)])})
    rows = 2_500_000
    items = pa.table({"lkey": pa.array(rng.integers(0, 60_000, rows) * 4, pa.int64()),
                      "commit": pa.array(rng.integers(0, 2**40, rows), pa.int64()),
                      "receipt": pa.array(rng.integers(0, 2**40, rows), pa.int64())})
    for name, table, parts in (("o", orders, 3), ("l", items, 4)):
        (tmp_path / name).mkdir()
        for part in range(parts):
            pq.write_table(table.slice(part * table.num_rows // parts, table.num_rows // parts),
                           tmp_path / name / f"{part}.parquet")
    query = ("SELECT prio, count(*) AS n FROM o WHERE odate >= 100 AND odate < 190 AND EXISTS "
             "(SELECT 1 FROM l WHERE lkey = okey AND commit < receipt) GROUP BY prio ORDER BY prio")
    with Session(workers=2, task_bytes=16 << 20) as session:
        for name in ("o", "l"):
            session.read.parquet(str(tmp_path / name)).createOrReplaceTempView(name)
        df = session.sql(query)
        plan = df.explain_string()
        assert "reads a broadcast's rows, not computing them again" in plan
        assert plan.count("ParquetScan [okey, odate, prio]") == 1
        expected = duckdb_answer(query, {"o": orders, "l": items})
        assert expected.num_rows == 5
        assert rows_close(df.toArrow(), expected)
