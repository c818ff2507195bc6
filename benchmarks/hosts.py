"""Large TPC-H shuffles across simulated hosts: ``benchmarks/results/hosts.json`` and a PNG.

    python -m benchmarks.hosts [--scale 1] [--queries q09,q18,q21] [--runs 3] [--rate 10gbit]

Two simulated hosts (``tests/hosts/network.py``: a network, mount and UTS namespace each, its
own ``/dev/shm``), their links limited by a ``tc`` token bucket to ``--rate``, two worker
processes on each. The large-shuffle queries run over ``zmq`` (every read of another
worker's partitions through a socket, loopback within a host; a worker reads its own in
its process) and over ``hybrid`` (shared memory within a host, zmq between), interleaved: a warm-up, then ``--runs`` rounds of every query on each. Recorded
per query and transport: the median seconds, the bytes tasks read per route
(``QueryMetrics.bytes_in``) and the bytes that crossed between hosts (the switch's port
counters). DuckDB with 2 threads in this process on the same files is the reference, and
every answer is checked against its answer: a wrong one fails the run.

Needs root (namespaces); elsewhere it says why and writes nothing.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import duckdb
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from benchmarks.common import write  # noqa: E402
from benchmarks.queries import sql_query  # noqa: E402
from sparkwire.coordinator import Session  # noqa: E402
from sparkwire.coordinator.clusters.process import ProcessCluster  # noqa: E402
from sparkwire.coordinator.config import Settings  # noqa: E402
from sparkwire.coordinator.tpch import TPCH_TABLES, ensure_tpch  # noqa: E402
from tests.e2e.tpch import same  # noqa: E402
from tests.hosts.network import SimulatedNetwork, unavailable  # noqa: E402

WORKERS_PER_HOST = 2
#: transport -> its options, given the gateway the driver serves on
TRANSPORTS = {"zmq": lambda gateway: {"host": gateway},
              "hybrid": lambda gateway: {"net": {"host": gateway}}}


def _session(network: SimulatedNetwork, kind: str, data: Path) -> Session:
    settings = Settings(
        workers=WORKERS_PER_HOST * len(network.hosts),
        transport={"kind": kind, "options": TRANSPORTS[kind](network.gateway)},
        worker={"engine": {"data_roots": [str(data)]}},
    )
    placements = [host.placement() for host in network.hosts for _ in range(WORKERS_PER_HOST)]
    session = Session(cluster=ProcessCluster(settings, placements=placements))
    for table in TPCH_TABLES:
        session.read.parquet(str(data / table)).createOrReplaceTempView(table)
    return session


def _duckdb(data: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(config={"threads": 2})
    for table in TPCH_TABLES:
        con.execute(f"create view {table} as select * from read_parquet('{data / table}/*.parquet')")
    return con


def run(scale: float, queries: list[str], runs: int, rate: str | None) -> dict[str, Any]:
    data = ensure_tpch(scale, tables=TPCH_TABLES, parts=4)
    con = _duckdb(data)
    expected = {q: con.sql(sql_query(q)).to_arrow_table() for q in queries}
    seconds: dict[str, dict[str, list[float]]] = {q: {"duckdb": []} for q in queries}
    routes: dict[str, dict[str, Counter[str]]] = {q: {} for q in queries}
    crossed: dict[str, dict[str, int]] = {q: {} for q in queries}
    wrong: list[str] = []
    with SimulatedNetwork(hosts=2, rate=rate) as network, ExitStack() as stack:
        sessions = {kind: stack.enter_context(_session(network, kind, data)) for kind in TRANSPORTS}
        for round_ in range(runs + 1):  # the first round is the warm-up
            for query in queries:
                started = time.perf_counter()
                con.sql(sql_query(query)).to_arrow_table()
                if round_:
                    seconds[query]["duckdb"].append(time.perf_counter() - started)
                for kind, session in sessions.items():
                    before = network.host_to_host_bytes()
                    started = time.perf_counter()
                    got = session.sql(sql_query(query)).toArrow()
                    took = time.perf_counter() - started
                    if not same(got, expected[query]):
                        wrong.append(f"{query} on {kind}")
                    if round_:
                        seconds[query].setdefault(kind, []).append(took)
                        metrics = session.last_metrics
                        assert metrics is not None
                        routes[query][kind] = Counter(metrics.bytes_in)
                        crossed[query][kind] = network.host_to_host_bytes() - before
                if round_:
                    print(f"{query} run {round_}: " + ", ".join(
                        f"{k} {v[-1]:.2f}s" for k, v in seconds[query].items()), flush=True)
    return {
        "scale": scale, "rate": rate, "runs": runs, "wrong": wrong,
        "queries": {q: {kind: {"median_s": statistics.median(times), "min_s": min(times),
                               "max_s": max(times),
                               "over_duckdb": statistics.median(times) / statistics.median(seconds[q]["duckdb"]),
                               **({"bytes_read_by_route": dict(routes[q][kind]),
                                   "bytes_between_hosts": crossed[q][kind]} if kind != "duckdb" else {})}
                        for kind, times in seconds[q].items()}
                    for q in queries},
    }


def plot(result: dict[str, Any], path: Path) -> None:
    queries = list(result["queries"])
    systems = list(next(iter(result["queries"].values())))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    width = 0.8 / len(systems)
    for i, system in enumerate(systems):
        left.bar([q + i * width for q in range(len(queries))],
                 [result["queries"][q][system]["median_s"] for q in queries], width, label=system)
    left.set_xticks([q + width for q in range(len(queries))], queries)
    left.set_ylabel("median seconds")
    left.set_title(f"SF{result['scale']:g}, 2 hosts x 2 workers, links {result['rate'] or 'unlimited'}")
    left.legend()
    kinds = [s for s in systems if s != "duckdb"]
    labels, local, shm, net = [], [], [], []
    for q in queries:
        for kind in kinds:
            by_route = result["queries"][q][kind]["bytes_read_by_route"]
            labels.append(f"{q}\n{kind}")
            local.append(by_route.get("local", 0) / 2**20)
            shm.append(by_route.get("shm", 0) / 2**20)
            net.append(sum(v for k, v in by_route.items() if k not in ("shm", "local")) / 2**20)
    right.bar(labels, net, label="read over the network (zmq)")
    right.bar(labels, shm, bottom=net, label="read over shm")
    right.bar(labels, local, bottom=[n + s for n, s in zip(net, shm, strict=True)],
              label="read in the worker's own process")
    right.set_ylabel("MiB read by tasks")
    right.tick_params(axis="x", labelsize=7)
    right.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--queries", default="q09,q18,q21")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rate", default="10gbit", help="tc rate of each host's link; 'none': unlimited")
    args = parser.parse_args(argv)
    reason = unavailable()
    if reason is not None:
        print(f"hosts benchmark skipped: {reason}")
        return 0
    result = run(args.scale, args.queries.split(","), args.runs, None if args.rate == "none" else args.rate)
    path = write("hosts", result, lambda p: plot(result, p),
                 {"what": "TPC-H large shuffles on 2 simulated hosts x 2 workers, zmq vs hybrid, "
                          "DuckDB (2 threads) as the reference"})
    print(f"wrote {path}")
    return 1 if result["wrong"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
