"""Reliability under load, loss and attack: ``benchmarks/results/reliability.json`` and a PNG.

- **concurrent**: queries at once on 2 worker processes, every answer checked against DuckDB;
- **kills**: a worker SIGKILLed mid-query (when the query's first task finishes), on the
  process cluster over zmq and flight; every answer checked, attempts and the tasks that
  ran again recorded (only the lost worker's share and what read from it);
- **fuzz**: random frames to a zmq worker process and random tickets and actions to a flight
  worker process, sent as a cluster member; after each the worker must still answer a valid
  call within 5 s: a worker gone is a crash, no answer a hang;
- **memory**: a join whose shuffle is 5x the cluster's memory (``worker.memory``); each
  worker's peak RSS against its baseline (RSS after a small query) plus ``worker.memory``;
- **member**: what a member holding the cluster's credentials can ask of a worker (a value
  of 2^31 characters, tasks of 4,096 partitions each, a membership notice of its own): each
  must be refused, the worker's peak RSS stay under its baseline plus ``worker.memory``, and
  the next query be answered within a second; a query that runs for ever (a 4e10-row cross
  join) must be stopped by ``interruptAll`` from another thread, and by ``timeouts.task``
  (``TASK_DEADLINE`` seconds here) when nobody interrupts it, each freeing the worker for the
  next query; and a driver SIGKILLed must leave no files once the next cluster has started.

The reference is DuckDB on the same files (answers); the fuzz and memory figures are counts
and bytes, not ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import duckdb
import matplotlib
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from benchmarks.common import write  # noqa: E402
from sparkwire.coordinator import Session  # noqa: E402
from sparkwire.coordinator.metrics import QueryMetrics  # noqa: E402

MiB = 1 << 20
WORKERS = 2
#: The member cases' ``timeouts.task``: a task running longer fails its query and is stopped.
TASK_DEADLINE = 5.0


def _table(path: Path, rows: int, keys: int, seed: int, row_groups: int = 8) -> Path:
    """Columns ``k`` (random keys below ``keys``), ``v`` and ``w`` (row numbers), int64."""
    k = pc.cast(pc.floor(pc.multiply(pc.random(rows, initializer=seed), keys)), pa.int64())
    v = pa.array(range(rows), pa.int64())
    pq.write_table(pa.table({"k": k, "v": v, "w": pc.subtract(rows, v)}), path,
                   row_group_size=max(1, rows // row_groups))
    return path


def _answer(session: Session, path: Path) -> list[tuple]:
    return sorted(tuple(r) for r in session.read.parquet(str(path)).groupBy("k").sum("v").collect())


def _oracle(path: Path) -> list[tuple]:
    return sorted(duckdb.sql(f"SELECT k, sum(v) FROM '{path}' GROUP BY k").fetchall())


def concurrent(path: Path, queries: int) -> dict[str, Any]:
    expected = _oracle(path)
    with Session(workers=WORKERS, transport="zmq", task_bytes=0) as session:
        started = time.perf_counter()
        with ThreadPoolExecutor(queries) as pool:
            answers = list(pool.map(lambda _: _answer(session, path), range(queries)))
        seconds = time.perf_counter() - started
    correct = sum(answer == expected for answer in answers)
    print(f"concurrent: {correct}/{queries} correct in {seconds:.1f}s", flush=True)
    return {"queries": queries, "correct": correct, "seconds": seconds}


class _KillOnce:
    def __init__(self) -> None:
        self.pid: int | None = None

    def __call__(self, metrics: QueryMetrics) -> None:
        pid, self.pid = self.pid, None
        if pid is not None:
            os.kill(pid, signal.SIGKILL)


def kills(path: Path, rounds: int) -> dict[str, Any]:
    expected = _oracle(path)
    result: dict[str, Any] = {}
    for transport in ("zmq", "flight"):
        killer = _KillOnce()
        correct, attempts, reruns, tasks = 0, [], [], []
        with Session(workers=WORKERS, transport=transport, task_bytes=0, progress=killer) as session:
            for round_ in range(rounds):
                killer.pid = session.cluster.announcements[round_ % WORKERS].pid
                correct += _answer(session, path) == expected
                metrics = session.last_metrics
                assert metrics is not None
                attempts.append(metrics.attempts)
                reruns.append(metrics.reruns)
                tasks.append(sum(stage.tasks for stage in metrics.stages.values()))
        result[transport] = {"killed": rounds, "correct": correct, "attempts": attempts,
                             "tasks_run_again": reruns, "tasks": tasks}
        print(f"kills over {transport}: {correct}/{rounds} correct, attempts {attempts}, "
              f"tasks run again {reruns} of {tasks}", flush=True)
    return result


def _zmq_cases(rng: random.Random, n: int) -> list[list[bytes]]:
    keys = ["type", "id", "key", "timeout", "credit", "query_id", "bytes"]
    values: list[Any] = [None, True, -1, 2**63, 1e308, "", "deliver", "open", "q/0/0/0", "x" * 300]
    cases = []
    for _ in range(n):
        kind = rng.randrange(3)
        if kind == 0:
            frames = [rng.randbytes(rng.randrange(0, 512)) for _ in range(rng.randrange(1, 4))]
        elif kind == 1:
            header = {k: rng.choice(values) for k in rng.sample(keys, rng.randrange(1, len(keys)))}
            frames = [json.dumps(header).encode()]
        else:
            frames = [json.dumps({"type": "deliver", "id": rng.randrange(1 << 30)}).encode(),
                      rng.randbytes(rng.randrange(0, 4096))]
        cases.append(frames)
    return cases


def fuzz(cases: int) -> dict[str, Any]:
    import pyarrow.flight as flight
    import zmq

    from sparkwire.transport import wire
    from sparkwire.transport.zmq_auth import Curve

    rng = random.Random(7)
    result: dict[str, Any] = {}
    with Session(workers=1, transport="zmq") as session:
        credentials = session.cluster.settings.transport.security.credentials()
        context = zmq.Context()
        sock = context.socket(zmq.DEALER)
        sock.linger = 0
        Curve(credentials).connect(sock)
        sock.connect(session.cluster.addresses[0])
        crashes = hangs = 0
        for index, frames in enumerate(_zmq_cases(rng, cases)):
            sock.send_multipart(frames)
            sock.send_multipart(wire.encode(wire.Cancel.of(id=(1 << 40) + index, query_id="probe")))
            answered = False
            deadline = time.monotonic() + 5
            while not answered and sock.poll(max(0, int((deadline - time.monotonic()) * 1000))):
                header, _ = wire.parse_reply(sock.recv_multipart())
                answered = getattr(header, "id", None) == (1 << 40) + index
            if not session.cluster.alive()[0]:
                crashes += 1
                break
            hangs += not answered
        sock.close()
        context.term()
        result["zmq"] = {"cases": cases, "crashes": crashes, "hangs": hangs}
    with Session(workers=1, transport="flight") as session:
        security = session.cluster.settings.transport.security
        token = security.credentials().token()
        call = flight.FlightCallOptions(headers=[(b"authorization", f"Bearer {token}".encode())],
                                        timeout=5)
        client = flight.FlightClient(session.cluster.addresses[0],  # a member's: mutual TLS
                                     tls_root_certs=Path(security.ca_file).read_bytes(),
                                     cert_chain=Path(security.cert_file).read_bytes(),
                                     private_key=Path(security.key_file).read_bytes(),
                                     override_hostname=security.server_name)
        crashes = hangs = 0
        for _ in range(cases):
            try:
                if rng.random() < 0.5:
                    client.do_get(flight.Ticket(rng.randbytes(rng.randrange(0, 2048))), call).read_all()
                else:
                    action = rng.choice(["deliver", "cancel", "drop", ""])
                    list(client.do_action(flight.Action(action, rng.randbytes(rng.randrange(0, 4096))), call))
            except flight.FlightError:
                pass
            try:
                list(client.do_action(flight.Action("cancel", b"probe"), call))
            except flight.FlightTimedOutError:
                hangs += 1
            except flight.FlightError:
                pass
            if not session.cluster.alive()[0]:
                crashes += 1
                break
        client.close()
        result["flight"] = {"cases": cases, "crashes": crashes, "hangs": hangs}
    print(f"fuzz: {result}", flush=True)
    return result


def _kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def _join(session: Session, left: Path, right: Path) -> tuple:
    from sparkwire.planner.api import functions as F

    df = (session.read.parquet(str(left)).alias("l")
          .join(session.read.parquet(str(right)).alias("r"), F.col("l.k") == F.col("r.k"))
          .agg(F.count("*"), F.sum("l.v"), F.sum("r.w")))
    return tuple(df.collect()[0])


def memory(directory: Path, memory: int) -> dict[str, Any]:
    """A shuffled join of two tables together 5x the cluster's memory (``worker.memory``)."""
    rows = 5 * WORKERS * memory // (2 * 3 * 8)  # two tables of three int64 columns
    left = _table(directory / "left.parquet", rows, rows, 1, 32)
    right = _table(directory / "right.parquet", rows, rows, 2, 32)
    sql = f"SELECT count(*), sum(l.v), sum(r.w) FROM '{left}' l JOIN '{right}' r ON l.k = r.k"
    expected = duckdb.sql(sql).fetchall()[0]
    small = [_table(directory / f"small-{i}.parquet", 1000, 1000, i) for i in (1, 2)]
    with Session(workers=WORKERS, transport="zmq", task_bytes=0, broadcast_threshold=0,
                 worker={"memory": memory}) as session:
        pids = [a.pid for a in session.cluster.announcements]
        _join(session, *small)  # the baseline: database open, peers connected, threads up
        idle = [_kib(pid, "VmRSS") * 1024 for pid in pids]
        got = _join(session, left, right)
        peaks = [_kib(pid, "VmHWM") * 1024 for pid in pids]
    shuffled = 2 * rows * 3 * 8
    result = {"memory_bytes": memory, "shuffle_bytes": shuffled,
              "shuffle_over_cluster_memory": shuffled / (WORKERS * memory),
              "correct": got == tuple(expected), "idle_rss_bytes": idle, "peak_rss_bytes": peaks,
              "peak_over_memory_plus_idle": [p / (memory + i) for p, i in zip(peaks, idle, strict=True)]}
    print(f"memory: worker.memory {memory // MiB} MiB, shuffle {shuffled // MiB} MiB, peaks "
          f"{[p // MiB for p in peaks]} MiB, idle {[i // MiB for i in idle]} MiB, "
          f"correct {result['correct']}", flush=True)
    return result


