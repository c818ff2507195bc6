"""Runs inside the throwaway generator environment (``benchmarks.tpcds_data``), never in
sparkwire's: it imports only ``duckdb`` 1.5.5 and ``duckdb_extension_tpcds``, whose
extension binary loads in that DuckDB alone.

    python tpcds_dsdgen.py data SCALE OUT_DIR     # OUT_DIR/<table>.parquet, every table
    python tpcds_dsdgen.py queries OUT_DIR        # OUT_DIR/qNN.sql, DuckDB's 99 query texts
"""

import sys
from pathlib import Path

import duckdb
import duckdb_extension_tpcds


def connect() -> duckdb.DuckDBPyConnection:
    """A connection with the wheel's extension loaded (it is not signed by DuckDB)."""
    package = Path(duckdb_extension_tpcds.__file__).parent
    (binary,) = package.glob("extensions/*/tpcds.duckdb_extension")
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"LOAD '{binary}'")
    return con


def data(scale: float, out: Path) -> None:
    con = connect()
    con.execute(f"CALL dsdgen(sf={scale!r})")
    for (table,) in con.execute("SHOW TABLES").fetchall():
        con.execute(f"COPY {table} TO '{out / table}.parquet' (FORMAT parquet)")


def queries(out: Path) -> None:
    for number, text in connect().execute("SELECT query_nr, query FROM tpcds_queries()").fetchall():
        (out / f"q{number:02d}.sql").write_text(text)


if __name__ == "__main__":
    if sys.argv[1] == "data":
        data(float(sys.argv[2]), Path(sys.argv[3]))
    else:
        queries(Path(sys.argv[2]))
