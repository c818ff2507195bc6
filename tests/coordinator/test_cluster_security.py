"""Clusters share their credentials with their workers as private files, never as values,
and the Spark registrar admits only workers that prove they hold the cluster's secret."""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.clusters.hosting import WorkerAnnouncement, versions
from sparkwire.coordinator.clusters.registrar import Registrar, Registration
from sparkwire.transport.errors import Unauthenticated
from sparkwire.transport.registry import create_transport
from sparkwire.transport.security import Security

SECRET = "the-cluster-secret-from-an-env-var"


def test_worker_processes_read_the_secret_from_a_private_file(monkeypatch):
    monkeypatch.setenv("SPARKWIRE_TRANSPORT__SECURITY__SECRET", SECRET)
    table = pa.table({"k": pa.array([i % 7 for i in range(5000)], pa.int64())})
    expected = {r["k"]: r["k_count"] for r in table.group_by("k").aggregate([("k", "count")]).to_pylist()}
    with Session(workers=2, transport="flight") as session:
        got = dict(session.createDataFrame(table).groupBy("k").count().collect())
        assert got == expected
        security = session.cluster.settings.transport.security
        assert security.secret is None and security.secret_file is not None
        directory = security.secret_file.parent
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
        for path in directory.iterdir():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
        for announcement in session.cluster.announcements:
            assert announcement.address.startswith("grpc+tls://")
            environ = Path(f"/proc/{announcement.pid}/environ").read_bytes()
            assert SECRET.encode() not in environ
            assert str(security.secret_file).encode() in environ
        with create_transport("flight", security=Security()) as stranger:
            with pytest.raises(Unauthenticated):
                stranger.connect(session.cluster.addresses[0]).deliver(b"{}")
    assert not directory.exists()


def _register(address: tuple[str, int], proof_with: Security | None, worker_id: str,
              replay: bytes | None = None) -> bytes:
    """Answer the registrar's challenge and expect to be dropped; the line sent."""
    with _answered(address, proof_with, worker_id, replay) as (conn, line):
        conn.settimeout(10.0)
        try:
            assert conn.recv(1) == b"", "the registrar kept a connection it should drop"
        except ConnectionResetError:
            pass
        return line


@contextlib.contextmanager
def _answered(address: tuple[str, int], proof_with: Security | None, worker_id: str,
              replay: bytes | None = None) -> Iterator[tuple[socket.socket, bytes]]:
    with socket.create_connection(address, timeout=10) as conn:
        challenge = bytes.fromhex(conn.makefile("rb").readline().decode())
        announcement = WorkerAnnouncement(worker_id=worker_id, address="grpc+tls://127.0.0.1:1",
                                          pid=os.getpid(), versions=versions()).model_dump_json()
        credentials = proof_with.credentials() if proof_with is not None else None
        proof = credentials.proof(challenge, announcement.encode()) if credentials else "f" * 64
        line = replay or Registration(announcement=announcement, proof=proof).model_dump_json().encode()
        conn.sendall(line + b"\n")
        yield conn, line


def _registered(registrar: Registrar) -> list[str]:
    deadline = time.monotonic() + 10
    while not registrar.announcements() and time.monotonic() < deadline:
        time.sleep(0.02)
    return [a.worker_id for a in registrar.announcements()]


def test_the_registrar_admits_only_workers_proving_the_secret():
    member = Security(secret=SECRET)
    registrar = Registrar("127.0.0.1", expected=3, credentials=member.credentials())
    try:
        _register(registrar.address, Security(secret="another-secret-altogether"), "spark-worker-1")
        _register(registrar.address, None, "spark-worker-2")
        with _answered(registrar.address, member, "spark-worker-0") as (_, line):
            assert _registered(registrar) == ["spark-worker-0"]
    finally:
        registrar.close()
    # The answer seen on the wire, replayed to another registrar of the same cluster: its
    # challenge differs, so the proof does not hold.
    again = Registrar("127.0.0.1", expected=1, credentials=member.credentials())
    try:
        _register(again.address, member, "spark-worker-0", replay=line)
        assert again.announcements() == []
    finally:
        again.close()


def test_a_connection_that_never_answers_is_dropped(monkeypatch):
    import sparkwire.coordinator.clusters.registrar as registrar_module

    monkeypatch.setattr(registrar_module, "_ANSWER_SECONDS", 0.5)
    registrar = Registrar("127.0.0.1", expected=1, credentials=Security(secret=SECRET).credentials())
    try:
        with socket.create_connection(registrar.address, timeout=5) as conn:
            conn.makefile("rb").readline()
            conn.settimeout(5)
            started = time.monotonic()
            assert conn.recv(1) == b""  # dropped, not held
            assert time.monotonic() - started < 3
        assert registrar.announcements() == []
    finally:
        registrar.close()
