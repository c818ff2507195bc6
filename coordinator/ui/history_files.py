"""The history directory (``ui.history_dir``): its owner-only files, and what is read back.

Finished queries are JSON lines, each a query's whole view (``records.query_view``), in
two files: ``queries.jsonl`` is appended to; past half of either bound (``ui.history_queries``
lines, ``ui.history_bytes``) it becomes ``queries.1.jsonl`` (replacing the one before), and a
new one starts. So the files are only ever appended to or renamed, and together hold about
what the bounds allow, never more than the bounds plus one line.

Read back at start, oldest first. The directory and its files are trusted no further than
a credential file: the directory must be the driver user's own and owner-only (0700; made so
when missing), each file a regular file of its own, owner-only (0600), or the session refuses
to start with a ``ConfigError`` saying which. What is in them is not trusted at all: at most
``history_bytes`` of each file's end is read, every line is parsed as JSON (never pickle) and
validated (``QueryView``), and a line that fails is skipped with one warning per file.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictFloat, StrictInt, StrictStr, ValidationError

from sparkwire.transport.errors import ConfigError

_log = logging.getLogger(__name__)

CURRENT = "queries.jsonl"
PREVIOUS = "queries.1.jsonl"
#: ``os.open`` flags: never follow a link planted in the directory.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class StageView(_Strict):
    id: StrictInt
    kind: StrictStr
    boundary: StrictStr
    partitions: StrictInt
    tasks: StrictInt
    inputs: list[StrictInt]
    done: StrictInt
    rows: StrictInt
    bytes: StrictInt
    seconds: StrictFloat | StrictInt
    notes: list[StrictStr]


class TaskRunView(_Strict):
    stage: StrictInt
    task: StrictInt
    attempt: StrictInt
    address: StrictStr
    worker: StrictStr
    delivered: StrictFloat
    started: StrictFloat | None
    ended: StrictFloat | None
    rows: StrictInt
    bytes: StrictInt
    spill: StrictInt
    error: StrictStr | None


class EventView(_Strict):
    at: StrictFloat
    what: StrictStr
    stage: StrictInt
    task: StrictInt
    attempt: StrictInt


class EdgeView(_Strict):
    producer: StrictInt
    consumer: StrictInt
    route: StrictStr
    bytes: StrictInt


class LostView(_Strict):
    address: StrictStr
    name: StrictStr


class QueryView(_Strict):
    """One line of the history: ``records.query_view`` of a finished query, field for field."""

    id: StrictStr
    summary: StrictStr
    user: StrictStr
    tags: list[StrictStr]
    state: StrictStr
    started: StrictFloat
    ended: StrictFloat | None
    error: StrictStr | None
    stage_count: StrictInt
    tasks: StrictInt
    done: StrictInt
    reruns: StrictInt
    stages: list[StageView]
    task_runs: list[TaskRunView]
    tasks_dropped: StrictInt
    bytes_in: dict[StrictStr, StrictInt]
    events: list[EventView]
    #: Not in the lines of a driver before these were drawn: read back as none.
    edges: list[EdgeView] = []
    lost_workers: list[LostView] = []


def prepare(directory: Path) -> None:
    """Make ``directory`` (0700) when missing; refuse one that is not a directory of the
    driver user's own, owner-only, or holds history files that are not."""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.stat(directory, follow_symlinks=False)
    except OSError as exc:
        raise ConfigError(f"ui.history_dir {directory}: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise ConfigError(f"ui.history_dir {directory} is not a directory")
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise ConfigError(f"ui.history_dir {directory} must be the driver user's own and "
                          f"owner-only (chmod 700); it is {stat.filemode(info.st_mode)}")
    for name in (PREVIOUS, CURRENT):
        path = directory / name
        try:
            _check(path, os.stat(path, follow_symlinks=False))
        except FileNotFoundError:
            continue


def _check(path: Path, info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"history file {path} is not a regular file")
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise ConfigError(f"history file {path} must be the driver user's own and owner-only "
                          f"(chmod 600); it is {stat.filemode(info.st_mode)}")


def open_append(path: Path) -> int:
    """A descriptor appending to ``path``, created owner-only (0600), never through a link."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW, 0o600)
    try:
        _check(path, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_back(directory: Path, limit: int) -> list[tuple[dict[str, Any], bytes]]:
    """The finished queries in ``directory``'s files, oldest first: each as its validated
    view and its line; at most ``limit`` bytes from each file's end."""
    found: list[tuple[dict[str, Any], bytes]] = []
    for name in (PREVIOUS, CURRENT):
        found += _read(directory / name, limit)
    return found


def _read(path: Path, limit: int) -> list[tuple[dict[str, Any], bytes]]:
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return []
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        _check(path, info)
        cut = info.st_size > limit
        if cut:
            file.seek(info.st_size - limit)
        data = file.read(limit)
    lines = data.split(b"\n")
    if cut:
        lines = lines[1:]  # the first is a line's tail
    kept, bad = [], 0
    for line in lines:
        if not line.strip():
            continue
        try:
            view = QueryView.model_validate_json(line)
        except ValidationError:
            bad += 1
            continue
        kept.append((view.model_dump(), line))
    if bad:
        _log.warning("ui history: skipped %d unreadable line(s) of %s (not a query's JSON)",
                     bad, path)
    return kept
