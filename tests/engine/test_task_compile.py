"""A fragment that reads the task's index (``calls_task``) compiles once per task, with the
task's own values; every other fragment compiles once for its whole stage."""

from __future__ import annotations

import pyarrow as pa
import pytest
from tests.engine.engine_helpers import exchange

from sparkwire.coordinator.worker.compile import compile_task
from sparkwire.planner.logical.functions.registry import call
from sparkwire.planner.logical.expressions import Column, Lit, NamedExpr
from sparkwire.planner.logical.plan import Project
from sparkwire.planner.logical.staged import Boundary

TABLE = pa.table({"i": pa.array([1, 2], pa.int64())})
RESULT = Boundary(kind="result")


def _project(expr: object) -> Project:
    return Project(input=exchange(TABLE), columns=(NamedExpr(name="v", expr=expr),))


def test_only_a_fragment_reading_the_task_compiles_per_task() -> None:
    plain = _project(Column(name="i"))
    assert compile_task(plain, RESULT, True, "UTC", 0) is compile_task(plain, RESULT, True, "UTC", 5)
    ids = _project(call("monotonically_increasing_id"))
    first, fifth = (compile_task(ids, RESULT, True, "UTC", task) for task in (0, 5))
    assert first.reads_task and fifth.reads_task
    assert str(5 << 33) in fifth.sql and str(5 << 33) not in first.sql
    seeded = _project(call("rand", Lit(value=3)))
    assert compile_task(seeded, RESULT, True, "UTC", 1).sql != compile_task(seeded, RESULT, True, "UTC", 2).sql


def test_a_task_call_of_the_wrong_arity_is_a_compile_error() -> None:
    from sparkwire.coordinator.worker.compile import CompileError
    from sparkwire.planner.logical.expressions import Call

    with pytest.raises(CompileError, match="rand takes 2 argument"):
        compile_task(_project(Call(fn="rand", args=())), RESULT, True, "UTC", 1)
