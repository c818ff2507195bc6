"""A driver killed with SIGKILL cleans nothing up: its credentials directory (the cluster's
secret) and its worker's spill directory stay on disk, and its worker processes lose their
coordinator. The next cluster started beside it removes the directories, and the workers
end on their own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sparkwire.coordinator import Session
from sparkwire.coordinator.clusters.credentials import CREDENTIALS_PREFIX
from sparkwire.coordinator.worker.spill import SPILL_PREFIX
from sparkwire.transport.owned import alive, owner
from tests.transport.conftest import wait_until

# A driver with two zmq worker processes that answers one query, says so, and waits to be killed.
DRIVER = """
import sys, time
from sparkwire.coordinator import Session
session = Session(workers=2, transport="zmq")
assert session.range(10).count() == 10
print(" ".join(str(a.pid) for a in session.cluster.announcements), flush=True)
time.sleep(120)
"""


def _owned_by(pid: int) -> list[Path]:
    return [p for p in Path(tempfile.gettempdir()).iterdir()
            if any(owner(p.name, prefix) == pid for prefix in (CREDENTIALS_PREFIX, SPILL_PREFIX))]


def test_what_a_killed_driver_left_is_removed_by_the_next_cluster() -> None:
    driver = subprocess.Popen([sys.executable, "-c", DRIVER], stdout=subprocess.PIPE, text=True)
    try:
        assert driver.stdout is not None
        workers = [int(pid) for pid in driver.stdout.readline().split()]
        left = {p.name.split("-")[1] for p in _owned_by(driver.pid)}
        assert left == {"credentials", "spill"}, left  # the secret and the driver's own worker
    finally:
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(10)
    # A cluster another test starts in parallel may sweep them first, so their presence after
    # the kill is not asserted: the check above saw them, the one below sees them gone.
    assert len(workers) == 2
    started = time.monotonic()
    with Session(workers=1, transport="zmq") as session:
        assert session.range(3).count() == 3
    assert not _owned_by(driver.pid)
    # the orphaned workers notice their coordinator is gone, end and are swept in turn
    assert wait_until(lambda: not any(alive(pid) for pid in workers), 30), workers
    assert time.monotonic() - started < 30
