"""One call cannot make a value larger than ``MAX_VALUE_LENGTH``: the cases that once grew a
512 MiB worker past 4 GiB fail at once with Spark's error class, and the worker answers the
next query; values within the bound are Spark's (``tests/spark`` compares them)."""

from __future__ import annotations

import time

import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.planner.api import functions as F
from sparkwire.planner.limits import MAX_VALUE_LENGTH
from sparkwire.transport.errors import QueryError

HUGE = 2**31 - 1


@pytest.mark.parametrize("make", [
    lambda s: s.range(2).select(F.length(F.lpad(F.col("id").cast("string"), HUGE, "x"))),
    lambda s: s.range(2).select(F.length(F.rpad(F.lit("a"), (F.col("id") + HUGE - 1).cast("int"), "x"))),
    lambda s: s.range(1).select(F.explode(F.split(F.lpad(F.lit(""), 10**8, "a,"), ","))),
    lambda s: s.range(2).select(F.length(F.repeat(F.lit("ab"), MAX_VALUE_LENGTH))),
    lambda s: s.range(1).select(F.size(F.array_repeat(F.col("id"), HUGE))),
    lambda s: s.range(1).select(F.size(F.sequence(F.lit(0), F.lit(HUGE)))),
    lambda s: s.range(1).select(F.size(F.array_insert(F.array(F.col("id")), F.lit(-HUGE), F.lit(1)))),
], ids=["lpad", "rpad", "lpad-split-explode", "repeat", "array_repeat", "sequence", "array_insert"])
def test_a_value_past_the_bound_fails_at_once(sparkwire_session: Session, make) -> None:
    started = time.monotonic()
    with pytest.raises(QueryError, match=r"COLLECTION_SIZE_LIMIT_EXCEEDED.*would make a value of"):
        make(sparkwire_session).toArrow()
    assert time.monotonic() - started < 10  # refused, never built
    small = sparkwire_session.range(3).select(
        F.lpad(F.col("id").cast("string"), 3, "0").alias("p"),
        F.size(F.sequence(F.lit(1), F.col("id") + 1)).alias("n")).toArrow()
    assert small == pa.table({"p": ["000", "001", "002"], "n": pa.array([1, 2, 3], pa.int32())})
