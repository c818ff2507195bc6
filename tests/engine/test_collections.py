"""The worker's array, map and struct builders and the ``Generate`` operator, run on a
locked-down engine and checked against Python's own answers (Spark's rules, written in
``coordinator/worker/compile/calls_collections.py``)."""

from __future__ import annotations

import re

import pyarrow as pa
import pytest
from tests.engine.engine_helpers import exchange, run_fragment

from sparkwire.coordinator.worker.compile.calls_collections import COLLECTION_CALLS
from sparkwire.coordinator.worker.engine import EngineError, TaskEngine
from sparkwire.planner.logical.collection_types import COLLECTION_FUNCTIONS
from sparkwire.planner.logical.expressions import Call, Column, Lit, NamedExpr
from sparkwire.planner.logical.plan import Generate, Project

TEXT = ["a,b,,c,,", "", None, "x", "1a22b333c", ",", "a1b"]
ARRAYS = [[3, None, 1, 3, None], [], None, [2], [0, 0, -1], [None], [7, 8]]
DATA = pa.table({"id": list(range(len(TEXT))), "s": TEXT, "arr": pa.array(ARRAYS, pa.list_(pa.int32()))})


def test_every_collection_function_has_a_builder() -> None:
    assert set(COLLECTION_CALLS) == COLLECTION_FUNCTIONS


def _run(engine: TaskEngine, fn: str, *args: object) -> list[object]:
    call = Call(fn=fn, args=tuple(a if isinstance(a, Column) else Lit(value=a) for a in args))
    fragment = Project(input=exchange(DATA), columns=(NamedExpr(name="id", expr=Column(name="id")),
                                                      NamedExpr(name="r", expr=call)))
    got = run_fragment(engine, fragment, {0: DATA}).to_pylist()
    return [r["r"] for r in sorted(got, key=lambda r: r["id"])]


@pytest.mark.parametrize(("pattern", "limit"), [(",", -1), (",", 1), (",", 2), (",", 3), ("[0-9]+", 2), ("[0-9]+", 0)])
def test_split_with_limits_like_java(engine: TaskEngine, pattern: str, limit: int) -> None:
    got = _run(engine, "split", Column(name="s"), pattern, limit)
    # Java's String.split(regex, limit): limit > 0 keeps limit - 1 splits, else all of them
    # (Python's maxsplit=0 means no limit, so limit 1, no split at all, is spelled out)
    want = [None if s is None else [s] if limit == 1 else
            re.split(pattern, s, maxsplit=max(limit - 1, 0)) for s in TEXT]
    assert got == want


def test_array_distinct_keeps_first_occurrences_and_one_null(engine: TaskEngine) -> None:
    want = [None if a is None else list(dict.fromkeys(a)) for a in ARRAYS]
    assert _run(engine, "array_distinct", Column(name="arr")) == want


def test_array_contains_is_null_when_unsure(engine: TaskEngine) -> None:
    def spark(a: list[int | None] | None) -> bool | None:
        if a is None:
            return None
        return True if 0 in a else (None if None in a else False)

    assert _run(engine, "array_contains", Column(name="arr"), 0) == [spark(a) for a in ARRAYS]


def test_sort_array_nulls_first_ascending_last_descending(engine: TaskEngine) -> None:
    up = _run(engine, "sort_array", Column(name="arr"), True)
    down = _run(engine, "sort_array", Column(name="arr"), False)
    for a, u, d in zip(ARRAYS, up, down, strict=True):
        if a is None:
            assert u is None and d is None
            continue
        nulls, values = [None] * a.count(None), sorted(v for v in a if v is not None)
        assert u == nulls + values and d == values[::-1] + nulls


def test_element_at_out_of_bounds_fails_the_query(engine: TaskEngine) -> None:
    with pytest.raises(EngineError, match="INVALID_ARRAY_INDEX_IN_ELEMENT_AT"):
        _run(engine, "element_at", Column(name="arr"), 3)
    with pytest.raises(EngineError, match="INVALID_INDEX_OF_ZERO"):
        _run(engine, "element_at", Column(name="arr"), 0)


@pytest.mark.parametrize(("position", "outer"), [(False, False), (True, False), (False, True), (True, True)])
def test_generate_rows_positions_and_outer(engine: TaskEngine, position: bool, outer: bool) -> None:
    names = ("pos", "v") if position else ("v",)
    op = Generate(input=exchange(DATA), expr=Column(name="arr"), kind="array", position=position,
                  outer=outer, names=names)
    got = run_fragment(engine, op, {0: DATA})
    assert got.column_names == ["id", "s", "arr", *names]
    if position:
        assert got.schema.field("pos").type == pa.int32()
    want = []
    for i, a in enumerate(ARRAYS):
        if not a:
            if outer:
                want.append((i, *(None,) * len(names)))
            continue
        want += [(i, p, v) if position else (i, v) for p, v in enumerate(a)]
    rows = [tuple(r[c] for c in ("id", *names)) for r in got.to_pylist()]
    assert sorted(rows, key=repr) == sorted(want, key=repr)
