"""A Spark standalone cluster over simulated hosts: the Master in the root namespace on the
gateway address, one Spark Worker inside each host's namespaces (its executors, and their
Python workers, inherit them), started from the PySpark package's own ``bin/spark-class``.

Why a real standalone cluster rather than ``local[N]``: only there do executors run as
separate JVMs on other "machines", so sparkwire workers hosted in them must register with the
driver across the network, read credentials from shared files, and face the network with data
roots, as on a production cluster.

Each daemon's output goes to a log file under ``work_dir``; a start that fails or times out
raises with the end of that log. ``close`` stops the Workers (their executors with them),
then the Master: SIGTERM, then SIGKILL after a bounded wait; it is idempotent and runs when
starting fails halfway.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from tests.hosts.network import SimulatedNetwork

MASTER = "org.apache.spark.deploy.master.Master"
WORKER = "org.apache.spark.deploy.worker.Worker"
_STOP_SECONDS = 15.0
#: JVM options for processes that start often and compute little (the daemons, executors
#: that only host Python workers): the quick compiler only and a serial collector start
#: faster on a small machine.
QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def spark_home() -> Path:
    """The PySpark package directory: it ships ``bin/spark-class`` and every jar."""
    import pyspark

    return Path(pyspark.__file__).parent


class SparkDaemonError(RuntimeError):
    """A Spark Master or Worker did not start."""


class _Daemon:
    """One Spark daemon process and its log file."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        with open(log, "wb") as out:
            self.process = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                            stderr=subprocess.STDOUT)

    def await_line(self, text: str, deadline: float) -> None:
        """Wait until the log holds ``text``; fail with the log's end if the daemon exits
        first or the deadline passes."""
        while True:
            if text in self.log.read_text(errors="replace"):
                return
            if self.process.poll() is not None or time.monotonic() > deadline:
                state = ("exited with code " + str(self.process.returncode)
                         if self.process.poll() is not None else "timed out")
                tail = self.log.read_text(errors="replace")[-3000:]
                raise SparkDaemonError(f"{self.log.stem} {state} before logging {text!r}:\n{tail}")
            time.sleep(0.2)

    def stop(self) -> bool:
        """SIGTERM (Spark's shutdown hooks stop executors), then SIGKILL; bounded. Whether
        it stopped on SIGTERM."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(_STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(_STOP_SECONDS)
                return False
        return True


class SparkStandalone:
    """A Master on ``network.gateway`` and a Worker with ``cores`` and ``memory`` per host.

    ``master_url`` is what a SparkSession's ``master`` is set to.
    """

    def __init__(self, network: SimulatedNetwork, work_dir: Path, cores: int = 1,
                 memory: str = "1g", start_timeout: float = 90.0) -> None:
        self._daemons: list[_Daemon] = []
        spark_class = str(spark_home() / "bin" / "spark-class")
        deadline = time.monotonic() + start_timeout
        port = _free_port(network.gateway)  # the gateway is this network's alone
        self.master_url = f"spark://{network.gateway}:{port}"
        try:
            master = self._start(
                [spark_class, MASTER, "--host", network.gateway, "--port", str(port),
                 "--webui-port", "0"],
                network.gateway, work_dir / "master.log")
            master.await_line("I have been elected leader", deadline)
            workers = [
                self._start(
                    [*host.launcher, spark_class, WORKER, "--host", host.address,
                     "--webui-port", "0", "--cores", str(cores), "--memory", memory,
                     "--work-dir", str(work_dir / f"worker-{host.name}"), self.master_url],
                    host.address, work_dir / f"worker-{host.name}.log")
                for host in network.hosts
            ]
            for worker in workers:
                worker.await_line("Successfully registered with master", deadline)
        except BaseException:
            self.close()
            raise

    def _start(self, argv: list[str], local_ip: str, log: Path) -> _Daemon:
        env = {**os.environ, "SPARK_HOME": str(spark_home()), "SPARK_LOCAL_IP": local_ip,
               "SPARK_DAEMON_MEMORY": "256m", "SPARK_DAEMON_JAVA_OPTS": QUICK_JVM,
               # no REST submission server: nothing listens that the test does not use
               "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false"}
        daemon = _Daemon(argv, env, log)
        self._daemons.append(daemon)
        return daemon

    def pids(self) -> list[int]:
        """The Master's and Workers' processes (``spark-class`` execs the JVM)."""
        return [d.process.pid for d in self._daemons]

    def __enter__(self) -> SparkStandalone:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the Workers, then the Master; idempotent. Raises ``SparkDaemonError`` (once
        all are stopped) naming any that had to be killed."""
        killed = []
        while self._daemons:
            daemon = self._daemons.pop()  # the Master was started first: it stops last
            if not daemon.stop():
                killed.append(daemon.log.stem)
        if killed:
            raise SparkDaemonError(f"{', '.join(killed)} ignored SIGTERM for {_STOP_SECONDS:g}s")


def _free_port(host: str) -> int:
    """A port free on ``host`` now, for a daemon that cannot be told to choose its own and
    report it (the Master's URL must be known before Workers start)."""
    with socket.create_server((host, 0)) as probe:
        return int(probe.getsockname()[1])
