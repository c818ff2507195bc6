"""TPC-H for sparkwire: the 22 standard queries as SQL text (``qNN.sql`` in this package,
with the specification's validation parameters) and a subset written with the DataFrame API
(``benchmarks.queries.dataframes``). Shared by the end-to-end tests and ``benchmarks.tpch``.

    from benchmarks.queries import QUERY_NAMES, sql_query

    sql_query("q01")  # the text of benchmarks/queries/q01.sql
"""

from __future__ import annotations

from pathlib import Path

QUERY_DIR = Path(__file__).resolve().parent

#: ``q01`` ... ``q22``, in order.
QUERY_NAMES: tuple[str, ...] = tuple(f"q{n:02d}" for n in range(1, 23))


def sql_query(name: str) -> str:
    """The SQL text of TPC-H query ``name`` (``"q01"`` ... ``"q22"``)."""
    if name not in QUERY_NAMES:
        raise ValueError(f"unknown TPC-H query {name!r}; expected one of q01 ... q22")
    return (QUERY_DIR / f"{name}.sql").read_text()


__all__ = ["QUERY_DIR", "QUERY_NAMES", "sql_query"]
