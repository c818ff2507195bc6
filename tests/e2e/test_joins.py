"""Joins and set operations equal a single-node DuckDB computation of the same query.

Every join type (inner, left, right, full, left_semi, left_anti, cross) with NULL,
duplicate, skewed and multi-column keys, empty sides, residual non-equi conditions,
using-joins, and keys of different types on the two sides (int64 against float64 and
decimal(12,2): the planner must coerce keys before hashing them, since DuckDB hashes 1 as
BIGINT, DOUBLE and DECIMAL differently); every set operation with NULLs, duplicate rows and
columns of different types. Each example runs on a cluster of 1, 2 or 4 workers that either
never broadcasts (``broadcast_threshold=0``: both sides are hash-shuffled) or broadcasts
whenever the join type allows it. The oracle is hand-written SQL over the same tables
(semi and anti joins as ``EXISTS`` / ``NOT EXISTS``, using-joins with explicit keys).
"""

from __future__ import annotations

import decimal
import re
from collections import Counter

import duckdb
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sparkwire.coordinator import Session
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api import functions as F
from tests.e2e.conftest import canonical

SIZES = (1, 2, 4)
THRESHOLDS = {"shuffle": 0, "broadcast": 1 << 40}


@pytest.fixture(scope="module")
def sessions():
    """One cluster per (size, strategy), reused across examples: hypothesis varies the data.
    Small chunks, so even a few dozen rows spread over every worker."""
    opened: dict[tuple[int, str], Session] = {}
    try:
        for n in SIZES:
            for strategy, threshold in THRESHOLDS.items():
                opened[n, strategy] = Session(
                    workers=n, transport="memory", broadcast_threshold=threshold, local_chunk_rows=7,
                )
        yield opened
    finally:
        for session in opened.values():
            session.close()


