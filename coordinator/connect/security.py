"""Who may use a Spark Connect server: a bearer token, and TLS off loopback.

A PySpark client proves itself with the token of its connection string
(``sc://host:port/;token=...;use_ssl=true``), which gRPC sends as ``authorization: Bearer
<token>`` on every call. The server's settings are a ``transport.security.Security`` of
their own, so the rules and files are those of the transports (secret files readable by
their owner only, at least ``MIN_SECRET_BYTES``; certificate files, or a throwaway CA):

- its ``secret`` (or ``secret_file``) *is* the token clients send. It is not the cluster's
  secret: a Spark Connect client is a user, not a cluster member, and must learn nothing
  that lets it talk to workers;
- ``tls``: the server presents the certificate files, or a throwaway certificate whose CA
  (``ConnectSecurity.roots``) a client must be given. Clients are not asked for certificates
  (``mutual_tls`` means nothing here): a connection string has no way to name one.

Off loopback both are required, and the server refuses to start without them. On loopback a
configured token is still checked; without TLS the channel is then gRPC's local credentials,
the one way the stock client sends a token unencrypted (to ``sc://localhost``), and gRPC
itself refuses a peer that is not on this machine. Security off (``None`` or
``enabled=false``): no token, plain gRPC, loopback only.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

from sparkwire.transport.errors import ConfigError
from sparkwire.transport.security import Security, is_loopback

_UNAUTHENTICATED = "sparkwire Spark Connect: missing or wrong token (sc://...;token=...)"


@dataclass(frozen=True, slots=True, repr=False)
class ConnectSecurity:
    """How one server binds and whom it lets in; never printed (it holds the token)."""

    #: The bearer token every call must carry; None: no check (security off).
    token: bytes | None
    #: The port's credentials; None: plain gRPC.
    credentials: grpc.ServerCredentials | None
    #: The PEM roots a client must trust (the throwaway CA's, or ``ca_file``'s); None without TLS.
    roots: bytes | None
    #: The name the server's certificate is issued to (None: the address's host).
    server_name: str | None

    @property
    def client_host_local(self) -> bool:
        """Whether clients must say ``localhost``: a token on loopback without TLS."""
        return self.token is not None and self.roots is None

    def __repr__(self) -> str:
        return "ConnectSecurity(<hidden>)"


def connect_security(host: str, security: Security | None) -> ConnectSecurity:
    """The security ``security`` gives a server on ``host``; refuses what would let anyone
    who reaches a non-loopback ``host`` in, or send them a token in the clear."""
    loopback = is_loopback(host)
    if security is None or not security.enabled:
        if not loopback:
            raise ConfigError(f"refusing to serve Spark Connect on {host} without security: "
                              "off loopback it needs a token and TLS (sparkwire connect --token-file; "
                              "serve(..., security=Security(secret_file=...)))")
        return ConnectSecurity(None, None, None, None)
    if security.secret is None and security.secret_file is None:
        raise ConfigError("Spark Connect security needs a token its clients are told: "
                          "security.secret or security.secret_file")
    if not loopback and not security.tls:
        raise ConfigError(f"refusing to serve Spark Connect on {host} without TLS: "
                          "the token would cross the network in the clear")
    credentials = security.credentials(tls=True)
    assert credentials is not None  # security is enabled
    material = credentials.tls
    if material is None:
        return ConnectSecurity(credentials.secret, grpc.local_server_credentials(
            grpc.LocalConnectionType.LOCAL_TCP), None, None)
    server = grpc.ssl_server_credentials([(material.key, material.cert)])
    return ConnectSecurity(credentials.secret, server, material.ca, material.server_name)


class TokenCheck(grpc.ServerInterceptor):  # type: ignore[misc]
    """Refuses every call whose bearer token is not the server's with ``UNAUTHENTICATED``,
    before its handler runs; compared in constant time."""

    def __init__(self, token: bytes) -> None:
        self._expected = b"Bearer " + token

    def intercept_service(self, continuation: Callable[[Any], Any],
                          details: grpc.HandlerCallDetails) -> Any:
        handler = continuation(details)
        given = [value for key, value in details.invocation_metadata or () if key == "authorization"]
        if handler is None or (len(given) == 1 and hmac.compare_digest(_as_bytes(given[0]), self._expected)):
            return handler
        return _refusing(handler)


def _as_bytes(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode()


def _refuse(request: Any, context: grpc.ServicerContext) -> None:
    context.abort(grpc.StatusCode.UNAUTHENTICATED, _UNAUTHENTICATED)


def _refusing(handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
    """A handler of ``handler``'s kind (unary or streaming, either way) that refuses the call."""
    make = {(False, False): grpc.unary_unary_rpc_method_handler,
            (False, True): grpc.unary_stream_rpc_method_handler,
            (True, False): grpc.stream_unary_rpc_method_handler,
            (True, True): grpc.stream_stream_rpc_method_handler}
    return make[(handler.request_streaming, handler.response_streaming)](
        _refuse, request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer)
