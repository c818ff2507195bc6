"""Worker transports: the seam through which plans and partitions travel."""

from sparkwire.transport.base import (
    Capabilities,
    PartitionKey,
    Server,
    TransportClient,
    WorkerService,
    WorkerTransport,
)
from sparkwire.transport.config import TransportConfig
from sparkwire.transport.errors import (
    ConfigError,
    ConnectionLost,
    PartitionNotFound,
    PlanRejected,
    ProtocolError,
    QueryCancelled,
    QueryError,
    SparkwireError,
    TaskFailed,
    Timeout,
    TransportError,
    UnknownTransport,
)
from sparkwire.transport.registry import (
    ENTRY_POINT_GROUP,
    available_transports,
    create_transport,
    register_transport,
    transport_class,
)
from sparkwire.transport.stream import PartitionReader

__all__ = [
    "ENTRY_POINT_GROUP",
    "Capabilities",
    "ConfigError",
    "ConnectionLost",
    "PartitionKey",
    "PartitionNotFound",
    "PartitionReader",
    "PlanRejected",
    "ProtocolError",
    "QueryCancelled",
    "QueryError",
    "Server",
    "SparkwireError",
    "TaskFailed",
    "Timeout",
    "TransportClient",
    "TransportConfig",
    "TransportError",
    "UnknownTransport",
    "WorkerService",
    "WorkerTransport",
    "available_transports",
    "create_transport",
    "register_transport",
    "transport_class",
]
