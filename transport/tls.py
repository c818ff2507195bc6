"""TLS material, and a throwaway certificate authority for when no certificate files are
configured.

A cluster that names no certificates still encrypts: it makes a CA that lives as long as the
cluster, and one node certificate issued to ``CLUSTER_SERVER_NAME`` for both server and
client use (workers are clients of each other). Clients check servers against that name
rather than an address, since Spark executors bind addresses nobody knows in advance. The CA's
key is discarded at once: nothing can issue a second certificate for the cluster.

Keys are ECDSA P-256 (fast to make: about a millisecond), made with ``cryptography`` (the
``flight`` extra), a well-kept library, rather than by shelling out to ``openssl``; imported
only when a CA is made, so importing this module costs nothing without the extra.

This module sits below ``security.py``: it knows PEM bytes and one name, not settings or
secrets, and of sparkwire imports only its errors. ``Security.credentials`` builds its
``TlsMaterial`` from certificate files or from ``throwaway()``, so imports run from security
to here, never back.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sparkwire.transport.errors import ConfigError

_LIFETIME = dt.timedelta(days=30)
#: The name a throwaway certificate is issued to; clients verify the server against it.
CLUSTER_SERVER_NAME = "sparkwire.cluster"


@dataclass(frozen=True, slots=True)
class TlsMaterial:
    """PEM bytes: this node's chain and key, and the roots it trusts; ``server_name`` is the
    name servers' certificates are checked against (None: the address's host)."""

    cert: bytes
    key: bytes
    ca: bytes
    server_name: str | None


def throwaway() -> TlsMaterial:
    """A new CA and node certificate, as PEM bytes."""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    except ImportError as exc:
        raise ConfigError("TLS without certificate files needs a throwaway CA, made with "
                          f"cryptography (pip install 'sparkwire[flight]'): {exc}") from exc

    now = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=5)  # clock skew
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "sparkwire throwaway CA")])
    ca = (x509.CertificateBuilder()
          .subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number())
          .not_valid_before(now).not_valid_after(now + _LIFETIME)
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(
              digital_signature=False, content_commitment=False, key_encipherment=False,
              data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
              encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    node = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CLUSTER_SERVER_NAME)]))
            .issuer_name(ca_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now).not_valid_after(now + _LIFETIME)
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(CLUSTER_SERVER_NAME)]),
                           critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                  ExtendedKeyUsageOID.CLIENT_AUTH]),
                           critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    return TlsMaterial(
        cert=node.public_bytes(pem),
        key=key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption()),
        ca=ca.public_bytes(pem),
        server_name=CLUSTER_SERVER_NAME,
    )
