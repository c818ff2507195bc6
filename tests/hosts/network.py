"""Simulated hosts on one machine: each with network, mount and UTS namespaces of its own.

Why: a test of workers "on different hosts" proves nothing if they can still meet through
loopback or a shared ``/dev/shm``. Here every host has its own loopback, one interface with an
address that exists only on the simulated network, its own tmpfs on ``/dev/shm`` and another
as its temporary directory (``TMPDIR``: where Unix sockets and spill files go), and its own
host name (resolved by its own ``/etc/hosts``, so a worker's ``socket.gethostname()`` tells
hosts apart as on real machines); the processes of one host share those (as processes on one
machine do), those of another host cannot see them. The rest of the file system is shared,
as storage every machine mounts: data, credentials and Spark's work directories. The coordinator (the test process) stays in the root namespace
and reaches the hosts through the *gateway* address.

Topology, for a network tagged ``swh<pid>x<k>`` (unique per test process and network)::

    root namespace            switch namespace "<tag>-sw"          host namespace "<tag>-a"
    <tag>  10.231.N.1/24 ──── uplink ─┐
                                      br0 (bridge) ── to-a ───────── eth0  10.231.N.10/24
                                                   ── to-b ───────── eth0  10.231.N.11/24 ("<tag>-b")

The bridge lives in its own namespace so that the root namespace's packet filter (and
``br_netfilter``) never sees traffic between hosts, and the root namespace gains only one
interface. ``N`` is the first ``/24`` of 10.231.0.0/16 that no interface here uses, chosen
under a lock, so parallel test runs get disjoint networks. A host's mount namespace is kept
alive by a bind mount of its ``/proc/<pid>/ns/mnt`` (``unshare --mount=FILE``), its UTS
namespace likewise, so any number of processes can be started into them later with
``nsenter`` (``SimulatedHost.launcher``).

``SimulatedNetwork.close`` kills whatever still runs on a host, then removes mounts and
namespaces; it is idempotent and also runs when construction fails halfway. What a test
process killed outright left behind is swept when the next network is made
(``sweep_abandoned``).
"""

from __future__ import annotations

import fcntl
import ipaddress
import json
import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from itertools import count
from pathlib import Path

from sparkwire.coordinator.clusters.process import Placement

SUBNETS = ipaddress.ip_network("10.231.0.0/16")
_LOCK = Path("/run/lock/sparkwire-simulated-hosts.lock")
_MOUNTS = Path("/run/sparkwire-simulated-hosts")
_COMMAND_SECONDS = 15.0
_TAG = re.compile(r"^(swh(\d+)x\d+)(-|$)")
_tags = count()


class HostsError(RuntimeError):
    """A namespace, link, address or mount could not be made or removed."""


def unavailable() -> str | None:
    """Why simulated hosts cannot be made on this machine, or None when they can."""
    if os.geteuid() != 0:
        return "simulated hosts need root (network and mount namespaces)"
    missing = [t for t in ("ip", "nsenter", "unshare", "mount", "umount") if shutil.which(t) is None]
    if missing:
        return f"simulated hosts need {', '.join(missing)} on PATH"
    probe = subprocess.run(["unshare", "--net", "--mount", "true"], capture_output=True,
                           text=True, timeout=_COMMAND_SECONDS)
    if probe.returncode:
        return f"cannot create network and mount namespaces here: {probe.stderr.strip()}"
    return None


def run(*argv: str, timeout: float = _COMMAND_SECONDS) -> str:
    """Run a command to completion (bounded); its stdout, or ``HostsError`` with its stderr."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise HostsError(f"{' '.join(argv)} did not finish within {timeout:g}s") from None
    if done.returncode:
        raise HostsError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


@dataclass(frozen=True)
class SimulatedHost:
    """One host: its namespaces, its address, and how to start a process on it."""

    name: str  # "a", "b", …
    netns: str
    address: str
    hostname: str
    mount_ns: Path  # the bind mounts that keep its mount and UTS namespaces alive
    uts_ns: Path
    tmp: Path  # its TMPDIR: a tmpfs mounted in its mount namespace only

    @property
    def launcher(self) -> tuple[str, ...]:
        """argv that runs the command after it on this host (``nsenter`` and ``env`` exec
        it, so the process started is the command itself), in the current working directory."""
        return ("nsenter", f"--net=/run/netns/{self.netns}", f"--mount={self.mount_ns}",
                f"--uts={self.uts_ns}", f"--wd={os.getcwd()}", "--", "env", f"TMPDIR={self.tmp}")

    def placement(self) -> Placement:
        """A sparkwire worker process on this host, serving on its address."""
        return Placement(launcher=self.launcher, host=self.address)

    def run(self, *argv: str, timeout: float = _COMMAND_SECONDS) -> str:
        """Run a command on this host to completion; its stdout."""
        return run(*self.launcher, *argv, timeout=timeout)

    def runs(self, pid: int) -> bool:
        """Whether process ``pid`` runs on this host: in its network, mount and UTS namespaces."""
        mine = (f"/run/netns/{self.netns}", self.mount_ns, self.uts_ns)
        return all(os.stat(f"/proc/{pid}/ns/{kind}").st_ino == os.stat(path).st_ino
                   for kind, path in zip(("net", "mnt", "uts"), mine, strict=True))

    def listening_ports(self) -> set[int]:
        """TCP ports listening in this host's network namespace."""
        ports = set()
        for line in self.run("cat", "/proc/net/tcp", "/proc/net/tcp6").splitlines():
            fields = line.split()
            if len(fields) > 3 and fields[3] == "0A":  # LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
        return ports

    def pids(self) -> list[int]:
        """Processes running in this host's network namespace."""
        return [int(p) for p in run("ip", "netns", "pids", self.netns).split()]