def _member_cases(session: Session) -> dict[str, Any]:
    """The requests a compromised member (or a buggy client) can make, by name."""
    from sparkwire.coordinator.taskplan import Members, TaskPlan, encode_message, encode_tasks
    from sparkwire.planner.api import functions as F
    from sparkwire.planner.logical.expressions import Column
    from sparkwire.planner.logical.sources import RangeSource
    from sparkwire.planner.logical.staged import Boundary

    member = session.cluster.client(session.cluster.addresses[0])
    wide = Boundary(kind="shuffle", keys=(Column(name="id"),), partitions=4096)
    flood = encode_tasks([encode_message(TaskPlan(
        query_id="flood", stage=0, task=t, output=wide,
        fragment=RangeSource(start=t, end=t + 1, step=1))) for t in range(256)])

    def flooded() -> None:
        try:
            member.deliver(flood)
        finally:
            member.cancel("flood")  # what was queued before the refusal goes with the query

    def endless() -> None:
        right = session.range(200_000).withColumnRenamed("id", "other")
        session.range(200_000).crossJoin(right).agg(F.sum("other")).collect()

    def interrupted() -> None:
        timer = threading.Timer(1.0, session.interruptAll)
        timer.start()
        try:
            endless()
        finally:
            timer.cancel()

    return {
        "lpad to 2^31-1": lambda: session.range(2).select(
            F.length(F.lpad(F.col("id").cast("string"), 2**31 - 1, "x"))).collect(),
        "explode(split(lpad to 1e8))": lambda: session.range(1).select(
            F.explode(F.split(F.lpad(F.lit(""), 10**8, "a,"), ","))).count(),
        # each value within 1 Mi, but DuckDB makes them 2,048 rows at a time: 2 GiB a vector
        "lpad to 2^20 over 4,096 rows": lambda: session.range(4096).select(
            F.length(F.lpad(F.col("id").cast("string"), 1 << 20, "y")).alias("n")).agg(F.sum("n")).collect(),
        "256 tasks x 4096 partitions": flooded,
        "a member's membership notice": lambda: member.deliver(
            encode_message(Members(members=("tcp://127.0.0.1:9",)))),
        "interruptAll of a 4e10-row cross join after 1 s": interrupted,
        f"a 4e10-row cross join past timeouts.task ({TASK_DEADLINE:g} s)": endless,
    }


