"""The simulated hosts themselves: hosts reach each other and the coordinator only through
the bridge (each has its own loopback), an optional rate limit holds, and closing removes
every namespace, link, mount and leftover process."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hosts.network import SimulatedHost, SimulatedNetwork

# Serves one connection on (argv[1], any port): prints the port, then after the peer closes,
# the bytes received and the seconds from accepting to end of stream.
RECEIVER = """
import socket, sys, time
server = socket.create_server((sys.argv[1], 0))
print(server.getsockname()[1], flush=True)
conn, _ = server.accept()
started, received = time.monotonic(), 0
while chunk := conn.recv(1 << 20):
    received += len(chunk)
print(received, time.monotonic() - started, flush=True)
"""
SENDER = """
import socket, sys
with socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10) as conn:
    conn.sendall(bytes(int(sys.argv[3])))
"""


def transfer(source: SimulatedHost, target: SimulatedHost, nbytes: int) -> float:
    """Seconds ``target`` took to receive ``nbytes`` sent over TCP by ``source``."""
    receiver = subprocess.Popen([*target.launcher, sys.executable, "-c", RECEIVER, target.address],
                                stdout=subprocess.PIPE, text=True)
    try:
        assert receiver.stdout is not None
        port = receiver.stdout.readline().strip()
        source.run(sys.executable, "-c", SENDER, target.address, port, str(nbytes), timeout=30)
        received, seconds = receiver.communicate(timeout=30)[0].split()
    finally:
        receiver.kill()
        receiver.wait()
    assert int(received) == nbytes
    return float(seconds)


def reaches(host: SimulatedHost, address: str, port: int) -> bool:
    """Whether a TCP connection from ``host`` to ``address:port`` succeeds."""
    probe = f"import socket; socket.create_connection(({address!r}, {port}), timeout=2).close()"
    return subprocess.run([*host.launcher, sys.executable, "-c", probe],
                          capture_output=True, timeout=30).returncode == 0


def test_hosts_meet_only_through_the_bridge_and_close_removes_everything(
        namespaces_available: None) -> None:
    network = SimulatedNetwork(hosts=2)
    a, b = network.hosts
    listener = subprocess.Popen(  # on host a: one socket on loopback, one on its address
        [*a.launcher, sys.executable, "-c",
         "import socket, sys\n"
         f"servers = [socket.create_server((h, 0)) for h in ('127.0.0.1', {a.address!r})]\n"
         "print(*(s.getsockname()[1] for s in servers), flush=True)\n"
         "sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert listener.stdout is not None
        loopback_port, address_port = map(int, listener.stdout.readline().split())
        assert reaches(a, "127.0.0.1", loopback_port)
        assert not reaches(b, "127.0.0.1", loopback_port), "host b reached host a's loopback"
        assert reaches(b, a.address, address_port)
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", loopback_port), timeout=2).close()
        socket.create_connection((a.address, address_port), timeout=2).close()  # the coordinator
        assert a.pids() == [listener.pid] and b.pids() == []
    finally:
        network.close()  # with the listener still running: close kills it
        listener.wait(10)
    network.close()  # idempotent
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert not [n for n in network.namespaces() if n in names]
    assert subprocess.run(["ip", "link", "show", "dev", network.tag],
                          capture_output=True).returncode != 0
    assert network.tag not in Path("/proc/mounts").read_text()


def test_a_rate_limit_bounds_the_bandwidth_between_hosts(namespaces_available: None) -> None:
    nbytes = 4 << 20
    with SimulatedNetwork(hosts=2, rate="40mbit") as network:
        a, b = network.hosts
        seconds = transfer(a, b, nbytes)
    assert seconds >= 0.8 * nbytes * 8 / 40e6, f"{nbytes} bytes in {seconds:.3f} s exceed 40 Mbit/s"
    with SimulatedNetwork(hosts=2) as network:
        a, b = network.hosts
        assert transfer(a, b, nbytes) < seconds / 3  # unlimited: the limit made the difference
