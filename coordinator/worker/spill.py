"""A worker's private spill directory, and the sweep of those killed workers left behind.

Each worker spills (partitions, DuckDB's temporary files) under a directory of its own named
``SPILL_PREFIX + "<pid>-<worker id>-<random>"``: a killed process cannot remove it, so the
next worker to start under the same parent removes every one whose process is gone.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

SPILL_PREFIX = "sparkwire-spill-"


def new_spill_dir(parent: Path, worker_id: str) -> Path:
    """A new private spill directory under ``parent``, once the orphans there are gone."""
    sweep_orphaned_spill_dirs(parent)
    return Path(tempfile.mkdtemp(prefix=f"{SPILL_PREFIX}{os.getpid()}-{worker_id}-", dir=parent))


def spill_dir_owner(path: Path) -> int | None:
    """The pid in a spill directory's name, or None if it is not one of ours."""
    if not path.name.startswith(SPILL_PREFIX):
        return None
    pid = path.name[len(SPILL_PREFIX):].split("-", 1)[0]
    return int(pid) if pid.isdigit() else None


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def sweep_orphaned_spill_dirs(parent: Path) -> None:
    """Remove spill directories whose process is gone (killed workers cannot clean up)."""
    for path in parent.glob(f"{SPILL_PREFIX}*"):
        owner = spill_dir_owner(path)
        if owner is not None and not pid_alive(owner):
            shutil.rmtree(path, ignore_errors=True)
