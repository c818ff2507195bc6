"""A full sort: gathered into one task against range-partitioned over the workers
(sampled bounds), with DuckDB's own sort of the same rows as the reference.

``range_sort_rows`` (the setting) makes a sort of at least that many estimated rows use
ranges; this measures where ranges start to pay on this machine. Every answer is checked
against DuckDB's, in order.
"""

from __future__ import annotations

import duckdb
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from benchmarks.common import best_of, write  # noqa: E402
from sparkwire.coordinator import Session  # noqa: E402
from sparkwire.coordinator.tpch import ensure_tpch  # noqa: E402
from sparkwire.planner.api import functions as F  # noqa: E402

SCALES = (0.1, 1.0)
WORKERS = 2
COLUMNS = ("l_orderkey", "l_linenumber", "l_extendedprice", "l_shipdate")
ORDER = "l_extendedprice desc, l_orderkey, l_linenumber"


def run() -> list[dict]:
    rows = []
    for scale in SCALES:
        lineitem = ensure_tpch(scale) / "lineitem"
        con = duckdb.connect(config={"threads": WORKERS})
        sql = f"select {', '.join(COLUMNS)} from read_parquet('{lineitem}/*.parquet') order by {ORDER}"
        expected = con.sql(sql).to_arrow_table()
        peer, peer_median = best_of(lambda: con.sql(sql).to_arrow_table(), repeat=3)
        row = {"scale": scale, "rows": expected.num_rows, "duckdb_s": peer, "duckdb_median_s": peer_median}
        for strategy, threshold in (("gather", 0), ("range", 1)):
            with Session(workers=WORKERS, range_sort_rows=threshold) as session:
                df = session.read.parquet(str(lineitem)).select(*COLUMNS).orderBy(
                    F.col("l_extendedprice").desc(), "l_orderkey", "l_linenumber"
                )
                got = df.toArrow()
                if [c.to_pylist() for c in got.columns] != [c.to_pylist() for c in expected.columns]:
                    raise AssertionError(f"{strategy} sort at SF{scale:g} differs from DuckDB's")
                best, median = best_of(lambda: df.toArrow(), repeat=3)
            row[f"{strategy}_s"], row[f"{strategy}_median_s"] = best, median
        row["range_over_gather"] = row["range_median_s"] / row["gather_median_s"]
        print(f"sort SF{scale:g} ({row['rows']} rows): gather {row['gather_median_s']:.3f}s  "
              f"range {row['range_median_s']:.3f}s  duckdb {peer_median:.3f}s")
        rows.append(row)
    return rows


def plot(rows: list[dict], path) -> None:
    labels = [f"SF{r['scale']:g}" for r in rows]
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(6, 4))
    for offset, key, label in ((-0.27, "gather_median_s", "one task"), (0, "range_median_s", "ranges"),
                               (0.27, "duckdb_median_s", "DuckDB, one connection")):
        ax.bar([i + offset for i in x], [r[key] for r in rows], 0.27, label=label)
    ax.set_xticks(list(x), labels)
    ax.set_ylabel("seconds (median of 3)")
    ax.set_title(f"Full sort of lineitem on {WORKERS} workers")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)


def main() -> None:
    rows = run()
    write("sort", rows, lambda path: plot(rows, path))


if __name__ == "__main__":
    main()