def member(memory: int) -> dict[str, Any]:
    """Each member-side request refused, the worker within its memory and answering."""
    from sparkwire.transport.errors import SparkwireError

    cases: dict[str, Any] = {}
    with Session(workers=1, transport="zmq", worker={"memory": memory},
                 timeouts={"task": TASK_DEADLINE}) as session:
        pid = session.cluster.announcements[0].pid
        session.range(10).count()
        idle = _kib(pid, "VmRSS") * 1024
        for name, attempt in _member_cases(session).items():
            started = time.monotonic()
            try:
                attempt()
                error = None
            except SparkwireError as exc:
                error = str(exc)[:160]
            took = time.monotonic() - started
            started = time.monotonic()
            answered = session.range(3).count() == 3
            cases[name] = {"refused": error is not None, "error": error, "seconds": took,
                           "next_query_seconds": time.monotonic() - started, "answered": answered,
                           "peak_over_memory_plus_idle": _kib(pid, "VmHWM") * 1024 / (memory + idle)}
            print(f"member: {name}: refused {error is not None} in {took:.2f} s, next query "
                  f"{cases[name]['next_query_seconds']:.2f} s", flush=True)
    return {"memory_bytes": memory, "idle_rss_bytes": idle, "cases": cases,
            "driver_sigkill_files_left": _killed_driver_leftovers()}


