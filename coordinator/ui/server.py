"""``UiServer``: the live query UI and ``/metrics``, served from the driver.

The standard library's ``http.server.ThreadingHTTPServer``, not a framework: the coordinator
has no event loop to host an ASGI app, the pages are a handful of static files and JSON
copies of the recorder, and server-sent events are a response that keeps writing; a
thread a request, bounded (``max_clients``; one more is answered 503 at once), does all of
it without a new dependency.

Who may look: on a loopback address, anyone on the machine (as with ``sparkwire demo``'s
workers) unless a token is configured; off loopback a token and TLS are required, as the
transports require theirs, or the server refuses to start. The token follows the cluster secret's rules (``transport.security``: at
least 16 bytes, a file only its owner may read) and is compared in constant time. A browser
sends it once as ``?token=`` and gets it back as an ``HttpOnly`` cookie; a scraper sends
``Authorization: Bearer``.

TLS: with ``ui.tls_cert`` and ``ui.tls_key`` the server speaks HTTPS only (TLS 1.2 at
least; the cookie then ``Secure``). The handshake is made on the request's own thread,
within the handler's timeout: on the accepting thread a client that never finishes one
would stop every other from being served. A client over ``max_clients`` is closed without
the 503 (it would need a handshake on that thread). Without them the UI binds loopback only;
a TLS proxy in front is the other way to reach it from elsewhere.

Closing stops accepting, ends the live streams (each notices within ``TICK``), shuts the
connections still open (a browser keeps idle ones), and joins every request thread and the
serving thread: nothing is left running or listening.
"""

from __future__ import annotations

import socket
import ssl
import threading
from http.server import ThreadingHTTPServer
from typing import Any, Callable

from sparkwire.coordinator.config import UiSettings
from sparkwire.coordinator.ui.handler import TICK, Handler
from sparkwire.coordinator.ui.prometheus import registry_for
from sparkwire.coordinator.ui.history import History
from sparkwire.coordinator.ui.recorder import Recorder
from sparkwire.transport.closing import Closeable
from sparkwire.transport.errors import ConfigError
from sparkwire.transport.security import Security, check_private_key, is_loopback

_REFUSED = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
            b"Connection: close\r\nContent-Length: 24\r\n\r\ntoo many clients, retry\n")


class UiServer(ThreadingHTTPServer, Closeable):
    """The UI on ``settings.host:settings.port``; ``url`` once started. A context manager;
    closing twice is safe."""

    daemon_threads = False
    block_on_close = True  # server_close joins every request thread

    def __init__(self, settings: UiSettings, recorder: Recorder,
                 workers: Callable[[], list[dict[str, Any]]]) -> None:
        self.token = ui_token(settings)
        self._tls = ui_tls(settings)
        self.secure = self._tls is not None
        self.recorder = recorder
        self.workers = workers
        self.registry = registry_for(recorder, workers)
        self.stopping = threading.Event()
        self._slots = threading.BoundedSemaphore(settings.max_clients)
        #: The connections being served: closing shuts them, so a browser's idle keep-alive
        #: connection does not hold its thread (and ``close``) until the socket's timeout.
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False
        #: The history thread (``start_ui`` sets it), closed after the server.
        self.history: History | None = None
        if ":" in settings.host.strip("[]"):
            self.address_family = socket.AF_INET6
        try:
            super().__init__((settings.host.strip("[]"), settings.port or 0), Handler)
        except OSError as exc:
            raise ConfigError(f"cannot serve the UI on {settings.host}:{settings.port}: {exc}") from exc

    @property
    def url(self) -> str:
        host, port = str(self.server_address[0]), self.server_address[1]
        shown = f"[{host}]" if self.address_family == socket.AF_INET6 else host
        return f"{'https' if self.secure else 'http'}://{shown}:{port}/"

    def start(self) -> UiServer:
        """Serve on a thread of its own until ``close``."""
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": TICK},
                                        name="sparkwire-ui", daemon=True)
        self._thread.start()
        return self

    def get_request(self) -> tuple[socket.socket, Any]:
        """The next connection, under TLS when configured: the handshake waits for the
        request's thread (``_handshake``)."""
        request, client_address = super().get_request()
        if self._tls is not None:
            request = self._tls.wrap_socket(request, server_side=True, do_handshake_on_connect=False)
        return request, client_address

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread for the request while fewer than ``max_clients`` run; else 503 at once,
        on the accepting thread (a few bytes into a fresh socket's buffer: no wait), or,
        under TLS, the connection closed (a 503 would need a handshake there)."""
        if not self._slots.acquire(blocking=False):
            try:
                if not self.secure:
                    request.settimeout(1.0)
                    request.sendall(_REFUSED)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        try:
            if self._handshake(request):
                super().process_request_thread(request, client_address)
            else:
                self.shutdown_request(request)
        finally:
            with self._open_lock:
                self._open.discard(request)
            self._slots.release()

    def _handshake(self, request: socket.socket) -> bool:
        """Whether ``request`` may be served: plain, or its TLS handshake done within the
        handler's timeout (a failed one is the client's problem, not logged)."""
        if not isinstance(request, ssl.SSLSocket):
            return True
        try:
            request.settimeout(Handler.timeout)
            request.do_handshake()
        except (OSError, ValueError):  # ssl.SSLError is an OSError
            return False
        return True

    def __enter__(self) -> UiServer:
        return self

    def __exit__(self, *exc: object) -> None:
        """``close`` (socketserver's own ``__exit__`` would join the live streams' threads
        without telling them to end)."""
        self.close()

    def close(self) -> None:
        """Stop serving, end the live streams and join every thread; idempotent."""
        if self._closed:
            return
        self._closed = True
        self.stopping.set()
        if self._thread is not None:
            self.shutdown()
            self._thread.join()
        with self._open_lock:
            for connection in self._open:
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # the client closed it already
        self.server_close()
        if self.history is not None:
            self.history.close()


def ui_token(settings: UiSettings) -> bytes | None:
    """The token requests must carry, read by the cluster secret's rules; None when none is
    configured, which only a loopback address allows."""
    if settings.token is None and settings.token_file is None:
        _loopback_only(settings.host, "a token", "anyone who reaches it would see every query",
                       "set ui.token_file (or ui.token), or bind a loopback address")
        return None
    try:
        credentials = Security(secret=settings.token, secret_file=settings.token_file).credentials()
    except ValueError as exc:
        raise ConfigError(f"ui: {exc}") from None
    assert credentials is not None  # security is on by default
    return credentials.secret


def ui_tls(settings: UiSettings) -> ssl.SSLContext | None:
    """The server's TLS context from ``ui.tls_cert`` and ``ui.tls_key``; None without them,
    which only a loopback address allows (the transports' rule: off loopback nothing crosses
    the network in the clear, here the token and every query's text). A key file others may
    read, or a pair that does not load, is a ``ConfigError``."""
    if settings.tls_cert is None or settings.tls_key is None:
        _loopback_only(settings.host, "TLS", "its token and every query's text would cross the "
                       "network in the clear", "set ui.tls_cert and ui.tls_key, or bind a "
                       "loopback address behind a TLS proxy")
        return None
    check_private_key(settings.tls_key)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(settings.tls_cert, settings.tls_key)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"ui: cannot load ui.tls_cert {settings.tls_cert} with ui.tls_key: {exc}") from None
    return context


def _loopback_only(host: str, missing: str, why: str, remedy: str) -> None:
    """Refuse ``host`` unless it is a loopback address: the UI lacks ``missing``."""
    if not is_loopback(host):
        raise ConfigError(f"refusing to serve the UI on {host} without {missing}: {why}; {remedy}")
