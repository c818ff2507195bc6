"""The Arrow Flight transport: plans by ``do_action``, partitions by ``do_get``, over gRPC.

Capabilities: not zero copy (batches are Arrow IPC messages on a socket), crosses processes
and hosts, authenticates. Addresses are ``grpc+tls://HOST:PORT`` with security on (the
default) and ``grpc://HOST:PORT`` with it off or with ``security.tls`` false; a client never
connects to a plain address when it is configured for TLS.

Security (``transport.security``): every call carries ``authorization: Bearer <token>``,
checked by server middleware before the call runs (a stock client without it gets
``UNAUTHENTICATED``); TLS from the configured certificate files or a throwaway CA, mutual when
``mutual_tls``; clients check the server's certificate against ``server_name``.

Wire protocol (so that a stock ``pyarrow.flight.FlightClient`` can talk to a worker):

- ``do_action("deliver", body=<task plan JSON bytes>)`` → ``service.submit``; no results.
- ``do_action("cancel", body=<query id, UTF-8>)`` → ``service.cancel``; no results.
- ``do_get(Ticket(b'{"partition": "QUERY/STAGE/TASK/PARTITION", "timeout": 5.0}'))`` streams
  one partition; ``timeout`` is how long the worker waits for the partition's task to
  exist. The ticket is UTF-8 JSON with exactly those two keys, at most 1 KiB; anything else
  is refused with a ``protocol`` error, and the server keeps serving.

Errors: whatever the service raises is passed through ``as_library_error`` and sent as a
``FlightServerError`` whose ``extra_info`` is ``{"code": ..., "message": ...}`` JSON; the
client rebuilds the library's exception with ``error_from_code``. A peer that is gone
surfaces as ``ConnectionLost``: actions carry a call deadline (``call_timeout``); a killed
worker resets its sockets, which ends streams at once; a silent one (host down, frozen,
network cut) is found by gRPC keepalive pings (``keepalive_seconds`` +
``keepalive_timeout_seconds``). Pyarrow's Flight server cannot relax gRPC's ping policy
(apache/arrow#44916), which answers pings more frequent than every 5 minutes on a stream
that has sent no data with GOAWAY "too_many_pings", so ``keepalive_seconds`` defaults to
360 (a margin over those 5 minutes): a silent peer is found within about 6.5 minutes.

Messages: batches larger than ``max_message_bytes`` are cut into row slices of about that
size, so no gRPC message (and no buffer on either side) is much larger. Flow control is
gRPC's own HTTP/2 per-stream window: we pin it to ``_STREAM_WINDOW_BYTES`` (instead of
letting bandwidth-delay probing grow it), so a reader has at most that window plus one
message being written and one being decoded in flight: ``Capabilities.max_inflight_bytes``
for the default ``max_message_bytes``.

Connections: ``channels_per_peer`` gRPC channels (4) per peer address, shared by every client
of it; partition reads take them in turn. Over one channel, concurrent reads of one peer
shared one HTTP/2 connection and ran at about half of stock Flight with one connection per
stream (``benchmarks.transports``, 4 streams); calls (deliver, cancel) use the first channel.
"""

from __future__ import annotations

import logging
import itertools
import threading
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.flight as flight
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sparkwire.transport.base import (
    Capabilities,
    PartitionKey,
    TransportClient,
    WorkerService,
    WorkerTransport,
)
from sparkwire.transport.errors import ConfigError, ConnectionLost, ProtocolError
from sparkwire.transport.flight_wire import (
    TokenCheck,
    decode_ticket,
    encode_ticket,
    from_flight_error,
    join_address,
    scheme_for,
    split_address,
    to_flight_error,
)
from sparkwire.transport.ipc import validated
from sparkwire.transport.limits import MAX_PLAN_BYTES
from sparkwire.transport.security import Credentials, Security, check_exposure
from sparkwire.transport.stream import PartitionReader

_log = logging.getLogger(__name__)

_MAX_QUERY_ID_BYTES = 64
_DEFAULT_MESSAGE_BYTES = 8 << 20
_STREAM_WINDOW_BYTES = 16 << 20
#: gRPC channels (TCP connections) per peer, partition reads spread over them in turn. One
#: HTTP/2 connection carries every stream of a channel through one socket and one transport
#: thread on each side; several let concurrent reads of one peer run in parallel.
_CHANNELS_PER_PEER = 4


