"""TPC-DS helpers shared by the SQL end-to-end tests (in-process, ZeroMQ, Spark-hosted): the
data at a scale factor with DuckDB's answers on it, computed once per test run, and one run
of some of the 99 queries on a session, judged against those answers.

The data and the oracle cost more than most of the queries (SF 0.1: ~20 s for ``dsdgen``
and ~6 s for DuckDB's 99 answers on a loaded 2-core machine), so they are made once per
scale in the run's temporary directory (``tests/conftest.py``'s ``tpcds`` fixture) and
shared by every configuration and module that reads that scale. As for TPC-H, nothing is
cached across runs: the suite never depends on what an earlier run left in ``~/.cache``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from benchmarks.tpcds_data import TPCDS_TABLES, duckdb_answers, ensure_tpcds
from benchmarks.tpcds_probe import classify
from sparkwire.coordinator import Session


@dataclass(frozen=True)
class Tpcds:
    """TPC-DS at one scale: the Parquet folders and DuckDB's answer to every query."""

    data: Path
    answers: dict[str, pa.Table]

    @property
    def empty(self) -> frozenset[str]:
        """The queries whose answer has no rows at this scale: for them a run checks little
        more than that the query plans and runs."""
        return frozenset(name for name, table in self.answers.items() if table.num_rows == 0)


def generate(scale: float, root: Path) -> Tpcds:
    """TPC-DS at ``scale`` under ``root`` (the generator environment from the machine's
    cache, built there once), with DuckDB's answers."""
    data = ensure_tpcds(scale, root=root)
    return Tpcds(data, duckdb_answers(data))


def misjudged(session: Session, tpcds: Tpcds, names: Iterable[str],
              not_yet: frozenset[str]) -> dict[str, str]:
    """Run each of ``names`` on ``session`` over ``tpcds``: every query gives DuckDB's rows,
    but those in ``not_yet``, which must stop before running with a "not supported" error
    (so one that starts to pass must leave the list). What went otherwise, by query."""
    for table in TPCDS_TABLES:
        session.read.parquet(str(tpcds.data / table)).createOrReplaceTempView(table)
    found = {}
    for name in names:
        outcome = classify(session, name, tpcds.answers[name])
        expected = "unsupported" if name in not_yet else "correct"
        if outcome.kind != expected:
            found[name] = f"{outcome.kind}, expected {expected}: {outcome.detail}"
    return found
