"""TPC-H queries written with the PySpark-style DataFrame API.

Each ``qNN(t)`` takes the tables by name (``t["lineitem"]`` ...) and mirrors
``qNN.sql`` beside it: the same validation parameters, output columns (names and order),
ORDER BY and LIMIT. They are written the way a PySpark user would write them: filters on
each table before the joins, joins with column conditions, ``F.when`` for CASE. Each takes
the functions module as ``F`` too (sparkwire's by default): given PySpark's frames and
PySpark's functions, the same function runs on PySpark (``tests/spark/test_connect.py`` runs
them through a Spark Connect client against sparkwire's server).

- Q1  pricing summary: totals and averages per return flag and line status, shipped by 1998-09-02.
- Q3  shipping priority: the 10 BUILDING orders unshipped on 1995-03-15 with the most revenue.
- Q5  local supplier volume: 1994 revenue per ASIA nation where customer and supplier share it.
- Q6  forecasting revenue change: 1994 revenue from 5-7 % discounts on items under 24 units.
- Q10 returned item reporting: the 20 customers losing most revenue to returns of 1993-Q4 orders.
- Q12 shipping modes and order priority: late 1994 MAIL/SHIP receipts, high vs low priority.
- Q14 promotion effect: the percentage of September 1995 revenue from promotional parts.
- Q19 discounted revenue: air-shipped, hand-delivered items of three brand/container/size mixes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from decimal import Decimal
from types import ModuleType
from typing import Protocol

from sparkwire.coordinator import tpch
from sparkwire.planner.api import functions
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.functions import Column

Tables = Mapping[str, DataFrame]


class Query(Protocol):
    """A query: the tables by name and the functions module it is written with."""

    def __call__(self, t: Tables, F: ModuleType = ..., /) -> DataFrame: ...


def _revenue(F: ModuleType) -> Column:
    """``l_extendedprice * (1 - l_discount)``: a line item's discounted price."""
    return F.col("l_extendedprice") * (1 - F.col("l_discount"))


def q01(t: Tables, F: ModuleType = functions) -> DataFrame:
    """Pricing summary report: the demo's Q1 (``sparkwire.coordinator.tpch.q1``)."""
    return tpch.q1(t["lineitem"], F)


def q03(t: Tables, F: ModuleType = functions) -> DataFrame:
    """Shipping priority."""
    day = F.lit(dt.date(1995, 3, 15))
    customer = t["customer"].filter(F.col("c_mktsegment") == "BUILDING")
    orders = t["orders"].filter(F.col("o_orderdate") < day)
    lineitem = t["lineitem"].filter(F.col("l_shipdate") > day)
    return (
        customer.join(orders, customer.c_custkey == orders.o_custkey)
        .join(lineitem, lineitem.l_orderkey == orders.o_orderkey)
        .groupBy("l_orderkey", "o_orderdate", "o_shippriority")
        .agg(F.sum(_revenue(F)).alias("revenue"))
        .select("l_orderkey", "revenue", "o_orderdate", "o_shippriority")
        .orderBy(F.col("revenue").desc(), "o_orderdate")
        .limit(10)
    )


def q05(t: Tables, F: ModuleType = functions) -> DataFrame:
    """Local supplier volume."""
    start = dt.date(1994, 1, 1)
    region = t["region"].filter(F.col("r_name") == "ASIA")
    nation = t["nation"].join(region, F.col("n_regionkey") == region.r_regionkey)
    supplier = t["supplier"].join(nation, F.col("s_nationkey") == nation.n_nationkey)
    customer = t["customer"]
    orders = t["orders"].filter(
        (F.col("o_orderdate") >= F.lit(start))
        & (F.col("o_orderdate") < F.lit(start.replace(year=start.year + 1)))
    )
    lineitem = t["lineitem"]
    return (
        customer.join(orders, customer.c_custkey == orders.o_custkey)
        .join(lineitem, lineitem.l_orderkey == orders.o_orderkey)
        .join(supplier, [lineitem.l_suppkey == supplier.s_suppkey,
                         customer.c_nationkey == supplier.s_nationkey])
        .groupBy("n_name")
        .agg(F.sum(_revenue(F)).alias("revenue"))
        .orderBy(F.col("revenue").desc())
    )


def q06(t: Tables, F: ModuleType = functions) -> DataFrame:
    """Forecasting revenue change: the demo's Q6 (``sparkwire.coordinator.tpch.q6``)."""
    return tpch.q6(t["lineitem"], F)


