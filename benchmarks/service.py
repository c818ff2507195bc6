"""``BenchService``: what every benchmark producer serves, in a child process or in this one.

A ``WorkerService`` over a real ``PartitionStore``, so a transport is measured against the
store it serves in production, with a tiny command set delivered through ``deliver()``:
``noop`` (the latency probe) and ``fill`` (create a task whose partitions cycle through the
shared batch pool of ``benchmarks.data``). A command is JSON validated against a closed
schema (``parse_command``), never unpickled or evaluated: a producer listens on a socket.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from benchmarks.children import MAX_COMMAND_BYTES
from benchmarks.data import pool

MAX_FILL_BATCHES = 1 << 22


def _command_adapter() -> Any:
    from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

    class Noop(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
        op: Literal["noop"]

    class Fill(BaseModel):
        """Create task ``task`` of stage ``stage`` with ``partitions`` partitions, each
        ``batches`` batches of ``rows`` rows x ``columns`` int64 columns."""

        model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
        op: Literal["fill"]
        query_id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
        stage: int = Field(0, ge=0, le=1000)
        task: int = Field(0, ge=0, le=1_000_000)
        partitions: int = Field(ge=1, le=256)
        batches: int = Field(ge=1, le=1 << 22)
        rows: int = Field(ge=1, le=1 << 24)
        columns: int = Field(ge=1, le=16)

    return TypeAdapter(Annotated[Noop | Fill, Field(discriminator="op")])


_adapter: Any = None


def parse_command(plan: bytes) -> Any:
    """The validated command in ``plan`` or ``PlanRejected``."""
    from pydantic import ValidationError

    from sparkwire.transport.errors import PlanRejected

    global _adapter
    if len(plan) > MAX_COMMAND_BYTES:
        raise PlanRejected(f"benchmark command of {len(plan)} bytes exceeds {MAX_COMMAND_BYTES}")
    if _adapter is None:
        _adapter = _command_adapter()
    try:
        return _adapter.validate_json(plan)
    except ValidationError as exc:
        raise PlanRejected(f"invalid benchmark command: {exc.errors()[0]['msg']}") from None


class BenchService:
    """``noop`` plans return at once, ``fill`` plans create a task from the batch pool. The
    memory budget is bookkeeping only (pooled batches are shared), so nothing spills."""

    def __init__(self, spill_dir: Path) -> None:
        from sparkwire.coordinator.worker.store import PartitionStore

        self.store = PartitionStore(1 << 50, spill_dir, idle_timeout=60.0)

    def submit(self, plan: bytes) -> None:
        command = parse_command(plan)
        if command.op == "fill":
            self._fill(command)

    def _fill(self, command: Any) -> None:
        from sparkwire.transport.errors import PlanRejected

        wanted = command.partitions * command.batches
        if wanted > MAX_FILL_BATCHES:
            raise PlanRejected(f"a fill of {wanted} batches exceeds {MAX_FILL_BATCHES}")
        batches = pool(command.rows, command.columns, wanted)
        output = self.store.create(command.query_id, command.stage, command.task,
                                   list(range(command.partitions)))
        output.start(batches[0].schema)
        index = 0
        for partition in range(command.partitions):
            for _ in range(command.batches):
                output.write(partition, batches[index % len(batches)])
                index += 1
        output.finish()

    def open(self, key: Any, timeout: float) -> Any:
        return self.store.open(key, timeout)

    def cancel(self, query_id: str) -> None:
        self.store.drop_query(query_id)

    def close(self) -> None:
        self.store.close()
