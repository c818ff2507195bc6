"""What the coordinator sends a worker: versioned JSON validated by pydantic, never code.

Three messages travel through ``WorkerService.submit``: a ``TaskPlan`` (run this fragment),
``Tasks`` (several plans for one worker in one call: the coordinator sends a worker all its
tasks of a query at once, a round trip per worker instead of per task), and a ``Members``
notice (the addresses of the cluster's members). A fourth goes the other way: a
``TaskStatus``, which a worker sends the driver when a task ends (``TaskPlan.report_to``;
``coordinator.status``). A worker accepts any of them
only after ``decode_message`` has checked its size, its nesting depth and every field
against the models; anything else is a ``PlanRejected`` naming the first problem, and
nothing runs.

Why the notice: a task plan names the producers its inputs are read from, and a worker dials
them. Checked against nothing, a plan could make a worker connect to any address its network
reaches (a port scan, or a request to a service behind the firewall). With the notice, a
worker dials only members: a plan naming any other producer, or any other address to report
to, is refused before anything connects. The notice comes over the same authenticated channel as plans, from the
coordinator, which sends it again whenever the membership changes (a worker replaced after
a loss gets a new address); a worker that was never told refuses every plan with inputs.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import Field, ValidationError, model_validator

from sparkwire.planner.logical.expressions import Node
from sparkwire.planner.limits import MAX_INPUTS, MAX_PARTITIONS, MAX_PLAN_DEPTH, MAX_PLAN_NODES, MAX_STAGES, MAX_TASKS
from sparkwire.planner.logical.plan import PLAN_VERSION, TASK_OPERATORS, disallowed, Operator
from sparkwire.planner.logical.sources import CacheId
from sparkwire.planner.logical.staged import Boundary
from sparkwire.planner.spark.timezones import DEFAULT_TIME_ZONE, TimeZone
from sparkwire.transport.errors import PlanRejected, SparkwireError
from sparkwire.transport.limits import MAX_PLAN_BYTES



#: Runs of one task: the first and up to three more after worker losses (``scheduler``).
MAX_ATTEMPTS = 4


class InputPartition(Node):
    """One producer partition a task reads, the attempt that writes it, and the worker that
    serves it."""

    address: str = Field(min_length=1, max_length=512)
    stage: int = Field(ge=0, lt=MAX_STAGES)
    task: int = Field(ge=0, lt=MAX_TASKS)
    partition: int = Field(ge=0, lt=MAX_PARTITIONS)
    attempt: int = Field(default=0, ge=0, lt=MAX_ATTEMPTS)


#: Members one notice may name (workers and the driver).
MAX_MEMBERS = 4096


class Members(Node):
    """The addresses a worker may read producer partitions from: every member's. Signed by
    the coordinator, its ``sequence`` growing with each notice (``coordinator.membership``)."""

    version: Literal[1] = PLAN_VERSION
    kind: Literal["members"] = "members"
    members: tuple[Annotated[str, Field(min_length=1, max_length=512)], ...] = Field(
        max_length=MAX_MEMBERS)
    sequence: int = Field(default=0, ge=0, lt=2**63)
    signature: str | None = Field(default=None, pattern=r"^[0-9a-f]{128}$")


class TaskPlan(Node):
    version: Literal[1] = PLAN_VERSION
    query_id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    stage: int = Field(ge=0, lt=MAX_STAGES)
    task: int = Field(ge=0, lt=MAX_TASKS)
    attempt: int = Field(default=0, ge=0, lt=MAX_ATTEMPTS)
    fragment: Operator
    inputs: tuple[InputPartition, ...] = Field(default=(), max_length=MAX_INPUTS)
    output: Boundary
    #: The cache this task's output becomes, held after the query (``Stage.keep``).
    keep: CacheId | None = None
    #: Spark's ANSI mode, from the staged plan: how the fragment's arithmetic and casts fail.
    ansi: bool = True
    #: The session time zone, from the staged plan: how the fragment reads instants.
    time_zone: TimeZone = DEFAULT_TIME_ZONE
    #: A task of a narrow stage, one with fewer tasks than the cluster has cores (the only
    #: task of a query, a final sort, a small broadcast): a worker with nothing else running
    #: may give it the threads of all its slots (``worker.service.Worker._run``).
    narrow: bool = False
    #: The member (the driver) told how the task ended, in a ``TaskStatus``; None: nobody
    #: listens (a plan delivered by hand).
    report_to: str | None = Field(default=None, min_length=1, max_length=512)

    @model_validator(mode="after")
    def _only_task_operators(self) -> TaskPlan:
        """A fragment holds only what a task can run; logical-only operators are rewritten
        before stages are cut, so one arriving here is a bug or an attack."""
        if bad := disallowed(self.fragment, TASK_OPERATORS):
            raise ValueError(f"operators {bad} cannot run in a task")
        return self


class Tasks(Node):
    """Task plans for one worker, to be queued in this order."""

    version: Literal[1] = PLAN_VERSION
    kind: Literal["tasks"] = "tasks"
    plans: tuple[TaskPlan, ...] = Field(min_length=1, max_length=MAX_TASKS)


#: The longest error message a ``TaskStatus`` carries; a longer one is cut (``TaskStatus.failed``).
MAX_ERROR_CHARS = 16 * 1024
#: Routes one status counts input bytes by (``TransportClient.route``: a handful).
MAX_ROUTES = 64


class TaskStatus(Node):
    """How one run of a task ended, as its worker tells the driver: its metrics, or the
    error its readers see (``error_code`` and ``error``, rebuilt by
    ``transport.errors.error_from_code``)."""

    version: Literal[1] = PLAN_VERSION
    kind: Literal["status"] = "status"
    query_id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    stage: int = Field(ge=0, lt=MAX_STAGES)
    task: int = Field(ge=0, lt=MAX_TASKS)
    attempt: int = Field(default=0, ge=0, lt=MAX_ATTEMPTS)
    worker: str = Field(min_length=1, max_length=256)
    rows_in: int = Field(default=0, ge=0)
    rows_out: int = Field(default=0, ge=0)
    bytes_out: int = Field(default=0, ge=0)
    #: Batches written to the task's partitions, all together: a shuffle's pieces.
    batches_out: int = Field(default=0, ge=0)
    seconds: float = Field(default=0.0, ge=0)
    #: Of ``seconds``: until a cursor was open and the inputs registered.
    setup_seconds: float = Field(default=0.0, ge=0)
    #: Of a shuffle's (or range's) output, the rows and bytes of each partition, in order;
    #: empty for other outputs. What the coordinator re-plans the consumer stage from
    #: (``adaptive``): a task's total alone cannot tell a skewed partition from even ones.
    partition_rows: tuple[Annotated[int, Field(ge=0)], ...] = Field(default=(), max_length=MAX_PARTITIONS)
    partition_bytes: tuple[Annotated[int, Field(ge=0)], ...] = Field(default=(), max_length=MAX_PARTITIONS)
    #: Bytes of its output spilled to disk (the partition store's memory budget was full).
    spill_bytes: int = Field(default=0, ge=0)
    #: Bytes read from producers, by route.
    bytes_in: dict[Annotated[str, Field(max_length=64)], Annotated[int, Field(ge=0)]] = Field(
        default_factory=dict, max_length=MAX_ROUTES)
    #: The same bytes by producer stage and route, (stage, route, bytes): what crossed each
    #: edge of the stage graph, and how (the UI draws it).
    stage_bytes_in: tuple[tuple[Annotated[int, Field(ge=0, lt=MAX_STAGES)],
                                Annotated[str, Field(max_length=64)],
                                Annotated[int, Field(ge=0)]], ...] = Field(default=(), max_length=MAX_STAGES * MAX_ROUTES)
    #: The worker's tracked memory as the task ended (its partition store and whole-input
    #: share: ``Worker.memory_in_use``), and its resident set where the worker is a process
    #: of its own. No worker is polled for them: they ride on the statuses it sends anyway.
    #: None where not measured (a failure's status; RSS of a worker inside the driver).
    memory_bytes: int | None = Field(default=None, ge=0)
    rss_bytes: int | None = Field(default=None, ge=0)
    error_code: str | None = Field(default=None, max_length=64)
    error: str | None = Field(default=None, max_length=MAX_ERROR_CHARS)

    @classmethod
    def failed(cls, plan: TaskPlan, worker: str, error: SparkwireError) -> TaskStatus:
        """The status of ``plan``'s run that failed with ``error``."""
        return cls(query_id=plan.query_id, stage=plan.stage, task=plan.task,
                   attempt=plan.attempt, worker=worker, error_code=error.code,
                   error=str(error)[:MAX_ERROR_CHARS])


