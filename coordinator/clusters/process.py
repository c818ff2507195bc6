"""``ProcessCluster``: N workers as local processes, for the out-of-process transports.

Each worker is ``python -m sparkwire.coordinator.clusters.serve`` (as ``sparkwire worker``,
without the command line's imports), given the coordinator's settings through
``SPARKWIRE_…`` env vars. It announces itself with one JSON
line on stdout (``WorkerAnnouncement``) and serves until its stdin closes: stdin is the
worker's lifeline, so workers die with the coordinator even when it is killed and cannot
clean up. A worker process found dead when a query starts is restarted under its worker id
(``ensure_workers``), so one lost worker does not fail every later query. Closing the
cluster closes the lifelines, then terminates and finally kills any worker that has not
exited within the shutdown timeout.

Where each worker runs is a ``Placement``: by default this machine, on the transport's
default interface; given placements, worker ``i`` is started through placement ``i``'s
launcher command and serves on its interface, so a cluster can span anything a command can
enter (another network namespace, a container, a machine behind a remote-exec wrapper) as long
as the coordinator reaches the interface and the worker reads the same credential files.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from sparkwire.coordinator.clusters.base import ClusterBase
from sparkwire.coordinator.config import Settings
from sparkwire.coordinator.clusters.hosting import WorkerAnnouncement
from sparkwire.transport.errors import ConfigError, SparkwireError, Timeout


def child_env(settings: Settings) -> dict[str, str]:
    """The environment that makes a child load exactly these settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARKWIRE_")}
    for name in Settings.model_fields:
        value = getattr(settings, name)
        dumped = value.model_dump(mode="json") if hasattr(value, "model_dump") else value
        env[f"SPARKWIRE_{name.upper()}"] = json.dumps(dumped) if isinstance(dumped, dict) else str(dumped)
    return env


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one worker process runs, and the interface it serves on.

    ``launcher``: argv put before the worker's own command line; it must ``exec`` the command
    it is given (as ``nsenter``, ``chroot`` or ``env`` do), so that the process the cluster
    watches, signals and holds the lifeline of is the worker itself. ``host``: the interface
    the worker serves on, port chosen by the OS (``sparkwire worker --host``); None: the
    transport's default (``transport.options.host``).
    """

    launcher: tuple[str, ...] = ()
    host: str | None = None


class ProcessCluster(ClusterBase):
    """Worker processes plus an in-process driver, all over one transport kind.

    ``placements``: one per worker, where it runs (``Placement``); empty: every worker on this
    machine with the transport's defaults. Workers on another interface reach the driver at
    ``transport.options.host``, so set that to an address they can reach too.
    """

    def __init__(self, settings: Settings, start_timeout: float = 60.0,
                 placements: Sequence[Placement] = ()) -> None:
        if placements and len(placements) != settings.workers:
            raise ConfigError(f"{len(placements)} placements for {settings.workers} workers: "
                              "give one per worker, or none")
        self._placements = tuple(placements) or (Placement(),) * settings.workers
        self.on_this_host = not placements  # placed workers may run anywhere a launcher reaches
        super().__init__(settings, share_credentials=True)
        settings = self.settings  # its credentials are files now, which the workers read
        self._procs: list[subprocess.Popen[bytes]] = []
        self.announcements: list[WorkerAnnouncement] = []
        self._start_timeout = start_timeout
        self._replacing = threading.Lock()
        self._restarted = 0
        try:
            for index in range(settings.workers):
                self._procs.append(self._spawn(index))
            deadline = time.monotonic() + start_timeout
            self.announcements = [self._announcement(proc, deadline) for proc in self._procs]
            for announcement in self.announcements:
                announcement.check_versions()
        except BaseException:
            self.close()
            raise
        self.addresses = [a.address for a in self.announcements]
        self.names.update((a.address, a.worker_id) for a in self.announcements)

    def _spawn(self, index: int) -> subprocess.Popen[bytes]:
        placement = self._placements[index]
        interface = ["--host", placement.host] if placement.host is not None else []
        return subprocess.Popen(
            [*placement.launcher, sys.executable, "-m", "sparkwire.coordinator.clusters.serve",
             "--worker-id", f"worker-{index}", *interface],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=child_env(self.settings),
        )

    def ensure_workers(self) -> None:
        """Restart every worker process that has exited, under its old worker id, so a
        query after a worker's death runs on a full cluster instead of failing on it."""
        with self._replacing:
            if self._closed:  # its workers are stopping, its credentials going: none anew
                return
            for index, proc in enumerate(self._procs):
                if proc.poll() is None:
                    continue
                self._replace(index, proc)

    def _replace(self, index: int, proc: subprocess.Popen[bytes]) -> None:
        """Worker ``index`` anew: its process, announcement, address and name."""
        self._reap(proc)
        old = self.addresses[index]
        self._procs[index] = fresh = self._spawn(index)  # in the list at once: close() stops it
        announcement = self._announcement(fresh, time.monotonic() + self._start_timeout)
        announcement.check_versions()
        self.announcements[index] = announcement
        self.addresses[index] = announcement.address
        self.names.pop(old, None)
        self.names[announcement.address] = announcement.worker_id
        self._forget_client(old)
        self._restarted += 1

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

    def losses(self) -> int:
        """Workers restarted so far plus those dead now."""
        return self._restarted + len(self.dead())

    def dead(self) -> list[str]:
        """Workers whose process has exited (until ``ensure_workers`` restarts them)."""
        return [address for address, proc in zip(self.addresses, self._procs, strict=True)
                if proc.poll() is not None]

    def alive(self) -> list[bool]:
        """Whether each worker process still runs."""
        return [proc.poll() is None for proc in self._procs]

    def _stop_workers(self) -> None:
        with self._replacing:  # a replacement being started is in the list once this returns
            pass
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
            self._reap(proc)

    @staticmethod
    def _reap(proc: subprocess.Popen[bytes]) -> None:
        """Release the pipes of a process that has exited."""
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass

