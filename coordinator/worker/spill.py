"""A worker's private spill directory.

Each worker spills (partitions, DuckDB's temporary files) under a directory of its own named
``SPILL_PREFIX + "<pid>-<worker id>-<random>"``: a killed process cannot remove it, so the
next worker to start under the same parent removes every one whose process is gone
(``transport.owned``).
"""

from __future__ import annotations

from pathlib import Path

from sparkwire.transport.owned import owned_dir

SPILL_PREFIX = "sparkwire-spill-"


def new_spill_dir(parent: Path, worker_id: str) -> Path:
    """A new private spill directory under ``parent``, once the orphans there are gone."""
    return owned_dir(SPILL_PREFIX, parent, f"{worker_id}-")
