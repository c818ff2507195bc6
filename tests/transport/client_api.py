"""Helpers shared by the client-API conformance tests: commands, checks, bounded waits."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

from tests.transport.conftest import Worker
from tests.transport.remote_service import Produce, command, expected_batch
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.stream import PartitionReader

MiB = 1 << 20
_ids = itertools.count()


def fresh_query() -> str:
    return f"q{next(_ids)}"


def produce(worker: Worker, **fields: Any) -> Produce:
    spec = Produce(**fields)
    worker.client.deliver(command(produce=spec.model_dump()))
    return spec


def key(spec: Produce, partition: int = 0) -> PartitionKey:
    return PartitionKey(spec.query, spec.stage, spec.task, partition)


def report(worker: Worker) -> dict[str, dict[str, int]]:
    """What every reader of the service did so far, by partition key."""
    query = fresh_query()
    worker.client.deliver(command(report={"query": query}))
    rows = worker.client.read(PartitionKey(query, 0, 0, 0), 10).read_all().to_pylist()
    return {row.pop("key"): row for row in rows}


def usage(worker: Worker, partition: PartitionKey) -> dict[str, int]:
    return report(worker).get(str(partition), {"opened": 0, "pulled": 0, "released": 0})


def check_batches(reader: PartitionReader, spec: Produce, partition: int = 0) -> int:
    """Read to the end, checking every batch against the producer's; the batch count."""
    assert reader.schema.equals(spec.schema)
    count = 0
    for count, batch in enumerate(reader, 1):
        assert batch.equals(expected_batch(spec, partition, count - 1)), f"batch {count - 1} differs"
    return count


def finished_within(seconds: float, call: Callable[[], object]) -> object:
    """What ``call`` returned or raised within ``seconds`` on a thread (fails if neither)."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"no answer within {seconds:g}s"
    return outcome[0]


def raised_within(seconds: float, call: Callable[[], object]) -> BaseException:
    """The exception ``call`` raised within ``seconds`` on a thread (fails if none)."""
    outcome = finished_within(seconds, call)
    assert isinstance(outcome, BaseException), f"expected an error, got {outcome!r}"
    return outcome


def drain(reader: PartitionReader) -> int:
    """Read until the end or an error; the number of batches read before it."""
    count = 0
    while reader.read_next_batch() is not None:
        count += 1
    return count


