"""Where a TPC-H query's time goes on sparkwire, for the queries furthest from DuckDB.

    python -m benchmarks.tpch_profile [--scale 1] [--workers 2] [--top 5] [--queries q02,q15]

In one process (memory transport, so no transport cost hides in the numbers), each query
runs on DuckDB (threads = workers) and on sparkwire, a warm-up then the median of 3. For the
``--top`` queries with the largest sparkwire/DuckDB ratio it prints, in seconds of wall
time: planning (SQL to staged plan), dispatch (task plans encoded and delivered), the wait
for the first result batch, the rest of the stream; and summed over all tasks (they overlap,
so these add up to more than the wall time): task set-up (a DuckDB cursor, inputs
registered) and task run (the query, reading exchange inputs, writing partitions); with the
stage and task counts and the bytes crossing boundaries. Writes
``benchmarks/results/tpch-profile-sf{N}.json``, with the latency of a one-stage query on a
tiny table (``nation``, 25 rows; the whole call, SQL text to Arrow table) on every transport
and on DuckDB.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import duckdb

from benchmarks.common import best_of, write
from benchmarks.queries import QUERY_NAMES, sql_query
from sparkwire.coordinator import Session
from sparkwire.coordinator.tpch import TPCH_TABLES, ensure_tpch

TRANSPORTS = ("memory", "shm", "zmq", "flight")
TINY = "SELECT n_name, n_regionkey FROM nation WHERE n_regionkey = 1"
PHASES = ("planning", "dispatch", "first_batch", "stream", "task_setup", "task_run")


def _median(fn: Callable[[], Any], runs: int = 3) -> float:
    """Median wall seconds of ``runs`` calls after one warm-up."""
    return best_of(fn, repeat=runs)[1]


def profile(session: Session, name: str) -> dict[str, Any]:
    """One sparkwire execution of ``name``, split into phases."""
    started = time.perf_counter()
    df = session.sql(sql_query(name))
    plan = df.staged_plan()
    planning = time.perf_counter() - started
    df.toArrow()
    metrics = session.last_metrics
    assert metrics is not None
    return {
        "phases": {"planning": planning, **metrics.phases},
        "stages": len(plan.stages),
        "tasks": sum(s.tasks for s in plan.stages),
        "boundary_bytes": sum(s.bytes for s in metrics.stages.values() if s.boundary != "result"),
    }


def run(scale: float, workers: int, queries: tuple[str, ...], top: int) -> list[dict[str, Any]]:
    data = ensure_tpch(scale, TPCH_TABLES)
    con = duckdb.connect(config={"threads": workers})
    for table in TPCH_TABLES:
        con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{data / table}/*.parquet')")
    rows = []
    with Session(workers=workers) as session:
        for table in TPCH_TABLES:
            session.read.parquet(str(data / table)).createOrReplaceTempView(table)
        for name in queries:
            text = sql_query(name)
            peer = _median(lambda: con.sql(text).to_arrow_table())
            ours = _median(lambda: session.sql(text).toArrow())
            rows.append({"query": name, "duckdb_s": peer, "sparkwire_s": ours,
                         "ratio": ours / peer, **profile(session, name)})
    rows.sort(key=lambda r: r["ratio"], reverse=True)
    return rows[:top]


def tiny_latency(scale: float, workers: int) -> dict[str, float]:
    """Milliseconds (median of 30) of ``TINY`` per transport and on DuckDB."""
    nation = ensure_tpch(scale, TPCH_TABLES) / "nation"
    con = duckdb.connect(config={"threads": workers})
    con.execute(f"CREATE VIEW nation AS SELECT * FROM read_parquet('{nation}/*.parquet')")
    latency = {"duckdb": 1000 * _median(lambda: con.sql(TINY).to_arrow_table(), runs=30)}
    for transport in TRANSPORTS:
        with Session(workers=workers, transport=transport) as session:
            session.read.parquet(str(nation)).createOrReplaceTempView("nation")
            latency[transport] = 1000 * _median(lambda: session.sql(TINY).toArrow(), runs=30)
    return latency


def markdown(rows: list[dict[str, Any]]) -> str:
    head = ("| query | DuckDB s | sparkwire s | ratio | " + " | ".join(PHASES)
            + " | stages | tasks | boundary MiB |")
    lines = [head, "|---" * (len(PHASES) + 8) + "|"]
    for r in rows:
        phases = " | ".join(f"{r['phases'].get(p, 0.0):.3f}" for p in PHASES)
        lines.append(f"| {r['query']} | {r['duckdb_s']:.3f} | {r['sparkwire_s']:.3f} | "
                     f"{r['ratio']:.1f} | {phases} | {r['stages']} | {r['tasks']} | "
                     f"{r['boundary_bytes'] / 2**20:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tpch_profile", description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--queries", default=",".join(QUERY_NAMES))
    args = parser.parse_args(argv)
    queries = tuple(q.strip() for q in args.queries.split(",") if q.strip())
    rows = run(args.scale, args.workers, queries, args.top)
    print(markdown(rows))
    tiny = tiny_latency(args.scale, args.workers)
    print("\none-stage query on a 25-row table, ms: "
          + ", ".join(f"{name} {ms:.1f}" for name, ms in tiny.items()))
    write(f"tpch-profile-sf{args.scale:g}", {"top": rows, "tiny_ms": tiny}, lambda path: None,
          meta={"workers": args.workers})


if __name__ == "__main__":
    main()
