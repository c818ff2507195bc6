"""Directories named for the process that owns them, and the sweep of those whose owner died.

A process killed with SIGKILL removes nothing. Whatever it keeps on disk (a worker's spill
directory, the shm transport's socket directory, a cluster's credentials with its secret) is
therefore named ``<prefix><pid>-...``, and every process that makes one under a parent first
removes those there whose process no longer exists (``owned_dir``). A killed process's files
live until the next one of its kind starts, never longer.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (killed, its parent not reaped yet);
    another user's process counts as alive."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def owner(name: str, prefix: str) -> int | None:
    """The pid in a name ``owned_dir`` made with ``prefix``; None for any other name."""
    if not name.startswith(prefix):
        return None
    pid = name[len(prefix):].split("-", 1)[0]
    return int(pid) if pid.isdigit() else None


def sweep_dirs(prefix: str, parent: Path | None = None) -> None:
    """Remove the directories under ``parent`` (the temp directory by default) named with
    ``prefix`` whose process is gone."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(parent or tempfile.gettempdir()):
            pid = owner(entry.name, prefix)
            if pid is not None and entry.is_dir(follow_symlinks=False) and not alive(pid):
                shutil.rmtree(entry.path, ignore_errors=True)


def owned_dir(prefix: str, parent: Path | None = None, tag: str = "") -> Path:
    """A new private (0700) directory ``<prefix><pid>-<tag>...`` under ``parent``, once those
    of dead processes there are gone."""
    sweep_dirs(prefix, parent)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-{tag}", dir=parent))