class SimulatedNetwork:
    """``hosts`` simulated hosts on one bridge, reachable from here at ``gateway``.

    ``rate``: when given (``tc`` syntax, e.g. ``"1gbit"``), every host's link is limited to
    that bandwidth in each direction by a token bucket, as a network between machines is.
    ``shm_bytes``, ``tmp_bytes``: the size of each host's ``/dev/shm`` and ``TMPDIR``.
    """

    def __init__(self, hosts: int = 2, rate: str | None = None, shm_bytes: int = 512 << 20,
                 tmp_bytes: int = 1 << 30) -> None:
        if not 1 <= hosts <= 26:
            raise ValueError("between 1 and 26 simulated hosts")
        self.tag = f"swh{os.getpid()}x{next(_tags)}"
        self.switch = f"{self.tag}-sw"
        self.hosts: list[SimulatedHost] = []
        self._namespaces: list[str] = []
        self._mounts: list[Path] = []  # unmounted in reverse order
        self._uplink_made = False
        self._directory = _MOUNTS / self.tag
        self._closed = False
        try:
            network = self._uplink()
            self.gateway = str(network.network_address + 1)
            self._switch()
            self._directory.mkdir(parents=True)
            self._mount("--bind", str(self._directory), str(self._directory))
            run("mount", "--make-private", str(self._directory))  # a mount ns file may live here
            for index in range(hosts):
                self.hosts.append(self._host(chr(ord("a") + index),
                                             str(network.network_address + 10 + index), network,
                                             rate, (shm_bytes, tmp_bytes)))
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> SimulatedNetwork:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _uplink(self) -> ipaddress.IPv4Network:
        """The root namespace's link to the switch, on a /24 no other interface here uses."""
        _LOCK.parent.mkdir(parents=True, exist_ok=True)
        with open(_LOCK, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            sweep_abandoned()
            used = {ipaddress.ip_interface(word).network
                    for line in run("ip", "-4", "-o", "addr", "show").splitlines()
                    for word in line.split() if "/" in word and word[0].isdigit()}
            network = next((n for n in SUBNETS.subnets(new_prefix=24) if n not in used), None)
            if network is None:
                raise HostsError(f"every /24 of {SUBNETS} is in use")
            self._add_namespace(self.switch)
            run("ip", "link", "add", "name", self.tag, "type", "veth", "peer", "name", "uplink",
                "netns", self.switch)
            self._uplink_made = True
            run("ip", "addr", "add", f"{network.network_address + 1}/24", "dev", self.tag)
            run("ip", "link", "set", "dev", self.tag, "up")
        return network

    def _switch(self) -> None:
        ns = ("ip", "-n", self.switch)
        run(*ns, "link", "add", "name", "br0", "type", "bridge")
        run(*ns, "link", "set", "dev", "br0", "up")
        run(*ns, "link", "set", "dev", "uplink", "master", "br0", "up")

    def _host(self, name: str, address: str, network: ipaddress.IPv4Network, rate: str | None,
              sizes: tuple[int, int]) -> SimulatedHost:
        netns = f"{self.tag}-{name}"
        self._add_namespace(netns)
        port = f"to-{name}"
        run("ip", "-n", self.switch, "link", "add", "name", port, "type", "veth", "peer", "name",
            "eth0", "netns", netns)
        run("ip", "-n", self.switch, "link", "set", "dev", port, "master", "br0", "up")
        run("ip", "-n", netns, "addr", "add", f"{address}/{network.prefixlen}", "dev", "eth0")
        run("ip", "-n", netns, "link", "set", "dev", "eth0", "up")
        run("ip", "-n", netns, "link", "set", "dev", "lo", "up")
        if rate is not None:
            for where, link in ((netns, "eth0"), (self.switch, port)):  # both directions
                run("tc", "-n", where, "qdisc", "add", "dev", link, "root", "tbf", "rate", rate,
                    "burst", "256kb", "latency", "50ms")
        hostname = netns
        hosts_file = self._directory / f"{name}.hosts"
        hosts_file.write_text(f"127.0.0.1 localhost\n{address} {hostname}\n")
        mount_ns, uts_ns = self._directory / f"{name}.mnt", self._directory / f"{name}.uts"
        tmp = self._directory / f"{name}.tmp"
        tmp.mkdir()
        for path in (mount_ns, uts_ns):
            path.touch()
            self._mounts.append(path)  # unshare binds them even when the command fails
        run("unshare", f"--mount={mount_ns}", f"--uts={uts_ns}", "--propagation", "private",
            "sh", "-c", 'hostname "$1" && mount -t tmpfs -o "size=$2,mode=1777" tmpfs /dev/shm '
            '&& mount -t tmpfs -o "size=$3,mode=1777" tmpfs "$4" && mount --bind "$5" /etc/hosts',
            "sh", hostname, str(sizes[0]), str(sizes[1]), str(tmp), str(hosts_file))
        return SimulatedHost(name, netns, address, hostname, mount_ns, uts_ns, tmp)

    def _add_namespace(self, name: str) -> None:
        run("ip", "netns", "add", name)
        self._namespaces.append(name)

    def _mount(self, *argv: str) -> None:
        run("mount", *argv)
        self._mounts.append(Path(argv[-1]))

    def close(self) -> None:
        """Kill what still runs on the hosts, remove mounts, namespaces and links;
        idempotent. Raises ``HostsError`` naming whatever could not be removed."""
        if self._closed:
            return
        self._closed = True
        errors = _remove(self._namespaces, self._mounts,
                         self.tag if self._uplink_made else None, self._directory)
        if errors:
            raise HostsError("; ".join(errors))

    def host_to_host_bytes(self) -> int:
        """Bytes the bridge has carried from one host to another, not to or from the gateway,
        so far: what every host port sent towards its host, less what came in from the
        gateway (flooded broadcasts make it a slight overestimate, by a few hundred bytes)."""
        links = {link["ifname"]: link["stats64"] for link in json.loads(
            run("ip", "-n", self.switch, "-s", "-j", "link", "show"))}
        to_hosts = sum(links[f"to-{host.name}"]["tx"]["bytes"] for host in self.hosts)
        return int(to_hosts - links["uplink"]["rx"]["bytes"])

    def namespaces(self) -> list[str]:
        """The namespaces this network made (and ``close`` removes)."""
        return list(self._namespaces)


def _remove(namespaces: list[str], mounts: list[Path], link: str | None,
            directory: Path) -> list[str]:
    """Kill the processes in ``namespaces``, unmount ``mounts`` (last first), delete ``link``
    and the namespaces, remove ``directory``; what could not be done."""
    errors: list[str] = []
    for netns in reversed(namespaces):
        _kill_processes(netns, errors)
    mounted = {line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()}
    for mount in reversed(mounts):
        if str(mount) not in mounted:
            continue  # its making failed
        try:
            run("umount", str(mount))
        except HostsError as exc:
            errors.append(str(exc))
    if link is not None:  # now: a namespace's links are removed after it, asynchronously
        try:
            run("ip", "link", "delete", "dev", link)
        except HostsError as exc:
            errors.append(str(exc))
    for netns in reversed(namespaces):
        try:
            run("ip", "netns", "delete", netns)
        except HostsError as exc:
            errors.append(str(exc))
    shutil.rmtree(directory, ignore_errors=True)
    return errors


def _kill_processes(netns: str, errors: list[str]) -> None:
    """SIGKILL every process left in ``netns`` and wait (bounded) until none is."""
    deadline = time.monotonic() + 10
    while True:
        try:
            pids = [int(p) for p in run("ip", "netns", "pids", netns).split()]
        except HostsError as exc:
            errors.append(str(exc))
            return
        if not pids:
            return
        if time.monotonic() > deadline:
            errors.append(f"processes {pids} outlived SIGKILL in {netns}")
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)


def sweep_abandoned() -> None:
    """Remove the networks of test processes that died without closing them (a run killed
    by a timeout): their tag names a process id that no longer exists."""
    tags: dict[str, list[str]] = {}
    for line in run("ip", "netns", "list").splitlines():
        name = line.split()[0] if line.split() else ""
        if (match := _TAG.match(name)) and not Path(f"/proc/{match[2]}").exists():
            tags.setdefault(match[1], []).append(name)
    for directory in _MOUNTS.glob("swh*") if _MOUNTS.is_dir() else ():
        if (match := _TAG.match(directory.name)) and not Path(f"/proc/{match[2]}").exists():
            tags.setdefault(match[1], [])
    mounted = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()]
    for tag, namespaces in tags.items():
        under = str(_MOUNTS / tag)
        mounts = sorted((Path(m) for m in mounted if m == under or m.startswith(under + "/")),
                        key=lambda m: len(str(m)))  # _remove unmounts the files, then their dir
        linked = subprocess.run(["ip", "link", "show", "dev", tag], capture_output=True,
                                timeout=_COMMAND_SECONDS).returncode == 0
        _remove(namespaces, mounts, tag if linked else None, _MOUNTS / tag)
