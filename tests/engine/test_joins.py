"""Compiled joins and set operations match hand-written oracle SQL on random tables.

The oracle deliberately uses other formulations than the compiler: joins as a filtered
cross product plus ``NOT EXISTS`` padding for the outer sides, semi / anti joins as
``[NOT] EXISTS``, the null-aware anti join as ``NOT EXISTS`` over ``k = r OR (k = r) IS NULL``,
and ``INTERSECT`` / ``EXCEPT`` (``ALL``) as ``IS NOT DISTINCT FROM`` matches of rows numbered
within their duplicates.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st
from tests.engine.engine_helpers import exchange, oracle_tables, run_fragment

from sparkwire.coordinator.worker.compile import CompileError, compile_fragment
from sparkwire.coordinator.worker.engine import TaskEngine
from sparkwire.planner.logical.expressions import Call, Column, Lit, SortKey
from sparkwire.planner.logical.plan import Exchange, Filter, Join, Limit, SetOperation, Sort
from sparkwire.planner.logical.staged import Boundary

RESULT = Boundary(kind="result")
JOIN_TYPES = ("inner", "left", "right", "full", "semi", "anti")
SET_KINDS = ("union", "intersect", "except")

LEFT = pa.schema([("k1", pa.int64()), ("k2", pa.string()), ("lv", pa.int64())])
RIGHT = pa.schema([("r1", pa.int64()), ("r2", pa.string()), ("rv", pa.int64())])
SET_LEFT = pa.schema([("x", pa.int64()), ("s", pa.string())])
SET_RIGHT = pa.schema([("y", pa.int64()), ("t", pa.string())])


def col(name: str) -> Column:
    return Column(name=name)


def call(fn: str, *args: object) -> Call:
    return Call(fn=fn, args=args)


def sorted_rows(t: pa.Table) -> list[tuple[object, ...]]:
    """Rows as tuples in a total order that tolerates NULLs: a multiset comparison."""
    return sorted((tuple(r.values()) for r in t.to_pylist()), key=repr)


def table(schema: pa.Schema, data: list[tuple[object, ...]]) -> pa.Table:
    return pa.Table.from_pylist([dict(zip(schema.names, row, strict=True)) for row in data], schema=schema)


# Small domains: many duplicate keys and rows; None everywhere; empty sides.
small_int = st.one_of(st.none(), st.integers(0, 3))
small_str = st.one_of(st.none(), st.sampled_from(["a", "b"]))
join_rows = st.lists(st.tuples(small_int, small_str, st.one_of(st.none(), st.integers(0, 5))), max_size=8)
set_rows = st.lists(st.tuples(st.one_of(st.none(), st.integers(0, 2)), small_str), max_size=8)

# Residual conditions: (model, oracle SQL over l / r).
CONDITIONS = {
    "none": (None, None),
    "lt": (call("lt", col("lv"), col("rv")), "l.lv < r.rv"),
    "sum": (call("ge", call("add", col("lv"), col("rv")), Lit(value=5)), "l.lv + r.rv >= 5"),
}
KEYS = [("k1", "r1"), ("k2", "r2")]


def join_predicate(nkeys: int, condition: str | None) -> str:
    terms = [f"l.{a} = r.{b}" for a, b in KEYS[:nkeys]]
    if condition is not None:
        terms.append(condition)
    return " AND ".join(terms) or "TRUE"


def oracle_join(how: str, nkeys: int, condition: str | None) -> str:
    p = join_predicate(nkeys, condition)
    null_left = "NULL::BIGINT, NULL::VARCHAR, NULL::BIGINT"
    inner = f"SELECT l.*, r.* FROM l, r WHERE {p}"
    left_only = f"SELECT l.*, {null_left} FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE {p})"
    right_only = f"SELECT {null_left}, r.* FROM r WHERE NOT EXISTS (SELECT 1 FROM l WHERE {p})"
    return {
        "inner": inner,
        "cross": "SELECT l.*, r.* FROM l, r",
        "left": f"{inner} UNION ALL {left_only}",
        "right": f"{inner} UNION ALL {right_only}",
        "full": f"{inner} UNION ALL {left_only} UNION ALL {right_only}",
        "semi": f"SELECT l.* FROM l WHERE EXISTS (SELECT 1 FROM r WHERE {p})",
        "anti": f"SELECT l.* FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE {p})",
    }[how]


def oracle_null_aware(condition: str | None) -> str:
    extra = "" if condition is None else f" AND {condition}"
    return (
        "SELECT l.* FROM l WHERE NOT EXISTS "
        f"(SELECT 1 FROM r WHERE (l.k1 = r.r1 OR (l.k1 = r.r1) IS NULL){extra})"
    )


def check_join(engine: TaskEngine, left: pa.Table, right: pa.Table, fragment: Join, sql: str) -> None:
    got = run_fragment(engine, fragment, {0: left, 1: right})
    want = oracle_tables({"l": left, "r": right}, sql)
    names = LEFT.names if fragment.how in ("semi", "anti") else LEFT.names + RIGHT.names
    assert got.column_names == names
    assert sorted_rows(got) == sorted_rows(want), (fragment.how, sql)


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    left_data=join_rows,
    right_data=join_rows,
    nkeys=st.integers(0, 2),
    condition=st.sampled_from(sorted(CONDITIONS)),
)
def test_every_join_type_matches_the_oracle(
    engine: TaskEngine, left_data: list, right_data: list, nkeys: int, condition: str
) -> None:
    left, right = table(LEFT, left_data), table(RIGHT, right_data)
    model_cond, sql_cond = CONDITIONS[condition]
    keys = KEYS[:nkeys]
    for how in JOIN_TYPES:
        fragment = Join(
            left=exchange(left, 0),
            right=exchange(right, 1),
            how=how,
            left_keys=tuple(col(a) for a, _ in keys),
            right_keys=tuple(col(b) for _, b in keys),
            condition=model_cond,
        )
        check_join(engine, left, right, fragment, oracle_join(how, nkeys, sql_cond))
    if nkeys == 0 and model_cond is None:
        cross = Join(left=exchange(left, 0), right=exchange(right, 1), how="cross")
        check_join(engine, left, right, cross, oracle_join("cross", 0, None))
    if nkeys >= 1:
        null_aware = Join(
            left=exchange(left, 0),
            right=exchange(right, 1),
            how="anti",
            left_keys=(col("k1"),),
            right_keys=(col("r1"),),
            condition=model_cond,
            null_aware=True,
        )
        check_join(engine, left, right, null_aware, oracle_null_aware(sql_cond))


def null_aware_join(condition: Call | None = None) -> Join:
    return Join(
        left=Exchange(stage=0, columns=tuple(LEFT.names)),
        right=Exchange(stage=1, columns=tuple(RIGHT.names)),
        how="anti",
        left_keys=(col("k1"),),
        right_keys=(col("r1"),),
        condition=condition,
        null_aware=True,
    )


NOT_IN_CASES = {
    # right side holds a NULL key: NOT IN is never TRUE, no row is kept
    "right-null": ([(1, "a", 0), (5, "b", 1), (None, "c", 2)], [(1, "x", 0), (None, "y", 0)], 0),
    # a NULL left key against a non-empty right side (no NULLs): UNKNOWN, dropped
    "left-null-nonempty": ([(1, "a", 0), (5, "b", 1), (None, "c", 2)], [(1, "x", 0)], 1),
    # an empty right side keeps every left row, NULL keys included
    "left-null-empty": ([(1, "a", 0), (5, "b", 1), (None, "c", 2), (None, "d", 3)], [], 4),
}


@pytest.mark.parametrize("case", sorted(NOT_IN_CASES))
def test_null_aware_anti_join_is_not_in(engine: TaskEngine, case: str) -> None:
    left_data, right_data, kept = NOT_IN_CASES[case]
    left, right = table(LEFT, left_data), table(RIGHT, right_data)
    fragment = null_aware_join()
    got = run_fragment(engine, fragment, {0: left, 1: right})
    not_in = oracle_tables({"l": left, "r": right}, "SELECT * FROM l WHERE k1 NOT IN (SELECT r1 FROM r)")
    assert sorted_rows(got) == sorted_rows(not_in)
    assert got.num_rows == kept  # the count reasoned out in NOT_IN_CASES, not read off our output
    # ...which a plain anti join does not do: it keeps NULL keys and ignores right NULLs
    plain = fragment.model_copy(update={"null_aware": False})
    plain_got = run_fragment(engine, plain, {0: left, 1: right})
    plain_want = oracle_tables({"l": left, "r": right}, oracle_join("anti", 1, None))
    assert sorted_rows(plain_got) == sorted_rows(plain_want)


def test_null_aware_anti_join_with_condition_ignores_right_rows_it_rejects(engine: TaskEngine) -> None:
    # The right NULL key fails the condition for every left row, so it does not poison NOT IN.
    left = table(LEFT, [(1, "a", 0), (2, "b", 9), (None, "c", 0)])
    right = table(RIGHT, [(1, "x", 5), (None, "y", 0)])
    fragment = null_aware_join(call("lt", col("lv"), col("rv")))
    got = run_fragment(engine, fragment, {0: left, 1: right})
    want = oracle_tables(
        {"l": left, "r": right},
        "SELECT * FROM l WHERE k1 NOT IN (SELECT r1 FROM r WHERE l.lv < r.rv)",
    )
    assert sorted_rows(got) == sorted_rows(want)
    assert [r[:2] for r in sorted_rows(got)] == [(2, "b")]


def test_expression_keys_and_inputs_with_limits(engine: TaskEngine) -> None:
    # Keys are expressions; each input keeps its own ORDER BY ... LIMIT inside its derived table.
    left = table(LEFT, [(k % 4, "ab"[k % 2], k) for k in range(12)])
    right = table(RIGHT, [(k % 5, "ab"[k % 3 % 2], 20 - k) for k in range(15)])
    fragment = Filter(
        input=Join(
            left=Sort(input=exchange(left, 0), keys=(SortKey(expr=col("lv"), ascending=False),), limit=6),
            right=Limit(input=Sort(input=exchange(right, 1), keys=(SortKey(expr=col("rv")),)), n=9),
            how="inner",
            left_keys=(call("add", col("k1"), Lit(value=1)), call("upper", col("k2"))),
            right_keys=(col("r1"), call("upper", col("r2"))),
        ),
        predicate=call("ne", col("lv"), Lit(value=7)),
    )
    got = run_fragment(engine, fragment, {0: left, 1: right})
    want = oracle_tables(
        {"l": left, "r": right},
        "SELECT * FROM (SELECT * FROM l ORDER BY lv DESC LIMIT 6) l, "
        "(SELECT * FROM r ORDER BY rv LIMIT 9) r "
        "WHERE l.k1 + 1 = r.r1 AND upper(l.k2) = upper(r.r2) AND l.lv <> 7",
    )
    assert got.num_rows > 0
    assert sorted_rows(got) == sorted_rows(want)


def oracle_set(kind: str, all_: bool) -> str:
    same = "a.x IS NOT DISTINCT FROM b.y AND a.s IS NOT DISTINCT FROM b.t"
    if kind == "union":
        both = "SELECT x, s FROM a UNION ALL SELECT y, t FROM b"
        return both if all_ else f"SELECT DISTINCT * FROM ({both})"
    exists = "EXISTS" if kind == "intersect" else "NOT EXISTS"
    if not all_:
        return f"SELECT DISTINCT x, s FROM a WHERE {exists} (SELECT 1 FROM b WHERE {same})"
    # The n-th copy of a row survives INTERSECT ALL iff the right side has an n-th copy
    # (min of multiplicities); EXCEPT ALL keeps the copies beyond the right's count.
    numbered_a = "(SELECT *, row_number() OVER (PARTITION BY x, s) AS n FROM a)"
    numbered_b = "(SELECT *, row_number() OVER (PARTITION BY y, t) AS n FROM b)"
    return f"SELECT x, s FROM {numbered_a} a WHERE {exists} (SELECT 1 FROM {numbered_b} b WHERE {same} AND a.n = b.n)"


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(left_data=set_rows, right_data=set_rows)
def test_every_set_operation_matches_the_oracle(engine: TaskEngine, left_data: list, right_data: list) -> None:
    left, right = table(SET_LEFT, left_data), table(SET_RIGHT, right_data)
    for kind in SET_KINDS:
        for all_ in (False, True):
            fragment = SetOperation(left=exchange(left, 0), right=exchange(right, 1), kind=kind, all=all_)
            got = run_fragment(engine, fragment, {0: left, 1: right})
            want = oracle_tables({"a": left, "b": right}, oracle_set(kind, all_))
            assert got.column_names == ["x", "s"]  # the left input's names
            assert sorted_rows(got) == sorted_rows(want), (kind, all_)


def test_set_operation_inputs_keep_their_limits(engine: TaskEngine) -> None:
    left = table(SET_LEFT, [(k % 3, "ab"[k % 2]) for k in range(10)])
    right = table(SET_RIGHT, [(k % 4, "ab"[k % 2]) for k in range(10)])
    fragment = SetOperation(
        left=Sort(input=exchange(left, 0), keys=(SortKey(expr=col("x")), SortKey(expr=col("s"))), limit=4),
        right=Limit(input=Sort(input=exchange(right, 1), keys=(SortKey(expr=col("y"), ascending=False),)), n=3),
        kind="union",
        all=True,
    )
    got = run_fragment(engine, fragment, {0: left, 1: right})
    want = oracle_tables(
        {"a": left, "b": right},
        "(SELECT * FROM a ORDER BY x, s LIMIT 4) UNION ALL (SELECT * FROM b ORDER BY y DESC LIMIT 3)",
    )
    assert got.num_rows == 7
    assert sorted_rows(got) == sorted_rows(want)


def test_join_output_can_be_shuffled(engine: TaskEngine) -> None:
    left = table(LEFT, [(k % 3, "a", k) for k in range(9)])
    right = table(RIGHT, [(k % 3, "b", k) for k in range(6)])
    fragment = Join(
        left=exchange(left, 0), right=exchange(right, 1), how="left",
        left_keys=(col("k1"),), right_keys=(col("r1"),),
    )
    got = run_fragment(engine, fragment, {0: left, 1: right}, Boundary(kind="shuffle", partitions=3, keys=(col("rv"),)))
    assert got.column_names == [*LEFT.names, *RIGHT.names, "__sparkwire_partition"]
    assert got.num_rows == 18
    assert set(got.column("__sparkwire_partition").to_pylist()) <= {0, 1, 2}


@pytest.mark.parametrize("how", [*JOIN_TYPES, "cross"])
def test_join_sides_with_clashing_names_are_refused(how: str) -> None:
    left = exchange(pa.table({"id": [1], "v": [2]}), 0)
    right = exchange(pa.table({"ID": [1], "w": [2]}), 1)
    keys = {} if how == "cross" else {"left_keys": (col("id"),), "right_keys": (col("w"),)}
    with pytest.raises(CompileError, match="ignores case"):
        compile_fragment(Join(left=left, right=right, how=how, **keys), RESULT)


@pytest.mark.parametrize("kind", SET_KINDS)
def test_set_operation_with_different_widths_is_refused(kind: str) -> None:
    left = exchange(pa.table({"a": [1], "b": [2]}), 0)
    right = exchange(pa.table({"c": [1]}), 1)
    with pytest.raises(CompileError, match="2 columns, the right 1"):
        compile_fragment(SetOperation(left=left, right=right, kind=kind), RESULT)
