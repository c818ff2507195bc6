"""``History``: one thread that turns each finished query into its JSON, off the query path.

A query's last call into the recorder (``Recorder.query_ended``) only appends its finished
record to a bounded queue, which the thread takes every ``TICK``; then, for each:

- **compacts** it: the record (a few dozen small objects, every one tracked by the garbage
  collector) is swapped for its view as one JSON ``bytes`` and its list row
  (``Recorder.compact``): fewer, untracked objects, which a full collection need not walk,
  and the line the history file needs anyway;
- **writes** that JSON as a line to the history directory when ``ui.history_dir`` is set
  (``history_files``: owner-only files, rotated within the recorder's bounds).

If the queue is full (this thread far behind), a query stays a record in memory (still
within the byte bound, by its estimate) and is not written; ``history_skipped`` counts it.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from pathlib import Path

from sparkwire.coordinator.config import UiSettings
from sparkwire.coordinator.ui import history_files
from sparkwire.coordinator.ui.recorder import Recorder
from sparkwire.coordinator.ui.records import QueryRecord

_log = logging.getLogger(__name__)

#: Finished queries waiting for this thread, at most.
QUEUE = 1024
#: How often the thread takes what is queued, rather than being woken by each query's end
#: (a futex wake and a GIL hand-off while the query still streams its result).
TICK = 0.2
#: How long ``close`` waits for the thread to take the rest and end.
CLOSE_TIMEOUT = 5.0


class History:
    """The history thread of one recorder; reads the directory back when it starts."""

    def __init__(self, settings: UiSettings, recorder: Recorder) -> None:
        self._recorder = recorder
        self._dir = settings.history_dir
        self._max_lines = max(1, settings.history_queries // 2)
        self._max_bytes = max(1, int(settings.history_bytes) // 2)
        self._pending: deque[QueryRecord] = deque()
        self._stop = threading.Event()
        self._fd: int | None = None
        self._lines = self._bytes = 0
        if self._dir is not None:
            history_files.prepare(self._dir)
            recorder.load(history_files.read_back(self._dir, int(settings.history_bytes)))
            self._open()
        recorder.finished = self._finished
        self._thread = threading.Thread(target=self._run, name="sparkwire-ui-history", daemon=True)
        self._thread.start()

    def _finished(self, record: QueryRecord) -> None:
        """``Recorder.finished``: on the query's thread; an append (atomic), no lock, no
        thread woken."""
        if len(self._pending) < QUEUE:
            self._pending.append(record)
        else:
            self._recorder.totals["history_skipped"] += 1

    def _run(self) -> None:
        while not self._stop.wait(TICK):
            self._drain()
        self._drain()

    def _drain(self) -> None:
        while self._pending:
            record = self._pending.popleft()
            try:
                line = self._recorder.compact(record)
                if self._fd is not None:
                    self._write(line)
            except Exception:  # noqa: BLE001 - a full disk must not end the thread; logged
                _log.exception("ui history: query %s not written", record.id)

    def _open(self) -> None:
        assert self._dir is not None
        path = self._dir / history_files.CURRENT
        self._fd = history_files.open_append(path)
        size = os.fstat(self._fd).st_size
        self._bytes = size
        self._lines = _count_lines(path) if size else 0

    def _write(self, line: bytes) -> None:
        """Append ``line``; past half a bound, the file becomes the previous one."""
        assert self._fd is not None and self._dir is not None
        if self._lines and (self._lines >= self._max_lines
                            or self._bytes + len(line) > self._max_bytes):
            os.close(self._fd)
            self._fd = None
            os.replace(self._dir / history_files.CURRENT, self._dir / history_files.PREVIOUS)
            self._open()
        fd = self._fd
        assert fd is not None
        os.write(fd, line + b"\n")
        self._lines += 1
        self._bytes += len(line) + 1

    def close(self) -> None:
        """Write what is queued (waiting ``CLOSE_TIMEOUT`` at most), end the thread, close
        the file; idempotent."""
        self._stop.set()
        self._thread.join(CLOSE_TIMEOUT)
        if self._thread.is_alive():
            _log.warning("ui history: the writer is stuck; queries still queued are lost")
        if self._fd is not None and not self._thread.is_alive():
            os.close(self._fd)
            self._fd = None


def _count_lines(path: Path) -> int:
    """Lines in ``path``, read in chunks (one long line is not held whole)."""
    with open(path, "rb") as file:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: file.read(1 << 16), b""))
