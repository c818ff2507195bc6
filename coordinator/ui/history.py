"""``History``: one thread that turns each finished query into its JSON, off the query path.

A query's last call into the recorder (``Recorder.query_ended``) only hands its finished
record to a bounded queue. This thread then does, for each:

- **compacts** it: the record (a few dozen small objects, every one tracked by the garbage
  collector) is swapped for its view as one JSON ``bytes`` and its list row
  (``Recorder.compact``). Kept as records, thousands of finished queries made every full
  collection walk them all, and the tiny query paid for it: 0.8 ms a query with 1,500 kept,
  measured (``benchmarks.ui_overhead``);
- **writes** that JSON as a line to the history directory when ``ui.history_dir`` is set
  (``history_files``: owner-only files, rotated within the recorder's bounds).

If the queue is full (this thread far behind), a query stays a record in memory (still
within the byte bound, by its estimate) and is not written; ``history_skipped`` counts it.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from pathlib import Path

from sparkwire.coordinator.config import UiSettings
from sparkwire.coordinator.ui import history_files
from sparkwire.coordinator.ui.recorder import Recorder
from sparkwire.coordinator.ui.records import QueryRecord

_log = logging.getLogger(__name__)

#: Finished queries waiting for this thread, at most.
QUEUE = 1024
#: How long ``close`` waits for the queue to drain and the thread to end.
CLOSE_TIMEOUT = 5.0


class History:
    """The history thread of one recorder; reads the directory back when it starts."""

    def __init__(self, settings: UiSettings, recorder: Recorder) -> None:
        self._recorder = recorder
        self._dir = settings.history_dir
        self._max_lines = max(1, settings.history_queries // 2)
        self._max_bytes = max(1, int(settings.history_bytes) // 2)
        self._queue: queue.Queue[QueryRecord | None] = queue.Queue(QUEUE)
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
        """``Recorder.finished``: on the query's thread, never waits."""
        try:
            self._queue.put_nowait(record)
        except queue.Full:
            self._recorder.totals["history_skipped"] += 1

    def _run(self) -> None:
        while (record := self._queue.get()) is not None:
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
        if self._thread.is_alive():
            try:
                self._queue.put(None, timeout=CLOSE_TIMEOUT)
            except queue.Full:
                _log.warning("ui history: the writer is stuck; queries still queued are lost")
            self._thread.join(CLOSE_TIMEOUT)
        if self._fd is not None and not self._thread.is_alive():
            os.close(self._fd)
            self._fd = None


def _count_lines(path: Path) -> int:
    """Lines in ``path``, read in chunks (one long line is not held whole)."""
    with open(path, "rb") as file:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: file.read(1 << 16), b""))
