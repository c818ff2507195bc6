"""The analyzer's casts of date and time operands (``planner.logical.local_time``): where they go,
and that a second pass adds none (an expression may be resolved again)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire.planner.logical.expressions import Call, Cast, Column, Lit
from sparkwire.planner.logical.local_time import local_time

COLUMNS = {"i": pa.timestamp("us", tz="UTC"), "w": pa.timestamp("us"), "d": pa.date32(),
           "s": pa.string(), "n": pa.int64()}
i, w, d, s, n = (Column(name=c) for c in "iwdsn")
CASES = [
    (Call(fn="hour", args=(i,)), Call(fn="hour", args=(Cast(expr=i, to="timestamp_ntz", source="timestamp"),))),
    (Call(fn="hour", args=(w,)), Call(fn="hour", args=(w,))),
    (Call(fn="hour", args=(s,)), Call(fn="hour", args=(Cast(
        expr=Cast(expr=s, to="timestamp", source="string"), to="timestamp_ntz", source="timestamp"),))),
    (Call(fn="year", args=(i,)), Call(fn="year", args=(Cast(expr=i, to="date", source="timestamp"),))),
    (Call(fn="year", args=(s,)), Call(fn="year", args=(s,))),
    (Call(fn="date_format", args=(w, Lit(value="yyyy"))), Call(fn="date_format", args=(Cast(
        expr=Cast(expr=w, to="timestamp", source="timestamp_ntz"), to="timestamp_ntz", source="timestamp"),
        Lit(value="yyyy")))),
    (Call(fn="to_timestamp", args=(s,)), Call(fn="to_timestamp", args=(Cast(expr=s, to="timestamp", source="string"),))),
    (Call(fn="to_timestamp", args=(s, Lit(value="yyyy"))), Call(fn="to_timestamp", args=(s, Lit(value="yyyy")))),
    (Call(fn="unix_timestamp", args=(d, Lit(value="yyyy"))),
     Call(fn="unix_timestamp", args=(Cast(expr=d, to="timestamp", source="date"),))),
    (Call(fn="unix_timestamp", args=(w, Lit(value="yyyy"))), Call(fn="unix_timestamp", args=(w,))),
    (Call(fn="lt", args=(i, s)), Call(fn="lt", args=(i, Cast(expr=s, to="timestamp", source="string")))),
    (Call(fn="lt", args=(w, s)), Call(fn="lt", args=(w, s))),
    (Call(fn="add", args=(n, n)), Call(fn="add", args=(n, n))),
]


@pytest.mark.parametrize(("expr", "want"), CASES, ids=[f"{c[0].fn}-{k}" for k, c in enumerate(CASES)])
def test_operands_are_cast_once(expr: Call, want: Call) -> None:
    once = local_time(expr, COLUMNS)
    assert once == want
    assert local_time(once, COLUMNS) == once
