"""How a query's task plans reach the workers: cut into ``Tasks`` messages each well under
what a worker accepts (``messages``), and sent to every worker at once (``at_once``).

One worker after another, a query waited a round trip per worker before the last could
start; after an idle spell a round trip costs milliseconds of thread wake-ups on both sides
(a 1.6 KB plan took 1.8-14 ms on zmq). TPC-H SF1 on zmq, paired: 0.966 of the total.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

from sparkwire.planner.limits import MAX_TASKS
from sparkwire.transport.limits import MAX_PLAN_BYTES

# A delivery's plans in bytes, well under what a worker accepts in one message.
BATCH_BYTES = MAX_PLAN_BYTES // 4
# Threads calling workers at once, beyond the caller's own.
FAN_OUT = 16


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


def at_once(addresses: list[str], call: Callable[[str], None]) -> None:
    """``call`` for every address at once: the first on this thread, the others on up to
    ``FAN_OUT`` threads. Every call is made; the first failure, in the order given, is
    raised once all have ended (each bounded by its transport's own timeouts)."""
    if len(addresses) < 2:
        for address in addresses:
            call(address)
        return
    first, *rest = addresses
    failures: list[BaseException] = []
    with ThreadPoolExecutor(min(len(rest), FAN_OUT), "sparkwire-deliver") as pool:
        others = [pool.submit(call, address) for address in rest]
        try:
            call(first)
        except BaseException as exc:  # noqa: BLE001 - raised below, after the others
            failures.append(exc)
        failures += [error for future in others if (error := future.exception()) is not None]
    if failures:
        raise failures[0]
