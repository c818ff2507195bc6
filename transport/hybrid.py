"""The hybrid transport: shared memory between workers on one host, the network between hosts.

A hybrid server serves one worker's service twice, over ``shm`` for consumers on its host
and over a network transport (``zmq``, the default, or ``flight``) for everyone else. Its
address names both and the host they run on; a hybrid client whose own host identity equals
the address's connects through shm, any other through the network. Planning and routing see
one address per worker and never learn which way a partition travelled.

Address (parsed strictly by ``HybridAddress.parse``; anything else is a ``ConfigError``)::

    hybrid://<host-id>/?shm=<shm address>&net=<network address>

both sub-addresses percent-encoded (``urllib.parse.urlencode``), each at most once, nothing
else in the query. A client needs both; an address given to ``serve`` may leave either out
(the inner transport then chooses, e.g. ``address_on`` names only the network interface).

Host identity (``host_identity``): what makes two processes able to share our segments and
reach our control socket. A digest of the kernel's boot id (another machine, or this one
rebooted), the device of ``/dev/shm`` (a mount namespace with its own tmpfs there: segments
are not shared), the network namespace (the shm control socket is a Unix socket, and a
container with its own network namespace is another host to the network transport's
addresses) and the user id (segments and sockets are 0600/0700). The ``host_id`` option
overrides it, e.g. to force the network path.

Options (keyword arguments; ``SPARKWIRE_TRANSPORT__OPTIONS__<NAME>``):

- ``network``: ``zmq`` (default) or ``flight``;
- ``host_id``: this process's host identity (default: ``host_identity()``);
- ``credit_bytes``: a reader's window, given to both sides that have one (shm, zmq);
- ``shm``, ``net``: options of the shm transport and of the network transport.

Capabilities: not zero copy as a whole (only the shm path is), crosses processes and hosts,
authenticates: both inner transports get the same ``Security`` and authenticate their
callers their own way (CURVE on shm and zmq, TLS and a bearer token on flight).

Which way the bytes went: a client's ``route`` is the part it chose (``shm``, ``zmq`` or
``flight``), and workers count the bytes their tasks read per route
(``QueryMetrics.bytes_in``).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, urlencode

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sparkwire.transport.base import (
    Capabilities,
    PartitionKey,
    Server,
    TransportClient,
    WorkerService,
    WorkerTransport,
)
from sparkwire.transport.errors import ConfigError
from sparkwire.transport.registry import create_transport
from sparkwire.transport.security import Security
from sparkwire.transport.stream import PartitionReader
from sparkwire.transport.zmq_io import DEFAULT_CREDIT

SHM, NET = "shm", "net"
_HOST_ID = r"[A-Za-z0-9._-]{1,64}"
_ADDRESS = re.compile(rf"hybrid://(?P<host>{_HOST_ID})/\?(?P<query>[A-Za-z0-9._~%+=&-]{{1,2000}})")


def host_identity() -> str:
    """This process's host identity (see the module docstring), 16 hex digits."""
    try:
        parts = [Path("/proc/sys/kernel/random/boot_id").read_text().strip(),
                 str(os.stat("/dev/shm").st_dev), str(os.stat("/proc/self/ns/net").st_ino),
                 str(os.getuid())]
    except OSError as exc:
        raise ConfigError(f"cannot tell which host this is ({exc}); set the hybrid "
                          "transport's host_id option") from None
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class HybridAddress:
    """A worker's host identity and where it serves over shm and over the network."""

    host_id: str
    shm: str | None
    net: str | None

    @classmethod
    def parse(cls, address: str) -> HybridAddress:
        found = _ADDRESS.fullmatch(address) if isinstance(address, str) else None
        if found is None:
            raise ConfigError("a hybrid address looks like hybrid://HOST-ID/?shm=...&net=...: "
                              f"{str(address)[:200]!r}")
        try:
            query = parse_qs(found["query"], keep_blank_values=True, strict_parsing=True,
                             max_num_fields=2, errors="strict")
        except (ValueError, UnicodeDecodeError) as exc:
            raise ConfigError(f"malformed hybrid address query: {exc}") from None
        if not set(query) <= {SHM, NET} or any(len(v) != 1 or not v[0] for v in query.values()):
            raise ConfigError("a hybrid address's query names shm and net, each once, non-empty")
        return cls(found["host"], query.get(SHM, [None])[0], query.get(NET, [None])[0])

    def __str__(self) -> str:
        parts = {k: v for k, v in ((SHM, self.shm), (NET, self.net)) if v is not None}
        return f"hybrid://{self.host_id}/?{urlencode(parts)}"


