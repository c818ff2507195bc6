"""Queries take turns at a worker's slots, and one query cannot fill its queue."""

from __future__ import annotations

import threading
import time

import pytest

from sparkwire.coordinator.config import load_settings
from sparkwire.coordinator.taskplan import InputPartition, Members, TaskPlan, encode_message
from sparkwire.coordinator.worker.admission import FairQueue, QueueFull
from sparkwire.coordinator.worker.service import Worker
from sparkwire.planner.logical.expressions import Column
from sparkwire.planner.logical.plan import Exchange
from sparkwire.planner.logical.staged import Boundary
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import SparkwireError
from sparkwire.transport.memory import MemoryTransport


def test_queries_take_turns_in_their_own_order() -> None:
    fair: FairQueue[str] = FairQueue(capacity=100, per_query=100)
    for i in range(5):
        fair.put("big", f"big{i}")
    fair.put("small", "small0")
    fair.put("small", "small1")
    taken = [fair.get() for _ in range(7)]
    assert taken == ["big0", "small0", "big1", "small1", "big2", "big3", "big4"]


def test_one_query_holds_at_most_its_share_and_the_whole_is_bounded() -> None:
    fair: FairQueue[int] = FairQueue(capacity=5, per_query=3)
    for i in range(3):
        fair.put("a", i)
    with pytest.raises(QueueFull, match="query a"):
        fair.put("a", 3)
    fair.put("b", 0)
    fair.put("c", 0)
    with pytest.raises(QueueFull, match="queue is full"):
        fair.put("d", 0)
    assert len(fair) == 5


def test_close_wakes_every_waiting_slot_and_returns_what_was_left() -> None:
    fair: FairQueue[int] = FairQueue(capacity=4, per_query=4)
    got: list[int | None] = []
    waiters = [threading.Thread(target=lambda: got.append(fair.get())) for _ in range(3)]
    for waiter in waiters:
        waiter.start()
    time.sleep(0.1)  # they wait
    assert fair.close() == []
    for waiter in waiters:
        waiter.join(5)
    assert got == [None, None, None]
    left: FairQueue[int] = FairQueue(capacity=4, per_query=4)
    left.put("q", 7)
    assert left.close() == [7] and left.get() is None


def _waiting_task(query_id: str, task: int, producer: str) -> bytes:
    """A task that waits for a producer partition nobody will write (until cancelled)."""
    source = InputPartition(address=producer, stage=0, task=0, partition=0)
    plan = TaskPlan(query_id=query_id, stage=1, task=task, fragment=Exchange(stage=0, columns=("a",)),
                    inputs=(source,), output=Boundary(kind="result"))
    return encode_message(plan)


def test_a_query_that_fills_its_share_leaves_room_for_others() -> None:
    settings = load_settings(workers=1, worker={"task_slots": 1, "max_queued_tasks": 8,
                                                "max_queued_per_query": 3})
    transport = MemoryTransport()
    worker = Worker("w0", settings, transport.connect)
    address = transport.serve(worker).address
    client = transport.connect(address)
    try:
        client.deliver(encode_message(Members(members=(address,))))
        client.deliver(_waiting_task("greedy", 0, address))
        deadline = time.monotonic() + 10
        while len(worker._queue) and time.monotonic() < deadline:
            time.sleep(0.01)  # the one slot takes it, and waits on its input
        for task in range(1, 4):
            client.deliver(_waiting_task("greedy", task, address))
        with pytest.raises(SparkwireError, match="busy: query greedy already has 3"):
            client.deliver(_waiting_task("greedy", 4, address))
        client.deliver(_waiting_task("modest", 0, address))  # still admitted
        assert len(worker._queue) == 4
    finally:
        client.cancel("greedy")
        client.cancel("modest")
        worker.close()
        transport.close()


def test_output_partitions_a_plan_asks_for_are_bounded_by_the_worker_s_memory() -> None:
    """A member asks for tasks of 4,096 output partitions each (each partition's bookkeeping
    is memory before any row): once the store's share of ``worker.memory`` is spoken for, the
    rest are refused, naming the task; the worker drops the query and serves the next."""
    from sparkwire.coordinator.taskplan import encode_tasks
    from sparkwire.coordinator.worker.store import PARTITION_BYTES
    from sparkwire.planner.logical.sources import RangeSource

    settings = load_settings(workers=1, worker={"memory": 128 << 20, "max_queued_tasks": 64,
                                                "max_queued_per_query": 64})
    transport = MemoryTransport()
    worker = Worker("w0", settings, transport.connect)
    client = transport.connect(transport.serve(worker).address)
    wide = Boundary(kind="shuffle", keys=(Column(name="id"),), partitions=4096)

    def tasks(query_id: str, count: int, output: Boundary) -> bytes:
        return encode_tasks([encode_message(TaskPlan(
            query_id=query_id, stage=0, task=task, output=output,
            fragment=RangeSource(start=task, end=task + 1, step=1))) for task in range(count)])

    try:
        with pytest.raises(SparkwireError, match=r"would hold 4096 output partitions"):
            client.deliver(tasks("wide", 64, wide))
        budget = worker.store.memory_budget
        assert worker.store.memory_bytes <= budget < 64 * 4096 * PARTITION_BYTES
        client.cancel("wide")
        assert worker.store.memory_bytes == 0
        client.deliver(tasks("next", 2, Boundary(kind="result")))
        for task in range(2):
            got = client.read(PartitionKey("next", 0, task, 0), 10).read_all()
            assert got.column("id").to_pylist() == [task]
    finally:
        client.close()
        worker.close()
        transport.close()
