"""One cluster's credentials for the whole test run, as files (a secret and a throwaway CA).

Transports in the tests' process and in the child processes they talk to must hold the same
credentials, exactly as a cluster's workers do, so they are made the way clusters make them
(``SharedCredentials``) and handed to children as file paths (``--security`` JSON).
"""

from __future__ import annotations

import atexit

from sparkwire.coordinator.clusters.credentials import SharedCredentials
from sparkwire.coordinator.config import Settings
from sparkwire.transport.security import Security

_shared = SharedCredentials(Settings(transport={"kind": "flight"}))
atexit.register(_shared.close)

#: Security settings every test transport that talks across processes uses.
SECURITY: Security = _shared.settings.transport.security
