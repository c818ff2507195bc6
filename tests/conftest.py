"""Suite-wide guard: after the last test, nothing sparkwire started may remain.

Checked at the end of the session (this fixture is set up first, so it is torn down last):
no sparkwire worker or test-service process, no listening socket held by this process, no
``/dev/shm/sparkwire-*`` segment, no worker spill directory of this process's.

Also the one fixture that modules in several folders share: TPC-DS data and its oracle
(``tpcds``), too costly to make once per module.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings


from sparkwire.coordinator.worker.spill import SPILL_PREFIX
from sparkwire.transport.owned import owner, sweep_dirs

if TYPE_CHECKING:
    from tests.e2e.tpcds import Tpcds

# The suite's data is tiny, and most tests are about distribution: by default every query
# fans out over the workers, as ``task_bytes=0`` asks. Tests of sizing by bytes and of the
# one-stage plan set ``task_bytes`` themselves (tests/e2e/test_task_sizing.py). Set here,
# before any Session, so worker processes and the CLI inherit it.
os.environ.setdefault("SPARKWIRE_TASK_BYTES", "0")
# Plans are sized by the cluster's cores, which by default are this machine's CPUs for
# workers on it: two cores a worker here, so a test's plan (a task per core) is the same on
# any machine, and the two tasks a worker that the tests of distribution were written for.
os.environ.setdefault("SPARKWIRE_WORKER__CORES", "2")

# ``make test`` is CI's gate, so its property tests draw the same examples every run: a red
# run is reproducible and never luck. ``HYPOTHESIS_PROFILE=explore`` draws fresh examples to
# hunt for new counterexamples (each one found becomes a plain regression test).
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

_OURS = ("sparkwire.coordinator.clusters.serve", "sparkwire.coordinator.cli worker",
         "tests.transport.remote_service", "benchmarks.producer")


# Every process this test run starts inherits this mark (worker processes keep the
# environment but ``SPARKWIRE_*``, ``clusters.process.child_env``; Spark's JVM and its Python
# workers inherit it too), so the check below finds this run's processes and only them, not
# those of another run beside it, in this checkout or another (a benchmark, a second suite).
os.environ["SW_TEST_RUN"] = uuid.uuid4().hex
_RUN_MARK = f"SW_TEST_RUN={os.environ['SW_TEST_RUN']}".encode()


def _our_processes() -> list[str]:
    """sparkwire processes this test run started, by the mark in their environment."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            if not any(marker in cmdline for marker in _OURS):
                continue
            if _RUN_MARK not in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                continue
        except OSError:
            continue
        found.append(f"{pid}: {cmdline.strip()}")
    return found


def _ours(segment: str) -> bool:
    """A segment is ours unless a live process of another checkout made it."""
    match = re.match(r"sparkwire-(\d+)-", segment)
    if match is None:
        return True
    try:
        return os.readlink(f"/proc/{match[1]}/cwd") == os.getcwd()
    except OSError:
        return True  # its process is gone: leaked


def listening_sockets() -> list[tuple[int, str]]:
    """(port, socket inode) of every TCP socket in LISTEN state on this machine."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A":  # LISTEN
                    found.append((int(fields[1].rsplit(":", 1)[1], 16), fields[9]))
    return found


def listening_ports() -> set[int]:
    return {port for port, _ in listening_sockets()}


def _listening_sockets_of_this_process() -> set[str]:
    inodes = {inode for _, inode in listening_sockets()}
    mine = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            mine.add(target)
    return mine


def _leftovers() -> dict[str, object]:
    sweep_dirs(SPILL_PREFIX)  # what killed workers left
    spill = [p.name for p in Path(tempfile.gettempdir()).glob(f"{SPILL_PREFIX}*")
             if owner(p.name, SPILL_PREFIX) == os.getpid()]
    return {
        "processes": _our_processes(),
        "listening sockets": sorted(_listening_sockets_of_this_process()),
        "shared memory": sorted(p.name for p in Path("/dev/shm").glob("sparkwire-*") if _ours(p.name)),
        "spill dirs": sorted(spill),
    }


@pytest.fixture(scope="session", autouse=True)
def nothing_left_behind() -> Iterator[None]:
    yield
    deadline = time.monotonic() + 15
    while (left := _leftovers()) and any(left.values()) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not any(left.values()), f"left behind after the test suite: {left}"


@pytest.fixture(scope="session")
def tpcds(tmp_path_factory: pytest.TempPathFactory) -> Callable[[float], Tpcds]:
    """TPC-DS at a scale factor with DuckDB's answers (``tests/e2e/tpcds.py``), made on first
    use and shared by every test of the run: in-process, ZeroMQ and Spark-hosted tests read
    the same scales, and generating one costs more than most tests."""
    from tests.e2e.tpcds import generate

    root = tmp_path_factory.mktemp("tpcds")
    made: dict[float, Tpcds] = {}

    def at(scale: float) -> Tpcds:
        if scale not in made:
            made[scale] = generate(scale, root)
        return made[scale]

    return at
