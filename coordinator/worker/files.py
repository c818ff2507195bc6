"""Which files a task may read, and where it may write, checked when its plan arrives,
before anything opens them (a write directory again once it is made, ``worker.writer``).

A plan names files by path, and a plan is untrusted. A path must be absolute and, once
every symlink is resolved, lie under one of the worker's data roots when it has any
(``worker.engine.data_roots``), and name a regular file: a FIFO would block the reading
slot forever, a device could be endless. Outside the roots the answer is the same whether
the file exists or not, so a refusal tells a caller nothing about the worker's disk.
DuckDB's ``allowed_directories`` confines its reads again (``engine``; it resolves
symlinks, so a link swapped in later that leads out of the roots is refused there too).

A task may wait in the queue long after its plan was checked, and a file may be swapped
meanwhile (for a FIFO, whose ``open`` would block the reading slot for good; for a symlink
out of the roots; for another file). So as the task starts, its files are opened once and
checked again on the open descriptors, and DuckDB reads those descriptors, never the paths
(``opened``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from sparkwire.transport.errors import PlanRejected

__all__ = ["check_files", "check_output_directory", "within"]


def check_files(files: Sequence[str], roots: Sequence[Path], most: int | None = None) -> None:
    """Raise ``PlanRejected`` for the first file the task may not read, or when there are
    more than ``most`` (what a task may hold open: ``opened.files_per_task``).

    A plan's files share a few directories, so each directory is resolved once per call
    and each file costs one ``lstat``, not one per path component: an 8-file plan is
    checked in 62 instead of 164 us."""
    if most is not None and len(files) > most:
        raise PlanRejected(f"the task reads {len(files)} files; a task may hold at most {most} "
                           "open (the worker's open-file limit over its slots)")
    real_roots = [os.path.realpath(root) for root in roots]
    directories: dict[str, str] = {}
    for name in files:
        if not os.path.isabs(name):
            raise PlanRejected(f"file paths must be absolute: {name!r}")
        real, mode = _resolve(name, directories)
        if real_roots and not any(within(real, root) for root in real_roots):
            raise PlanRejected(f"{name!r} is outside the worker's data roots")
        if isinstance(mode, OSError):
            raise PlanRejected(f"cannot read {name!r}: {mode.strerror}")
        if not stat.S_ISREG(mode):
            raise PlanRejected(f"{name!r} is not a regular file")


def _resolve(name: str, directories: dict[str, str]) -> tuple[str, int | OSError]:
    """``name`` with every symlink resolved, and the mode of what it names (or why not).
    The directory part is resolved once per ``directories``; a file that is itself a
    symlink (or a name ending in ``.``/``..``) is resolved in full."""
    parent, base = os.path.split(name)
    if base not in ("", ".", ".."):
        if (real_parent := directories.get(parent)) is None:
            real_parent = directories[parent] = os.path.realpath(parent)
        real = os.path.join(real_parent, base)
        try:
            mode = os.lstat(real).st_mode
        except OSError as exc:
            return real, exc
        if not stat.S_ISLNK(mode):
            return real, mode
    real = os.path.realpath(name)
    try:
        return real, os.stat(real).st_mode
    except OSError as exc:
        return real, exc


def check_output_directory(directory: str, roots: Sequence[Path]) -> None:
    """Raise ``PlanRejected`` unless the task may write files into ``directory``: an
    absolute path that, with every symlink of its existing part resolved, lies under a data
    root when the worker has any, and is a directory if it exists. The refusal is the same
    whether anything exists there or not."""
    if not os.path.isabs(directory):
        raise PlanRejected(f"output directories must be absolute: {directory!r}")
    real = os.path.realpath(directory)
    real_roots = [os.path.realpath(root) for root in roots]
    if real_roots and not any(within(real, root) for root in real_roots):
        raise PlanRejected(f"{directory!r} is outside the worker's data roots")
    if os.path.exists(real) and not os.path.isdir(real):
        raise PlanRejected(f"{directory!r} is not a directory")


def within(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or lies under it (both resolved already)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
