"""TPC-DS data (Parquet, one directory per table) at a scale factor, generated on first use
into the cache, and the refresh of the committed query texts.

The generator is DuckDB's ``tpcds`` extension (``dsdgen``), shipped on PyPI as
``duckdb-extension-tpcds``. Its binary loads only in the DuckDB it was built for (1.5.5),
while sparkwire runs a newer one, so it runs in a throwaway virtual environment of its own
under the cache directory, built once by pip with both pinned (``GENERATOR_PINS``) and driven
by ``benchmarks/tpcds_dsdgen.py`` as a child process. Why this one: it is the generator the
oracle's engine ships, it prints the 99 query texts as well, SF 0.01 takes seconds, and it
needs nothing but pip; the rest (Spark's own kit, a Rust generator) would need a toolchain,
a download at run time, or a second source for the queries.

As for TPC-H (``coordinator.tpch``), data is written into a temporary directory and renamed
into place, so an interrupted run never leaves a half-written cache behind.

    python -m benchmarks.tpcds_data --scale 0.01     # generate (or find) SF 0.01, print its path
    python -m benchmarks.tpcds_data --queries        # rewrite benchmarks/queries/tpcds/qNN.sql
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa

from benchmarks.queries.tpcds import QUERY_DIR, TPCDS_QUERY_NAMES, duckdb_text, spark_text, tpcds_query
from benchmarks.tpch_systems import DuckDb
from sparkwire.coordinator.tpch import cache_dir
from sparkwire.transport.errors import ConfigError

#: The 24 tables ``dsdgen`` writes.
TPCDS_TABLES = (
    "call_center", "catalog_page", "catalog_returns", "catalog_sales", "customer",
    "customer_address", "customer_demographics", "date_dim", "household_demographics",
    "income_band", "inventory", "item", "promotion", "reason", "ship_mode", "store",
    "store_returns", "store_sales", "time_dim", "warehouse", "web_page", "web_returns",
    "web_sales", "web_site",
)
GENERATOR_PINS = ("duckdb==1.5.5", "duckdb-extension-tpcds==1.5.5")
_SCRIPT = Path(__file__).resolve().with_name("tpcds_dsdgen.py")
_TIMEOUT_S = 1800


def generator_python(root: Path | None = None) -> Path:
    """The interpreter of the generator environment, built by pip if absent (a stamp file
    marks a finished build, so a build cut short is redone rather than trusted)."""
    env = (root or cache_dir()) / ("tpcds-generator-" + "-".join(p.replace("==", "") for p in GENERATOR_PINS))
    python = env / "bin" / "python"
    stamp = env / ".installed"
    if stamp.exists():
        return python
    shutil.rmtree(env, ignore_errors=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True, capture_output=True,
                       timeout=_TIMEOUT_S)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *GENERATOR_PINS],
                       check=True, capture_output=True, timeout=_TIMEOUT_S)
    except subprocess.CalledProcessError as e:
        raise ConfigError(f"could not build the TPC-DS generator environment in {env} "
                          f"({' '.join(GENERATOR_PINS)}): {e.stderr.decode(errors='replace')[-2000:]}") from e
    stamp.touch()
    return python


def _generate(args: list[str], root: Path | None) -> None:
    subprocess.run([str(generator_python(root)), str(_SCRIPT), *args], check=True,
                   capture_output=True, timeout=_TIMEOUT_S)


def ensure_tpcds(scale: float, root: Path | None = None, generator_root: Path | None = None) -> Path:
    """The directory holding ``<table>/<table>.parquet`` for every table at ``scale``,
    generated if absent; ``generator_root`` holds the generator environment (default: the
    cache, so tests with a temporary ``root`` build it once per machine)."""
    target = (root or cache_dir()) / f"tpcds-sf{scale:g}"
    if all((target / t).is_dir() for t in TPCDS_TABLES):
        return target
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".dsdgen-", dir=target) as scratch:
        _generate(["data", repr(scale), scratch], generator_root)
        for table in TPCDS_TABLES:
            if not (target / table).is_dir():
                (Path(scratch) / table).mkdir()
                os.replace(Path(scratch) / f"{table}.parquet", Path(scratch) / table / f"{table}.parquet")
                os.replace(Path(scratch) / table, target / table)
    return target


def duckdb_answers(data: Path, names: tuple[str, ...] = TPCDS_QUERY_NAMES) -> dict[str, pa.Table]:
    """DuckDB's result of each query over views on the same Parquet files: the oracle, as
    the benchmarks' (``tpch_systems.DuckDb``: NULLs sort as Spark sorts them, so a ``LIMIT``
    keeps the rows Spark keeps)."""
    oracle = DuckDb(os.cpu_count() or 1, data, list(TPCDS_TABLES))
    try:
        return {name: oracle.run(duckdb_text(tpcds_query(name))) for name in names}
    finally:
        oracle.con.close()


def write_queries(out: Path = QUERY_DIR) -> None:
    """DuckDB's 99 texts, in Spark's dialect (``spark_text``), as ``out/qNN.sql``."""
    with tempfile.TemporaryDirectory(prefix="tpcds-queries-") as scratch:
        _generate(["queries", scratch], None)
        for source in sorted(Path(scratch).glob("q*.sql")):
            (out / source.name).write_text(spark_text(source.read_text()))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.01)
    parser.add_argument("--queries", action="store_true", help="rewrite the committed query texts")
    args = parser.parse_args(argv)
    if args.queries:
        write_queries()
    else:
        print(ensure_tpcds(args.scale))


if __name__ == "__main__":
    main()
