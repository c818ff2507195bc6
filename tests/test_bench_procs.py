"""The CPU reader the TPC-H and scaling benchmarks charge each system with
(``benchmarks.tpch_procs.cpu_seconds``): checked against processes that burn known CPU and
report what their own clocks say, so a loaded machine (slower wall time) does not matter."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from benchmarks.tpch_procs import TICKS, cpu_seconds

#: Burns ``BURN`` CPU seconds; with ``--child MODE`` it first starts a copy of itself that
#: burns too, and either reaps it (``reaped``) or leaves it waiting (``alive``). Then it says
#: what its own clocks read, its reaped children included, and waits for EOF on stdin.
SCRIPT = """
import json, os, resource, subprocess, sys, time
BURN = 0.3
def burn():
    start = time.process_time()
    while time.process_time() - start < BURN:
        pass
child = None
if len(sys.argv) > 2:
    args = [sys.executable, "-c", sys.argv[1], "-"]
    if sys.argv[2] == "reaped":
        subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True)
    else:
        child = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        child.stdout.readline()
burn()
own = time.process_time()
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"own": own, "reaped": children.ru_utime + children.ru_stime,
                  "child": child.pid if child else None}), flush=True)
sys.stdin.read()
if child:
    child.stdin.close()
    child.wait()
"""
#: Rounding to clock ticks, for each of the times added up, in each process read.
SLACK = 4 * 2 / TICKS + 0.02


@contextmanager
def burner(*mode: str) -> Iterator[tuple[int, dict[str, Any]]]:
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, SCRIPT, *mode],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield proc.pid, json.loads(proc.stdout.readline())
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(30)


def test_one_process_reads_what_its_own_clock_says() -> None:
    with burner() as (pid, said):
        got = cpu_seconds(pid)
    assert said["own"] >= 0.3
    assert got == pytest.approx(said["own"], abs=SLACK)


def test_a_live_child_counts_with_its_parent() -> None:
    with burner("alive") as (pid, said):
        child = cpu_seconds(said["child"])
        got = cpu_seconds(pid)
    assert child >= 0.3 - SLACK
    assert got == pytest.approx(said["own"] + child, abs=SLACK)


def test_a_child_that_exited_still_counts_once_reaped() -> None:
    """The parent's share of its reaped children: a worker that ends during a query is not
    lost from the difference of two readings."""
    with burner("reaped") as (pid, said):
        got = cpu_seconds(pid)
    assert said["reaped"] >= 0.3
    assert got == pytest.approx(said["own"] + said["reaped"], abs=SLACK)


def test_a_process_that_is_gone_counts_nothing() -> None:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    assert cpu_seconds(int(proc.stdout)) == 0.0
