"""TPC-DS on sparkwire against Spark SQL and DuckDB, in one run on the same files.

    python -m benchmarks.tpcds [--scale 1] [--queries q01,q05] [--systems duckdb,spark-sql]
                               [--workers 2] [--runs 3] [--timeout 600] [--quiet-limit 10]

The 99 queries (``benchmarks/queries/tpcds/``, Spark's dialect; DuckDB runs them in its own,
``duckdb_text``) over the Parquet folders ``dsdgen`` writes (``benchmarks.tpcds_data``,
generated into the cache on first use), on ``benchmarks.interleave``'s harness, as TPC-H is:
one driver process per system, executions interleaved, every answer checked against DuckDB's.
Column names are not checked (DuckDB names unaliased expressions its own way), their number
and the rows are. A query sparkwire does not plan yet is listed as not supported, not dropped;
the totals count the queries every system answered correctly every time.

By default sparkwire in process and over ZeroMQ, Spark SQL and DuckDB: Spark SQL's pass over
the 99 is the long part of a run (tens of minutes at SF 1 on 2 cores).

Writes ``benchmarks/results/tpcds-sf{N}.json``, ``.png`` and ``.md`` (``benchmarks.tpch_report``).
"""

from __future__ import annotations

from benchmarks.interleave import arguments, bench, guarded, plan_from, save
from benchmarks.workloads import TPCDS

SYSTEMS = ("sparkwire-memory", "sparkwire-zmq", "spark-sql", "duckdb")


def main(argv: list[str] | None = None) -> int:
    """Run, write, print; 1 if any answer was wrong, else 0."""
    parser = arguments(TPCDS, "python -m benchmarks.tpcds", __doc__, SYSTEMS)
    plan = plan_from(TPCDS, parser, parser.parse_args(argv))

    def work() -> bool:
        meta, results = bench(plan)
        save(plan, meta, results)
        return not results["wrong"]

    return guarded(work)


if __name__ == "__main__":
    raise SystemExit(main())