EXAMPLES = settings(
    max_examples=12, deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
clusters = st.tuples(st.sampled_from(SIZES), st.sampled_from(sorted(THRESHOLDS)))
OUTER = ["inner", "left", "right", "full", "left_semi", "left_anti"]
hows = st.sampled_from([*OUTER, "outer", "left_outer", "leftsemi", "leftanti"])
#: PySpark spellings -> the SQL the oracle writes
CANONICAL_HOW = {"outer": "full", "left_outer": "left", "leftsemi": "left_semi", "leftanti": "left_anti"}


def oracle(left: pa.Table, right: pa.Table, query: str) -> pa.Table:
    """``query`` over ``a`` (left) and ``b`` (right) in one DuckDB."""
    con = duckdb.connect()
    con.register("a", left)
    con.register("b", right)
    return con.sql(query).to_arrow_table()


def assert_same(
    df, got: pa.Table, expected: pa.Table, columns: list[str], check_schema: bool = True,
) -> None:
    assert got.column_names == columns
    if check_schema:  # what the DataFrame promised before running is what it returned
        assert got.schema == df.arrow_schema, (got.schema, df.arrow_schema)
    assert canonical(got) == canonical(expected)


def join_sql(how: str, left: pa.Table, right: pa.Table, condition: str) -> str:
    """Spark's semantics of ``left.join(right, condition, how)`` as plain SQL."""
    how = CANONICAL_HOW.get(how, how)
    if how == "left_semi":
        return f"select a.* from a where exists (select 1 from b where {condition})"
    if how == "left_anti":
        return f"select a.* from a where not exists (select 1 from b where {condition})"
    keyword = {"inner": "inner", "left": "left outer", "right": "right outer", "full": "full outer"}[how]
    return f"select a.*, b.* from a {keyword} join b on {condition}"


def join_columns(how: str, left: pa.Table, right: pa.Table) -> list[str]:
    if CANONICAL_HOW.get(how, how) in ("left_semi", "left_anti"):
        return left.column_names
    return left.column_names + right.column_names


# -- data -------------------------------------------------------------------------------
BIG = 10**9 + 7  # fits decimal(12, 2), exact as a double


@st.composite
def int_keys(draw: st.DrawFn, n: int) -> list[int | None]:
    """NULLs and duplicates, one key for most rows, all NULL, or all distinct."""
    shape = draw(st.sampled_from(["mixed", "skewed", "nulls", "distinct"]))
    if shape == "distinct":
        return draw(st.lists(st.integers(-3, 60), min_size=n, max_size=n, unique=True))
    element = {
        "mixed": st.one_of(st.none(), st.integers(-1, 5), st.just(BIG)),
        "skewed": st.sampled_from([1] * 10 + [None, 0, 2, BIG]),
        "nulls": st.sampled_from([None, None, None, None, 1]),
    }[shape]
    return draw(st.lists(element, min_size=n, max_size=n))


small = st.one_of(st.none(), st.integers(-3, 3))
strings = st.one_of(st.none(), st.sampled_from(["", "a", "b", "é"]))


@st.composite
def sides(draw: st.DrawFn, max_rows: int = 40, key_type: pa.DataType = pa.int64()) -> pa.Table:
    """A join input: key ``k`` (of ``key_type``), a second key ``k2``, a value ``v`` for
    residual conditions, a string ``s``; ``k``, ``k2`` and ``s`` are named alike on both
    sides, so a condition join outputs them twice."""
    n = draw(st.integers(0, max_rows))
    keys: list = draw(int_keys(n))
    if pa.types.is_floating(key_type):
        # equal to an int key, between two, and -0.0 (equal to 0)
        nudge = draw(st.lists(st.sampled_from([0.0, 0.0, 0.0, 0.5]), min_size=n, max_size=n))
        keys = [None if k is None else (-0.0 if k == 0 else float(k) + d) for k, d in zip(keys, nudge)]
    elif pa.types.is_decimal(key_type):
        nudge = draw(st.lists(st.sampled_from(["0", "0", "0", "0.25"]), min_size=n, max_size=n))
        keys = [None if k is None else decimal.Decimal(k) + decimal.Decimal(d) for k, d in zip(keys, nudge)]
    return pa.table({
        "k": pa.array(keys, key_type),
        "k2": pa.array(draw(st.lists(st.one_of(st.none(), st.integers(0, 2)), min_size=n, max_size=n)),
                       pa.int64()),
        "v": pa.array(draw(st.lists(small, min_size=n, max_size=n)), pa.int64()),
        "s": pa.array(draw(st.lists(strings, min_size=n, max_size=n)), pa.string()),
    })


def renamed(table: pa.Table, mapping: dict[str, str]) -> pa.Table:
    return table.rename_columns([mapping.get(c, c) for c in table.column_names])


def right_side(table: pa.Table) -> pa.Table:
    """The right input calls its value ``w``: ``v < w`` reads naturally."""
    return renamed(table, {"v": "w"})


# -- joins on a condition ---------------------------------------------------------------
@EXAMPLES
@given(left=sides(), right=sides(), how=hows, cluster=clusters)
def test_equi_join(sessions, left, right, how, cluster):
    right = right_side(right)
    session = sessions[cluster]
    a, b = session.createDataFrame(left), session.createDataFrame(right)
    df = a.join(b, a.k == b.k, how)
    expected = oracle(left, right, join_sql(how, left, right, "a.k = b.k"))
    assert_same(df, df.toArrow(), expected, join_columns(how, left, right))


@EXAMPLES
@given(left=sides(), right=sides(), how=hows, cluster=clusters, residual=st.booleans())
def test_multi_key_and_residual_join(sessions, left, right, how, cluster, residual):
    right = right_side(right)
    session = sessions[cluster]
    a, b = session.createDataFrame(left), session.createDataFrame(right)
    condition = (a.k == b.k) & (a["k2"] == b["k2"])
    text = "a.k = b.k and a.k2 = b.k2"
    if residual:
        condition = condition & (a.v < b.w)
        text += " and a.v < b.w"
    df = a.join(b, condition, how)
    expected = oracle(left, right, join_sql(how, left, right, text))
    assert_same(df, df.toArrow(), expected, join_columns(how, left, right))


@EXAMPLES
@given(left=sides(max_rows=20), right=sides(max_rows=20), how=hows, cluster=clusters)
def test_non_equi_join(sessions, left, right, how, cluster):
    """No equality between the sides: nothing to hash on, so the planner broadcasts a side
    the join type allows, or gathers both (full outer)."""
    right = right_side(right)
    session = sessions[cluster]
    a, b = session.createDataFrame(left), session.createDataFrame(right)
    df = a.join(b, (a.v < b.w) | (a.s == b.s), how)
    expected = oracle(left, right, join_sql(how, left, right, "a.v < b.w or a.s = b.s"))
    assert_same(df, df.toArrow(), expected, join_columns(how, left, right))


@EXAMPLES
@given(left=sides(max_rows=12), right=sides(max_rows=12), cluster=clusters,
       spelling=st.sampled_from(["crossJoin", "how=cross", "on=None"]))
def test_cross_join(sessions, left, right, cluster, spelling):
    right = right_side(right)
    session = sessions[cluster]
    a, b = session.createDataFrame(left), session.createDataFrame(right)
    df = {"crossJoin": lambda: a.crossJoin(b), "how=cross": lambda: a.join(b, how="cross"),
          "on=None": lambda: a.join(b)}[spelling]()
    expected = oracle(left, right, "select a.*, b.* from a cross join b")
    assert_same(df, df.toArrow(), expected, left.column_names + right.column_names)


@EXAMPLES
@given(left=sides(), data=st.data(), how=hows, cluster=clusters,
       key_type=st.sampled_from([pa.float64(), pa.decimal128(12, 2)]),
       mirrored=st.booleans())
def test_join_keys_of_different_types(sessions, left, data, how, cluster, key_type, mirrored):
    """int64 against float64 or decimal(12,2): equal values match whichever way round."""
    right = right_side(data.draw(sides(key_type=key_type)))
    if mirrored:  # the int64 key on the right
        left, right = renamed(right, {"w": "v"}), right_side(left)
    session = sessions[cluster]
    a, b = session.createDataFrame(left), session.createDataFrame(right)
    df = a.join(b, a.k == b.k, how)
    expected = oracle(left, right, join_sql(how, left, right, "a.k = b.k"))
    assert_same(df, df.toArrow(), expected, join_columns(how, left, right))



@settings(EXAMPLES, max_examples=30)
@given(left=sides(), right=sides(), how=st.sampled_from(["inner", "left", "right", "full"]),
       cluster=st.tuples(st.sampled_from((2, 4)), st.just("shuffle")),
       side=st.sampled_from(["a", "b"]), with_k2=st.booleans())
def test_group_by_after_a_join_on_the_key(sessions, left, right, how, cluster, side, with_k2):
    """After a shuffled join, an aggregate grouping by a join key runs where the rows are
    (an inner join's rows are hash-partitioned on both sides' keys, an outer join's only on
    its preserved side's) and else shuffles again: either way, each group once."""
    right = right_side(right)
    session = sessions[cluster]
    a, b = session.createDataFrame(left), session.createDataFrame(right)
    frame = {"a": a, "b": b}[side]
    keys = [frame.k, frame["k2"]] if with_k2 else [frame.k]
    df = a.join(b, a.k == b.k, how).groupBy(*keys).agg(
        F.count("*").alias("n"), F.sum(a.v).alias("sv"), F.countDistinct(b.s).alias("ds"))
    group = f"{side}.k, {side}.k2" if with_k2 else f"{side}.k"
    keyword = {"inner": "inner", "left": "left outer", "right": "right outer", "full": "full outer"}[how]
    expected = oracle(left, right, f"select {group}, count(*) as n, sum(a.v) as sv, "
                                   f"count(distinct b.s) as ds from a {keyword} join b on a.k = b.k "
                                   f"group by {group}")
    assert canonical(df.toArrow()) == canonical(expected)

# -- using-joins ------------------------------------------------------------------------
def using_sql(how: str, keys: list[str], left: pa.Table, right: pa.Table) -> tuple[str, list[str]]:
    """Spark's using-join: each key once (the left one; the right one for a right join; the
    non-NULL of the two for a full join), then the other columns of each side."""
    how = CANONICAL_HOW.get(how, how)
    condition = " and ".join(f"a.{k} = b.{k}" for k in keys)
    if how in ("left_semi", "left_anti"):
        return join_sql(how, left, right, condition), left.column_names
    key = {"right": "b.{0}", "full": "coalesce(a.{0}, b.{0})"}.get(how, "a.{0}")
    left_rest = [c for c in left.column_names if c not in keys]
    right_rest = [c for c in right.column_names if c not in keys]
    items = [*(f"{key.format(k)} as {k}" for k in keys), *(f"a.{c}" for c in left_rest), *(f"b.{c}" for c in right_rest)]
    keyword = {"inner": "inner", "left": "left outer", "right": "right outer", "full": "full outer"}[how]
    query = f"select {', '.join(items)} from a {keyword} join b on {condition}"
    return query, [*keys, *left_rest, *right_rest]


@EXAMPLES
@given(left=sides(), data=st.data(), how=hows, cluster=clusters,
       keys=st.sampled_from([["k"], ["k", "k2"], ["k2", "k"]]),
       key_type=st.sampled_from([pa.int64(), pa.int64(), pa.float64(), pa.decimal128(12, 2)]))
def test_using_join(sessions, left, data, how, cluster, keys, key_type):
    right = right_side(data.draw(sides(key_type=key_type)))
    session = sessions[cluster]
    a, b = session.createDataFrame(left), session.createDataFrame(right)
    df = a.join(b, keys if len(keys) > 1 or data.draw(st.booleans()) else keys[0], how)
    query, columns = using_sql(how, keys, left, right)
    assert_same(df, df.toArrow(), oracle(left, right, query), columns)


def test_full_using_join_decimal_key_schema(sessions):
    session = sessions[1, "shuffle"]
    a = session.createDataFrame(pa.table({"k": pa.array([1, None], pa.int64())}))
    b = session.createDataFrame(
        pa.table({"k": pa.array([decimal.Decimal("2.50"), None], pa.decimal128(12, 2))}))
    df = a.join(b, "k", "full")
    assert df.toArrow().schema == df.arrow_schema


# -- which strategy is used ---------------------------------------------------------------
def stage_blocks(explain: str) -> list[tuple[str, str]]:
    """``(output boundary, fragment text)`` of each stage of an explained staged plan."""
    blocks = re.split(r"^Stage \d+: ", explain, flags=re.MULTILINE)[1:]
    out = []
    for block in blocks:
        head, _, body = block.partition("\n")
        out.append((head.split("output=", 1)[1], body))
    return out


def boundaries(df) -> list[str]:
    return [kind.split("(", 1)[0] for kind, _ in stage_blocks(df.explain_string())]


def broadcast_fragments(df) -> list[str]:
    return [body for kind, body in stage_blocks(df.explain_string()) if kind.startswith("broadcast")]


@pytest.fixture(scope="module")
def lr(sessions):
    """Two small tables with distinct value columns, on each strategy of a 2-worker cluster."""
    left = pa.table({"k": pa.array([1, 2, 2, None, 3] * 4, pa.int64()),
                     "lval": pa.array(range(20), pa.int64())})
    right = pa.table({"k": pa.array([2, 3, None, 4] * 3, pa.int64()),
                      "rval": pa.array(range(12), pa.int64())})
    frames = {s: (sessions[2, s].createDataFrame(left), sessions[2, s].createDataFrame(right))
              for s in THRESHOLDS}
    return left, right, frames


@pytest.mark.parametrize("how", OUTER)
def test_threshold_zero_shuffles_both_sides(lr, how):
    left, right, frames = lr
    a, b = frames["shuffle"]
    df = a.join(b, a.k == b.k, how)
    kinds = boundaries(df)
    assert "broadcast" not in kinds
    assert kinds.count("shuffle") == 2  # one per side, nothing else shuffles here
    expected = oracle(left, right, join_sql(how, left, right, "a.k = b.k"))
    assert_same(df, df.toArrow(), expected, join_columns(how, left, right))


@pytest.mark.parametrize(("how", "broadcast_side"), [
    ("inner", "rval"), ("left", "rval"), ("left_semi", "rval"), ("left_anti", "rval"),
    ("right", "lval"), ("full", None),
])
def test_huge_threshold_broadcasts_where_allowed(lr, how, broadcast_side):
    """A side is broadcast only if the join never emits its unmatched rows: the right of
    inner/left/semi/anti, the left of right; a full outer join never broadcasts."""
    left, right, frames = lr
    a, b = frames["broadcast"]
    df = a.join(b, a.k == b.k, how)
    built = broadcast_fragments(df)
    if broadcast_side is None:
        assert built == []
        assert boundaries(df).count("shuffle") == 2
    else:
        assert len(built) == 1
        other = "lval" if broadcast_side == "rval" else "rval"
        assert other not in built[0]
        # a semi or anti join reads only the right side's key: its values are pruned
        assert (broadcast_side in built[0]) == (how not in ("left_semi", "left_anti"))
        assert "shuffle" not in boundaries(df)
    expected = oracle(left, right, join_sql(how, left, right, "a.k = b.k"))
    assert_same(df, df.toArrow(), expected, join_columns(how, left, right))


def test_threshold_zero_never_broadcasts_an_empty_side(sessions):
    """``broadcast_threshold=0`` never broadcasts, even a side estimated at 0 bytes."""
    session = sessions[2, "shuffle"]
    a = session.createDataFrame(pa.table({"k": pa.array([1, 2], pa.int64())}))
    empty = session.createDataFrame(pa.table({"k": pa.array([], pa.int64())}))
    for how in ("inner", "left"):
        df = a.join(empty, a.k == empty.k, how)
        assert "broadcast" not in boundaries(df)
        assert df.count() == (2 if how == "left" else 0)


def test_non_equi_full_join_never_broadcasts(lr):
    _, _, frames = lr
    a, b = frames["broadcast"]
    assert broadcast_fragments(a.join(b, a.lval < b.rval, "full")) == []
    assert len(broadcast_fragments(a.join(b, a.lval < b.rval, "right"))) == 1


def test_shuffle_join_runs_tasks_on_every_worker(sessions):
    session = sessions[4, "shuffle"]
    n = 60
    a = session.createDataFrame(pa.table({"k": pa.array(range(n), pa.int64()),
                                          "lval": pa.array(range(n), pa.int64())}))
    b = session.createDataFrame(pa.table({"k": pa.array(range(0, 2 * n, 2), pa.int64()),
                                          "rval": pa.array(range(n), pa.int64())}))
    df = a.join(b, a.k == b.k)
    assert "broadcast" not in boundaries(df)
    assert df.toArrow().num_rows == n // 2
    per_worker = session.last_metrics.tasks_per_worker
    workers = [session.cluster.names[address] for address in session.cluster.addresses]
    assert len(workers) == 4
    assert all(per_worker[w] > 0 for w in workers), per_worker


# -- set operations -----------------------------------------------------------------------
@st.composite
def set_sides(draw: st.DrawFn, x_type: pa.DataType = pa.int64(), max_rows: int = 40) -> pa.Table:
    """Few distinct rows, so duplicates and overlap between the sides are common."""
    n = draw(st.integers(0, max_rows))
    xs = draw(st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=n, max_size=n))
    return pa.table({
        "x": pa.array([None if x is None else (float(x) if pa.types.is_floating(x_type) else x)
                       for x in xs], x_type),
        "s": pa.array(draw(st.lists(st.sampled_from([None, "a", "b"]), min_size=n, max_size=n)),
                      pa.string()),
    })


