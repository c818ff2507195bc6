"""Spark Connect for sparkwire: an unchanged PySpark program runs on sparkwire's workers.

    from sparkwire import Session
    from sparkwire.connect import serve

    with Session(workers=4) as session, serve(session, port=15002) as server:
        ...  # elsewhere: SparkSession.builder.remote("sc://127.0.0.1:15002").getOrCreate()

Needs the ``connect`` extra (``pip install sparkwire[connect]``): the protocol's messages
come from PySpark, its transport from grpcio. The server lives in
``sparkwire.coordinator.connect``; this module is its public face.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sparkwire.coordinator.connect.server import ConnectServer
    from sparkwire.coordinator.session import Session

__all__ = ["ConnectServer", "serve"]


def serve(session: Session, port: int = 0, host: str = "127.0.0.1", **options: Any) -> ConnectServer:
    """A Spark Connect server on ``session`` (``coordinator.connect.server.serve``)."""
    try:
        from sparkwire.coordinator.connect.server import serve as start
    except ImportError as e:
        from sparkwire.transport.errors import ConfigError

        raise ConfigError("the Spark Connect server needs the connect extra: "
                          "pip install 'sparkwire[connect]'") from e
    return start(session, port, host, **options)


def __getattr__(name: str) -> Any:
    if name == "ConnectServer":
        from sparkwire.coordinator.connect.server import ConnectServer

        return ConnectServer
    raise AttributeError(name)
