"""Our exceptions in Spark's error shape on the wire, so a Spark Connect client raises the
PySpark exception a classic Spark server would make it raise.

A Spark Connect server fails an RPC with a gRPC status whose details carry a
``google.rpc.ErrorInfo``: ``reason`` the JVM exception class, and in ``metadata`` the class
hierarchy (``classes``, JSON), the error condition (``errorClass``), ``sqlState`` and the
message parameters (JSON). The client (``pyspark.errors.exceptions.connect``) picks its
exception class from ``classes``. Our errors carry Spark's condition and PySpark's class name
already (``sparkwire.pyspark_errors``); the JVM class is found from PySpark's own table, read
backwards. An error of no condition and no PySpark class is a ``SparkException``.
"""

from __future__ import annotations

import json

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status
from pyspark.errors.exceptions.connect import EXCEPTION_CLASS_MAPPING

from sparkwire.pyspark_errors import SparkCondition
from sparkwire.transport.errors import QueryCancelled, SparkwireError

#: PySpark's exception class name -> the JVM class the client maps to it.
_JVM_CLASS = {cls.__name__: jvm for jvm, cls in EXCEPTION_CLASS_MAPPING.items()}
_SPARK_EXCEPTION = "org.apache.spark.SparkException"
#: The most that goes into a status message (gRPC's headers are bounded; Spark truncates too).
_MESSAGE_LIMIT = 2048


class PlanNotSupported(SparkwireError):
    """A relation, expression or command of the protocol sparkwire does not run (yet):
    Spark's ``CONNECT_INVALID_PLAN.INVALID_ONE_OF_FIELD_NOT_SUPPORTED``, naming it."""

    code = "connect_not_supported"
    jvm_class = "org.apache.spark.sql.connect.common.InvalidPlanInput"

    @classmethod
    def field(cls, message_name: str, field: str, number: int) -> PlanNotSupported:
        return cls(
            f"This oneOf field message in {message_name} is not supported: {field}({number})",
            condition="CONNECT_INVALID_PLAN.INVALID_ONE_OF_FIELD_NOT_SUPPORTED",
            parameters={"fullName": message_name, "name": field, "number": str(number)},
        )


class SessionClosed(SparkwireError):
    """A client session id whose session was released or timed out: Spark's
    ``INVALID_HANDLE.SESSION_CLOSED``, so the client does not carry on in a new, empty one."""

    code = "connect_session_closed"

    def __init__(self, session_id: str) -> None:
        super().__init__(f"[INVALID_HANDLE.SESSION_CLOSED] The handle {session_id} is invalid. "
                         "Session was closed.", parameters={"handle": session_id})


class TooManySessions(SparkwireError):
    """A new client session beyond the server's maximum: ``RESOURCE_EXHAUSTED``, which the
    client does not retry."""

    code = "connect_too_many_sessions"


def status_of(error: BaseException) -> grpc.Status:
    """``error`` as the gRPC status a Spark Connect client reads."""
    jvm = _jvm_class(error)
    metadata = {"classes": json.dumps([jvm])}
    if isinstance(error, SparkCondition) and error.condition:
        metadata["errorClass"] = error.condition
        metadata["messageParameters"] = json.dumps(error.getMessageParameters())
        if (state := error.getSqlState()) is not None:
            metadata["sqlState"] = state
    info = error_details_pb2.ErrorInfo(reason=jvm, domain="org.apache.spark", metadata=metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    code = (code_pb2.CANCELLED if isinstance(error, QueryCancelled)
            else code_pb2.RESOURCE_EXHAUSTED if isinstance(error, TooManySessions) else code_pb2.INTERNAL)
    message = str(error) or type(error).__name__
    return rpc_status.to_status(status_pb2.Status(
        code=code, message=message[:_MESSAGE_LIMIT], details=[detail]))


def _jvm_class(error: BaseException) -> str:
    if isinstance(error, PlanNotSupported):
        return error.jvm_class
    if isinstance(error, SparkCondition):
        name = type(error).pyspark_name(error.condition)
        return _JVM_CLASS.get(name or "", _SPARK_EXCEPTION)
    return _SPARK_EXCEPTION
