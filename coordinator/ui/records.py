"""What the UI keeps of a query, and the plain dicts its pages and JSON are made from.

The records are small slotted objects the coordinator's threads append to under the
recorder's lock (``recorder``); nothing here formats text or JSON on the query path. The
``*_view`` functions copy a record into plain dicts, called under that lock by the HTTP
threads, which then serialize the copy outside it.

Each record's ``size`` is an estimate of the bytes it holds (objects, boxed numbers, the
dict and deque slots), what the recorder's byte bound counts: measured with ``tracemalloc``
on synthetic queries (``tests/coordinator/ui/test_recorder.py``), the estimate stays above
what the history really holds.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from sparkwire.planner.logical.plan import Exchange, operators
from sparkwire.planner.logical.sources import FILE_SCANS
from sparkwire.planner.logical.staged import StagedPlan

#: Estimated bytes of a query record without its parts (its routes' counts included), of a
#: stage's, a task run's and an event's (CPython 3.11, 64-bit: the object, its boxed fields,
#: the container slot).
QUERY_BYTES = 2560
STAGE_BYTES = 640
TASK_BYTES = 520
EVENT_BYTES = 200
#: ... and of one edge's count of bytes by route (its key's tuple, boxed numbers, the slot).
EDGE_BYTES = 240
#: Estimated bytes of a finished query compacted to its JSON (``kept``) beside the JSON
#: itself: its row's dict, boxed values and strings, the tuple, the ``bytes`` header.
KEPT_BYTES = 1536
#: Longest summary and error kept (characters): a long SQL error is cut, not stored whole.
MAX_TEXT = 2000
#: The error of a run whose worker was lost before it ended (``Recorder.workers_lost``).
LOST = "its worker was lost"


@dataclass(slots=True)
class TaskRecord:
    """One run (attempt) of one task: where it ran, when, and what it wrote."""

    stage: int
    task: int
    attempt: int
    address: str
    delivered: float
    worker: str = ""
    started: float | None = None
    ended: float | None = None
    rows: int = 0
    bytes: int = 0
    spill: int = 0
    error: str | None = None


@dataclass(slots=True)
class StageRecord:
    """One stage: its root operator, boundary, the stages it reads, and what its tasks did."""

    id: int
    kind: str
    boundary: str
    partitions: int
    tasks: int
    inputs: tuple[int, ...]
    done: int = 0
    rows: int = 0
    bytes: int = 0
    seconds: float = 0.0
    notes: tuple[str, ...] = ()


@dataclass(slots=True)
class QueryRecord:
    """One query as the UI shows it; ``events`` keeps the latest ``maxlen`` only."""

    id: str
    summary: str
    user: str
    tags: tuple[str, ...]
    started: float
    stages: list[StageRecord]
    events: deque[tuple[float, str, int, int, int]]
    state: str = "running"
    ended: float | None = None
    error: str | None = None
    reruns: int = 0
    tasks: dict[tuple[int, int, int], TaskRecord] = field(default_factory=dict)
    #: Bytes its tasks read from producers, by route (memory, shm, zmq, flight, ...).
    bytes_in: Counter[str] = field(default_factory=Counter)
    #: Bytes each stage read from each stage it reads, by route: (producer, consumer, route).
    edges: Counter[tuple[int, int, str]] = field(default_factory=Counter)
    #: The workers the query lost: (address, name; the address where no run there told one).
    lost: list[tuple[str, str]] = field(default_factory=list)
    #: Task runs not kept past the per-query bound (still counted in the stages' totals).
    tasks_dropped: int = 0
    size: int = 0


def new_query(query_id: str, plan: StagedPlan, user: str, tags: frozenset[str],
              started: float, events: int) -> QueryRecord:
    """The record of a query starting on ``plan``: its stages, each with what it reads."""
    stages = [StageRecord(
        id=stage.id, kind=stage.fragment.op, boundary=stage.output.kind,
        partitions=stage.output.partitions, tasks=stage.tasks, notes=stage.notes,
        inputs=tuple(sorted({n.stage for n in operators(stage.fragment) if isinstance(n, Exchange)})))
        for stage in plan.stages]
    summary = _summary(plan)
    shown = tuple(sorted(t for t in tags if not t.startswith("sparkwire-session-")))
    record = QueryRecord(id=query_id, summary=summary, user=user, tags=shown, started=started,
                         stages=stages, events=deque(maxlen=events))
    record.size = QUERY_BYTES + len(summary) + STAGE_BYTES * len(stages) + sum(map(len, shown))
    return record


def _summary(plan: StagedPlan) -> str:
    """``aggregate ← filter ← parquet_scan(lineitem)``: the final stage's operators down its
    first inputs, and the tables the query scans (a file's folder, as TPC-H's are laid out)."""
    chain: list[str] = []
    node: Any = plan.final.fragment
    while node is not None and len(chain) < 6:
        chain.append(node.op)
        inputs = [getattr(node, name) for name in type(node).INPUTS]
        node = inputs[0] if inputs else None
    tables = sorted({PurePath(split.path).parent.name or PurePath(split.path).stem
                     for stage in plan.stages for n in operators(stage.fragment)
                     if isinstance(n, FILE_SCANS) for split in n.splits[:1]})
    text = " ← ".join(chain)
    if tables:
        text += f" ({', '.join(tables)})"
    return f"{text}; {len(plan.stages)} stage(s)"[:MAX_TEXT]


#: The keys of a query's row (``query_row``), the first of its view.
ROW_KEYS = ("id", "summary", "user", "tags", "state", "started", "ended", "error", "stage_count",
            "tasks", "done", "reruns")


def query_row(record: QueryRecord) -> dict[str, Any]:
    """What the list of queries shows of one."""
    return {"id": record.id, "summary": record.summary, "user": record.user,
            "tags": list(record.tags), "state": record.state, "started": record.started,
            "ended": record.ended, "error": record.error, "stage_count": len(record.stages),
            "tasks": sum(s.tasks for s in record.stages),
            "done": sum(s.done for s in record.stages), "reruns": record.reruns}


def query_view(record: QueryRecord) -> dict[str, Any]:
    """One query whole: its row, stages, task runs and latest events."""
    view = query_row(record)
    view["stages"] = [{
        "id": s.id, "kind": s.kind, "boundary": s.boundary, "partitions": s.partitions,
        "tasks": s.tasks, "inputs": list(s.inputs), "done": s.done, "rows": s.rows,
        "bytes": s.bytes, "seconds": s.seconds, "notes": list(s.notes)} for s in record.stages]
    view["task_runs"] = [{
        "stage": t.stage, "task": t.task, "attempt": t.attempt, "address": t.address,
        "worker": t.worker, "delivered": t.delivered, "started": t.started, "ended": t.ended,
        "rows": t.rows, "bytes": t.bytes, "spill": t.spill, "error": t.error}
        for t in record.tasks.values()]
    view["tasks_dropped"] = record.tasks_dropped
    view["bytes_in"] = dict(record.bytes_in)
    view["edges"] = [{"producer": producer, "consumer": consumer, "route": route, "bytes": nbytes}
                     for (producer, consumer, route), nbytes in sorted(record.edges.items())]
    view["lost_workers"] = [{"address": address, "name": name} for address, name in record.lost]
    view["events"] = [{"at": at, "what": what, "stage": stage, "task": task, "attempt": attempt}
                      for at, what, stage, task, attempt in record.events]
    return view


#: A finished query compacted (``Recorder.compact``): its row, tags as a tuple, and its view
#: as JSON. Neither holds a container the garbage collector must walk.
Kept = tuple[dict[str, Any], bytes]


def kept(view: dict[str, Any], line: bytes) -> tuple[Kept, int]:
    """``view`` (``query_view``'s, or a history line's) and its JSON as kept, and the bytes
    estimated for it."""
    row = {key: view[key] for key in ROW_KEYS}
    row["tags"] = tuple(row["tags"])
    size = KEPT_BYTES + len(line) + len(row["summary"]) + len(row["error"] or "") + len(row["id"])
    return (row, line), size


def kept_row(entry: Kept) -> dict[str, Any]:
    """A compacted query's row, as ``query_row`` gives it."""
    return {**entry[0], "tags": list(entry[0]["tags"])}