def _killed_driver_leftovers() -> int:
    """Files a SIGKILLed driver (2 zmq workers, one query run) leaves once the next cluster
    has started beside it."""
    import subprocess
    import sys

    from sparkwire.coordinator.clusters.credentials import CREDENTIALS_PREFIX
    from sparkwire.coordinator.worker.spill import SPILL_PREFIX
    from sparkwire.transport.owned import owner

    driver = subprocess.Popen([sys.executable, "-c", (
        "import time\nfrom sparkwire.coordinator import Session\n"
        "s = Session(workers=2, transport='zmq')\nassert s.range(10).count() == 10\n"
        "print('ready', flush=True)\ntime.sleep(120)\n")], stdout=subprocess.PIPE, text=True)
    assert driver.stdout is not None
    driver.stdout.readline()
    driver.send_signal(signal.SIGKILL)
    driver.wait(10)
    with Session(workers=1, transport="zmq") as session:
        session.range(3).count()
    return sum(1 for p in Path(tempfile.gettempdir()).iterdir()
               if any(owner(p.name, prefix) == driver.pid for prefix in (CREDENTIALS_PREFIX, SPILL_PREFIX)))


def plot(result: dict[str, Any], path: Path) -> None:
    fig, ax = plt.subplots(figsize=(6, 4))
    mem = result["memory"]
    labels = [f"worker {i}" for i in range(len(mem["peak_rss_bytes"]))]
    ax.bar(labels, [p / MiB for p in mem["peak_rss_bytes"]], label="peak RSS")
    ax.bar(labels, [i / MiB for i in mem["idle_rss_bytes"]], label="idle RSS (baseline)")
    target = (max(mem["idle_rss_bytes"]) + mem["memory_bytes"]) / MiB
    ax.axhline(target, color="k", linestyle="--", label="idle RSS + worker.memory (the bound)")
    ax.set_ylabel("MiB")
    ax.set_title(f"shuffle {mem['shuffle_over_cluster_memory']:.1f}x the cluster's memory")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.reliability", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer queries, kills and cases")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sparkwire-reliability-") as scratch:
        directory = Path(scratch)
        data = _table(directory / "t.parquet", 2_000_000, 200_003, 0)
        result = {
            "concurrent": concurrent(data, 8 if args.quick else 32),
            "kills": kills(data, 1 if args.quick else 3),
            "fuzz": fuzz(50 if args.quick else 500),
            "memory": memory(directory, (64 if args.quick else 256) * MiB),
            "member": member(512 * MiB),
        }
    path = write("reliability", result, lambda p: plot(result, p))
    print(f"wrote {path}")
    ok = (result["concurrent"]["correct"] == result["concurrent"]["queries"]
          and all(k["correct"] == k["killed"] for k in result["kills"].values())
          and all(f["crashes"] == 0 and f["hangs"] == 0 for f in result["fuzz"].values())
          and result["memory"]["correct"]
          and max(result["memory"]["peak_over_memory_plus_idle"]) <= 1
          and all(c["refused"] and c["answered"] and c["next_query_seconds"] < 1
                  and c["peak_over_memory_plus_idle"] <= 1 for c in result["member"]["cases"].values())
          and result["member"]["driver_sigkill_files_left"] == 0)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