SET_OPERATIONS = {
    "union": "union all", "unionAll": "union all", "unionByName": "union all",
    "intersect": "intersect", "intersectAll": "intersect all",
    "subtract": "except", "exceptAll": "except all",
}


@EXAMPLES
@given(left=set_sides(), data=st.data(), op=st.sampled_from(sorted(SET_OPERATIONS)),
       cluster=clusters, x_type=st.sampled_from([pa.int64(), pa.float64()]))
def test_set_operation(sessions, left, data, op, cluster, x_type):
    right = data.draw(set_sides(x_type))
    if data.draw(st.booleans()):  # the float64 column on the left
        left, right = right, left
    session = sessions[cluster]
    a = session.createDataFrame(left)
    if op == "unionByName":  # the same columns in another order
        df = a.unionByName(session.createDataFrame(right.select(["s", "x"])))
    else:
        df = getattr(a, op)(session.createDataFrame(right))
    expected = oracle(left, right, f"select x, s from a {SET_OPERATIONS[op]} select x, s from b")
    assert_same(df, df.toArrow(), expected, ["x", "s"])
    # int64 with float64 widens to float64, as in Spark
    assert df.arrow_schema.field("x").type == (pa.float64() if left["x"].type != right["x"].type
                                         else left["x"].type)


@st.composite
def dup_tables(draw: st.DrawFn) -> pa.Table:
    n = draw(st.integers(0, 50))
    ints = st.one_of(st.none(), st.integers(0, 2))
    return pa.table({
        "k": pa.array(draw(st.lists(ints, min_size=n, max_size=n)), pa.int64()),
        "s": pa.array(draw(st.lists(st.sampled_from([None, "a", "b"]), min_size=n, max_size=n)),
                      pa.string()),
        "x": pa.array(draw(st.lists(st.one_of(st.none(), st.sampled_from([0.5, 1.0])),
                                    min_size=n, max_size=n)), pa.float64()),
    })


