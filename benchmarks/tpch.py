"""TPC-H on sparkwire against Spark SQL and DuckDB, in one run on the same files.

    python -m benchmarks.tpch [--scale 1] [--queries q01,q05] [--systems duckdb,spark-sql]
                              [--workers 2] [--runs 3] [--timeout 600] [--quiet-limit 10]
                              [--scaling]

The harness (systems, driver processes, interleaving, quiet machine, checks against DuckDB)
is ``benchmarks.interleave``'s, shared with ``benchmarks.tpcds``.

Writes ``benchmarks/results/tpch-sf{N}.json``, ``.png`` and ``.md`` (``benchmarks.tpch_report``).
``--scaling`` then runs sparkwire-memory, sparkwire-zmq and duckdb at SF 0.1, 1 and 10 (the
main run's scale reused; SF10 is ~3.5 GB of Parquet, generated on first use) and writes
``tpch-scaling.json``/``.png``: how time grows with the data. How it shrinks with workers
is ``benchmarks.scaling``, on the same harness (``interleave``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from benchmarks.common import write
from benchmarks.interleave import Plan, arguments, bench, guarded, plan_from, save, versions
from benchmarks.tpch_report import plot_scaling, scaling, scaling_markdown
from benchmarks.workloads import TPCH

SCALING_SYSTEMS = ("sparkwire-memory", "sparkwire-zmq", "duckdb")
SCALING_SCALES = (0.1, 1.0, 10.0)


def run_scaling(plan: Plan, main: dict[str, Any], runs: int) -> bool:
    """SCALING_SYSTEMS at SF 0.1, 1 and 10 (``runs`` timed runs each), reusing what the
    main run measured at its scale; writes ``tpch-scaling``. True if every answer was right."""
    per_scale: dict[float, dict[str, dict[str, Any]]] = {}
    right = True
    for scale in sorted({plan.scale, *SCALING_SCALES}):
        reuse = [s for s in SCALING_SYSTEMS if scale == plan.scale and s in plan.systems]
        cells = {q: {s: main["queries"][q][s] for s in reuse} for q in plan.queries}
        missing = tuple(s for s in SCALING_SYSTEMS if s not in reuse)
        if missing:
            _, results = bench(replace(plan, scale=scale, systems=missing, runs=runs))
            right = right and not results["wrong"]
            for q in plan.queries:
                cells[q].update(results["queries"][q])
        per_scale[scale] = cells
    summary = scaling(per_scale, list(SCALING_SYSTEMS))
    meta = {"workers": plan.workers, "runs": plan.runs, "scaling_runs": runs, "timeout_s": plan.timeout,
            "queries": list(plan.queries), "versions": versions()}
    path = write("tpch-scaling", summary, lambda png: plot_scaling(meta, summary, png), meta)
    print("\n" + scaling_markdown(summary) + f"\n\nwrote {path} and {path.with_suffix('.png')}",
          flush=True)
    return right


def parse(argv: list[str] | None) -> tuple[Plan, int | None]:
    parser = arguments(TPCH, "python -m benchmarks.tpch", __doc__)
    parser.add_argument("--scaling", action="store_true",
                        help=f"also {', '.join(SCALING_SYSTEMS)} at SF 0.1, 1 and 10 (data size; "
                             "for a sweep of workers see benchmarks.scaling)")
    parser.add_argument("--scaling-runs", type=int, default=None,
                        help="timed runs at the extra scales (default --runs)")
    args = parser.parse_args(argv)
    plan = plan_from(TPCH, parser, args)
    return plan, (args.scaling_runs or args.runs) if args.scaling else None


def main(argv: list[str] | None = None) -> int:
    """Run, write, print; 1 if any answer was wrong, else 0."""
    plan, scaling_runs = parse(argv)

    def work() -> bool:
        meta, results = bench(plan)
        save(plan, meta, results)
        right = not results["wrong"]
        if scaling_runs is not None:
            right = run_scaling(plan, results, scaling_runs) and right
        return right

    return guarded(work)


if __name__ == "__main__":
    raise SystemExit(main())
