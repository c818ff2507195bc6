"""A cluster's credentials, made when none are configured and shared as files.

Workers in other processes (local processes, Spark executors) must hold the same secret and,
for TLS, the same certificates as the coordinator. They receive the coordinator's settings,
so the secret must not be in them: a configured ``secret`` value, or a generated one, is
written to a file only its owner can read in a private directory (0700), and the settings
then name that file. A throwaway CA's PEM files go beside it. The directory is removed when
the cluster closes; one a killed driver left (its name holds the driver's pid) is removed when
the next cluster makes its own under the same parent (``transport.owned``).

For Spark on a real cluster the directory must be on storage every executor reads (the
cluster passes ``spark_exchange_dir``); production deployments rather name their own secret
and certificate files, present on every host, and nothing is generated.
"""

from __future__ import annotations

import secrets
import shutil
from pathlib import Path

from sparkwire.coordinator.config import Settings
from sparkwire.transport.owned import owned_dir
from sparkwire.transport.registry import transport_class
from sparkwire.transport.security import Security, write_private

CREDENTIALS_PREFIX = "sparkwire-credentials-"


class SharedCredentials:
    """``settings`` with every credential a file path; ``close()`` removes generated files."""

    def __init__(self, settings: Settings, parent: Path | None = None) -> None:
        self._directory: Path | None = None
        security = settings.transport.security
        capabilities = transport_class(settings.transport.kind).capabilities
        updates: dict[str, object] = {}
        if security.enabled and capabilities.authenticates:
            if security.secret_file is None:
                value = (security.secret.get_secret_value() if security.secret is not None
                         else secrets.token_hex(32))
                updates.update(secret=None, secret_file=self._write("secret", value.encode(), parent))
            if capabilities.uses_tls and security.tls and security.cert_file is None:
                from sparkwire.transport.tls import throwaway

                material = throwaway()
                updates.update(
                    cert_file=self._write("node.pem", material.cert, parent),
                    key_file=self._write("node.key", material.key, parent),
                    ca_file=self._write("ca.pem", material.ca, parent),
                    server_name=material.server_name,
                )
        shared = Security(**(dict(security) | updates))  # validated again, unlike model_copy
        self.settings = settings.model_copy(
            update={"transport": settings.transport.model_copy(update={"security": shared})})

    def _write(self, name: str, data: bytes, parent: Path | None) -> Path:
        if self._directory is None:
            self._directory = owned_dir(CREDENTIALS_PREFIX, parent)
        path = self._directory / name
        write_private(path, data)
        return path

    def close(self) -> None:
        """Remove the generated files; idempotent."""
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None
