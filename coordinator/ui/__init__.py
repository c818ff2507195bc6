"""The live query UI and Prometheus metrics, served by the driver (issue 38).

    recorder    ``Recorder``: what each query did, bounded; the coordinator's observer
    records     the records it keeps, and the plain dicts the pages are made from
    server      ``UiServer``: a bounded ``ThreadingHTTPServer``, its token rules
    history     the thread that compacts finished queries and writes ``ui.history_dir``
    history_files  that directory's owner-only files, rotated; what is read back, validated
    handler     the routes: pages, ``/api/...``, live events, ``/metrics``
    workers     the workers page's rows, from what the driver already knows
    prometheus  ``/metrics``: the recorder's totals in a registry of the server's own
    static/     the pages, their script and style (package data; no CDN)

``start_ui`` wires them to a running coordinator (``Session(ui=True)``, ``ui.port``).
"""

from __future__ import annotations

from sparkwire.coordinator.config import UiSettings
from sparkwire.coordinator.query_coordinator import QueryCoordinator
from sparkwire.coordinator.ui.history import History
from sparkwire.coordinator.ui.recorder import Recorder
from sparkwire.coordinator.ui.server import UiServer
from sparkwire.coordinator.ui.workers import worker_rows

__all__ = ["Recorder", "UiServer", "start_ui"]


def start_ui(settings: UiSettings, coordinator: QueryCoordinator) -> UiServer:
    """Record every query ``coordinator`` runs and serve the UI of them on ``settings.port``
    (0 or unset: one the OS picks); the server (its ``url``), which the caller closes. A bind
    its rules forbid (``ConfigError``) closes the coordinator and its cluster, just made for
    a session that now fails, before the error reaches the caller."""
    recorder = Recorder(settings)
    cluster = coordinator.cluster
    try:
        server = UiServer(settings, recorder, lambda: worker_rows(cluster, recorder))
        try:
            server.history = History(settings, recorder)  # reads ui.history_dir back
        except BaseException:
            server.close()
            raise
        server.start()
    except BaseException:
        cluster.close()
        coordinator.close()
        raise
    coordinator.observer = recorder
    return server