class HybridOptions(BaseModel):
    """The transport's options (listed in the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    network: Literal["zmq", "flight"] = "zmq"
    host_id: str | None = Field(default=None, pattern=rf"^{_HOST_ID}$")
    credit_bytes: int | None = None
    shm: dict[str, Any] = Field(default_factory=dict)
    net: dict[str, Any] = Field(default_factory=dict)


class HybridServer:
    """One service served over shm and over the network; its address names both."""

    def __init__(self, shm: Server, net: Server, host_id: str) -> None:
        self._shm, self._net = shm, net
        self.address = str(HybridAddress(host_id, shm.address, net.address))

    def close(self) -> None:
        """Close both (each idempotent)."""
        try:
            self._net.close()
        finally:
            self._shm.close()


class HybridClient(TransportClient):
    """The client of whichever path the worker's host called for; ``route`` names it."""

    def __init__(self, inner: TransportClient) -> None:
        self._inner, self.route = inner, inner.route

    def deliver(self, plan: bytes) -> None:
        self._inner.deliver(plan)

    def cancel(self, query_id: str) -> None:
        self._inner.cancel(query_id)

    def read(self, key: PartitionKey, timeout: float) -> PartitionReader:
        return self._inner.read(key, timeout)

    def close(self) -> None:
        self._inner.close()


class HybridTransport(WorkerTransport):
    """shm on one host, ``zmq`` or ``flight`` across hosts; see the module docstring."""

    name = "hybrid"
    # The class may use TLS (network="flight"), so clusters make certificates for it; an
    # instance's capabilities say what its network side does.
    capabilities = Capabilities(zero_copy=False, crosses_processes=True, crosses_hosts=True,
                                max_inflight_bytes=DEFAULT_CREDIT, authenticates=True,
                                uses_tls=True, window_option="credit_bytes")

    def __init__(self, security: Security | None = None, **options: Any) -> None:
        try:
            self._options = HybridOptions(**options)
        except ValidationError as exc:
            raise ConfigError(f"bad options for the {self.name} transport: {exc}") from None
        self.host_id = self._options.host_id or host_identity()
        window = self._options.credit_bytes  # each side's own window option, if it has one
        self._shm = create_transport(SHM, self._options.shm, security, window)
        try:
            self._net = create_transport(self._options.network, self._options.net, security, window)
        except BaseException:
            self._shm.close()
            raise
        inflight = [t.capabilities.max_inflight_bytes for t in (self._shm, self._net)]
        self.capabilities = replace(
            type(self).capabilities, uses_tls=self._net.capabilities.uses_tls,
            max_inflight_bytes=max(i for i in inflight if i is not None))

    def serve(self, service: WorkerService, address: str | None = None) -> HybridServer:
        wanted = HybridAddress(self.host_id, None, None) if address is None else HybridAddress.parse(address)
        if wanted.host_id != self.host_id:
            raise ConfigError(f"cannot serve at {address!r}: this is host {self.host_id}")
        shm = self._shm.serve(service, wanted.shm)
        try:
            net = self._net.serve(service, wanted.net)
        except BaseException:
            shm.close()
            raise
        return HybridServer(shm, net, self.host_id)

    def address_on(self, host: str) -> str:
        return str(HybridAddress(self.host_id, None, self._net.address_on(host)))

    def connect(self, address: str) -> HybridClient:
        target = HybridAddress.parse(address)
        if target.shm is None or target.net is None:
            raise ConfigError(f"a hybrid address to connect to names shm and net: {address[:200]!r}")
        if target.host_id == self.host_id:
            return HybridClient(self._shm.connect(target.shm))
        return HybridClient(self._net.connect(target.net))

    def close(self) -> None:
        try:
            self._net.close()
        finally:
            self._shm.close()