@EXAMPLES
@given(table=dup_tables(), cluster=clusters,
       subset=st.sampled_from([None, "distinct", ["k"], ["s", "k"], ["x"], ["k", "s", "x"]]))
def test_distinct_and_drop_duplicates(sessions, table, cluster, subset):
    df = sessions[cluster].createDataFrame(table)
    if subset == "distinct":
        deduplicated = df.distinct()
    else:
        deduplicated = df.dropDuplicates(subset)
    got = deduplicated.toArrow()
    assert got.column_names == table.column_names
    assert got.schema == table.schema
    keys = table.column_names if subset in (None, "distinct") else subset
    expected_keys = oracle(table, table, f"select distinct {', '.join(keys)} from a")
    # one row per distinct subset key (so as many rows as keys); which row is kept is
    # unspecified (that it is an input row: test_drop_duplicates_keeps_whole_input_rows)
    assert canonical(got.select(keys)) == canonical(expected_keys)
    if subset in (None, "distinct"):
        assert canonical(got) == canonical(oracle(table, table, "select distinct * from a"))


def test_drop_duplicates_keeps_whole_input_rows(sessions):
    table = pa.table({"k": pa.array([1, 1], pa.int64()), "s": pa.array([None, "a"], pa.string()),
                      "x": pa.array([0.5, None], pa.float64())})
    got = sessions[1, "shuffle"].createDataFrame(table).dropDuplicates(["k"]).toArrow()
    assert got.num_rows == 1
    assert Counter(canonical(got)) <= Counter(canonical(table))


