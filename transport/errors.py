"""The one exception tree of sparkwire's runtime.

    SparkwireError
    ├── ConfigError            bad settings, unknown transport name, missing optional extra
    │   └── UnknownTransport
    ├── TransportError         the way workers talk failed
    │   ├── ConnectionLost     the peer is gone (closed, died, unreachable)
    │   ├── Unauthenticated    the peer refused our credentials, or we refused its
    │   └── ProtocolError      a malformed request or response
    ├── PartitionNotFound      a partition that never appeared within the timeout, or never will
    ├── PlanRejected           a task plan failed validation; nothing ran
    ├── TaskFailed             a task raised on its worker (names worker, stage, task)
    │   └── QueryError         ... because of its data or plan: deterministic, never retried
    ├── QueryCancelled         the query was cancelled while this call waited
    └── Timeout                a bounded wait ran out

Every class takes ``sparkwire.pyspark_errors.SparkCondition`` as a base: Spark's error
condition, parameters and SQLSTATE with PySpark's getters, and, once ``pyspark.errors`` is
loaded, PySpark's class for the condition as a second base (``QueryError`` for
``[DIVIDE_BY_ZERO] ...`` is then also a ``pyspark.errors.ArithmeticException``; one with
no condition stays ours alone).

It lives in the lowest layer so every transport can rebuild a worker's error on the reader's
side from a wire code and a message (``error_from_code``) without importing the coordinator.
The planner's build-time errors (``planner.errors.PlanError``) root separately because the
planner may not import this package; they never cross a socket.
"""

from __future__ import annotations

from sparkwire.pyspark_errors import SparkCondition


class SparkwireError(SparkCondition):
    """Root of every runtime error sparkwire raises on purpose."""

    code = "error"


class ConfigError(SparkwireError):
    code = "config"


class UnknownTransport(ConfigError):
    code = "unknown_transport"


class TransportError(SparkwireError):
    code = "transport"


class ConnectionLost(TransportError):
    code = "connection_lost"


class Unauthenticated(TransportError):
    code = "unauthenticated"


class ProtocolError(TransportError):
    code = "protocol"


class PartitionNotFound(SparkwireError):
    code = "partition_not_found"


class PlanRejected(SparkwireError):
    code = "plan_rejected"


class TaskFailed(SparkwireError):
    code = "task_failed"


class QueryError(TaskFailed):
    """A task failed because of its data or plan (a division by zero in ANSI mode, a cast of
    malformed input, a row DuckDB refused), as its worker reported it: running it again,
    anywhere, fails the same way. So the coordinator fails the query at once, with no wait
    for news of a lost worker and no retry; a plain ``TaskFailed`` (a task that could not read
    its inputs) may be a lost worker's doing and is recovered from when it is.

    ``getCondition()`` is Spark's error condition when the worker's message carries one
    (``[DIVIDE_BY_ZERO] Division by zero...``), else None; PySpark's class follows from it
    (``pyspark_errors``), ``SparkRuntimeException`` where no other does.
    """

    code = "query_error"
    pyspark_class = "SparkRuntimeException"

    @classmethod
    def pyspark_name(cls, condition: str | None) -> str | None:
        # DuckDB's own failure, with no condition: Spark has no such error to be caught as
        return super().pyspark_name(condition) if condition else None


class QueryCancelled(SparkwireError):
    code = "cancelled"


class Timeout(SparkwireError, TimeoutError):
    code = "timeout"


_BY_CODE: dict[str, type[SparkwireError]] = {
    cls.code: cls
    for cls in (
        SparkwireError,
        ConfigError,
        UnknownTransport,
        TransportError,
        ConnectionLost,
        Unauthenticated,
        ProtocolError,
        PartitionNotFound,
        PlanRejected,
        TaskFailed,
        QueryError,
        QueryCancelled,
        Timeout,
    )
}


def error_from_code(code: str, message: str) -> SparkwireError:
    """Rebuild a worker's error on the reader's side; unknown codes become the root class."""
    return _BY_CODE.get(code, SparkwireError)(message)


def as_library_error(exc: BaseException) -> SparkwireError:
    """Give a caller the library's own exception for anything a service raised.

    A bug inside a worker must not surface as a bare ``KeyError`` on the reader's side of one
    transport and as a ``TaskFailed`` on another's, so every transport passes what its service
    raised through here.
    """
    if isinstance(exc, SparkwireError):
        return exc
    return TaskFailed(f"{type(exc).__name__}: {exc}")
