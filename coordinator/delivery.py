"""How the coordinator calls every worker: a query's task plans cut into ``Tasks`` messages
each well under what a worker accepts (``messages``), and calls made to every worker at once
(``FanOut``): deliveries, which must all succeed, and cancels, which must not wait long.

One worker after another, a query waited a round trip per worker before the last could
start; after an idle spell a round trip costs milliseconds of thread wake-ups on both sides
(a 1.6 KB plan took 1.8-14 ms on zmq). TPC-H SF1 on zmq, paired: 0.966 of the total. The
same held at a query's end, where the cancel went to each worker in turn: 13-20 ms of a
21-520 ms query on 16 zmq worker processes (``benchmarks/fixed_costs.py``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait

from sparkwire.planner.limits import MAX_TASKS
from sparkwire.transport.closing import Closeable
from sparkwire.transport.limits import MAX_PLAN_BYTES

# A delivery's plans in bytes, well under what a worker accepts in one message.
BATCH_BYTES = MAX_PLAN_BYTES // 4
# Threads calling workers at once, beyond the caller's own.
FAN_OUT = 16

_log = logging.getLogger(__name__)


def messages(plans: list[bytes]) -> Iterator[list[bytes]]:
    """Consecutive runs of ``plans`` of at most ``BATCH_BYTES`` (or one plan) and at most
    ``MAX_TASKS`` plans each: the messages a ``Tasks`` delivery is cut into."""
    batch: list[bytes] = []
    size = 0
    for plan in plans:
        if batch and (size + len(plan) > BATCH_BYTES or len(batch) == MAX_TASKS):
            yield batch
            batch, size = [], 0
        batch.append(plan)
        size += len(plan)
    if batch:
        yield batch


class FanOut(Closeable):
    """Calls to many workers at once, on up to ``FAN_OUT`` threads kept from one query to the
    next: a query at 16 workers made 15 threads to deliver its plans, and its end called the
    workers one after another. Threads start as calls need them and stay until ``close``."""

    def __init__(self, threads: int = FAN_OUT) -> None:
        self._pool = ThreadPoolExecutor(threads, "sparkwire-call")
        self._lock = threading.Lock()
        self._closed = False

    def _start(self, call: Callable[[str], None], address: str) -> Future[None]:
        """``call(address)`` on the pool; once it is closed, here and now (a result closed
        after its session still cancels, on a cluster that answers at once that it is gone)."""
        try:
            return self._pool.submit(call, address)
        except RuntimeError:  # shut down
            future: Future[None] = Future()
            try:
                call(address)
                future.set_result(None)
            except BaseException as exc:  # noqa: BLE001 - the caller reads it off the future
                future.set_exception(exc)
            return future

    def at_once(self, addresses: list[str], call: Callable[[str], None]) -> None:
        """``call`` for every address at once: the first on this thread, the others on the
        pool. Every call is made; the first failure, in the order given, is raised once all
        have ended (each bounded by its transport's own timeouts)."""
        if len(addresses) < 2:
            for address in addresses:
                call(address)
            return
        first, *rest = addresses
        failures: list[BaseException] = []
        others = [self._start(call, address) for address in rest]
        try:
            call(first)
        except BaseException as exc:  # noqa: BLE001 - raised below, after the others
            failures.append(exc)
        failures += [error for future in others if (error := future.exception()) is not None]
        if failures:
            raise failures[0]

    def within(self, addresses: list[str], call: Callable[[str], None], timeout: float) -> list[str]:
        """``call`` for every address at once, all on the pool, waiting ``timeout`` seconds at
        most; the addresses whose call failed or had not returned by then, in the order given.
        A call that fails or hangs holds up no other: it is logged and left to its transport's
        own timeouts, on its thread, while the caller goes on."""
        calls = [(address, self._start(call, address)) for address in addresses]
        wait([future for _, future in calls], timeout)
        missed = []
        for address, future in calls:
            if not future.done():
                _log.info("no answer from %s within %.1f s; going on without it", address, timeout)
            elif (error := future.exception()) is not None:
                _log.debug("calling %s failed: %s", address, error)
            else:
                continue
            missed.append(address)
        return missed

    def close(self) -> None:
        """Stop taking calls; those under way end on their own (bounded by their transports)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._pool.shutdown(wait=False, cancel_futures=True)
