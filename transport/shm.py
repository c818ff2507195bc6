"""The shared-memory transport: workers are processes on one host, batches travel in /dev/shm.

Capabilities: zero copy (a batch for a client of the same transport instance is handed over;
across processes the reader copies it out of shared memory once, before validating it), crosses
processes, not hosts, authenticates; ``max_inflight_bytes``
is a reader's credit window. Security is the zmq transport's CURVE on the control socket: the
per-cluster credential besides the 0600 modes of the socket and the segments. Options are the zmq transport's (``credit_bytes``, ``idle_timeout``,
``heartbeat``, ``max_streams``) without ``host``. Addresses are ``shm://PATH``, PATH a Unix
socket in a private directory (0700, socket 0600) under the temp dir, removed on close.

Control (plans, opens, credit, end of stream, errors) is ``transport.wire`` over ZeroMQ
``ipc://``, through ``ZmqServer``/``ZmqClient``; only the ``PayloadCodec`` differs: a batch
is written as Arrow IPC into shared memory, and its frame names where (``transport.shm_codec``;
a stream's ring of ``1.5 x credit_bytes`` is ``transport.shm_arena``, kept for the peer's next
stream while idle for at most 5 s, segments
``/dev/shm/sparkwire-<pid>-<server>-<n>`` are ``transport.shm_segments``).

Reclamation: the server pings the peers that still have segments to map, so that a gone one
fails the send and the server unlinks what it never opened; a closing server unlinks
everything under its prefix. Segments and socket directories of processes that died are
swept, by pid, whenever a server starts or closes (``sweep``).
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from sparkwire.transport import wire
from sparkwire.transport.base import Capabilities, WorkerService
from sparkwire.transport.errors import ConfigError
from sparkwire.transport.flow import StreamPump
from sparkwire.transport.shm_arena import HEADER
from sparkwire.transport.shm_codec import Handover, ProducerStream, ShmCodec
from sparkwire.transport.security import Security
from sparkwire.transport.stream import PartitionReader
from sparkwire.transport.zmq_auth import Curve
from sparkwire.transport.owned import owned_dir
from sparkwire.transport.shm_segments import PREFIX, SHM_DIR, SOCKET_DIRS, sweep, unlink
from sparkwire.transport.zmq import ZmqTransport
from sparkwire.transport.zmq_client import ZmqClient
from sparkwire.transport.zmq_server import ZmqServer

_ADDRESS = re.compile(r"shm://(/[^\x00]{1,100})")


class ShmServer(ZmqServer):
    """A ``ZmqServer`` on a Unix socket whose batches travel in shared memory."""

    def __init__(self, context: Any, service: WorkerService, path: Path, own_dir: bool,
                 local: Handover, options: Any, curve: Curve | None) -> None:
        self._path, self._own_dir = path, own_dir
        ring = -(-options.credit_bytes * 3 // 2 // HEADER) * HEADER  # whole words: Arena casts
        self._shm = ShmCodec(local, f"{PREFIX}{os.getpid()}-{secrets.token_hex(4)}", ring)
        sweep()
        try:
            super().__init__(context, service, f"ipc://{path}", self._shm, options, curve)
            os.chmod(path, 0o600)
        except BaseException:
            if own_dir:
                shutil.rmtree(path.parent, ignore_errors=True)
            raise
        self.address = f"shm://{path}"

    def _stream(self, peer: bytes, request: wire.Open, pump: StreamPump) -> None:
        self._shm.current.stream = stream = ProducerStream(peer)
        try:
            super()._stream(peer, request, pump)
        finally:
            self._shm.current.stream = None
            self._shm.finish(stream)

    def _open(self, request: wire.Open) -> PartitionReader:
        """The partition, its arena handed back as soon as its last batch is packed: before the
        reader learns of the end and opens its next stream, which can then reuse it."""
        reader = super()._open(request)
        stream = self._shm.current.stream

        def batches() -> Iterator[pa.RecordBatch]:
            yield from reader
            self._shm.finish(stream)

        return PartitionReader(reader.schema, batches(), reader.close)

    def _ping_peers(self) -> None:
        super()._ping_peers()
        self._shm.expire()
        for peer in self._shm.waiting():  # a gone one fails the send: _on_unsendable
            self._io.send([peer, *self._ping])

    def _on_unsendable(self, frames: list[wire.Frame]) -> None:
        self._shm.release(bytes(frames[0]))
        super()._on_unsendable(frames)

    def _remove_socket(self) -> None:
        unlink(self._path)
        if self._own_dir:
            shutil.rmtree(self._path.parent, ignore_errors=True)

    def close(self) -> None:
        super().close()
        self._shm.close()
        self._remove_socket()
        sweep()


class ShmTransport(ZmqTransport):
    """Workers as processes on one host; see the module docstring."""

    name = "shm"
    capabilities = Capabilities(zero_copy=True, crosses_processes=True, crosses_hosts=False,
                                max_inflight_bytes=ZmqTransport.capabilities.max_inflight_bytes,
                                authenticates=True, window_option="credit_bytes")

    def __init__(self, security: Security | None = None, **options: Any) -> None:
        if "host" in options:
            raise ConfigError("the shm transport has no host option: it serves on Unix sockets")
        if not SHM_DIR.is_dir():
            raise ConfigError(f"the shm transport needs {SHM_DIR}")
        super().__init__(security, **options)
        self._local = Handover()
        self._codec: ShmCodec = ShmCodec(self._local)

    def address_on(self, host: str) -> str | None:
        return None

    def _server(self, service: WorkerService, address: str | None) -> ShmServer:
        if address is None:
            directory = owned_dir(SOCKET_DIRS)  # 0700
            return ShmServer(self._context, service, directory / "worker.sock", True, self._local,
                             self._options, self._guarded())
        path = self._socket_path(address)
        own_dir = not path.parent.exists()
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.parent.stat()
        if info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise ConfigError(f"{path.parent} must be a directory of this user's alone (0700)")
        return ShmServer(self._context, service, path, own_dir, self._local, self._options,
                         self._guarded())

    def _client(self, address: str) -> ZmqClient:
        routing_id = self._local.token + str(next(self._local.clients)).encode()
        return ZmqClient(self._context, f"ipc://{self._socket_path(address)}", self._codec,
                         self._options, self._curve, routing_id=routing_id)

    def close(self) -> None:
        super().close()
        self._codec.close()  # its readers' arena descriptors
        self._local.batches.clear()

    @staticmethod
    def _socket_path(address: str) -> Path:
        """The Unix socket an ``shm:///PATH`` address names."""
        found = _ADDRESS.fullmatch(address)
        if found is None:
            raise ConfigError(f"shm transport address must look like shm:///PATH: {address!r}")
        return Path(found[1])
