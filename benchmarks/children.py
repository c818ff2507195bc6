"""Both ends of the JSON-lines pipe between the benchmark and its child processes.

Parent side: ``Child`` (one ``python -m MODULE`` process, bounded waits) and ``Children``
(the children of one measurement scope, closed together and killed by a watchdog, which turns
a stuck read into an error instead of a hung run). Child side: ``say``, ``commands`` and
``wait_for_eof``. Every child has a stdin lifeline: it exits when its stdin closes, so it
never outlives the benchmark even when the benchmark is killed.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MAX_COMMAND_BYTES = 4096
LINE_TIMEOUT = 600.0            # a child waits at most this long for its next command


# -- parent side ----------------------------------------------------------------------------

class Child:
    """A ``python -m MODULE`` process spoken to in JSON lines, with bounded waits."""

    def __init__(self, label: str, module: str, args: list[str]) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
        self.label = label
        self.proc = subprocess.Popen([sys.executable, "-m", module, *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT, env=env)
        self._pending = b""

    def recv(self, timeout: float) -> dict[str, Any]:
        """The child's next message; raises on silence, exit or a reported ``error``."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"{self.label} (pid {self.proc.pid}) said nothing in {timeout:g}s")
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    try:
                        code: int | None = self.proc.wait(2.0)
                    except subprocess.TimeoutExpired:
                        code = None
                    raise RuntimeError(f"{self.label} (pid {self.proc.pid}) exited"
                                       f"{'' if code is None else f' with code {code}'}; see its stderr")
                self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        message = json.loads(line)
        if message.get("error"):
            raise RuntimeError(f"{self.label}: {message['error']}")
        return message

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()

    def close(self, timeout: float = 10.0) -> None:
        """Close the lifeline, then terminate, then kill; always reaps the process."""
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(3.0)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(3.0)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


class Children:
    """The ``python -m MODULE`` children of one measurement scope, closed together with
    ``stack``, killed by the watchdog if the scope runs past ``deadline`` seconds."""

    def __init__(self, stack: ExitStack, module: str, deadline: float, label: str) -> None:
        self._module = module
        self._children: list[Child] = []
        self._lock = threading.Lock()
        self.expired = False
        # Scratch space of the children (spill dirs) is ours to remove, even if they were killed.
        self.scratch = tempfile.mkdtemp(prefix="sparkwire-bench-")
        stack.callback(shutil.rmtree, self.scratch, True)
        stack.callback(self._close_all)
        self._timer = threading.Timer(deadline, self._expire, args=(label, deadline))
        self._timer.daemon = True
        self._timer.start()
        stack.callback(self._timer.cancel)

    def start(self, label: str, args: list[str]) -> Child:
        child = Child(label, self._module, args)
        with self._lock:
            self._children.append(child)
            if self.expired:
                child.kill()
        return child

    def _expire(self, label: str, deadline: float) -> None:
        print(f"  !! {label} ran over {deadline:g}s: killing its processes", flush=True)
        with self._lock:
            self.expired = True
            for child in self._children:
                child.kill()

    def _close_all(self) -> None:
        with self._lock:
            children, self._children = self._children, []
        for child in children:
            child.close()


# -- child side -----------------------------------------------------------------------------

def as_child() -> None:
    """Ignore Ctrl-C in a child: the parent cleans up, and an interrupt is its business."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def say(message: dict[str, Any]) -> None:
    """One JSON line to the parent."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def commands() -> Iterator[dict[str, Any]]:
    """JSON objects from stdin, one per line, until EOF (the parent is done or gone)."""
    fd = sys.stdin.fileno()
    pending = b""
    while True:
        while b"\n" not in pending:
            if len(pending) > MAX_COMMAND_BYTES:
                raise ValueError("command line too long")
            ready, _, _ = select.select([fd], [], [], LINE_TIMEOUT)
            if not ready:
                raise TimeoutError(f"no command from the benchmark within {LINE_TIMEOUT:g}s")
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        message = json.loads(line)
        if not isinstance(message, dict):
            raise ValueError("a command must be a JSON object")
        yield message


def wait_for_eof() -> None:
    """Block until the parent closes our stdin: the lifeline of a child that only serves."""
    while os.read(sys.stdin.fileno(), 4096):
        pass
