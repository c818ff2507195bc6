"""CURVE for the zmq and shm transports: encrypted connections, only allow-listed clients.

A CURVE server without a ZAP authenticator admits *any* client key, so this module never
makes one without the other: ``Curve.guard(context)`` starts pyzmq's ``ThreadAuthenticator``
on the transport's context before its first server binds, with a callback that admits the
keys on the allow-list (the cluster's own, derived from the secret, plus
``security.curve_clients``). A client whose key is refused sees ``HANDSHAKE_FAILED_AUTH``; one
without CURVE, or with the wrong server key, never completes a handshake. Either way no
message of theirs reaches the service.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import zmq
from zmq.auth.thread import ThreadAuthenticator
from zmq.utils import z85

from sparkwire.transport.security import Credentials

_log = logging.getLogger(__name__)


class Curve:
    """The cluster's CURVE key pair (every member holds it) and its allow-list."""

    def __init__(self, credentials: Credentials) -> None:
        self._secret = z85.encode(credentials.derive("curve"))
        self.public: bytes = zmq.curve_public(self._secret)
        self._allowed = frozenset({self.public, *credentials.curve_clients})
        self._lock = threading.Lock()
        self._authenticator: ThreadAuthenticator | None = None

    def callback(self, domain: str, key: bytes) -> bool:
        """ZAP's question, on the authenticator's thread: may this client key connect?"""
        return key in self._allowed

    def guard(self, context: zmq.Context[Any]) -> None:
        """Start the authenticator for ``context`` once; servers bind only after this."""
        with self._lock:
            if self._authenticator is not None:
                return
            authenticator = ThreadAuthenticator(context, log=_log)
            authenticator.start()
            authenticator.configure_curve_callback(domain="*", credentials_provider=self)
            self._authenticator = authenticator

    def serve(self, sock: zmq.Socket[bytes]) -> None:
        """Make ``sock`` a CURVE server (set before it binds)."""
        sock.curve_secretkey = self._secret
        sock.curve_publickey = self.public
        sock.curve_server = True

    def connect(self, sock: zmq.Socket[bytes]) -> None:
        """Make ``sock`` a CURVE client of a cluster server (set before it connects)."""
        sock.curve_secretkey = self._secret
        sock.curve_publickey = self.public
        sock.curve_serverkey = self.public

    def close(self) -> None:
        """Stop the authenticator (before the context terminates); idempotent."""
        with self._lock:
            authenticator, self._authenticator = self._authenticator, None
        if authenticator is not None:
            authenticator.stop()
