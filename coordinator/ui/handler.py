"""The UI's routes: the pages (static files of the package), JSON under ``/api/``, the live
feed ``/api/events`` (server-sent events) and ``/metrics`` (Prometheus' text format).

Every response is built from a copy the recorder makes under its lock; serializing it and
writing it happen here, on the request's own thread. Pages run only the package's own
script (``Content-Security-Policy: default-src 'self'``) and write what a query says as
text, never as markup.
"""

from __future__ import annotations

import hmac
import json
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler
from importlib import resources
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from sparkwire.coordinator.ui.recorder import Recorder
from sparkwire.transport.security import is_loopback

#: The pages and what they are made of: package data (``pyproject.toml``), no CDN.
STATIC = {"/": "index.html", "/workers": "workers.html", "/app.js": "app.js",
          "/style.css": "style.css"}
_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
          ".css": "text/css; charset=utf-8"}
_COOKIE = "sparkwire_ui"
#: Seconds a live stream waits for changes before it looks whether the server is closing.
TICK = 0.1
#: Seconds of silence after which a live stream sends a comment, so proxies keep it open.
_KEEPALIVE = 15.0


class Served(Protocol):
    """What a request reads of its server (``server.UiServer``)."""

    token: bytes | None
    #: Served over TLS: the cookie is ``Secure``.
    secure: bool
    recorder: Recorder
    workers: Callable[[], list[dict[str, Any]]]
    registry: CollectorRegistry
    stopping: threading.Event


class Handler(BaseHTTPRequestHandler):
    """One request of a ``server.UiServer``."""

    server: Served  # type: ignore[assignment]  # the base declares socketserver.BaseServer
    protocol_version = "HTTP/1.1"
    #: A client that does not take what is written within this many seconds is dropped.
    timeout = 5.0

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        """Quiet: a page polling the API would fill the driver's stderr."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        url = urlsplit(self.path)
        path = url.path
        token = parse_qs(url.query).get("token", [None])[0]
        if not self._allowed(token):
            self._send(HTTPStatus.UNAUTHORIZED, b"missing or wrong token\n", "text/plain")
            return
        if path in STATIC or path.startswith("/query/"):
            self._static(STATIC.get(path, "query.html"), set_cookie=token)
        elif path == "/api/queries":
            self._json(self.server.recorder.queries())
        elif path.startswith("/api/query/"):
            found = self.server.recorder.query(path.removeprefix("/api/query/"))
            if found is None:
                self._send(HTTPStatus.NOT_FOUND, b'{"error": "no such query kept"}', "application/json")
            else:
                self._json(found)
        elif path == "/api/workers":
            self._json(self.server.workers())
        elif path == "/api/events":
            self._events()
        elif path == "/metrics":
            self._send(HTTPStatus.OK, generate_latest(self.server.registry), CONTENT_TYPE_LATEST)
        else:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")

    def _allowed(self, token: str | None) -> bool:
        """Whether the request carries the server's token: as ``?token=``, a bearer header
        or the cookie a page got. Without a token (loopback only) the request must name a
        loopback host: a web page whose name was re-pointed at 127.0.0.1 (DNS rebinding)
        names its own, and is refused."""
        expected = self.server.token
        if expected is None:
            return is_loopback(urlsplit("//" + self.headers.get("Host", "")).hostname or "")
        given = [token] if token else []
        header = self.headers.get("Authorization", "")
        if header.startswith("Bearer "):
            given.append(header.removeprefix("Bearer "))
        cookie = SimpleCookie(self.headers.get("Cookie", ""))
        if _COOKIE in cookie:
            given.append(cookie[_COOKIE].value)
        return any(hmac.compare_digest(value.encode(), expected) for value in given)

    def _static(self, name: str, set_cookie: str | None) -> None:
        body = resources.files("sparkwire.coordinator.ui").joinpath("static", name).read_bytes()
        extra = {}
        if set_cookie and self.server.token is not None:
            secure = "; Secure" if self.server.secure else ""
            extra["Set-Cookie"] = f"{_COOKIE}={set_cookie}; HttpOnly; SameSite=Strict; Path=/{secure}"
        self._send(HTTPStatus.OK, body, _TYPES[name[name.rindex("."):]], extra)

    def _json(self, value: object) -> None:
        self._send(HTTPStatus.OK, json.dumps(value).encode(), "application/json")

    def _send(self, status: HTTPStatus, body: bytes, content_type: str,
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self._headers(content_type, extra)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _headers(self, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Security-Policy", "default-src 'self'")
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in (extra or {}).items():
            self.send_header(name, value)

    def _events(self) -> None:
        """Server-sent events: ``query`` with a query's row each time it changes, until the
        client leaves, falls behind the recorder's feed (``dropped``, then the end), or the
        server closes. A client that stops reading is dropped by the socket's timeout."""
        self.send_response(HTTPStatus.OK)
        self._headers("text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        recorder = self.server.recorder
        cursor = recorder.seq
        quiet_since = time.monotonic()
        try:
            self.wfile.write(b"retry: 2000\n\n")
            self.wfile.flush()
            while not self.server.stopping.is_set():
                cursor, changed = recorder.changes_since(cursor, TICK)
                if changed is None:
                    self.wfile.write(b"event: dropped\ndata: {}\n\n")
                    return
                rows = [row for query_id in sorted(changed) if (row := recorder.row(query_id))]
                for row in rows:
                    self.wfile.write(b"event: query\ndata: " + json.dumps(row).encode() + b"\n\n")
                if rows:
                    quiet_since = time.monotonic()
                elif time.monotonic() - quiet_since > _KEEPALIVE:
                    self.wfile.write(b": keepalive\n\n")
                    quiet_since = time.monotonic()
                self.wfile.flush()
        except OSError:
            return  # the client left, or stopped reading: it is dropped
