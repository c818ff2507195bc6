"""What users touch first: the pytest fixture, settings sources, the CLI."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from sparkwire.coordinator import Session, load_settings
from sparkwire.planner.api import functions as F
from sparkwire.transport.errors import ConfigError, UnknownTransport


def test_pytest_fixture_gives_a_ready_session(sparkwire_session):
    table = pa.table({"k": ["a", "b", "a", None], "v": [1, 2, 3, 4]})
    got = sparkwire_session.createDataFrame(table).groupBy("k").agg(F.sum("v").alias("s")).toArrow()
    expected = table.group_by("k").aggregate([("v", "sum")])
    assert sorted(zip(got["k"].to_pylist(), got["s"].to_pylist()), key=str) == \
        sorted(zip(expected["k"].to_pylist(), expected["v_sum"].to_pylist()), key=str)
    assert sparkwire_session.settings.transport.kind == "memory"


def test_settings_precedence_toml_env_overrides(tmp_path, monkeypatch):
    config = tmp_path / "sparkwire.toml"
    config.write_text('workers = 3\n[worker]\ntask_slots = 5\n[transport]\nkind = "memory"\n')
    monkeypatch.setenv("SPARKWIRE_CONFIG", str(config))
    assert load_settings().workers == 3
    monkeypatch.setenv("SPARKWIRE_WORKER__TASK_SLOTS", "7")
    assert load_settings().worker.task_slots == 7
    assert load_settings(workers=2).workers == 2


def test_bad_settings_are_clear_errors(tmp_path, monkeypatch):
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "missing.toml")
    monkeypatch.setenv("SPARKWIRE_WORKERS", "zero")
    with pytest.raises(ConfigError, match="workers"):
        load_settings()
    monkeypatch.delenv("SPARKWIRE_WORKERS")
    with pytest.raises(UnknownTransport, match="did you mean 'memory'"):
        Session(workers=1, transport="memroy")


def test_to_batches_streams_and_to_pandas(sparkwire_session):
    table = pa.table({"a": pa.array(range(300_000), pa.int64())})
    df = sparkwire_session.createDataFrame(table).filter(F.col("a") % 2 == 0)
    seen = 0
    for batch in df.toBatches():
        seen += batch.num_rows
    assert seen == pc.sum(pc.equal(pc.bit_wise_and(table["a"], 1), 0)).as_py()
    assert len(df.limit(5).toPandas()) == 5


def test_cli_explain_and_demo(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    sparkwire = Path(sys.executable).with_name("sparkwire")
    explain = subprocess.run([sparkwire, "explain", "q1", "--scale", "0.01"], env=env,
                             capture_output=True, text=True, timeout=300)
    assert explain.returncode == 0, explain.stderr
    assert "shuffle" in explain.stdout and "Stage 0" in explain.stdout
    demo = subprocess.run([sparkwire, "--workers", "2", "demo", "--scale", "0.01"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert demo.returncode == 0, demo.stderr
    assert "q1 result" in demo.stdout and "q6 result" in demo.stdout and "tasks per worker" in demo.stdout
    bad = subprocess.run([sparkwire, "--transport", "nope", "demo", "--scale", "0.01"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 1 and "unknown transport 'nope'" in bad.stdout


def test_cli_runs_a_sql_file_over_a_data_directory(tmp_path):
    """``sparkwire run FILE.sql --data DIR``: one table per Parquet folder or file in DIR;
    the answer is DuckDB's for the same query, and bad SQL is a one-line error."""
    import duckdb
    import pyarrow.parquet as pq

    data = tmp_path / "data"
    (data / "orders").mkdir(parents=True)
    orders = pa.table({"o_id": list(range(40)), "c_id": [i % 7 for i in range(40)]})
    customers = pa.table({"c_id": list(range(7)), "name": [f"c{i}" for i in range(7)]})
    pq.write_table(orders.slice(0, 20), data / "orders" / "part-0.parquet")
    pq.write_table(orders.slice(20), data / "orders" / "part-1.parquet")
    pq.write_table(customers, data / "customers.parquet")
    query = tmp_path / "q.sql"
    query.write_text("select name, count(*) as n from orders o join customers c on o.c_id = c.c_id "
                     "group by name order by n desc, name limit 3")
    sparkwire = Path(sys.executable).with_name("sparkwire")
    run = subprocess.run([sparkwire, "--workers", "2", "run", str(query), "--data", str(data)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    con = duckdb.connect()
    con.register("orders", orders)
    con.register("customers", customers)
    for name, n in con.sql(query.read_text()).fetchall():
        assert re.search(rf"{name}\s+{n}\b", run.stdout), run.stdout
    assert "3 rows" in run.stdout
    query.write_text("select nope from orders")
    bad = subprocess.run([sparkwire, "run", str(query), "--data", str(data)],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 1 and "error:" in bad.stdout and "Traceback" not in bad.stderr
