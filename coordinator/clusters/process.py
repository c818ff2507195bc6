"""``ProcessCluster``: N workers as local processes, for the out-of-process transports.

Each worker is ``python -m coordinator.cli worker`` (``sparkwire worker``), given the
coordinator's settings through ``SPARKWIRE_…`` env vars. It announces itself with one JSON
line on stdout (``WorkerAnnouncement``) and serves until its stdin closes: stdin is the
worker's lifeline, so workers die with the coordinator even when it is killed and cannot
clean up. Closing the cluster closes the lifelines, then terminates and finally kills any
worker that has not exited within the shutdown timeout.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

from sparkwire.coordinator.clusters.base import ClusterBase
from sparkwire.coordinator.config import Settings
from sparkwire.coordinator.clusters.hosting import WorkerAnnouncement
from sparkwire.transport.errors import SparkwireError, Timeout


def child_env(settings: Settings) -> dict[str, str]:
    """The environment that makes a child load exactly these settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARKWIRE_")}
    for name in Settings.model_fields:
        value = getattr(settings, name)
        dumped = value.model_dump(mode="json") if hasattr(value, "model_dump") else value
        env[f"SPARKWIRE_{name.upper()}"] = json.dumps(dumped) if isinstance(dumped, dict) else str(dumped)
    return env


class ProcessCluster(ClusterBase):
    """Local worker processes plus an in-process driver, all over one transport kind."""

    def __init__(self, settings: Settings, start_timeout: float = 60.0) -> None:
        super().__init__(settings)
        self._procs: list[subprocess.Popen[bytes]] = []
        self.announcements: list[WorkerAnnouncement] = []
        try:
            env = child_env(settings)
            for index in range(settings.workers):
                self._procs.append(subprocess.Popen(
                    [sys.executable, "-m", "sparkwire.coordinator.cli", "worker", "--worker-id", f"worker-{index}"],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                ))
            deadline = time.monotonic() + start_timeout
            self.announcements = [self._announcement(proc, deadline) for proc in self._procs]
            for announcement in self.announcements:
                announcement.check_versions()
        except BaseException:
            self.close()
            raise
        self.addresses = [a.address for a in self.announcements]
        self.names.update((a.address, a.worker_id) for a in self.announcements)

    def _announcement(self, proc: subprocess.Popen[bytes], deadline: float) -> WorkerAnnouncement:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise Timeout(f"worker process {proc.pid} did not announce itself in time")
        line = proc.stdout.readline()
        if not line:
            code = proc.wait(self.settings.timeouts.shutdown)
            raise SparkwireError(f"worker process {proc.pid} exited with code {code} before serving")
        try:
            return WorkerAnnouncement.model_validate_json(line)
        except ValueError as exc:
            raise SparkwireError(f"worker process {proc.pid} announced garbage: {exc}") from None

    def alive(self) -> list[bool]:
        """Whether each worker process still runs."""
        return [proc.poll() is None for proc in self._procs]

    def _stop_workers(self) -> None:
        for proc in self._procs:
            if proc.stdin is not None:
                try:
                    proc.stdin.close()  # the lifeline: the worker shuts down cleanly
                except OSError:
                    pass
        deadline = time.monotonic() + self.settings.timeouts.shutdown
        for proc in self._procs:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(2.0)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(2.0)
            if proc.stdout is not None:
                proc.stdout.close()

