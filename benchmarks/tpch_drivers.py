"""The parent's handle on one system's driver process (``benchmarks.tpch_serve``).

A driver runs in a session of its own with a private home directory (its working directory,
``TMPDIR`` and ``SPARK_LOCAL_DIRS``), so whatever it and its workers, JVM and DuckDB spill
is inside that directory; its stderr goes to a log whose tail is shown when it fails. A
query over the timeout, or a driver that dies, costs that query only: the whole process
tree is killed, the home directory removed, and the next request starts a fresh driver.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from benchmarks.children import ROOT, Child
from benchmarks.tpch_procs import groups, kill_groups, kill_tree
from sparkwire.transport.shm_segments import sweep

SERVE = "benchmarks.tpch_serve"
START_TIMEOUT = 300.0   # a loaded 2-CPU machine takes ~20 s to start Spark; 15x that is broken
CLOSE_TIMEOUT = 60.0    # Spark's stop() and the workers' shutdown, before we kill
MAX_STARTS = 3          # a driver that fails to start this often is given up for the run
LOG_TAIL = 12


class QueryTimeout(Exception):
    """A query ran past the timeout; its driver was killed."""


class _Process(Child):
    """A ``Child`` started in its own session, home directory and stderr log."""

    def __init__(self, label: str, args: list[str], home: Path, log: IO[bytes]) -> None:
        # Child's three fields, set here rather than through Child.__init__, whose Popen
        # shares our session, working directory and stderr.
        env = dict(os.environ, TMPDIR=str(home), SPARK_LOCAL_DIRS=str(home))
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
        self.label = label
        self._pending = b""
        self.proc = subprocess.Popen([sys.executable, "-m", SERVE, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=log, cwd=home, env=env,
                                     start_new_session=True)


class Driver:
    """System ``system``'s driver process, (re)started on demand."""

    def __init__(self, system: str, data: Path, tables: Sequence[str], workers: int,
                 scratch: Path, label: str | None = None) -> None:
        self.system = system
        #: Names this driver in messages, logs and its home directory: the system, or where
        #: one run holds several drivers of a system (``benchmarks.scaling``), more.
        self.label = label or system
        self._args = [system, "--data", str(data), "--tables", ",".join(tables),
                      "--workers", str(workers)]
        self._scratch = scratch
        self._log_path = scratch / f"{self.label}.log"
        self._log = open(self._log_path, "ab")  # noqa: SIM115 - lives as long as the driver
        self._proc: _Process | None = None
        self._home: Path | None = None
        self.starts = 0
        self.startup_s: list[float] = []
        self.start_error: str | None = None

    # -- lifecycle ------------------------------------------------------------------------

    def spawn(self) -> None:
        """Start the process without waiting for it (drivers start side by side)."""
        if self._proc is not None or self.starts >= MAX_STARTS:
            return
        self.starts += 1
        self._home = self._scratch / f"{self.label}.{self.starts}"
        self._home.mkdir()
        self._proc = _Process(self.label, self._args, self._home, self._log)

    def ready(self) -> bool:
        """Wait until the driver has registered its tables; False (with ``start_error``) if
        it failed, was given up or did not make it in ``START_TIMEOUT``."""
        if self._proc is None:
            self.spawn()
        if self._proc is None:  # given up
            if not self.start_error or not self.start_error.startswith("given up"):
                self.start_error = f"given up after {self.starts} starts; last: {self.start_error}"
            return False
        try:
            message = self._proc.recv(START_TIMEOUT)
        except Exception as exc:  # a reported error says what failed; silence needs the log
            reported = str(exc).startswith(f"{self.label}: ")
            self.start_error = f"{type(exc).__name__}: {exc}{'' if reported else self._tail()}"
            self.kill()
            return False
        self.startup_s.append(round(message["seconds"], 3))
        if self.starts > 1:
            print(f"  {self.label:<20} restarted in {self.startup_s[-1]:.1f}s", flush=True)
        return True

    def kill(self) -> None:
        """SIGKILL the whole tree now; remove the home directory and the segments of /dev/shm
        that the dead processes cannot unlink themselves."""
        proc, self._proc = self._proc, None
        if proc is not None:
            kill_tree(proc.proc.pid)
            try:
                proc.proc.wait(10.0)
            except subprocess.TimeoutExpired:
                pass
            for pipe in (proc.proc.stdin, proc.proc.stdout):
                if pipe is not None:
                    try:
                        pipe.close()
                    except OSError:
                        pass
            sweep()
        self._remove_home()

    def close(self, force: bool = False) -> None:
        """Close the stdin lifeline and let the driver stop its system, then kill what is
        left; with ``force`` (an interrupt, an error) kill at once."""
        try:
            if self._proc is not None and not force:
                proc, self._proc = self._proc, None
                leftovers = groups(proc.proc.pid)
                try:
                    proc.close(CLOSE_TIMEOUT)
                finally:
                    kill_groups(leftovers)
        finally:
            self.kill()  # after a graceful close, only removes the home directory
            self._log.close()

    def __enter__(self) -> Driver:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        self.close(force=exc_type is not None)

    def _remove_home(self) -> None:
        if self._home is not None:
            shutil.rmtree(self._home, ignore_errors=True)
            self._home = None

    # -- queries --------------------------------------------------------------------------

    def run(self, query: str, sql: str, out: Path, timeout: float) -> dict[str, Any]:
        """One timed execution of ``sql`` (the text of ``query`` for this system), its result
        written to ``out``; raises ``QueryTimeout`` or the driver's error (a dead driver is
        cleaned up first)."""
        if self._proc is None and not self.ready():
            raise RuntimeError(f"{self.label} driver not running: {self.start_error}")
        assert self._proc is not None
        try:
            self._proc.send({"query": query, "sql": sql, "out": str(out)})
            return self._proc.recv(timeout)
        except TimeoutError:
            self.kill()
            raise QueryTimeout(f"over {timeout:g}s; {self.label} driver killed") from None
        except (RuntimeError, OSError) as exc:
            if self._proc.proc.poll() is None:
                raise  # the query failed; the driver serves on
            message = f"{exc}{self._tail()}"
            self.kill()
            raise RuntimeError(message) from None

    def _tail(self) -> str:
        """The end of the driver's stderr, for an error that has no better explanation."""
        self._log.flush()
        with open(self._log_path, "rb") as log:
            log.seek(max(0, log.seek(0, os.SEEK_END) - 16384))
            lines = log.read().decode(errors="replace").splitlines()[-LOG_TAIL:]
        return "\n  stderr: ".join(["", *lines]) if lines else ""
