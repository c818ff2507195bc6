"""Fuzzing every transport's server, and what a worker does with what arrives.

Hypothesis draws malformed and oversized requests (raw frames for the ZeroMQ servers, tickets
and actions for Flight), corrupt and truncated Arrow IPC for the readers, and random or
mutated task plans for the worker. The callers hold the cluster's credentials: an outsider is
refused at the handshake (``test_security.py``), so this is what a member gone wrong can do.
After every example the server still answers a valid request, and nothing raises anything but
the library's own errors.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

import pyarrow as pa
import pyarrow.flight as flight
import pytest
import zmq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sparkwire.coordinator.config import load_settings
from sparkwire.coordinator.worker.service import Worker
from sparkwire.transport import wire
from sparkwire.transport.buffers import BufferCodec
from sparkwire.transport.errors import SparkwireError
from sparkwire.transport.ipc import read_ipc, write_ipc
from sparkwire.transport.memory import MemoryTransport
from sparkwire.transport.registry import create_transport
from sparkwire.transport.zmq_auth import Curve
from tests.coordinator.test_plan_rejection import valid_plan
from tests.credentials import AUTH, SECURITY, stock_flight_client
from tests.transport.conftest import StoreService

FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])

frames = st.lists(st.one_of(st.binary(max_size=300),
                            st.builds(lambda d: json.dumps(d).encode(),
                                      st.dictionaries(st.sampled_from(
                                          ["type", "id", "key", "timeout", "credit", "query_id",
                                           "bytes", "x"]),
                                          st.one_of(st.integers(-2**70, 2**70), st.text(max_size=20),
                                                    st.none(), st.booleans(), st.floats()),
                                          max_size=6))),
                  min_size=0, max_size=4)


@pytest.fixture(scope="module", params=["zmq", "shm"])
def zmq_server(request, tmp_path_factory) -> Iterator[tuple[str, StoreService]]:
    service = StoreService(tmp_path_factory.mktemp("fuzz"))
    with create_transport(request.param, security=SECURITY) as transport:
        server = transport.serve(service)
        yield server.address.replace("shm://", "ipc://"), service
        server.close()
    service.store.close()


@pytest.fixture(scope="module")
def member_socket(zmq_server) -> Iterator[zmq.Socket]:
    context = zmq.Context()
    sock = context.socket(zmq.DEALER)
    sock.linger = 0
    Curve(SECURITY.credentials()).connect(sock)
    sock.connect(zmq_server[0])
    yield sock
    sock.close()
    context.term()


def _answers_a_valid_call(sock: zmq.Socket, request_id: int) -> None:
    sock.send_multipart(wire.encode(wire.Deliver(id=request_id), b'{"plan": "valid"}'))
    while sock.poll(5000):
        header, _ = wire.parse_reply(sock.recv_multipart())
        if getattr(header, "id", None) == request_id:
            assert isinstance(header, wire.Ok), header
            return
    pytest.fail("the server stopped answering")


@FUZZ
@given(message=frames)
def test_zeromq_servers_survive_random_frames(zmq_server, member_socket, message) -> None:
    if message:
        member_socket.send_multipart(message)
    while member_socket.poll(0):  # whatever it answers must parse as a reply
        wire.parse_reply(member_socket.recv_multipart())
    _answers_a_valid_call(member_socket, 2**40)


@pytest.fixture(scope="module")
def flight_server(tmp_path_factory) -> Iterator[tuple[flight.FlightClient, StoreService]]:
    service = StoreService(tmp_path_factory.mktemp("fuzz"))
    with create_transport("flight", security=SECURITY) as transport:
        server = transport.serve(service)
        client = stock_flight_client(server.address)
        yield client, service
        client.close()
        server.close()
    service.store.close()


@FUZZ
@given(ticket=st.binary(max_size=2000), kind=st.text(max_size=40), body=st.binary(max_size=2000))
def test_flight_server_survives_random_tickets_and_actions(flight_server, ticket, kind, body) -> None:
    client, _ = flight_server
    with pytest.raises(flight.FlightError):
        client.do_get(flight.Ticket(ticket), AUTH).read_all()
    if kind not in ("deliver", "cancel"):
        with pytest.raises(flight.FlightError):
            list(client.do_action(flight.Action(kind, body), AUTH))
    list(client.do_action(flight.Action("deliver", b'{"plan": "valid"}'), AUTH))


BATCH = pa.record_batch({"s": pa.array(["a", None, "ccc"] * 20), "i": pa.array(range(60)),
                         "l": pa.array([[1, 2], None, []] * 20),
                         "d": pa.array(["x", "y", "x"] * 20).dictionary_encode()})


@FUZZ
@given(data=st.data())
def test_corrupt_or_truncated_ipc_is_refused_or_valid(data) -> None:
    good = write_ipc(BATCH).to_pybytes()
    raw = bytearray(good)
    for _ in range(data.draw(st.integers(1, 8))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    raw = raw[:data.draw(st.integers(0, len(raw)))]
    try:
        batch = read_ipc(bytes(raw), BATCH.schema)
    except SparkwireError:
        return
    batch.validate(full=True)  # what gets through is sound


FLAT = pa.record_batch({"i": pa.array(range(1 << 15)), "s": pa.array(["a", None, "ccc", "dd"] * (1 << 13)),
                       "b": pa.array([True, None] * (1 << 14))})


@FUZZ
@given(data=st.data())
def test_corrupt_buffer_layouts_are_refused_or_valid(data) -> None:
    codec = BufferCodec()
    frames = [bytearray(memoryview(frame)) for frame in codec.pack(FLAT)]
    assert len(frames) > 2  # the buffer path, not one IPC message
    for _ in range(data.draw(st.integers(1, 6))):
        frame = frames[data.draw(st.integers(0, len(frames) - 1))]
        if frame:
            frame[data.draw(st.integers(0, len(frame) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(frames) - 1))
    frames[cut] = frames[cut][:data.draw(st.integers(0, len(frames[cut])))]
    try:
        batch = codec.unpack([bytes(frame) for frame in frames], FLAT.schema)
    except SparkwireError:
        return
    batch.validate(full=True)  # what gets through is sound


@pytest.fixture(scope="module")
def worker() -> Iterator[Worker]:
    transport = MemoryTransport()
    service = Worker("fuzzed", load_settings(workers=1), transport.connect)
    yield service
    service.close()
    transport.close()


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(), st.text(max_size=12)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=20)


def _paths(node: object, prefix: tuple = ()) -> list[tuple]:
    if isinstance(node, dict):
        return [prefix] + [p for k, v in node.items() for p in _paths(v, (*prefix, k))]
    if isinstance(node, list):
        return [prefix] + [p for i, v in enumerate(node) for p in _paths(v, (*prefix, i))]
    return [prefix]


@FUZZ
@given(data=st.data())
def test_mutated_plans_are_refused_with_the_library_s_errors(worker, data) -> None:
    plan = valid_plan()
    path = data.draw(st.sampled_from([p for p in _paths(plan) if p]))
    node = plan
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = data.draw(json_values)
    try:
        worker.submit(json.dumps(plan).encode())
    except SparkwireError:
        pass
    finally:
        with contextlib.suppress(SparkwireError):
            worker.cancel(plan["query_id"] if isinstance(plan.get("query_id"), str) else "q1")
