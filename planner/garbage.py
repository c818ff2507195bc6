"""Planning without the cyclic garbage collector's full collections.

Planning a query allocates hundreds of thousands of short-lived objects: sqlglot's trees
(each node points at its parent, so a tree is freed only by the cyclic collector) and the
plan's pydantic nodes. Left on, the collector runs a young collection every 700
allocations, and every hundredth or so a full one that walks every object of the process
(pyarrow, pydantic's schemas, sqlglot's tables: ~90 ms each on the driver). Over the 121
TPC-DS and TPC-H plans the collector took a quarter of planning's CPU, nearly all of it in
full collections that planning's churn set off.

Within ``collection_paused()`` automatic collection is off; leaving the outermost one
collects the youngest generation, which holds everything allocated meanwhile, so planning's
cyclic garbage is freed at once (memory stays bounded by one planning's allocations) and
the cost is paid inside planning, not hidden from its measurement. Threads share the
collector: it is off while any thread plans, and only switched back on if it was on.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class _Pause:
    """How many plannings are under way, and whether the first found collection on."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.was_enabled = False


_PAUSE = _Pause()


@contextmanager
def collection_paused() -> Iterator[None]:
    """Automatic garbage collection off within (nested and concurrent uses share one pause);
    the youngest generation collected when the last one leaves."""
    with _PAUSE.lock:
        if _PAUSE.depth == 0:
            _PAUSE.was_enabled = gc.isenabled()
            gc.disable()
        _PAUSE.depth += 1
    try:
        yield
    finally:
        with _PAUSE.lock:
            _PAUSE.depth -= 1
            resume = _PAUSE.depth == 0 and _PAUSE.was_enabled
            if resume:
                gc.enable()
        if resume:
            gc.collect(0)
