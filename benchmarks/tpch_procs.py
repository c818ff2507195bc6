"""The process tree of one TPC-H benchmark driver, read from ``/proc``: who is in it, what
each process is (driver, sparkwire worker, Spark's JVM, PySpark's daemon and workers), its
peak resident memory, the CPU time it has spent, and how to kill all of it.

A system's memory is not one process's: ``sparkwire-zmq`` is a driver plus worker processes,
Spark a Python driver plus a JVM plus forked Python workers. The tree is found by ``ppid``
links, not process groups, because PySpark's daemon moves itself into a group of its own.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections import Counter
from pathlib import Path

PROC = Path("/proc")


#: Clock ticks per second, the unit of the times in ``/proc/PID/stat``.
TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name, so ``[0]`` is the state
    (``proc(5)``'s field 3) and field N is ``[N - 3]``; None once the process is gone."""
    try:  # the command name in parentheses may itself hold spaces and parentheses
        return (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _ppid(pid: int) -> int | None:
    fields = _stat(pid)
    try:
        return int(fields[1]) if fields else None
    except (IndexError, ValueError):
        return None


def tree(root: int) -> list[int]:
    """``root`` and every live descendant, parents before children."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (parent := _ppid(int(entry.name))) is not None:
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop(0)
        found.append(pid)
        todo += sorted(children.get(pid, []))
    return found


def _argv(pid: int) -> list[str]:
    try:
        return (PROC / str(pid) / "cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def _role(pid: int, root: int) -> str:
    """A short description of what ``pid`` is, stable across runs so peaks can be compared."""
    if pid == root:
        return "driver"
    argv = _argv(pid)
    worker = {"sparkwire.coordinator.clusters.serve", "sparkwire.coordinator.cli"} & set(argv)
    if worker and "--worker-id" in argv[:-1]:
        return f"{argv[argv.index('--worker-id') + 1]} (python)"
    if argv and Path(argv[0]).name == "java":
        return "java"
    if "pyspark.daemon" in argv:  # the daemon forks the workers: they share its command line
        forked = "pyspark.daemon" in _argv(_ppid(pid) or 0)
        return "pyspark worker" if forked else "pyspark daemon"
    return Path(argv[0]).name if argv and argv[0] else f"pid {pid}"


def labelled_tree(root: int) -> dict[str, int]:
    """``{label: pid}`` for the tree of ``root``; a repeated role is numbered (``pyspark
    worker 2``) in tree order, siblings by pid."""
    seen: Counter[str] = Counter()
    labels = {}
    for pid in tree(root):
        role = _role(pid, root)
        seen[role] += 1
        labels[role if seen[role] == 1 else f"{role} {seen[role]}"] = pid
    return labels


def _status_kib(pid: int, field: str) -> int | None:
    try:
        for line in (PROC / str(pid) / "status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def reset_peaks(root: int) -> bool:
    """Reset ``VmHWM`` to the current RSS in the whole tree, so the next reading is the peak
    of what runs in between (one query) rather than of the process's life; False where the
    kernel refuses (then peaks are lifetime peaks)."""
    exact = True
    for pid in tree(root):
        try:
            (PROC / str(pid) / "clear_refs").write_text("5")
        except OSError:
            exact = False
    return exact


def peak_rss_mib(root: int) -> dict[str, float]:
    """``{label: VmHWM in MiB}`` for the tree of ``root`` (processes gone meanwhile are left
    out)."""
    peaks = {}
    for label, pid in labelled_tree(root).items():
        if (kib := _status_kib(pid, "VmHWM")) is not None:
            peaks[label] = round(kib / 1024, 1)
    return peaks


def cpu_seconds(root: int) -> float:
    """User and system CPU seconds spent so far by ``root``'s tree, every thread included.

    Each live process counts its own time and the time of its children it has reaped
    (``cutime``, ``cstime``), so the difference of two readings holds a worker that exited
    in between, once: before it is reaped its own time counts, after it its parent's share.
    A process whose parent left the tree before reaping it, and so was reaped outside it,
    is lost; a benchmark's drivers wait for their workers."""
    ticks = 0
    for pid in tree(root):
        fields = _stat(pid)
        try:  # utime, stime, cutime, cstime: proc(5)'s fields 14 to 17
            ticks += sum(int(v) for v in fields[11:15]) if fields else 0
        except ValueError:
            pass
    return ticks / TICKS


def groups(root: int) -> set[int]:
    """The process groups of ``root``'s tree, never our own. Taken before a driver is closed,
    they reach what is left of its tree after the driver is gone and its children are
    re-parented away from it."""
    found = set()
    for pid in tree(root):
        with contextlib.suppress(OSError):
            found.add(os.getpgid(pid))
    return found - {os.getpgrp()}


def kill_groups(pgids: set[int]) -> None:
    for pgid in pgids:
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)


def kill_tree(root: int) -> None:
    """SIGKILL ``root``'s tree: every process, and every process group they are in (which
    catches a worker PySpark's daemon forks while we are killing)."""
    pids = tree(root)
    kill_groups(groups(root))
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
