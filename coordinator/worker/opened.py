"""A task's input files, opened once and checked on the open descriptor, so that DuckDB
reads exactly what was checked.

A plan's files are checked when it arrives (``files.check_files``), but the task may start
much later, and DuckDB would then open each *path* again: a file swapped meanwhile (for a
FIFO, whose ``open`` blocks a slot for good; for a symlink out of the data roots; for another
file) reached DuckDB. So as the task starts, each file is opened here: its directory
resolved (once per directory), then the file opened with ``O_NOFOLLOW`` (a file that is a
symlink is resolved in full and its target opened so), ``O_NONBLOCK`` (a FIFO does not block
the open) and ``O_CLOEXEC``; the open descriptor must be a regular file (``fstat``) whose own
path (``/proc/self/fd/N``) lies under the data roots, whatever happened to the path's
directories or links in between.

DuckDB is handed ``/proc/self/fd/N``: on Linux opening it reopens the descriptor's inode,
never a path, so nothing done to the directory tree afterwards reaches DuckDB (its
``allowed_directories`` resolves the link to the file's real path and still confines it).
Hive partitioning reads ``k=v`` directories from the path DuckDB is given, which
``/proc/self/fd/N`` lacks; for a partitioned scan DuckDB gets a symlink to
``/proc/self/fd/N`` under the ``k=v`` directories the plan named, made in a private
directory of the task's own (``hive_path``): DuckDB parses, types and prunes the partitions
exactly as from the plan's path, and opens the checked descriptor. The links live on tmpfs
where there is one (``links_dir``): on a busy disk each symlink cost a journal write, 0.4 to
2 ms, where on ``/dev/shm`` 200 took 1 ms.

The descriptors stay open while the task's query runs and are closed with it. A task may
hold only so many (``files_per_task``): its worker's slots together stay within the
process's open-file limit, raised to its hard limit when the worker starts.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import resource
import shutil
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from sparkwire.coordinator.worker.files import within
from sparkwire.transport.closing import Closeable
from sparkwire.transport.errors import PlanRejected
from sparkwire.transport.owned import owned_dir

__all__ = [
    "MAX_TASK_FILES", "OpenedFiles", "files_per_task", "links_dir", "raise_open_files_limit",
]

#: Files one task may read, whatever the open-file limit: far above what a task reads
#: (a scan is cut into tasks of similar size), far below what exhausts a worker.
MAX_TASK_FILES = 10_000
#: Descriptors left to everything else (sockets, spill files, DuckDB's own files).
RESERVED_DESCRIPTORS = 512
#: The soft open-file limit a worker raises itself to, at most (the hard limit may be huge).
WANTED_OPEN_FILES = 1 << 16
#: Where the links of partitioned scans go when it is a directory (tmpfs: links cost no disk
#: writes); else beside DuckDB's temporary files.
LINKS_PARENT = Path("/dev/shm")
LINKS_PREFIX = "sparkwire-links-"


def links_dir(fallback: Path) -> Path:
    """A new private directory for a database's tasks' links (``OpenedFiles.hive_path``):
    named for this process under ``LINKS_PARENT``, so that one left by a killed worker is
    swept by the next (``transport.owned``); under ``fallback`` where that cannot be."""
    if LINKS_PARENT.is_dir() and os.access(LINKS_PARENT, os.W_OK | os.X_OK):
        with contextlib.suppress(OSError):
            return owned_dir(LINKS_PREFIX, LINKS_PARENT)
    return Path(tempfile.mkdtemp(prefix=LINKS_PREFIX, dir=fallback))


def raise_open_files_limit() -> None:
    """Raise this process's soft open-file limit towards its hard one (at most
    ``WANTED_OPEN_FILES``): the default soft limit (often 1,024) over a worker's slots would
    leave a task few files (``files_per_task``). Left as it is where that is not allowed."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = WANTED_OPEN_FILES if hard == resource.RLIM_INFINITY else min(hard, WANTED_OPEN_FILES)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def files_per_task(slots: int) -> int:
    """How many files a task of a worker with ``slots`` slots may hold open at once."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_TASK_FILES
    return max(1, min(MAX_TASK_FILES, (int(soft) - RESERVED_DESCRIPTORS) // max(slots, 1)))


class OpenedFiles(Closeable):
    """``files`` opened and checked (the module's rule), or ``PlanRejected`` naming the first
    that fails, with nothing left open. ``farm_parent()`` gives the directory (its database's,
    made on first use) that holds the private directory of links partitioned scans read
    (``hive_path``). Closing twice is safe."""

    def __init__(self, files: Sequence[str], roots: Sequence[Path], farm_parent: Callable[[], Path]) -> None:
        self._fds: dict[str, int] = {}
        self._farm_parent = farm_parent
        self._farm: str | None = None
        self._links: dict[str, str] = {}
        self._folders: dict[str, set[str]] = {}  # the farm's directories, their links
        real_roots = [os.path.realpath(root) for root in roots]
        directories: dict[str, str] = {}
        try:
            for name in files:
                if name not in self._fds:
                    self._fds[name] = _open_checked(name, real_roots, directories)
        except BaseException:
            self.close()
            raise

    def path(self, name: str) -> str:
        """What DuckDB opens for ``name``: its checked descriptor."""
        return f"/proc/self/fd/{self._fds[name]}"

    def hive_path(self, name: str) -> str:
        """A path ending in ``name``'s ``k=v`` directories and file name, a symlink to its
        checked descriptor, in a directory only this worker can write. Files of one
        partition share its directories (a link and no directory per file: on a busy disk
        each costs a journal write)."""
        link = self._links.get(name)
        if link is None:
            if self._farm is None:
                self._farm = tempfile.mkdtemp(prefix="sparkwire-files-", dir=self._farm_parent())
            directory, base = os.path.split(name)
            # only the k=v parts: no "..", and nothing else a partition could be read from
            parts = [part for part in directory.split("/") if "=" in part]
            folder = os.path.join(self._farm, *parts)
            if folder not in self._folders:
                os.makedirs(folder, exist_ok=True)
                self._folders[folder] = set()
            if base in self._folders[folder]:  # a namesake from another directory
                folder = os.path.join(self._farm, str(len(self._links)), *parts)
                os.makedirs(folder)
            self._folders.setdefault(folder, set()).add(base)
            link = os.path.join(folder, base)
            os.symlink(self.path(name), link)
            self._links[name] = link
        return link

    def named(self, message: str) -> str:
        """``message`` with each path handed to DuckDB back to the file the plan named, so
        that an error names what the caller knows (``disclosure.redact``)."""
        for name, link in sorted(self._links.items(), key=lambda item: -len(item[1])):
            message = message.replace(link, name)  # the longest first: none is cut short
        names = {fd: name for name, fd in self._fds.items()}
        return _DESCRIPTOR.sub(lambda m: names.get(int(m[1]), m[0]), message)

    def close(self) -> None:
        fds, self._fds = self._fds, {}
        for fd in fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        if self._farm is not None:
            shutil.rmtree(self._farm, ignore_errors=True)
            self._farm = None


def _open_checked(name: str, real_roots: Sequence[str], directories: dict[str, str]) -> int:
    """A descriptor of ``name`` opened without following a symlink or blocking, checked to
    be a regular file under ``real_roots`` (when there are any) on the descriptor itself.
    A plan's files share a few directories, each resolved once (``directories``); a file
    that is itself a symlink is resolved in full."""
    if not os.path.isabs(name):
        raise PlanRejected(f"file paths must be absolute: {name!r}")
    parent, base = os.path.split(name)
    try:
        if base in ("", ".", ".."):
            raise IsADirectoryError  # resolved in full below
        if (real_parent := directories.get(parent)) is None:
            real_parent = directories[parent] = os.path.realpath(parent)
        fd = os.open(os.path.join(real_parent, base), _OPEN)
    except OSError as exc:
        if not isinstance(exc, IsADirectoryError) and exc.errno != errno.ELOOP:
            raise PlanRejected(f"cannot read {name!r}: {exc.strerror}") from None
        try:  # a link the plan named (or a name ending in a dot): its target, not followed
            fd = os.open(os.path.realpath(name), _OPEN)
        except OSError as again:
            raise PlanRejected(f"cannot read {name!r}: {again.strerror}") from None
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
        where = os.readlink(f"/proc/self/fd/{fd}")
        if real_roots and not any(within(where, root) for root in real_roots):
            raise PlanRejected(f"{name!r} is outside the worker's data roots")
        if not regular:
            raise PlanRejected(f"{name!r} is not a regular file (any more)")
    except BaseException:
        os.close(fd)
        raise
    return fd


_DESCRIPTOR = re.compile(r"/proc/self/fd/(\d+)")
#: Opening an input file: never through a symlink at its end, never blocking, never inherited.
_OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