class FlightOptions(BaseModel):
    """Constructor options; strings from ``SPARKWIRE_TRANSPORT__OPTIONS__*`` are coerced."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = Field(default="127.0.0.1", min_length=1)
    max_message_bytes: int = Field(default=_DEFAULT_MESSAGE_BYTES, ge=64 << 10, le=1 << 30)
    max_plan_bytes: int = Field(default=MAX_PLAN_BYTES, ge=1024, le=MAX_PLAN_BYTES)
    call_timeout: float = Field(default=30.0, gt=0, le=3600)
    keepalive_seconds: float = Field(default=360.0, ge=1, le=7200)
    keepalive_timeout_seconds: float = Field(default=20.0, ge=1, le=600)
    shutdown_timeout: float = Field(default=10.0, gt=0, le=600)
    channels_per_peer: int = Field(default=_CHANNELS_PER_PEER, ge=1, le=16)


def _slices(batch: pa.RecordBatch, limit: int) -> Iterator[pa.RecordBatch]:
    """``batch`` cut into row slices of about ``limit`` bytes (rows are indivisible)."""
    # get_total_buffer_size() is cheap but counts whole buffers under a slice; nbytes is
    # exact but costs microseconds, which matters for tiny batches.
    size = limit if batch.get_total_buffer_size() <= limit else batch.nbytes
    if size <= limit or batch.num_rows <= 1:
        yield batch
        return
    step = max(1, batch.num_rows * limit // size)
    for start in range(0, batch.num_rows, step):
        yield batch.slice(start, step)


class _Channels:
    """The channels to one peer, shared by every client of it; reads take them in turn."""

    def __init__(self, channels: tuple[flight.FlightClient, ...]) -> None:
        self.all = channels
        self._turn = itertools.cycle(channels)
        self._lock = threading.Lock()

    def next(self) -> flight.FlightClient:
        with self._lock:
            return next(self._turn)


# [misc]: pyarrow ships no type stubs, so its base class is Any to mypy.
class FlightWorkerServer(flight.FlightServerBase):  # type: ignore[misc]
    """Serves one ``WorkerService``; gRPC runs every call on its own thread pool."""

    def __init__(
        self, service: WorkerService, host: str, port: int, options: FlightOptions,
        credentials: Credentials | None,
    ) -> None:
        scheme = scheme_for(credentials)
        tls = credentials.tls if credentials is not None else None
        mutual = credentials is not None and credentials.mutual_tls
        # Mutual TLS: clients must present a certificate that the cluster's roots signed.
        client_roots = tls.ca if tls is not None and mutual else None
        super().__init__(
            join_address(scheme, host, port),
            tls_certificates=[flight.CertKeyPair(tls.cert, tls.key)] if tls is not None else None,
            verify_client=client_roots is not None,
            root_certificates=client_roots,
            middleware={"auth": TokenCheck(credentials.token())} if credentials else None,
        )
        self.address = join_address(scheme, host, self.port)
        self._service = service
        self._options = options
        self._lock = threading.Lock()
        self._streaming: set[PartitionReader] = set()
        self._closing = False

    def do_action(self, context: flight.ServerCallContext, action: flight.Action) -> list[bytes]:
        try:
            body = action.body
            if action.type == "deliver":
                if body.size > self._options.max_plan_bytes:
                    raise ProtocolError(f"task plan of {body.size} bytes exceeds "
                                        f"{self._options.max_plan_bytes}")
                self._service.submit(body.to_pybytes())
            elif action.type == "cancel":
                self._service.cancel(self._query_id(body))
            else:
                raise ProtocolError(f"unknown action {action.type[:64]!r}")
        except Exception as exc:
            raise to_flight_error(exc) from exc
        return []

    def list_actions(self, context: flight.ServerCallContext) -> list[tuple[str, str]]:
        return [("deliver", "accept a task plan (JSON bytes)"),
                ("cancel", "cancel a query (query id bytes)")]

    def do_get(
        self, context: flight.ServerCallContext, ticket: flight.Ticket
    ) -> flight.FlightDataStream:
        try:
            reader = self._service.open(*decode_ticket(ticket.ticket))
        except Exception as exc:
            raise to_flight_error(exc) from exc
        with self._lock:
            self._streaming.add(reader)
        failure: list[Exception] = []

        def batches() -> Iterator[pa.RecordBatch]:
            # Runs inside the C++ stream below; it cannot carry an error code out, so the
            # failure is kept and raised by ``payloads`` once this stream has ended. When
            # the client goes away, gRPC drops the stream and ``finally`` frees the producer.
            try:
                for batch in reader:
                    yield from _slices(batch, self._options.max_message_bytes)
                if self._closing:
                    raise ConnectionLost(f"worker at {self.address} is shutting down")
            except Exception as exc:
                failure.append(exc)
            finally:
                reader.close()
                with self._lock:
                    self._streaming.discard(reader)

        def payloads() -> Iterator[flight.FlightDataStream]:
            # One IPC stream for all batches, so dictionaries are sent once and replaced
            # only when they change (a GeneratorStream of bare batches cannot send them).
            source = pa.RecordBatchReader.from_batches(reader.schema, batches())
            yield flight.RecordBatchStream(source)
            if failure:
                raise to_flight_error(failure[0])

        return flight.GeneratorStream(reader.schema, payloads())

    def close(self) -> None:
        """Stop serving: release open streams, then shut gRPC down within a bound."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            streaming = list(self._streaming)
        for reader in streaming:
            reader.close()
        # shutdown() waits for running calls; one blocked in the service ends within the
        # service's own timeouts, so wait on a thread rather than forever.
        stopper = threading.Thread(target=self._stop, name=f"flight-shutdown-{self.port}",
                                   daemon=True)
        stopper.start()
        stopper.join(self._options.shutdown_timeout)
        if stopper.is_alive():
            _log.warning("flight server %s still draining calls after %gs",
                         self.address, self._options.shutdown_timeout)

    def _stop(self) -> None:
        self.shutdown()
        self.wait()

    @staticmethod
    def _query_id(body: pa.Buffer) -> str:
        if body.size > _MAX_QUERY_ID_BYTES:
            raise ProtocolError("query id too long")
        try:
            query_id = body.to_pybytes().decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("query id is not UTF-8") from None
        return PartitionKey(query_id, 0, 0, 0).query_id  # validates it like every key