Message = TaskPlan | Tasks | Members | TaskStatus


def encode_message(message: Message) -> bytes:
    return message.model_dump_json(exclude_defaults=False).encode()


def encode_tasks(plans: list[bytes]) -> bytes:
    """A ``Tasks`` message from plans already encoded (``encode_message``), so a caller can
    size its batches by their bytes without encoding anything twice."""
    return b'{"version":%d,"kind":"tasks","plans":[%s]}' % (PLAN_VERSION, b",".join(plans))


def decode_message(data: bytes) -> Message:
    """Validate untrusted bytes into a ``TaskPlan``, ``Tasks``, a ``Members`` notice or a
    ``TaskStatus`` (by its ``"kind"``), or raise ``PlanRejected``.

    Bounds first (bytes, nesting, nodes: ``planner.limits``, per plan for ``Tasks``), on the
    JSON alone and without recursion; then the models in strict mode, so a value of the
    wrong JSON type is refused rather than converted (``"version": true`` is not version 1,
    ``"stage": 1.0`` no stage).
    """
    if len(data) > MAX_PLAN_BYTES:
        raise PlanRejected(f"task plan of {len(data)} bytes exceeds {MAX_PLAN_BYTES}")
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise PlanRejected(f"task plan is not valid JSON: {exc}") from None
    kind = raw.get("kind") if isinstance(raw, dict) else None
    kind = kind if isinstance(kind, str) else None  # a list or object here is no kind
    plans = raw.get("plans") if kind == "tasks" else None
    for plan in plans if isinstance(plans, list) else [raw]:
        depth, nodes = _shape(plan)
        if depth > MAX_PLAN_DEPTH:
            raise PlanRejected(f"task plan nesting depth {depth} exceeds {MAX_PLAN_DEPTH}")
        if nodes > MAX_PLAN_NODES:
            raise PlanRejected(f"task plan of {nodes} nodes exceeds {MAX_PLAN_NODES}")
    version = raw.get("version") if isinstance(raw, dict) else None
    if type(version) is not int or version != PLAN_VERSION:
        raise PlanRejected(f"task plan version {version!r} is not supported (expected {PLAN_VERSION})")
    models: dict[str | None, type[Message]] = {"members": Members, "tasks": Tasks,
                                               "status": TaskStatus}
    model = models.get(kind, TaskPlan)
    try:
        return model.model_validate_json(data, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise PlanRejected(
            f"invalid task plan at {where}: {first['msg']} ({exc.error_count()} error(s))"
        ) from None


def _shape(value: object) -> tuple[int, int]:
    """Nesting depth and number of objects of decoded JSON, computed without recursion, a
    level at a time (half of decoding a plan when it was a stack of ``(item, level)``)."""
    depth, objects, level = 0, 0, [value]
    while level:
        depth += 1
        below: list[object] = []
        for item in level:
            if type(item) is dict:
                objects += 1
                below.extend(item.values())
            elif type(item) is list:
                below.extend(item)
        level = below
    return depth, objects
