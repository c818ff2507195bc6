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
# workers inherit it too), so the checks below find this run's processes and only them, not
# those of another run beside it, in this checkout or another (a benchmark, a second suite).
# Under pytest-xdist (``make test`` runs two) the run is the controller's ``--testrunuid`` and
# each xdist worker marks its own processes ``RUN.gwN``: a worker checks what it started, the
# controller checks the whole run once every worker is gone (``pytest_sessionfinish``).
_XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID") if _XDIST_WORKER else None
RUN = RUN or uuid.uuid4().hex
os.environ["SW_TEST_RUN"] = f"{RUN}.{_XDIST_WORKER}" if _XDIST_WORKER else RUN


@pytest.hookimpl(trylast=True)  # after xdist's own, which registers "dsession"
def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("dsession"):  # the xdist controller: workers inherit RUN
        config.option.testrunuid = RUN


def _run_of(pid: str) -> str | None:
    """The ``SW_TEST_RUN`` mark of a live process; None if it has none or is gone."""
    try:
        for entry in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
            if entry.startswith(b"SW_TEST_RUN="):
                return entry[len(b"SW_TEST_RUN="):].decode()
    except OSError:
        return None
    return None


def _in_scope(mark: str | None, whole_run: bool) -> bool:
    """Whether a process's mark is this process's (its own check) or this run's (the whole
    run's check, made by the xdist controller or a plain run)."""
    if mark is None:
        return False
    if whole_run:
        return mark == RUN or mark.startswith(f"{RUN}.")
    return mark == os.environ["SW_TEST_RUN"]


def _our_processes(whole_run: bool = False) -> list[str]:
    """sparkwire processes this test run started, by the mark in their environment."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if any(marker in cmdline for marker in _OURS) and _in_scope(_run_of(pid), whole_run):
            found.append(f"{pid}: {cmdline.strip()}")
    return found


def ours(segment: str, whole_run: bool = False) -> bool:
    """Whether a ``/dev/shm`` segment or directory (named ``sparkwire-PID-...`` or, as a
    worker's links, ``sparkwire-links-PID-...`` by the process that made it) is this
    process's to answer for: its maker is alive and of ours, or it is gone and
    this check covers every process that could have made it (a plain run, or the xdist
    controller at the end; an xdist worker cannot tell its dead makers from the other
    worker's)."""
    match = re.match(r"sparkwire-(?:links-)?(\d+)-", segment)
    if match is None:
        return whole_run or _XDIST_WORKER is None
    if Path(f"/proc/{match[1]}").exists():
        return _in_scope(_run_of(match[1]), whole_run)
    return whole_run or _XDIST_WORKER is None  # its process is gone: leaked


def our_segments() -> set[Path]:
    """The ``/dev/shm`` segments this process answers for (``ours``)."""
    return {p for p in Path("/dev/shm").glob("sparkwire-*") if ours(p.name)}


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


def _leftovers(whole_run: bool = False) -> dict[str, object]:
    """What remains of this process's tests (``whole_run``: of the whole run's, once no test
    runs: processes and segments only, the sockets and spill directories being per process)."""
    if whole_run:
        return {"processes": _our_processes(whole_run=True),
                "shared memory": sorted(p.name for p in Path("/dev/shm").glob("sparkwire-*")
                                        if ours(p.name, whole_run=True))}
    sweep_dirs(SPILL_PREFIX)  # what killed workers left
    spill = [p.name for p in Path(tempfile.gettempdir()).glob(f"{SPILL_PREFIX}*")
             if owner(p.name, SPILL_PREFIX) == os.getpid()]
    return {
        "processes": _our_processes(),
        "listening sockets": sorted(_listening_sockets_of_this_process()),
        "shared memory": sorted(p.name for p in our_segments()),
        "spill dirs": sorted(spill),
    }


def _settled(whole_run: bool = False) -> dict[str, object]:
    """What is still left after up to 15 s for the last closes and kills to land."""
    deadline = time.monotonic() + 15
    while (left := _leftovers(whole_run)) and any(left.values()) and time.monotonic() < deadline:
        time.sleep(0.5)
    return {what: found for what, found in left.items() if found}


@pytest.fixture(scope="session", autouse=True)
def nothing_left_behind() -> Iterator[None]:
    yield
    left = _settled()
    assert not left, f"left behind after the test suite: {left}"


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """The xdist controller, once its workers are gone, checks the whole run: a segment whose
    maker died is only attributable here."""
    if not session.config.pluginmanager.hasplugin("dsession"):
        return
    if left := _settled(whole_run=True):
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"left behind after the test suite: {left}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


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


_SPARK = Path(__file__).parent / "spark"


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """``make test`` runs two pytest-xdist workers. A module's tests stay on one (its
    module-scoped clusters are made once), and every module run against real PySpark stays
    on one: one Spark JVM. (xdist's own ``loadgroup`` cannot do this under pytest 9.2, whose
    test ids it can no longer rewrite.)"""
    from xdist.scheduler import LoadScopeScheduling

    class ByModule(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return "tests/spark" if module.startswith("tests/spark/") else module

    return ByModule(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist, the Spark modules first: their JVM starts while the other worker
    takes the rest, and their long tail is not left for the end."""
    if _XDIST_WORKER is not None:
        items.sort(key=lambda item: not item.path.is_relative_to(_SPARK))  # stable
