"""The Flight transport's wire formats: addresses, tickets, errors and the token check.

Pure functions and one middleware factory, kept apart from the server and client in
``transport.flight`` (whose docstring describes the protocol they implement).
"""

from __future__ import annotations

import hmac
import json
import math
from urllib.parse import urlsplit

import pyarrow.flight as flight

from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import (
    ConfigError,
    ConnectionLost,
    ProtocolError,
    SparkwireError,
    TransportError,
    Unauthenticated,
    as_library_error,
    error_from_code,
)
from sparkwire.transport.security import Credentials

_SCHEMES = ("grpc", "grpc+tls")
_MAX_TICKET_BYTES = 1024
_MAX_TICKET_TIMEOUT = 24 * 3600.0
_MAX_ERROR_MESSAGE = 2000  # both copies of it travel in gRPC trailers (8 KiB by default)


def scheme_for(credentials: Credentials | None) -> str:
    return "grpc+tls" if credentials is not None and credentials.tls is not None else "grpc"


def split_address(address: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of a ``grpc://HOST:PORT`` or ``grpc+tls://HOST:PORT`` address."""
    scheme = address.partition("://")[0]
    try:
        parts = urlsplit(address)
        if (scheme not in _SCHEMES or not parts.hostname or parts.port is None
                or parts.path or parts.query or parts.fragment):
            raise ValueError(address)
        return scheme, parts.hostname, parts.port
    except ValueError:  # also what urlsplit raises for a bad port or bracket
        raise ConfigError(
            f"flight address must look like grpc+tls://HOST:PORT or grpc://HOST:PORT: {address!r}"
        ) from None


def join_address(scheme: str, host: str, port: int) -> str:
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


# [misc]: pyarrow ships no type stubs, so its base class is Any to mypy.
class TokenCheck(flight.ServerMiddlewareFactory):  # type: ignore[misc]
    """Refuses every call whose bearer token is not the cluster's, before it runs."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self._expected = f"Bearer {token}".encode()

    def start_call(self, info: flight.CallInfo, headers: dict[str, list[str]]) -> None:
        given = headers.get("authorization") or [""]
        if len(given) != 1 or not hmac.compare_digest(given[0].encode(), self._expected):
            raise flight.FlightUnauthenticatedError("sparkwire: missing or wrong credentials")
        return None


def encode_ticket(key: PartitionKey, timeout: float) -> bytes:
    """The ``do_get`` ticket naming a partition (see the module docstring)."""
    return json.dumps({"partition": str(key), "timeout": timeout}).encode()


def decode_ticket(raw: bytes) -> tuple[PartitionKey, float]:
    if len(raw) > _MAX_TICKET_BYTES:
        raise ProtocolError(f"ticket of {len(raw)} bytes exceeds {_MAX_TICKET_BYTES}")
    try:
        ticket = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ProtocolError("ticket is not UTF-8 JSON") from None
    if not isinstance(ticket, dict) or ticket.keys() != {"partition", "timeout"}:
        raise ProtocolError('ticket must be {"partition": ..., "timeout": ...}')
    partition, timeout = ticket["partition"], ticket["timeout"]
    if not isinstance(partition, str):
        raise ProtocolError("ticket partition must be a string")
    if (isinstance(timeout, bool) or not isinstance(timeout, int | float)
            or not math.isfinite(timeout) or not 0 <= timeout <= _MAX_TICKET_TIMEOUT):
        raise ProtocolError(f"ticket timeout must be 0..{_MAX_TICKET_TIMEOUT:g} seconds")
    return PartitionKey.parse(partition), float(timeout)


def to_flight_error(exc: BaseException) -> flight.FlightServerError:
    """The library error for ``exc``, as a Flight error the client can rebuild."""
    error = as_library_error(exc)
    message = str(error)[:_MAX_ERROR_MESSAGE]
    detail = json.dumps({"code": error.code, "message": message}).encode()
    return flight.FlightServerError(f"{error.code}: {message}", extra_info=detail)


def from_flight_error(exc: Exception, address: str) -> SparkwireError:
    """The library error for what a Flight call raised on the client side."""
    if isinstance(exc, flight.FlightError):
        try:
            detail = json.loads(exc.extra_info)
            return error_from_code(str(detail["code"]), str(detail["message"]))
        except (ValueError, TypeError, KeyError):
            pass  # not one of ours: a gRPC-level failure
    summary = str(exc).split(". gRPC client debug context", 1)[0]
    if (isinstance(exc, flight.FlightUnauthenticatedError | flight.FlightUnauthorizedError)
            or "handshake failed" in summary.lower()):  # TLS: the peer's CA is not ours
        return Unauthenticated(f"worker at {address} refused our credentials: {summary}")
    if isinstance(exc, flight.FlightUnavailableError | flight.FlightTimedOutError
                  | flight.FlightCancelledError):
        return ConnectionLost(f"worker at {address}: {summary}")
    if isinstance(exc, flight.FlightError):
        return TransportError(f"worker at {address}: {summary}")
    return ProtocolError(f"bad stream from worker at {address}: {summary}")
