"""Who may talk to a worker: one cluster secret, and what each transport derives from it.

Threat model: workers listen on ports that other tenants of the same machines can reach. A
member of the cluster is whoever holds the cluster's secret (and, for TLS, a certificate its
CA signed); everyone else is refused before a single byte of their request is parsed.

- **flight**: every call carries ``authorization: Bearer <token>``, the token an HMAC of the
  secret, checked by server middleware; the channel is TLS (``grpc+tls://``), mutual when
  ``mutual_tls``. Without configured certificate files a throwaway CA is made (``tls.py``).
- **zmq** and **shm**: CURVE. The cluster's key pair is derived from the secret; a ZAP
  authenticator admits only client keys on the allow-list (the cluster's own plus
  ``curve_clients``). On shm, CURVE on the Unix control socket is the per-cluster token
  besides the socket's and segments' 0600 modes.
- **memory**: one process; nothing to authenticate.

A transport created without a secret makes its own, so two instances talk only when given
the same secret: clusters generate one (``clusters/credentials.py``) and hand it to their
workers as a file path, never as a value. Secrets are ``SecretStr``; they never appear in
``repr``, logs, plans, errors or the settings shipped to workers.

Security off (``enabled=false``) is for one trusted machine: serving on anything but a
loopback address is then refused unless ``allow_insecure_network`` says otherwise.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from sparkwire.transport.errors import ConfigError
from sparkwire.transport.tls import TlsMaterial, throwaway

MIN_SECRET_BYTES = 16
_MAX_SECRET_FILE_BYTES = 4096
_MAX_PEM_BYTES = 1 << 20


class Security(BaseModel):
    """``SPARKWIRE_TRANSPORT__SECURITY__*``; file paths rather than values travel to workers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    #: The cluster secret itself (env or TOML); ``secret_file`` is the form shipped around.
    secret: SecretStr | None = None
    #: A file holding the secret, readable by its owner only (like an ssh key).
    secret_file: Path | None = None
    #: flight: encrypt with TLS. With no certificate files, a throwaway CA is made.
    tls: bool = True
    cert_file: Path | None = None  # PEM chain this node presents, as server and as client
    key_file: Path | None = None  # its private key (owner-only)
    ca_file: Path | None = None  # PEM roots that signed the cluster's certificates
    #: flight: servers demand a client certificate signed by ``ca_file`` (the throwaway CA's
    #: node certificate serves both ends): a token alone, leaked, does not get a peer in.
    mutual_tls: bool = True
    #: flight: the name server certificates are checked against; None: the address's host.
    server_name: str | None = Field(default=None, min_length=1, max_length=253)
    #: zmq/shm: CURVE public keys (Z85, 40 characters) admitted besides the cluster's own.
    curve_clients: tuple[str, ...] = ()
    #: Serve on non-loopback addresses with security off (a trusted, isolated network).
    allow_insecure_network: bool = False
    #: The coordinator's Ed25519 public key (hex): a worker takes membership notices signed
    #: by it only (``coordinator.membership``). Set by the cluster that starts the workers.
    coordinator_key: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")

    @model_validator(mode="after")
    def _consistent(self) -> Security:
        if self.secret is not None and self.secret_file is not None:
            raise ValueError("give secret or secret_file, not both")
        files = (self.cert_file, self.key_file, self.ca_file)
        if any(files) and not all(files):
            raise ValueError("cert_file, key_file and ca_file go together")
        for key in self.curve_clients:
            if len(key) != 40:
                raise ValueError("curve_clients are Z85 public keys of 40 characters")
        return self

    def credentials(self, tls: bool = False) -> Credentials | None:
        """What this node proves membership with; None when security is off.

        ``tls``: the transport wants TLS material; made throwaway when no files are named.
        """
        if not self.enabled:
            return None
        secret = self._secret()
        material = None
        if tls and self.tls:
            if self.cert_file is not None:
                assert self.key_file is not None and self.ca_file is not None
                material = TlsMaterial(
                    cert=_read(self.cert_file, _MAX_PEM_BYTES),
                    key=_read(self.key_file, _MAX_PEM_BYTES, private=True),
                    ca=_read(self.ca_file, _MAX_PEM_BYTES), server_name=self.server_name)
            else:
                material = throwaway()
        return Credentials(secret, material, self.mutual_tls,
                           frozenset(k.encode() for k in self.curve_clients))

    def _secret(self) -> bytes:
        if self.secret is not None:
            value = self.secret.get_secret_value().encode()
        elif self.secret_file is not None:
            value = _read(self.secret_file, _MAX_SECRET_FILE_BYTES, private=True).strip()
        else:
            return secrets.token_bytes(32)  # this instance's own: it talks to itself only
        if len(value) < MIN_SECRET_BYTES:
            raise ConfigError(f"the cluster secret must be at least {MIN_SECRET_BYTES} bytes")
        return value