class FlightWorkerClient(TransportClient):
    """A client for one worker over the ``pyarrow.flight.FlightClient`` channels shared per address."""

    route = "flight"

    def __init__(
        self, transport: FlightTransport, channels: _Channels, address: str
    ) -> None:
        self._transport = transport
        self._channel = channels.all[0]  # calls (deliver, cancel)
        self._channels = channels  # partition reads, in turn
        self._address = address
        self._headers = transport.headers
        self._lock = threading.Lock()
        self._streams: set[flight.FlightStreamReader] = set()
        self._closed = False

    def deliver(self, plan: bytes) -> None:
        self._action("deliver", bytes(plan))

    def cancel(self, query_id: str) -> None:
        self._action("cancel", query_id.encode())

    def read(self, key: PartitionKey, timeout: float) -> PartitionReader:
        self._check_open()
        ticket = flight.Ticket(encode_ticket(key, timeout))
        try:
            stream = self._channels.next().do_get(ticket, flight.FlightCallOptions(headers=self._headers))
            # do_get returns once the schema arrived
            schema = stream.schema
        except (flight.FlightError, pa.ArrowException) as exc:
            raise from_flight_error(exc, self._address) from exc

        def release() -> None:
            stream.cancel()  # ends the gRPC call; the server then frees the producer
            with self._lock:
                self._streams.discard(stream)

        with self._lock:
            self._streams.add(stream)
            closed = self._closed
        if closed:
            stream.cancel()
        return PartitionReader(schema, self._batches(stream), release)

    def close(self) -> None:
        # Cancel open streams rather than close their readers: a reader still being
        # drained must then raise ConnectionLost, never look like an early end of stream.
        with self._lock:
            self._closed = True
            streams, self._streams = list(self._streams), set()
        for stream in streams:
            stream.cancel()

    def _batches(self, stream: flight.FlightStreamReader) -> Iterator[pa.RecordBatch]:
        while True:
            try:
                chunk = stream.read_chunk()
            except StopIteration:
                return
            except (flight.FlightError, pa.ArrowException) as exc:
                raise from_flight_error(exc, self._address) from exc
            if chunk.data is not None:
                yield validated(chunk.data)

    def _action(self, kind: str, body: bytes) -> None:
        self._check_open()
        call = flight.FlightCallOptions(timeout=self._transport.options.call_timeout,
                                        headers=self._headers)
        try:
            for _ in self._channel.do_action(flight.Action(kind, body), call):
                pass
        except (flight.FlightError, pa.ArrowException) as exc:
            raise from_flight_error(exc, self._address) from exc

    def _check_open(self) -> None:
        if self._closed:
            raise ConnectionLost(f"client for {self._address} is closed")