# -- errors -------------------------------------------------------------------------------
def test_unknown_join_column_suggests_a_name(lr):
    _, _, frames = lr
    a, b = frames["shuffle"]
    with pytest.raises(AnalysisError, match="Did you mean 'lval'"):
        a.join(b, "lvak")
    with pytest.raises(AnalysisError, match="Did you mean 'rval'"):
        a.join(b, a.k == F.col("rvall"))
    with pytest.raises(AnalysisError, match="Did you mean 'k'"):
        a.join(b, ["k", "kk"], "full")


def test_ambiguous_column_after_join(lr):
    left, right, frames = lr
    a, b = frames["shuffle"]
    joined = a.join(b, a.k == b.k, "left")
    assert joined.columns == ["k", "lval", "k", "rval"]
    for use in (lambda: joined.select(F.col("k")), lambda: joined.filter(F.col("k") > 1),
                lambda: joined.select("k")):
        with pytest.raises(AnalysisError, match="ambiguous"):
            use()
    # taken from its DataFrame, each one resolves
    got = joined.select(a["k"], b["k"].alias("bk"), "lval").toArrow()
    expected = oracle(left, right, "select a.k, b.k as bk, a.lval from a left join b on a.k = b.k")
    assert got.column_names == ["k", "bk", "lval"]
    assert canonical(got) == canonical(expected)


def test_self_join_through_aliases(lr):
    left, _, frames = lr
    a, _ = frames["shuffle"]
    x, y = a.alias("x"), a.alias("y")
    df = x.join(y, F.col("x.k") == F.col("y.k"), "full").select("x.lval", F.col("y.lval").alias("yl"))
    expected = oracle(left, left, "select x.lval, y.lval as yl from a x full join a y on x.k = y.k")
    assert df.columns == ["lval", "yl"]
    assert canonical(df.toArrow()) == canonical(expected)


def test_group_by_a_join_side_column(lr):
    left, right, frames = lr
    a, b = frames["shuffle"]
    df = a.join(b, a.k == b.k, "full").groupBy(b["k"]).agg(F.count(a["lval"]).alias("n"))
    expected = oracle(left, right, "select b.k, count(a.lval) as n from a full join b on a.k = b.k "
                                   "group by b.k")
    assert canonical(df.toArrow()) == canonical(expected)
