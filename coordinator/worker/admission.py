"""Which queued task a free slot runs next: queries take turns, and none may fill the queue.

One FIFO queue lets a query with a thousand tasks hold every slot until it is done, and fill
the queue so that any other query is refused as busy. So tasks queue per query, in delivery
order (a query's own stages must keep their order: consumers wait on producers), free slots
take the next task of each query in turn, and one query may hold at most ``per_query`` of the
queue's ``capacity`` places, which leaves room for others.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from typing import Generic, TypeVar

from sparkwire.transport.errors import SparkwireError

T = TypeVar("T")


class QueueFull(SparkwireError):
    """The worker's queue, or this query's share of it, is full."""


class FairQueue(Generic[T]):
    """Bounded per-query FIFOs served round-robin; ``close()`` ends every wait with None."""

    def __init__(self, capacity: int, per_query: int) -> None:
        self._capacity, self._per_query = capacity, min(per_query, capacity)
        self._queues: OrderedDict[str, deque[T]] = OrderedDict()  # in turn order
        self._size = 0
        self._closed = False
        self._ready = threading.Condition()

    def put(self, query_id: str, item: T) -> None:
        """Queue ``item`` now or raise ``QueueFull``; never blocks."""
        with self._ready:
            mine = self._queues.get(query_id)
            if self._size >= self._capacity:
                raise QueueFull(f"the task queue is full ({self._capacity} tasks)")
            if mine is not None and len(mine) >= self._per_query:
                raise QueueFull(f"query {query_id} already has {self._per_query} tasks queued")
            if mine is None:
                mine = self._queues[query_id] = deque()
            mine.append(item)
            self._size += 1
            self._ready.notify()

    def get(self) -> T | None:
        """The next query's oldest task, waiting for one; None once closed."""
        with self._ready:
            while not self._queues and not self._closed:
                self._ready.wait()
            if self._closed:
                return None
            query_id, mine = next(iter(self._queues.items()))
            item = mine.popleft()
            self._size -= 1
            if mine:
                self._queues.move_to_end(query_id)  # its next task waits for the others' turn
            else:
                del self._queues[query_id]
            return item

    def __len__(self) -> int:
        with self._ready:
            return self._size

    def close(self) -> list[T]:
        """Stop: waiting and later ``get`` calls return None; the tasks left are returned."""
        with self._ready:
            self._closed = True
            left = [item for mine in self._queues.values() for item in mine]
            self._queues.clear()
            self._size = 0
            self._ready.notify_all()
            return left
