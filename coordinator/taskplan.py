"""The task plan on the wire: versioned JSON validated by pydantic, never code.

A worker accepts a plan only after ``decode_task_plan`` has checked its size, its nesting
depth and every field against the models; anything else is a ``PlanRejected`` naming the
first problem, and nothing runs.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import Field, ValidationError, model_validator

from sparkwire.planner.expressions import Node
from sparkwire.planner.plan import PLAN_VERSION, TASK_OPERATORS, Boundary, Operator, disallowed
from sparkwire.transport.errors import PlanRejected

MAX_PLAN_BYTES = 16 * 1024 * 1024
MAX_PLAN_DEPTH = 256


class InputPartition(Node):
    """One producer partition a task reads, and the worker that serves it."""

    address: str = Field(min_length=1, max_length=512)
    stage: int = Field(ge=0)
    task: int = Field(ge=0)
    partition: int = Field(ge=0)


class TaskPlan(Node):
    version: Literal[1] = PLAN_VERSION
    query_id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    stage: int = Field(ge=0)
    task: int = Field(ge=0)
    fragment: Operator
    inputs: tuple[InputPartition, ...] = ()
    output: Boundary

    @model_validator(mode="after")
    def _only_task_operators(self) -> TaskPlan:
        """A fragment holds only what a task can run; logical-only operators are rewritten
        before stages are cut, so one arriving here is a bug or an attack."""
        if bad := disallowed(self.fragment, TASK_OPERATORS):
            raise ValueError(f"operators {bad} cannot run in a task")
        return self


def encode_task_plan(plan: TaskPlan) -> bytes:
    return plan.model_dump_json(exclude_defaults=False).encode()


def decode_task_plan(data: bytes) -> TaskPlan:
    """Validate untrusted bytes into a ``TaskPlan`` or raise ``PlanRejected``."""
    if len(data) > MAX_PLAN_BYTES:
        raise PlanRejected(f"task plan of {len(data)} bytes exceeds {MAX_PLAN_BYTES}")
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise PlanRejected(f"task plan is not valid JSON: {exc}") from None
    depth = _depth(raw)
    if depth > MAX_PLAN_DEPTH:
        raise PlanRejected(f"task plan nesting depth {depth} exceeds {MAX_PLAN_DEPTH}")
    if isinstance(raw, dict) and raw.get("version") != PLAN_VERSION:
        raise PlanRejected(
            f"task plan version {raw.get('version')!r} is not supported (expected {PLAN_VERSION})"
        )
    try:
        return TaskPlan.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise PlanRejected(
            f"invalid task plan at {where}: {first['msg']} ({exc.error_count()} error(s))"
        ) from None


def _depth(value: object) -> int:
    """Nesting depth of decoded JSON, computed without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(item, dict):
            stack.extend((child, level + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, level + 1) for child in item)
    return deepest
