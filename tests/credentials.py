"""One cluster's credentials for the whole test run, as files (a secret and a throwaway CA).

Transports in the tests' process and in the child processes they talk to must hold the same
credentials, exactly as a cluster's workers do, so they are made the way clusters make them
(``SharedCredentials``) and handed to children as file paths (``--security`` JSON).
"""

from __future__ import annotations

import atexit

import pyarrow.flight as flight

from sparkwire.coordinator.clusters.credentials import SharedCredentials
from sparkwire.coordinator.config import Settings
from sparkwire.transport.security import Security

_shared = SharedCredentials(Settings(transport={"kind": "flight"}))
atexit.register(_shared.close)

#: Security settings every test transport that talks across processes uses.
SECURITY: Security = _shared.settings.transport.security


def stock_flight_client(address: str, certificate: bool = True) -> flight.FlightClient:
    """A plain ``pyarrow.flight.FlightClient`` trusting the cluster's CA and, unless not
    ``certificate``, presenting a member's certificate, as mutual TLS (the default) asks."""
    assert SECURITY.ca_file is not None and SECURITY.cert_file is not None
    assert SECURITY.key_file is not None
    tls = ({"cert_chain": SECURITY.cert_file.read_bytes(),
            "private_key": SECURITY.key_file.read_bytes()} if certificate else {})
    return flight.FlightClient(address, tls_root_certs=SECURITY.ca_file.read_bytes(),
                               override_hostname=SECURITY.server_name, **tls)


def bearer(token: str) -> flight.FlightCallOptions:
    """Call options carrying ``token`` as the bearer token, with a bounded wait."""
    return flight.FlightCallOptions(headers=[(b"authorization", f"Bearer {token}".encode())],
                                    timeout=10)


#: What a stock client sends to be let in: the cluster's bearer token.
AUTH = bearer(SECURITY.credentials().token())
