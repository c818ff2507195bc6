"""The compiled ``Expand`` on a locked-down TaskEngine, reading an exchange (a stream DuckDB
scans once): every input row once per set, each key NULL where its set leaves it out and
typed as before, the grouping id beside; then an aggregate over it gives DuckDB's own
``GROUPING SETS``."""

from __future__ import annotations

import pyarrow as pa
from tests.engine.engine_helpers import exchange, make_table, oracle, run_fragment

from sparkwire.coordinator.worker.engine import TaskEngine
from sparkwire.planner.logical.expressions import AggCall, Call, Column, Lit, NamedExpr
from sparkwire.planner.logical.plan import Aggregate, Expand

KEYS = (NamedExpr(name="g#2", expr=Column(name="g")),
        NamedExpr(name="i2", expr=Call(fn="mul", args=(Column(name="i"), Lit(value=2)))),
        NamedExpr(name="d#2", expr=Column(name="d")))
#: (g, i2, d), (g), () and (i2, d): bit 2 is g, bit 0 is d; a set bit leaves its key out.
SETS = (0, 3, 7, 4)


def test_expand_copies_each_row_once_per_set_with_the_left_out_keys_null(engine: TaskEngine) -> None:
    t = make_table()
    op = Expand(input=exchange(t), keys=KEYS, sets=SETS, grouping_id="gid")
    got = run_fragment(engine, op, {0: t})
    assert got.num_rows == len(SETS) * t.num_rows
    assert got.schema.field("g#2").type == pa.string() and got.schema.field("d#2").type == pa.date32()
    assert got.schema.field("gid").type == pa.int64()
    for row in got.to_pylist():
        assert (row["g#2"] == row["g"]) if not row["gid"] & 4 else row["g#2"] is None
        assert (row["d#2"] == row["d"]) if not row["gid"] & 1 else row["d#2"] is None
        assert row["i2"] == (None if row["gid"] & 2 or row["i"] is None else row["i"] * 2)
    assert sorted(got.column("gid").to_pylist()) == sorted(SETS * t.num_rows)


def test_an_aggregate_over_it_is_duckdbs_grouping_sets(engine: TaskEngine) -> None:
    t = make_table()
    expand = Expand(input=exchange(t), keys=KEYS, sets=SETS, grouping_id="gid")
    op = Aggregate(input=expand, keys=tuple(NamedExpr(name=n, expr=Column(name=n)) for n in ("g#2", "i2", "d#2", "gid")),
                   aggregates=(NamedExpr(name="n", expr=AggCall(fn="count")),
                               NamedExpr(name="s", expr=AggCall(fn="sum", arg=Column(name="id")))))
    got = run_fragment(engine, op, {0: t})
    want = oracle(t, "SELECT g, i * 2 AS i2, d, grouping_id(g, i * 2, d) AS gid, count(*) AS n, sum(id) AS s "
                     "FROM t GROUP BY GROUPING SETS ((g, i * 2, d), (g), (), (i * 2, d))")
    key = lambda r: tuple((v is None, str(v)) for v in r)  # noqa: E731
    assert sorted(map(tuple, (r.values() for r in got.to_pylist())), key=key) == \
        sorted(map(tuple, (r.values() for r in want.to_pylist())), key=key)
