"""Where sparkwire stands on TPC-DS: each of the 99 queries through ``session.sql`` on two
in-process workers, classified against DuckDB's answer on the same Parquet files.

    python -m benchmarks.tpcds_probe [--scale 0.01] [--workers 2] [--transport memory] [q01 ...]

Classes: ``correct`` (same rows in any order, numbers within 1e-6, ``rows_close``; column
names compared separately, since DuckDB names an unaliased expression its own way),
``wrong`` (rows differ), ``unsupported`` (the planner's "not supported" error: which construct,
and where), ``error`` (another planning error) and ``crash`` (anything raised while running).
Writes ``benchmarks/results/tpcds-probe-sf<scale>.md``. A query whose oracle answer is empty
is marked: at SF 0.01 it checks little beyond running.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from benchmarks.common import RESULTS
from benchmarks.queries.tpcds import TPCDS_QUERY_NAMES, tpcds_query
from benchmarks.tpcds_data import TPCDS_TABLES, duckdb_answers, ensure_tpcds
from sparkwire.coordinator import Session
from sparkwire.planner.errors import PlanError
from tests.e2e.conftest import rows_close

_MESSAGE = 160


@dataclass(frozen=True)
class Outcome:
    name: str
    kind: str          # correct, wrong, unsupported, error, crash
    detail: str
    seconds: float
    empty: bool        # DuckDB's answer has no rows


def classify(session: Session, name: str, want: pa.Table) -> Outcome:
    start = time.perf_counter()
    kind, detail = "correct", ""
    try:
        got = session.sql(tpcds_query(name)).toArrow()
    except PlanError as e:
        unsupported = "not supported" in str(e)
        kind, detail = ("unsupported" if unsupported else "error"), f"{type(e).__name__}: {e}"
    except Exception as e:  # noqa: BLE001 - a probe reports whatever a query raised
        kind, detail = "crash", f"{type(e).__name__}: {e}"
    else:
        if not rows_close(got, want):
            kind, detail = "wrong", f"{got.num_rows} rows, DuckDB {want.num_rows}"
        elif [c.lower() for c in got.column_names] != [c.lower() for c in want.column_names]:
            detail = f"names differ: {got.column_names} vs DuckDB {want.column_names}"
    one_line = " ".join(detail.split())
    if len(one_line) > _MESSAGE:
        one_line = one_line[: _MESSAGE - 3] + "..."
    return Outcome(name, kind, one_line, time.perf_counter() - start, want.num_rows == 0)


def markdown(outcomes: list[Outcome], scale: float, workers: int, transport: str) -> str:
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.kind] = counts.get(o.kind, 0) + 1
    summary = ", ".join(f"{k} {counts[k]}" for k in ("correct", "wrong", "unsupported", "error", "crash")
                        if k in counts)
    lines = [
        f"# TPC-DS probe: SF {scale:g}, {workers} {transport} workers",
        "",
        f"{len(outcomes)} queries through `session.sql`, each against DuckDB's answer on the same "
        f"Parquet files (`python -m benchmarks.tpcds_probe`): **{summary}**. "
        f"{sum(o.empty for o in outcomes)} have an empty answer at this scale (marked *empty*).",
        "",
        "| query | outcome | seconds | detail |",
        "| --- | --- | ---: | --- |",
    ]
    for o in outcomes:
        kind = f"{o.kind} (empty)" if o.empty else o.kind
        lines.append(f"| {o.name} | {kind} | {o.seconds:.2f} | {o.detail.replace('|', '/')} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[Outcome]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.01)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--transport", default="memory")
    parser.add_argument("queries", nargs="*", default=list(TPCDS_QUERY_NAMES))
    args = parser.parse_args(argv)
    data = ensure_tpcds(args.scale)
    expected = duckdb_answers(data, tuple(args.queries))
    outcomes = []
    with Session(workers=args.workers, transport=args.transport) as session:
        for table in TPCDS_TABLES:
            session.read.parquet(str(data / table)).createOrReplaceTempView(table)
        for name in args.queries:
            outcomes.append(classify(session, name, expected[name]))
            print(f"{name} {outcomes[-1].kind} {outcomes[-1].detail[:100]}", flush=True)
    report = markdown(outcomes, args.scale, args.workers, args.transport)
    path = RESULTS / f"tpcds-probe-sf{args.scale:g}.md"
    if args.queries == list(TPCDS_QUERY_NAMES):
        path.write_text(report + "\n")
    print(report)
    return outcomes


if __name__ == "__main__":
    main()
