"""TPC-H data for the demo and benchmarks, and the demo queries as DataFrames.

Data comes from ``tpchgen-cli`` (Parquet, several parts per table so a query has splits to
spread) into a cache directory; it is generated into a temporary directory and renamed into
place, so an interrupted run never leaves a half-written cache behind.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from types import ModuleType

from sparkwire.planner.api import functions
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.transport.errors import ConfigError


TPCH_TABLES = ("lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "sparkwire"


def ensure_tpch(scale: float, tables: tuple[str, ...] = ("lineitem",), parts: int = 4,
                root: Path | None = None) -> Path:
    """The directory holding ``<table>/<table>.<part>.parquet`` at ``scale``, generated if absent."""
    target = (root or cache_dir()) / f"tpch-sf{scale:g}"
    missing = [t for t in tables if not (target / t).is_dir()]
    if not missing:
        return target
    tool = shutil.which("tpchgen-cli") or str(Path(sys.executable).with_name("tpchgen-cli"))
    if not Path(tool).exists():
        raise ConfigError("tpchgen-cli is not installed (pip install 'sparkwire[tpch]')")
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".tpchgen-", dir=target) as scratch:
        subprocess.run(
            [tool, "parquet", "-s", f"{scale:g}", f"--tables={','.join(missing)}",
             f"--parts={parts}", f"--output-dir={scratch}"],
            check=True, capture_output=True, timeout=600,
        )
        for table in missing:
            os.replace(Path(scratch) / table, target / table)
    return target


def q1(lineitem: DataFrame, F: ModuleType = functions) -> DataFrame:
    """TPC-H Q1: pricing summary report. ``F`` is the functions module it is written with:
    sparkwire's, or PySpark's to run the same query on PySpark's frames (a Spark Connect
    client's, in ``tests/spark/test_connect.py``)."""
    disc_price = F.col("l_extendedprice") * (1 - F.col("l_discount"))
    return (
        lineitem.filter(F.col("l_shipdate") <= F.lit(dt.date(1998, 9, 2)))
        .groupBy("l_returnflag", "l_linestatus")
        .agg(
            F.sum("l_quantity").alias("sum_qty"),
            F.sum("l_extendedprice").alias("sum_base_price"),
            F.sum(disc_price).alias("sum_disc_price"),
            F.sum(disc_price * (1 + F.col("l_tax"))).alias("sum_charge"),
            F.avg("l_quantity").alias("avg_qty"),
            F.avg("l_extendedprice").alias("avg_price"),
            F.avg("l_discount").alias("avg_disc"),
            F.count("*").alias("count_order"),
        )
        .orderBy("l_returnflag", "l_linestatus")
    )


def q6(lineitem: DataFrame, F: ModuleType = functions) -> DataFrame:
    """TPC-H Q6: forecasting revenue change; ``F`` as for ``q1``."""
    return lineitem.filter(
        (F.col("l_shipdate") >= F.lit(dt.date(1994, 1, 1)))
        & (F.col("l_shipdate") < F.lit(dt.date(1995, 1, 1)))
        & F.col("l_discount").between(F.lit(Decimal("0.05")), F.lit(Decimal("0.07")))
        & (F.col("l_quantity") < 24)
    ).agg(F.sum(F.col("l_extendedprice") * F.col("l_discount")).alias("revenue"))


QUERIES: dict[str, Callable[[DataFrame], DataFrame]] = {"q1": q1, "q6": q6}