def q10(t: Tables, F: ModuleType = functions) -> DataFrame:
    """Returned item reporting."""
    start = dt.date(1993, 10, 1)
    customer = t["customer"]
    orders = t["orders"].filter(
        (F.col("o_orderdate") >= F.lit(start))
        & (F.col("o_orderdate") < F.lit(dt.date(1994, 1, 1)))  # + interval '3' month
    )
    lineitem = t["lineitem"].filter(F.col("l_returnflag") == "R")
    nation = t["nation"]
    return (
        customer.join(orders, customer.c_custkey == orders.o_custkey)
        .join(lineitem, lineitem.l_orderkey == orders.o_orderkey)
        .join(nation, customer.c_nationkey == nation.n_nationkey)
        .groupBy("c_custkey", "c_name", "c_acctbal", "c_phone", "n_name", "c_address", "c_comment")
        .agg(F.sum(_revenue(F)).alias("revenue"))
        .select("c_custkey", "c_name", "revenue", "c_acctbal", "n_name", "c_address", "c_phone",
                "c_comment")
        .orderBy(F.col("revenue").desc())
        .limit(20)
    )


def q12(t: Tables, F: ModuleType = functions) -> DataFrame:
    """Shipping modes and order priority."""
    start = dt.date(1994, 1, 1)
    orders = t["orders"]
    lineitem = t["lineitem"].filter(
        F.col("l_shipmode").isin("MAIL", "SHIP")
        & (F.col("l_commitdate") < F.col("l_receiptdate"))
        & (F.col("l_shipdate") < F.col("l_commitdate"))
        & (F.col("l_receiptdate") >= F.lit(start))
        & (F.col("l_receiptdate") < F.lit(start.replace(year=start.year + 1)))
    )
    priority = F.col("o_orderpriority")
    high = (priority == "1-URGENT") | (priority == "2-HIGH")
    low = (priority != "1-URGENT") & (priority != "2-HIGH")
    return (
        orders.join(lineitem, orders.o_orderkey == lineitem.l_orderkey)
        .groupBy("l_shipmode")
        .agg(
            F.sum(F.when(high, 1).otherwise(0)).alias("high_line_count"),
            F.sum(F.when(low, 1).otherwise(0)).alias("low_line_count"),
        )
        .orderBy("l_shipmode")
    )


def q14(t: Tables, F: ModuleType = functions) -> DataFrame:
    """Promotion effect."""
    lineitem = t["lineitem"].filter(
        (F.col("l_shipdate") >= F.lit(dt.date(1995, 9, 1)))
        & (F.col("l_shipdate") < F.lit(dt.date(1995, 10, 1)))  # + interval '1' month
    )
    part = t["part"]
    promo = F.when(F.col("p_type").like("PROMO%"), _revenue(F)).otherwise(0)
    return (
        lineitem.join(part, lineitem.l_partkey == part.p_partkey)
        .agg((F.lit(Decimal("100.00")) * F.sum(promo) / F.sum(_revenue(F))).alias("promo_revenue"))
    )


def q19(t: Tables, F: ModuleType = functions) -> DataFrame:
    """Discounted revenue."""
    # The predicates every branch of the disjunction shares, pushed to lineitem.
    lineitem = t["lineitem"].filter(
        F.col("l_shipmode").isin("AIR", "AIR REG")
        & (F.col("l_shipinstruct") == "DELIVER IN PERSON")
    )
    part = t["part"]

    def branch(brand: str, containers: tuple[str, ...], quantity: int, size: int) -> Column:
        return (
            (F.col("p_brand") == brand)
            & F.col("p_container").isin(*containers)
            & (F.col("l_quantity") >= quantity) & (F.col("l_quantity") <= quantity + 10)
            & F.col("p_size").between(1, size)
        )

    return (
        lineitem.join(part, part.p_partkey == lineitem.l_partkey)
        .filter(
            branch("Brand#12", ("SM CASE", "SM BOX", "SM PACK", "SM PKG"), 1, 5)
            | branch("Brand#23", ("MED BAG", "MED BOX", "MED PKG", "MED PACK"), 10, 10)
            | branch("Brand#34", ("LG CASE", "LG BOX", "LG PACK", "LG PKG"), 20, 15)
        )
        .agg(F.sum(_revenue(F)).alias("revenue"))
    )


QUERIES: dict[str, Query] = {
    "q01": q01,
    "q03": q03,
    "q05": q05,
    "q06": q06,
    "q10": q10,
    "q12": q12,
    "q14": q14,
    "q19": q19,
}