class FlightTransport(WorkerTransport):
    """Workers talk Arrow Flight; ``channels_per_peer`` gRPC channels per worker address, shared by clients."""

    name = "flight"
    capabilities = Capabilities(
        zero_copy=False,
        crosses_processes=True,
        crosses_hosts=True,
        max_inflight_bytes=_STREAM_WINDOW_BYTES + 2 * _DEFAULT_MESSAGE_BYTES,
        authenticates=True,
        uses_tls=True,
    )

    def __init__(self, security: Security | None = None, **options: Any) -> None:
        try:
            self.options = FlightOptions(**options)
        except ValidationError as exc:
            raise ConfigError(f"bad flight transport options: {exc}") from exc
        self._security = security or Security()
        self._credentials = self._security.credentials(tls=True)
        self._scheme = scheme_for(self._credentials)
        #: Sent with every call: the bearer token, when security is on.
        self.headers: list[tuple[bytes, bytes]] = (
            [(b"authorization", f"Bearer {self._credentials.token()}".encode())]
            if self._credentials else [])
        self._lock = threading.Lock()
        self._servers: list[FlightWorkerServer] = []
        self._channels: dict[tuple[str, int], _Channels] = {}
        self._clients: list[FlightWorkerClient] = []
        self._closed = False

    def serve(self, service: WorkerService, address: str | None = None) -> FlightWorkerServer:
        host, port = (self.options.host, 0) if address is None else self._location(address)
        self._check_open()
        check_exposure(host, self._security)
        try:
            server = FlightWorkerServer(service, host, port, self.options, self._credentials)
        except (flight.FlightError, pa.ArrowException) as exc:
            where = join_address(self._scheme, host, port)
            raise ConfigError(f"cannot serve flight at {where}: {exc}") from exc
        with self._lock:
            self._servers.append(server)
        return server

    def address_on(self, host: str) -> str:
        return join_address(self._scheme, host, 0)

    def connect(self, address: str) -> FlightWorkerClient:
        location = self._location(address)
        with self._lock:
            self._check_open()
            channels = self._channels.get(location)
            if channels is None:
                channels = _Channels(tuple(self._channel(*location)
                                           for _ in range(self.options.channels_per_peer)))
                self._channels[location] = channels
            client = FlightWorkerClient(self, channels, address)
            self._clients.append(client)
        return client

    def close(self) -> None:
        with self._lock:
            self._closed = True
            servers, self._servers = self._servers, []
            clients, self._clients = self._clients, []
            channels = [c for pool in self._channels.values() for c in pool.all]
            self._channels = {}
        for client in clients:
            client.close()
        for channel in channels:
            channel.close()
        for server in servers:
            server.close()

    def _location(self, address: str) -> tuple[str, int]:
        """Host and port of ``address``, which must use this transport's scheme (no
        downgrade to plain gRPC when TLS is configured, no TLS we hold no roots for)."""
        scheme, host, port = split_address(address)
        if scheme != self._scheme:
            raise ConfigError(f"{address!r} is not a {self._scheme}:// address, which this "
                              "transport's security settings call for")
        return host, port

    def _channel(self, host: str, port: int) -> flight.FlightClient:
        tls = self._credentials.tls if self._credentials else None
        if tls is None:
            return flight.FlightClient(join_address(self._scheme, host, port),
                                       generic_options=self._channel_options())
        mutual = self._credentials is not None and self._credentials.mutual_tls
        return flight.FlightClient(
            join_address(self._scheme, host, port),
            tls_root_certs=tls.ca,
            cert_chain=tls.cert if mutual else None,
            private_key=tls.key if mutual else None,
            override_hostname=tls.server_name,
            generic_options=self._channel_options(),
        )

    def _channel_options(self) -> list[tuple[str, int]]:
        return [
            ("grpc.keepalive_time_ms", int(self.options.keepalive_seconds * 1000)),
            ("grpc.keepalive_timeout_ms", int(self.options.keepalive_timeout_seconds * 1000)),
            # newer gRPC cores time an unanswered ping out by this one (default 60 s)
            ("grpc.http2.ping_timeout_ms", int(self.options.keepalive_timeout_seconds * 1000)),
            ("grpc.http2.max_pings_without_data", 0),  # keep pinging a silent stream
            ("grpc.http2.bdp_probe", 0),  # a fixed window is what bounds bytes in flight
            ("grpc.http2.lookahead_bytes", _STREAM_WINDOW_BYTES),
        ]

    def _check_open(self) -> None:
        if self._closed:
            raise ConnectionLost("the flight transport is closed")
