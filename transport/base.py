"""The transport contract: how plans reach workers and how partitions travel between them.

A worker does three things for the rest of the cluster: it accepts a task plan, it serves
the output partitions of its tasks, and it cancels the tasks of a query. A transport carries
exactly those three calls, nothing more, in both directions of one seam:

- server side: ``WorkerTransport.serve(service, address)`` exposes a ``WorkerService`` at an
  address and returns a ``Server`` whose ``address`` others connect to;
- client side: ``WorkerTransport.connect(address)`` returns a ``TransportClient`` whose
  methods mirror the service's, the way a generated RPC stub looks without the RPC.

Planning, routing and execution never learn which transport runs: they see these methods.

Semantics every transport honours (``tests/transport/`` checks them on every transport):

- **Plans are bytes.** A task plan is versioned JSON produced by the coordinator. Transports
  carry it opaquely; the worker validates it. Nothing that arrives is unpickled or evaluated.
- **Order and fidelity.** A partition's batches arrive in the order written and unchanged:
  schema, values, nulls, dictionaries, nested types.
- **Explicit end of stream.** Iteration ends only when the producer finished the partition;
  a producer that failed raises on the reader instead of ending the stream short.
- **Waiting.** Opening a partition that does not exist yet waits up to ``timeout`` seconds
  for its task to be delivered; a partition that will never exist (cancelled query, failed
  task, timeout) raises ``PartitionNotFound``, ``QueryCancelled`` or ``TaskFailed``.
- **Errors** raised by the service reach the caller as the library's own exception class
  (``transport.errors``) with the worker's message.
- **Early close.** ``PartitionReader.close()`` before the end releases the producer side
  (its cursor, buffers, flow-control credit). Closing twice is safe, for readers, clients,
  servers and transports alike.
- **Buffer ownership.** Batches handed to a reader are immutable and shared: a zero-copy
  transport may give the reader the producer's own buffers, so nobody mutates them.
- **Flow control.** A reader has a bounded number of bytes in flight; a transport that
  pipelines batches bounds its read-ahead (``Capabilities.max_inflight_bytes``).

Addresses: ``mem://NAME``, ``shm://PATH``, ``tcp://HOST:PORT`` (ZeroMQ),
``grpc://HOST:PORT`` and ``grpc+tls://HOST:PORT`` (Flight), and
``hybrid://HOST-ID/?shm=...&net=...`` (shm on one host, the network between hosts).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Protocol

from sparkwire.transport.errors import ProtocolError
from sparkwire.transport.stream import PartitionReader
from sparkwire.transport.closing import Closeable

_QUERY_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True, slots=True)
class PartitionKey:
    """Names one output partition: partition ``partition`` of task ``task`` of a stage, as
    written by the task's ``attempt`` (a task run again after a worker loss writes under its
    next attempt, so no reader mixes the two runs' rows)."""

    query_id: str
    stage: int
    task: int
    partition: int
    attempt: int = 0

    def __post_init__(self) -> None:
        if not _QUERY_ID.fullmatch(self.query_id):
            raise ProtocolError(f"malformed query id {self.query_id!r}")
        if self.attempt < 0:
            raise ProtocolError(f"negative attempt {self.attempt}")

    def __str__(self) -> str:
        """``query/stage/task/partition``, and ``/attempt`` after it for a run again."""
        key = f"{self.query_id}/{self.stage}/{self.task}/{self.partition}"
        return f"{key}/{self.attempt}" if self.attempt else key

    @classmethod
    def parse(cls, text: str) -> PartitionKey:
        """Inverse of ``str()``; the form tickets and frames carry on the wire."""
        parts = text.split("/")
        try:
            if len(parts) not in (4, 5):
                raise ValueError(text)
            query_id, *numbers = parts
            return cls(query_id, *(int(n) for n in numbers))
        except ValueError:
            raise ProtocolError(f"malformed partition key {text[:200]!r}") from None


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a transport can do, read by the coordinator and the tests instead of type checks."""

    zero_copy: bool
    crosses_processes: bool
    crosses_hosts: bool
    max_inflight_bytes: int | None = None
    #: Takes ``security=`` and refuses callers without the cluster's credentials.
    authenticates: bool = False
    #: Its credentials include TLS material (certificates), which clusters make or load.
    uses_tls: bool = False
    #: The option that sets a reader's window (bytes in flight per stream), if one does;
    #: ``create_transport(window=...)`` fills it in from a worker's memory plan.
    window_option: str | None = None


class WorkerService(Protocol):
    """What a worker offers the cluster; a transport serves it at an address."""

    def submit(self, plan: bytes) -> None:
        """Accept one task plan or notice (JSON bytes, ``coordinator.taskplan``); raises
        ``PlanRejected`` if it is invalid."""

    def open(self, key: PartitionKey, timeout: float) -> PartitionReader:
        """Stream one output partition, waiting up to ``timeout`` s for its task to exist."""

    def cancel(self, query_id: str) -> None:
        """Stop every task of the query and free its partitions; unknown ids are a no-op."""


class Server(Protocol):
    """A running endpoint for one service."""

    address: str

    def close(self) -> None: ...


class TransportClient(Closeable, ABC):
    """A connection to one worker, mirroring ``WorkerService`` call for call."""

    #: The way this client's reads travel, as metrics name it (bytes read per route): the
    #: transport's name, or for a composed transport the name of the part it chose.
    route: str
    #: A read hands over the producer's own stored batches, in this process (the memory
    #: transport; a worker reading its own partitions): reading a partition again moves no
    #: bytes and holds nothing the producer's store does not count already, so a worker
    #: whose tasks share a partition lets each read it directly rather than keep a copy.
    reads_in_place: bool = False

    @abstractmethod
    def deliver(self, plan: bytes) -> None:
        """Hand the worker a task plan; returns once the worker has accepted it."""

    @abstractmethod
    def read(self, key: PartitionKey, timeout: float) -> PartitionReader:
        """Open a partition for streaming (see the module docstring for waiting rules)."""

    @abstractmethod
    def cancel(self, query_id: str) -> None:
        """Cancel the query's tasks on this worker and free its partitions."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection; idempotent."""



class WorkerTransport(Closeable, ABC):
    """One way for workers to talk. Subclasses set ``name`` and ``capabilities``.

    An instance owns its state (connections, the in-process address table), so two clusters
    in one process never see each other's workers. ``close()`` stops every server it started
    and every client it handed out.
    """

    name: ClassVar[str]
    #: Set on the class, where the coordinator reads it before any instance exists
    #: (``transport_class(kind).capabilities``); an instance may refine it from its options
    #: (zmq: the window it was given), so it is no ``ClassVar``.
    capabilities: Capabilities

    @abstractmethod
    def serve(self, service: WorkerService, address: str | None = None) -> Server:
        """Expose ``service``; ``address=None`` lets the transport (or the OS) choose."""

    @abstractmethod
    def connect(self, address: str) -> TransportClient:
        """A client for the worker served at ``address``."""

    def address_on(self, host: str) -> str | None:
        """The address to ``serve`` at on network interface ``host``, port chosen by the OS.

        A worker hosted on a machine the coordinator did not start (a Spark executor) binds
        the interface it reaches the coordinator through. ``None``: the transport's address
        does not name a host (memory, shared memory), so ``serve``'s default applies.
        """
        return None

    @abstractmethod
    def close(self) -> None:
        """Stop all servers and clients of this transport; idempotent."""