@dataclass(frozen=True, slots=True, repr=False)
class Credentials:
    """A cluster member's proof, derived from the secret; never printed."""

    secret: bytes
    tls: TlsMaterial | None
    mutual_tls: bool
    curve_clients: frozenset[bytes]

    def derive(self, purpose: str) -> bytes:
        """A 32-byte key for one purpose, so no two uses share bytes of the secret."""
        return hmac.new(self.secret, f"sparkwire/{purpose}/v1".encode(), hashlib.sha256).digest()

    def token(self) -> str:
        """The bearer token flight calls carry."""
        return self.derive("flight-token").hex()

    def proof(self, challenge: bytes, message: bytes) -> str:
        """An answer to ``challenge`` that binds ``message`` (worker registration)."""
        return hmac.new(self.derive("registration"), challenge + b"\0" + message,
                        hashlib.sha256).hexdigest()

    def __repr__(self) -> str:
        return "Credentials(<hidden>)"


def check_exposure(host: str, security: Security) -> None:
    """Refuse to serve on a non-loopback ``host`` with security off, unless allowed."""
    if security.enabled or security.allow_insecure_network or is_loopback(host):
        return
    raise ConfigError(
        f"refusing to serve on {host} with security off: anyone who reaches it could run "
        "plans; turn security on, bind a loopback address, or set "
        "security.allow_insecure_network=true on a trusted network"
    )


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is reachable from this machine only."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name or a wildcard: it may face the network


def faces_network(address: str) -> bool:
    """Whether a server address (``scheme://host:port``) can be reached from other
    machines; one without a host (``ipc://``, a Unix socket) cannot. A composed address
    (``hybrid://HOST-ID/?shm=...&net=...``, whose host part is an identity, not a host)
    faces the network if an address it names does."""
    if "://" not in address:
        return False
    parts = urlsplit(address)
    if parts.scheme == "hybrid":
        return any(faces_network(named) for values in parse_qs(parts.query).values()
                   for named in values)
    return parts.hostname is not None and not is_loopback(parts.hostname)


def write_private(path: Path, data: bytes) -> None:
    """Write a file only its owner can read, created so from the start (no window)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def check_private_key(path: Path) -> None:
    """Refuse (``ConfigError``) a private key file that is not a regular file readable by
    its owner only, or is over the PEM bound: the rules every key sparkwire reads follows,
    for a key a library loads from its path itself (``ssl.SSLContext.load_cert_chain``)."""
    _read(path, _MAX_PEM_BYTES, private=True)


def _read(path: Path, limit: int, private: bool = False) -> bytes:
    """A credential file's bytes: a regular file, owner-only when ``private``, bounded."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise ConfigError(f"cannot read credential file {path}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"credential file {path} is not a regular file")
        if private and info.st_mode & 0o077:
            raise ConfigError(f"credential file {path} must be readable by its owner only (0600)")
        data = file.read(limit + 1)
    if len(data) > limit:
        raise ConfigError(f"credential file {path} exceeds {limit} bytes")
    return data
