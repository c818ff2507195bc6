"""The hybrid transport's own quirks: which path a client takes and what it counts, its
addresses, and host identity. The conformance suite runs it like every transport; there both
sides are on one host, so they talk over shm.

"Another host" is a worker whose host identity differs: one told so (``host_id``), or one in
its own user and mount namespaces with its own tmpfs on /dev/shm (``unshare``), whose
segments this process could not map: a client that chose shm for it would fail.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sparkwire.transport.errors import ConfigError
from sparkwire.transport.hybrid import HybridAddress, host_identity
from sparkwire.transport.registry import create_transport
from sparkwire.transport.security import faces_network
from tests.credentials import SECURITY
from tests.transport.client_api import check_batches, fresh_query, key, produce
from tests.transport.conftest import REPO, Worker, remote_process

ROWS, COLUMNS, BATCHES = 1 << 16, 4, 3
OWN_TMPFS = ("sh", "-c", 'mount -t tmpfs -o mode=1777 tmpfs /dev/shm && exec "$@"', "sh")


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rm", *OWN_TMPFS, "true"], capture_output=True,
                          timeout=30).returncode == 0


needs_namespaces = pytest.mark.skipif(not _unshare_works(),
                                      reason="needs unprivileged user and mount namespaces")


def _read_through(transport, address: str, route: str) -> None:
    """Read a partition of the worker at ``address``; it must have gone by ``route``."""
    with transport.connect(address) as client:
        assert client.route == route
        spec = produce(Worker(client, None), query=fresh_query(), batches=BATCHES, rows=ROWS,
                       columns=COLUMNS)
        assert check_batches(client.read(key(spec), 10), spec) == BATCHES


@pytest.mark.parametrize("network", ["zmq", "flight"])
def test_same_host_reads_over_shm_another_host_over_the_network(network):
    options = {"network": network}
    with remote_process("hybrid", options) as (_, address), \
            create_transport("hybrid", options, SECURITY) as here, \
            create_transport("hybrid", {**options, "host_id": "elsewhere"}, SECURITY) as away:
        assert HybridAddress.parse(address).host_id == here.host_id
        _read_through(here, address, "shm")
        _read_through(away, address, network)


@needs_namespaces
def test_a_worker_with_its_own_dev_shm_is_read_over_the_network():
    prefix = ("unshare", "-rm", *OWN_TMPFS)
    with remote_process("hybrid", prefix=prefix) as (_, address), \
            create_transport("hybrid", security=SECURITY) as transport:
        assert HybridAddress.parse(address).host_id != transport.host_id
        _read_through(transport, address, "zmq")


def _identity(*unshare: str) -> str:
    script = [sys.executable, "-c",
              "from sparkwire.transport.hybrid import host_identity; print(host_identity())"]
    done = subprocess.run(["unshare", *unshare, *script], capture_output=True, text=True,
                          timeout=60, cwd=REPO, check=True)
    return done.stdout.strip()


@needs_namespaces
def test_host_identity_follows_dev_shm_and_the_network_namespace():
    plain = _identity("-rm")
    assert plain == _identity("-rm")  # stable
    assert _identity("-rm", *OWN_TMPFS) != plain  # its own tmpfs on /dev/shm
    assert _identity("-rmn") != plain  # its own network namespace
    assert host_identity() == host_identity()


@pytest.mark.parametrize("address", [
    "", "hybrid://", "hybrid:///?shm=a&net=b", "hybrid://h?shm=a&net=b", "tcp://127.0.0.1:1",
    "hybrid://h/?shm=a&shm=b&net=c", "hybrid://h/?shm=a&net=b&x=c", "hybrid://h/?x=a",
    "hybrid://h/?shm=&net=b", "hybrid://h/?shm", "hybrid://h/?shm=%ff&net=b",
    "hybrid://h/?shm=a&net=b#f", "hybrid://h w/?shm=a", "hybrid://h/?shm=a b",
    "hybrid://h/?shm=é", f"hybrid://{'h' * 65}/?shm=a", f"hybrid://h/?shm={'a' * 3000}",
    "hybrid://h/?shm=a;net=b", "hybrid://h/?&&&", "hybrid://h/?shm=a\n",
])
def test_malformed_addresses_are_config_errors(address):
    with pytest.raises(ConfigError):
        HybridAddress.parse(address)


@given(text=st.text(max_size=300))
def test_any_text_parses_or_is_a_config_error(text):
    for candidate in (text, f"hybrid://h/?{text}"):
        try:
            parsed = HybridAddress.parse(candidate)
        except ConfigError:
            continue
        assert HybridAddress.parse(str(parsed)) == parsed


def test_addresses_round_trip_whatever_their_parts_hold():
    address = HybridAddress("h-1.a_b", "shm:///tmp/a b+c&d=e/worker.sock", "grpc+tls://127.0.0.1:5")
    assert HybridAddress.parse(str(address)) == address


def test_what_a_transport_refuses_to_serve_or_connect_to():
    with create_transport("hybrid", security=SECURITY) as transport:
        with pytest.raises(ConfigError, match="this is host"):
            transport.serve(None, "hybrid://another-host/?net=tcp%3A%2F%2F127.0.0.1%3A0")
        with pytest.raises(ConfigError, match="names shm and net"):
            transport.connect(transport.address_on("127.0.0.1"))
        with pytest.raises(ConfigError):  # the network side checks its own address
            transport.connect("hybrid://elsewhere/?shm=shm%3A%2F%2F%2Ftmp%2Fx&net=nowhere")
    with pytest.raises(ConfigError, match="bad options"):
        create_transport("hybrid", {"network": "carrier-pigeon"}, SECURITY)
    with pytest.raises(ConfigError, match="bad options"):
        create_transport("hybrid", {"host_id": "no/slashes"}, SECURITY)


def test_capabilities_and_window_reach_both_sides():
    with create_transport("hybrid", security=SECURITY, window=3 << 20) as zmq_side, \
            create_transport("hybrid", {"network": "flight"}, SECURITY) as flight_side:
        caps = zmq_side.capabilities
        assert caps.crosses_hosts and caps.crosses_processes and caps.authenticates
        assert caps.max_inflight_bytes == 3 << 20 and not caps.uses_tls
        assert flight_side.capabilities.uses_tls


def test_a_hybrid_address_faces_the_network_as_its_network_side_does():
    """Its host part is an identity, not a host: what serves on it decides (a worker that
    faces the network must be given data roots)."""
    shm = "shm:///tmp/sparkwire-shm-1/worker.sock"
    assert not faces_network(str(HybridAddress("0123abcd", shm, "tcp://127.0.0.1:5")))
    assert faces_network(str(HybridAddress("0123abcd", shm, "tcp://10.0.0.7:5")))
    assert faces_network(str(HybridAddress("0123abcd", None, "grpc+tls://0.0.0.0:0")))
