"""A test worker that takes orders as task plans, in this process or in another one.

``CommandService`` is a ``WorkerService`` over a real ``PartitionStore``. Its ``submit``
accepts small JSON *test commands* (validated strictly by the pydantic models below; nothing
is evaluated or unpickled), so a test drives a worker in another process through nothing but
the public client API:

- ``{"produce": {...}}``: a producer thread writes deterministic int64 batches into the store
  (``lazy: true``: no store, every reader pulls freshly generated batches, for partitions
  larger than memory; ``wait: true``: ``submit`` returns once the producer has finished);
  ``fail_after`` fails the task after that many batches per partition;
- ``{"all_types": {...}}``: writes ``all_types_batch(0..n-1)`` into one partition;
- ``{"echo": {...}}``: stores the raw plan bytes, to show a plan arrives unchanged;
- ``{"fail_open": {...}}``: opening any partition of the query raises the given error;
- ``{"report": {"query": Q}}``: writes partition ``Q/0/0/0`` with what every reader did so far
  (``key``, ``opened``, ``pulled``, ``released``): how a test observes the producer side.

Run as ``python -m tests.transport.remote_service --transport NAME`` (cwd = repo root): it
serves a ``CommandService`` over the named transport, prints ``{"address": ...}`` as one JSON
line on stdout and serves until its stdin closes (its lifeline), then closes everything.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import decimal
import json
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal, Self

import numpy as np
import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sparkwire.coordinator.worker.store import PartitionStore
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import (
    PartitionNotFound,
    PlanRejected,
    QueryCancelled,
    SparkwireError,
    TaskFailed,
    error_from_code,
)
from sparkwire.transport.registry import create_transport
from sparkwire.transport.security import Security
from sparkwire.transport.stream import PartitionReader

QueryId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")]
Index = Annotated[int, Field(ge=0, le=1 << 20)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Produce(_Strict):
    """``partitions`` partitions of ``batches`` batches of ``rows`` rows × ``columns`` int64.

    Column ``c`` of row ``r`` of batch ``b`` of partition ``p`` holds
    ``((b * rows + r) * columns + c) * partitions + p``: every value is distinct and a reader
    can recompute any batch (``expected_batch``).
    """

    query: QueryId
    stage: Index = 0
    task: Index = 0
    partitions: int = Field(1, ge=1, le=1024)
    batches: int = Field(ge=0, le=10**9)
    rows: int = Field(1, ge=0, le=1 << 24)
    columns: int = Field(1, ge=1, le=64)
    delay: float = Field(0.0, ge=0, le=10)
    fail_after: int | None = Field(None, ge=0)
    lazy: bool = False
    wait: bool = False

    @model_validator(mode="after")
    def _fits_int64(self) -> Self:
        if self.batches * max(self.rows, 1) * self.columns * self.partitions >= 1 << 62:
            raise ValueError("values would overflow int64")
        return self

    @property
    def schema(self) -> pa.Schema:
        return pa.schema([(f"c{c}", pa.int64()) for c in range(self.columns)])

    @property
    def failure_message(self) -> str:
        return f"injected failure in {self.query}/{self.stage}/{self.task} after {self.fail_after} batches"


class AllTypes(_Strict):
    query: QueryId
    stage: Index = 0
    task: Index = 0
    batches: int = Field(ge=0, le=1000)


class Echo(_Strict):
    query: QueryId
    note: str = Field(max_length=10_000)


class FailOpen(_Strict):
    query: QueryId
    error: Literal["task_failed", "partition_not_found", "cancelled", "plan_rejected", "timeout",
                   "key_error"]
    message: str = Field(max_length=1000)


class Report(_Strict):
    query: QueryId


class Command(_Strict):
    """Exactly one of the fields."""

    produce: Produce | None = None
    all_types: AllTypes | None = None
    echo: Echo | None = None
    fail_open: FailOpen | None = None
    report: Report | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Self:
        given = [name for name in type(self).model_fields if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(f"a test command has exactly one field, got {given}")
        return self


def expected_batch(spec: Produce, partition: int, batch: int) -> pa.RecordBatch:
    """Batch ``batch`` of partition ``partition`` of ``spec``: what a reader must receive."""
    return _rows(spec, partition, batch * spec.rows, spec.rows)


def _rows(spec: Produce, partition: int, first: int, count: int) -> pa.RecordBatch:
    rows = np.arange(first, first + count, dtype=np.int64)
    return pa.RecordBatch.from_arrays(
        [pa.array((rows * spec.columns + c) * spec.partitions + partition)
         for c in range(spec.columns)],
        schema=spec.schema,
    )


_BLOCK_ROWS = 1 << 16


def produced_batches(spec: Produce, partition: int) -> Iterator[pa.RecordBatch]:
    """The batches of one partition, in order; small ones are slices of one larger block
    (building 100k tiny batches one by one would measure pyarrow, not the transport)."""
    per_block = max(1, _BLOCK_ROWS // max(spec.rows, 1))
    for start in range(0, spec.batches, per_block):
        count = min(per_block, spec.batches - start)
        block = _rows(spec, partition, start * spec.rows, count * spec.rows)
        for i in range(count):
            yield block.slice(i * spec.rows, spec.rows)


def all_types_batch(offset: int = 0) -> pa.RecordBatch:
    """Five rows of (nearly) every Arrow type, nulls included; dictionaries vary by offset."""
    n = 5
    o = offset
    words = [f"w{o}", f"v{o}", f"w{o}", None, "é"]
    return pa.record_batch(
        {
            "null": pa.nulls(n),
            "bool": pa.array([True, False, None, True, o % 2 == 0]),
            "i8": pa.array([-128, 127, None, 0, o % 100], pa.int8()),
            "u64": pa.array([0, 2**64 - 1, None, 1, o], pa.uint64()),
            "i": pa.array([o + i if i % 3 else None for i in range(n)], pa.int64()),
            "f32": pa.array([1.5, float("inf"), None, -0.0, float("-inf")], pa.float32()),
            "f": pa.array([0.5 * i + o for i in range(n)], pa.float64()),
            "s": pa.array(["", "é", None, "x" * 100, f"z{o}"], pa.string()),
            "ls": pa.array(["a", None, "b" * 1000, "c", f"d{o}"], pa.large_string()),
            "sv": pa.array(["short", None, "a string longer than twelve bytes", "", f"{o}"],
                           pa.string_view()),
            "bin": pa.array([b"\x00\x01", b"", None, b"\xff", bytes([o % 256])], pa.binary()),
            "lb": pa.array([b"\x00", b"", None, b"\xff" * 3, b"q" * o], pa.large_binary()),
            "fsb": pa.array([b"abcd", None, b"\x00\x00\x00\x00", b"wxyz", b"1234"], pa.binary(4)),
            "d": pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("-3.50"),
                           decimal.Decimal("0.00"), decimal.Decimal(o) + decimal.Decimal("0.99")],
                          pa.decimal128(10, 2)),
            "d256": pa.array([decimal.Decimal("1" * 60), None, decimal.Decimal("-0.000001"),
                              decimal.Decimal(0), decimal.Decimal(o)], pa.decimal256(70, 6)),
            "ts": pa.array([dt.datetime(2024, 1, 1, i) for i in range(n)],
                           pa.timestamp("us", tz="Europe/Paris")),
            "ts_ns_utc": pa.array([0, None, 1_700_000_000_123_456_789, -1, o], pa.timestamp("ns", tz="UTC")),
            "ts_naive": pa.array([dt.datetime(1970, 1, 1), None, dt.datetime(2262, 4, 11),
                                  dt.datetime(1, 1, 1), dt.datetime(2000, 2, 29)], pa.timestamp("s")),
            "date": pa.array([dt.date(2020, 1, 1 + i) for i in range(n)], pa.date32()),
            "date64": pa.array([dt.date(1999, 12, 31), None, dt.date(2038, 1, 19),
                                dt.date(1, 1, 1), dt.date(9999, 12, 31)], pa.date64()),
            "time": pa.array([dt.time(0), dt.time(23, 59, 59, 999999), None, dt.time(12), dt.time(1)],
                             pa.time64("us")),
            "dur": pa.array([0, -1, None, 10**12, o], pa.duration("ms")),
            "interval": pa.array([pa.MonthDayNano([1, 2, 3]), None, pa.MonthDayNano([0, 0, 0]),
                                  pa.MonthDayNano([-1, -2, -3]), pa.MonthDayNano([o, o, o])],
                                 pa.month_day_nano_interval()),
            "dict": pa.array(words).dictionary_encode(),
            "dict_i": pa.DictionaryArray.from_arrays(
                pa.array([0, 1, None, 1, 0], pa.int8()), pa.array([o, None], pa.int64())),
            "list": pa.array([[1, 2], [], None, [3], [4, None]], pa.list_(pa.int32())),
            "large_list": pa.array([[[o]], [], None, [[1, 2], None], [[]]],
                                   pa.large_list(pa.list_(pa.int64()))),
            "fixed_list": pa.array([[1.0, 2.0], None, [None, 3.0], [0.0, -0.0], [o, o]],
                                   pa.list_(pa.float64(), 2)),
            "list_view": pa.array([[1], None, [], [2, 3], [o]], pa.list_view(pa.int16())),
            "struct": pa.array([{"x": i, "y": str(i), "z": [i] * i} for i in range(n)]),
            "struct_nulls": pa.array([{"a": None, "b": {"c": o}}, None, {"a": 1, "b": None},
                                      {"a": 2, "b": {"c": None}}, {"a": 3, "b": {"c": 4}}]),
            "list_struct": pa.array([[{"k": "a", "v": 1.0}], [], None, [{"k": None, "v": None}],
                                     [{"k": f"{o}", "v": 2.0}] * 3]),
            "map": pa.array([[("k", i)] for i in range(n)], pa.map_(pa.string(), pa.int64())),
            "map_nested": pa.array([[("a", [1]), ("b", None)], None, [], [("c", [])], [(f"{o}", [o])]],
                                   pa.map_(pa.string(), pa.list_(pa.int64()))),
            "union": pa.UnionArray.from_sparse(
                pa.array([0, 1, 0, 1, 0], pa.int8()),
                [pa.array([1, 2, None, 4, o], pa.int64()), pa.array(["a", "b", "c", None, "e"])]),
            "ree": pa.RunEndEncodedArray.from_arrays(pa.array([2, 4, 5], pa.int32()),
                                                     pa.array([f"r{o}", None, "x"])),
        }
    )



#: ``all_types_batch`` columns of types other than plain ones: dictionaries, views, unions,
#: run-end encoding.
NOT_PLAIN = ("sv", "dict", "dict_i", "list_view", "union", "ree")


def large_plain_batch(copies: int = 20_000) -> pa.RecordBatch:
    """``all_types_batch`` without ``NOT_PLAIN``, repeated to megabytes: more than a socket
    transport sends in one message, and a shm arena's allocation."""
    base = all_types_batch().drop_columns(list(NOT_PLAIN))
    (batch,) = pa.Table.from_batches([base] * copies).combine_chunks().to_batches()
    return batch


