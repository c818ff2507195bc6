"""Workers refuse whoever lacks the cluster's credentials, before any request is parsed.

Probed as an outsider would: stock Flight clients, raw ZeroMQ sockets, other clusters'
transports. Every refused request is also checked not to have reached the service.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pyarrow.flight as flight
import pytest
import zmq
from zmq.utils.monitor import recv_monitor_message

from sparkwire.transport import wire
from sparkwire.transport.base import Capabilities, WorkerTransport
from sparkwire.transport.errors import ConfigError, Unauthenticated
from sparkwire.transport.registry import create_transport, register_transport
from sparkwire.transport.security import Security, write_private
from sparkwire.transport.zmq_auth import Curve
from tests.credentials import SECURITY, bearer, stock_flight_client
from tests.transport.conftest import StoreService

PLAN = b'{"plan": "from a stranger"}'


@pytest.fixture
def service(tmp_path: Path) -> Iterator[StoreService]:
    svc = StoreService(tmp_path)
    yield svc
    svc.store.close()


def _ticket() -> flight.Ticket:
    return flight.Ticket(json.dumps({"partition": "q/0/0/0", "timeout": 1}).encode())


# -- flight -------------------------------------------------------------------------------


def test_flight_refuses_a_stock_client_without_the_token(service):
    with create_transport("flight", security=SECURITY) as transport:
        server = transport.serve(service)
        assert server.address.startswith("grpc+tls://")
        stranger = stock_flight_client(server.address)  # our CA and a certificate, no token
        for options in (flight.FlightCallOptions(timeout=10), bearer("0" * 64)):
            with pytest.raises(flight.FlightUnauthenticatedError):
                list(stranger.do_action(flight.Action("deliver", PLAN), options))
            with pytest.raises(flight.FlightUnauthenticatedError):
                stranger.do_get(_ticket(), options).read_all()
            with pytest.raises(flight.FlightUnauthenticatedError):
                list(stranger.do_action(flight.Action("cancel", b"q"), options))
        stranger.close()
        assert service.plans == [] and service.cancelled == []
        with transport.connect(server.address) as member:  # the cluster itself gets in
            member.deliver(b'{"plan": 1}')
        assert service.plans == [b'{"plan": 1}']


def test_flight_refuses_plain_grpc_and_other_clusters(service):
    with create_transport("flight", security=SECURITY) as transport:
        server = transport.serve(service)
        plain = flight.FlightClient(server.address.replace("grpc+tls://", "grpc://"))
        with pytest.raises(flight.FlightUnavailableError):
            list(plain.do_action(flight.Action("deliver", PLAN), bearer("x")))
        plain.close()
        with create_transport("flight", security=Security()) as other:  # its own CA and secret
            with pytest.raises(Unauthenticated):
                other.connect(server.address).deliver(PLAN)
        assert service.plans == []


def test_mutual_tls_refuses_a_client_without_a_certificate(service):
    assert SECURITY.mutual_tls  # the default
    token = SECURITY.credentials().token()
    with create_transport("flight", security=SECURITY) as transport:
        server = transport.serve(service)
        # right CA, right token, no certificate
        anonymous = stock_flight_client(server.address, certificate=False)
        with pytest.raises(flight.FlightUnavailableError):
            list(anonymous.do_action(flight.Action("deliver", PLAN), bearer(token)))
        anonymous.close()
        member = stock_flight_client(server.address)
        list(member.do_action(flight.Action("deliver", b'{"plan": 2}'), bearer(token)))
        member.close()
        with transport.connect(server.address) as client:
            client.deliver(b'{"plan": 3}')
        assert service.plans == [b'{"plan": 2}', b'{"plan": 3}']


# -- zmq and shm ------------------------------------------------------------------------


def _endpoint(address: str) -> str:
    return address.replace("shm://", "ipc://")


def _raw_attempt(address: str, curve: tuple[bytes, bytes, bytes] | None) -> tuple[list[str], bool]:
    """A raw DEALER sends a plan; the handshake events it saw and whether anything came back."""
    context = zmq.Context()
    sock = context.socket(zmq.DEALER)
    sock.linger = 0
    sock.reconnect_ivl = -1
    # A refused handshake drops the only pipe; a DEALER without a pipe would block in send.
    sock.sndtimeo = 1500
    if curve is not None:
        sock.curve_secretkey, sock.curve_publickey, sock.curve_serverkey = curve
    monitor = sock.get_monitor_socket()
    try:
        sock.connect(_endpoint(address))
        try:
            sock.send_multipart(wire.encode(wire.Deliver(id=1), PLAN))
        except zmq.Again:
            answered = False
        else:
            answered = bool(sock.poll(1500))
        events = []
        while monitor.poll(0):
            events.append(zmq.Event(recv_monitor_message(monitor)["event"]).name)
        return events, answered
    finally:
        sock.disable_monitor()
        monitor.close()
        sock.close()
        context.term()


@pytest.mark.parametrize("kind", ["zmq", "shm"])
def test_a_raw_zeromq_socket_without_curve_is_refused(kind, service):
    with create_transport(kind, security=SECURITY) as transport:
        server = transport.serve(service)
        events, answered = _raw_attempt(server.address, None)
        assert not answered and "HANDSHAKE_SUCCEEDED" not in events, events
        assert service.plans == []


@pytest.mark.parametrize("kind", ["zmq", "shm"])
def test_only_allow_listed_curve_keys_get_in(kind, service):
    public, secret = zmq.curve_keypair()
    cluster_key = Curve(SECURITY.credentials()).public
    with create_transport(kind, security=SECURITY) as transport:
        server = transport.serve(service)
        events, answered = _raw_attempt(server.address, (secret, public, cluster_key))
        assert "HANDSHAKE_FAILED_AUTH" in events and not answered, events
        assert service.plans == []
    allowing = SECURITY.model_copy(update={"curve_clients": (public.decode(),)})
    with create_transport(kind, security=allowing) as transport:
        server = transport.serve(service)
        events, answered = _raw_attempt(server.address, (secret, public, cluster_key))
        assert "HANDSHAKE_SUCCEEDED" in events and answered, events
        assert service.plans == [PLAN]


@pytest.mark.parametrize("kind, options", [
    ("zmq", {}), ("shm", {}), ("hybrid", {}),  # hybrid on one host: over shm
    ("hybrid", {"host_id": "elsewhere"}),  # and from "another host": over zmq
])
def test_another_cluster_s_transport_is_unauthenticated_at_once(kind, options, service):
    with create_transport(kind, security=SECURITY) as transport:
        server = transport.serve(service)
        with create_transport(kind, options, Security()) as other:
            with pytest.raises(Unauthenticated):
                other.connect(server.address)
        assert service.plans == []


# -- security off, configuration, secrets ---------------------------------------------------


@pytest.mark.parametrize("kind", ["flight", "zmq"])
def test_security_off_serves_plainly_on_loopback_only(kind, service):
    off = Security(enabled=False)
    with create_transport(kind, security=off) as transport:
        with pytest.raises(ConfigError, match="security off"):
            transport.serve(service, transport.address_on("0.0.0.0"))
        server = transport.serve(service)
        assert not server.address.startswith("grpc+tls")
        with transport.connect(server.address) as client:
            client.deliver(b'{"plan": 1}')
    opened = Security(enabled=False, allow_insecure_network=True)
    with create_transport(kind, security=opened) as transport:
        transport.serve(service, transport.address_on("0.0.0.0")).close()


def test_secrets_stay_out_of_reprs_and_dumps(tmp_path):
    value = "a-very-secret-cluster-secret-42"
    security = Security(secret=value)
    credentials = security.credentials()
    assert credentials is not None
    for text in (repr(security), str(security), security.model_dump_json(), repr(credentials)):
        assert value not in text
    loose = tmp_path / "loose"
    loose.write_text(value)
    os.chmod(loose, 0o644)
    with pytest.raises(ConfigError, match="owner only"):
        Security(secret_file=loose).credentials()
    tight = tmp_path / "tight"
    write_private(tight, value.encode() + b"\n")
    assert Security(secret_file=tight).credentials().token() == credentials.token()
    with pytest.raises(ConfigError, match="at least"):
        Security(secret="short").credentials()
    with pytest.raises(ConfigError, match="regular file"):
        Security(secret_file=Path("/dev/null")).credentials()
    with pytest.raises(ValueError, match="not both"):
        Security(secret=value, secret_file=tight)


class _Unauthenticating(WorkerTransport):
    name = "test-open-door"
    capabilities = Capabilities(zero_copy=False, crosses_processes=True, crosses_hosts=True)

    def serve(self, service, address=None):  # pragma: no cover - never constructed
        raise NotImplementedError

    def connect(self, address):  # pragma: no cover
        raise NotImplementedError

    def close(self) -> None:
        pass


def test_a_transport_that_cannot_authenticate_runs_only_with_security_off():
    register_transport(_Unauthenticating.name, _Unauthenticating, clobber=True)
    with pytest.raises(ConfigError, match="cannot authenticate"):
        create_transport(_Unauthenticating.name)
    create_transport(_Unauthenticating.name, security=Security(enabled=False)).close()


def test_every_built_in_transport_that_crosses_processes_authenticates():
    from sparkwire.transport.registry import available_transports, transport_class

    for name in available_transports():
        capabilities = transport_class(name).capabilities
        if capabilities.crosses_processes and not name.startswith("test-"):
            assert capabilities.authenticates, name
