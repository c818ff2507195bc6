"""TPC-H Q1 and Q6: sparkwire (memory transport, 4 in-process workers) against the peer
engine, one DuckDB connection over the same files with the same threads in total.

The ratio sparkwire/DuckDB is the cost of distribution (planning, task plans, partition
stores, the exchange) on one machine, where distribution cannot win.
"""

from __future__ import annotations

import duckdb
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from benchmarks.common import best_of, write  # noqa: E402
from sparkwire.coordinator import Session  # noqa: E402
from sparkwire.coordinator.tpch import QUERIES, ensure_tpch  # noqa: E402
from tests.e2e.test_tpch import Q1_SQL, Q6_SQL  # noqa: E402

SQL = {"q1": Q1_SQL, "q6": Q6_SQL}
SCALES = (0.1, 1.0)
WORKERS = 4


def run() -> list[dict]:
    rows = []
    for scale in SCALES:
        lineitem = ensure_tpch(scale) / "lineitem"
        with Session(workers=WORKERS) as session:
            df = session.read.parquet(str(lineitem))
            for name, query in QUERIES.items():
                ours, ours_median = best_of(lambda: query(df).toArrow(), repeat=3)
                con = duckdb.connect(config={"threads": WORKERS})
                sql = SQL[name].format(path=lineitem)
                peer, peer_median = best_of(lambda: con.sql(sql).to_arrow_table(), repeat=3)
                rows.append({"query": name, "scale": scale, "sparkwire_s": ours,
                             "sparkwire_median_s": ours_median, "duckdb_s": peer,
                             "duckdb_median_s": peer_median, "ratio": ours / peer})
                print(f"{name} SF{scale:g}: sparkwire {ours:.3f}s  duckdb {peer:.3f}s  "
                      f"ratio {ours / peer:.2f}")
    return rows


def plot(rows: list[dict], path) -> None:
    labels = [f"{r['query']} SF{r['scale']:g}" for r in rows]
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.bar([i - 0.2 for i in x], [r["sparkwire_s"] for r in rows], 0.4, label="sparkwire (4 workers, memory)")
    ax.bar([i + 0.2 for i in x], [r["duckdb_s"] for r in rows], 0.4, label="DuckDB, one connection")
    ax.set_xticks(list(x), labels)
    ax.set_ylabel("seconds (best of 3)")
    ax.set_title("TPC-H on one machine: sparkwire vs its peer engine")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)


def main() -> None:
    rows = run()
    write("queries", rows, lambda path: plot(rows, path))


if __name__ == "__main__":
    main()