def large_flat_batch() -> pa.RecordBatch:
    """``large_plain_batch``'s flat columns (no children): what ``transport.buffers`` sends
    as the batch's own buffers."""
    from sparkwire.transport.buffers import flat

    big = large_plain_batch()
    return big.select([i for i, field in enumerate(big.schema) if flat(field.type)])


@dataclass
class _Usage:
    opened: int = 0
    pulled: int = 0
    released: int = 0


class CommandService:
    """A ``WorkerService`` over a real ``PartitionStore``, driven by test commands."""

    def __init__(self, spill_dir: Path, memory_budget: int = 1 << 30, idle_timeout: float = 30.0) -> None:
        self.store = PartitionStore(memory_budget, spill_dir, idle_timeout=idle_timeout)
        self._lock = threading.Lock()
        self._lazy: dict[tuple[str, int, int], Produce] = {}
        self._fail_open: dict[str, FailOpen] = {}
        self._cancelled: set[str] = set()
        self._usage: dict[str, _Usage] = {}
        self.plans: list[bytes] = []

    # -- WorkerService ---------------------------------------------------------------
    def submit(self, plan: bytes) -> None:
        try:
            command = Command.model_validate_json(plan)
        except ValidationError as exc:
            if any(error["type"] == "json_invalid" for error in exc.errors()):
                raise PlanRejected("task plan is not valid JSON") from None
            raise PlanRejected(f"invalid test command: {exc.errors()[0]['msg']}") from None
        with self._lock:
            self.plans.append(plan)
        if command.produce is not None:
            self._produce(command.produce)
        elif command.all_types is not None:
            spec = command.all_types
            output = self.store.create(spec.query, spec.stage, spec.task, [0])
            output.start(all_types_batch().schema)
            for i in range(spec.batches):
                output.write(0, all_types_batch(i))
            output.finish()
        elif command.echo is not None:
            self._single(command.echo.query, pa.record_batch({"plan": pa.array([plan], pa.binary())}))
        elif command.fail_open is not None:
            with self._lock:
                self._fail_open[command.fail_open.query] = command.fail_open
        elif command.report is not None:
            with self._lock:
                usage = sorted(self._usage.items())
            self._single(command.report.query, pa.record_batch({
                "key": pa.array([key for key, _ in usage], pa.string()),
                "opened": pa.array([u.opened for _, u in usage], pa.int64()),
                "pulled": pa.array([u.pulled for _, u in usage], pa.int64()),
                "released": pa.array([u.released for _, u in usage], pa.int64()),
            }))

    def open(self, key: PartitionKey, timeout: float) -> PartitionReader:
        with self._lock:
            failure = self._fail_open.get(key.query_id)
            lazy = self._lazy.get((key.query_id, key.stage, key.task))
        if failure is not None:
            if failure.error == "key_error":
                raise KeyError(failure.message)
            raise error_from_code(failure.error, failure.message)
        if lazy is not None:
            if key.partition >= lazy.partitions:
                raise PartitionNotFound(f"task {key.stage}/{key.task} has no partition {key.partition}")
            inner = PartitionReader(lazy.schema, self._generate(lazy, key.partition))
        else:
            inner = self.store.open(key, timeout)
        with self._lock:
            usage = self._usage.setdefault(str(key), _Usage())
            usage.opened += 1

        def counted() -> Iterator[pa.RecordBatch]:
            for batch in inner:
                with self._lock:
                    usage.pulled += 1
                yield batch

        def release() -> None:
            inner.close()
            with self._lock:
                usage.released += 1

        return PartitionReader(inner.schema, counted(), release)

    def cancel(self, query_id: str) -> None:
        with self._lock:
            self._cancelled.add(query_id)
        self.store.drop_query(query_id)

    def close(self) -> None:
        with self._lock:
            self._cancelled.update(q for q, _, _ in self._lazy)
        self.store.close()

    # -- producers -------------------------------------------------------------------
    def _produce(self, spec: Produce) -> None:
        if spec.lazy:
            with self._lock:
                self._lazy[(spec.query, spec.stage, spec.task)] = spec
            return
        partitions = list(range(spec.partitions))
        output = self.store.create(spec.query, spec.stage, spec.task, partitions)
        output.start(spec.schema)

        def run() -> None:
            try:
                sources = [produced_batches(spec, p) for p in partitions]
                for b in range(spec.batches):
                    if b == spec.fail_after:
                        output.fail(TaskFailed(spec.failure_message))
                        return
                    for p, source in zip(partitions, sources, strict=True):
                        output.write(p, next(source))
                    if spec.delay:
                        time.sleep(spec.delay)
                if spec.fail_after is not None and spec.fail_after >= spec.batches:
                    output.fail(TaskFailed(spec.failure_message))
                    return
                output.finish()
            except QueryCancelled:
                pass
            except Exception as exc:  # a bug in this test service: tell the readers
                output.fail(TaskFailed(f"producer crashed: {exc!r}"))

        producer = threading.Thread(target=run, name=f"produce-{spec.query}", daemon=True)
        producer.start()
        if spec.wait:
            producer.join()

    def _generate(self, spec: Produce, partition: int) -> Iterator[pa.RecordBatch]:
        source = produced_batches(spec, partition)
        for b in range(spec.batches):
            with self._lock:
                if spec.query in self._cancelled:
                    raise QueryCancelled(f"query {spec.query} was cancelled")
            if b == spec.fail_after:
                raise TaskFailed(spec.failure_message)
            if b and spec.delay:
                time.sleep(spec.delay)
            yield next(source)
        if spec.fail_after is not None:
            raise TaskFailed(spec.failure_message)

    def _single(self, query: str, batch: pa.RecordBatch) -> None:
        output = self.store.create(query, 0, 0, [0])
        output.start(batch.schema)
        output.write(0, batch)
        output.finish()


def command(**fields: object) -> bytes:
    """The plan bytes of one test command, e.g. ``command(report={"query": "r1"})``."""
    return json.dumps(fields).encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.transport.remote_service")
    parser.add_argument("--transport", required=True, help="registered transport name")
    parser.add_argument("--options", default="{}", help="transport options as a JSON object")
    parser.add_argument("--spill-dir", type=Path,
                        help="existing directory for spill files, owned by the caller "
                             "(default: a temporary one, lost if this process is killed)")
    parser.add_argument("--security", default=None,
                        help="transport security settings as JSON (credential file paths)")
    args = parser.parse_args(argv)
    security = Security.model_validate_json(args.security) if args.security else None
    options = json.loads(args.options)
    if not isinstance(options, dict):
        parser.error("--options must be a JSON object")
    with contextlib.ExitStack() as stack:
        spill = args.spill_dir or Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="sparkwire-remote-")))
        service = CommandService(spill)
        try:
            with create_transport(args.transport, options, security) as transport:
                server = transport.serve(service)
                try:
                    print(json.dumps({"address": server.address}), flush=True)
                    sys.stdin.buffer.read()  # the lifeline: serve until the parent closes it
                finally:
                    server.close()
        except SparkwireError as exc:
            print(f"remote_service: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
        finally:
            service.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
