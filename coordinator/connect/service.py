"""The ``SparkConnectService`` methods, on one sparkwire session.

Each client session id has a sparkwire session of its own (its temporary views and runtime
config), all on the server session's cluster (``sessions.ClientSessions``); the server
answers with that session's ``server_side_session_id``, which the client checks stays the
same, and ``ReleaseSession`` closes it. A failure of any method reaches the client in Spark's
error shape (``errors.status_of``), so it raises the PySpark exception Spark would.

``ExecutePlan`` streams its whole result in the one call and ends with ``result_complete``,
so the client never needs to reattach; results are not kept for replay, and
``ReattachExecute`` answers ``INVALID_HANDLE.OPERATION_NOT_FOUND`` (the client then runs the
plan again if it had received nothing, as after a lost first call). ``ReleaseExecute`` has
nothing to free and acknowledges.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import grpc
from pyspark.sql.connect.proto import base_pb2, base_pb2_grpc, commands_pb2, relations_pb2

from sparkwire.coordinator.connect.config import configure
from sparkwire.coordinator.connect.errors import PlanNotSupported, status_of
from sparkwire.coordinator.connect.kept import storage_level_proto
from sparkwire.coordinator.connect.results import result_responses
from sparkwire.coordinator.connect.sessions import ClientSession, ClientSessions
from sparkwire.coordinator.connect.types import to_proto
from sparkwire.transport.errors import SparkwireError

if TYPE_CHECKING:
    from sparkwire.coordinator.session import Session

R = TypeVar("R")


class _Answer(Protocol):
    """A response message: each carries both session ids."""

    session_id: str
    server_side_session_id: str


M = TypeVar("M", bound=_Answer)
_EXPLAIN_EXTENDED = {base_pb2.AnalyzePlanRequest.Explain.EXPLAIN_MODE_EXTENDED,
                     base_pb2.AnalyzePlanRequest.Explain.EXPLAIN_MODE_FORMATTED}
_INTERRUPT = base_pb2.InterruptRequest


def _spark_errors(method: Callable[..., R]) -> Callable[..., R]:
    """Fails the RPC with the error in Spark's shape instead of gRPC's bare ``UNKNOWN``."""

    @functools.wraps(method)
    def wrapper(self: ConnectService, request: Any, context: grpc.ServicerContext) -> R:
        try:
            return method(self, request, context)
        except Exception as error:  # noqa: BLE001 - every failure goes to the client, in Spark's shape
            context.abort_with_status(status_of(error))
            raise  # abort_with_status raises; this line is never reached

    return wrapper


class ConnectService(base_pb2_grpc.SparkConnectServiceServicer):  # type: ignore[misc]
    """Spark Connect on ``session``'s cluster: at most ``sessions`` client sessions at once,
    each closed after ``idle_s`` seconds unused."""

    def __init__(self, session: Session, sessions: int, idle_s: float) -> None:
        self.session = session
        self.sessions = ClientSessions(session, sessions, idle_s)

    @staticmethod
    def _answer(response: M, request: Any, client: ClientSession) -> M:
        """``response`` with the client's session id and the server's, which the client checks."""
        response.session_id = request.session_id
        response.server_side_session_id = client.server_id
        return response

    # -- execute -------------------------------------------------------------------------------
    def ExecutePlan(self, request: base_pb2.ExecutePlanRequest,  # noqa: N802 - the protocol's name
                    context: grpc.ServicerContext) -> Iterator[base_pb2.ExecutePlanResponse]:
        operation_id = request.operation_id or str(uuid.uuid4())
        try:
            with self.sessions.use(request.session_id) as client, \
                    client.operations.running(operation_id, list(request.tags)):
                for response in self._execute(client, request.plan, operation_id):
                    response.response_id = str(uuid.uuid4())
                    response.operation_id = operation_id
                    yield self._answer(response, request, client)
        except Exception as error:  # noqa: BLE001 - see _spark_errors
            context.abort_with_status(status_of(error))
        yield self._answer(base_pb2.ExecutePlanResponse(
            result_complete=base_pb2.ExecutePlanResponse.ResultComplete(), response_id=str(uuid.uuid4()),
            operation_id=operation_id), request, client)

    def _execute(self, client: ClientSession, plan: base_pb2.Plan,
                 operation_id: str) -> Iterator[base_pb2.ExecutePlanResponse]:
        if plan.HasField("root"):
            df = client.frame(plan.root)
            yield from result_responses(df, lambda: client.operations.check(operation_id))
            return
        command = plan.command
        kind = command.WhichOneof("command_type")
        if kind == "sql_command":
            yield base_pb2.ExecutePlanResponse(sql_command_result=self._sql_command(client, command.sql_command))
        elif kind == "create_dataframe_view":
            self._create_view(client, command.create_dataframe_view)
        elif kind == "checkpoint_command":  # cut on the workers now (if eager), named by an id
            checkpoint = command.checkpoint_command
            df = client.frame(checkpoint.relation)
            kept = df.localCheckpoint(checkpoint.eager) if checkpoint.local else df.checkpoint(checkpoint.eager)
            cached = relations_pb2.CachedRemoteRelation(relation_id=client.kept.checkpoint(kept))
            yield base_pb2.ExecutePlanResponse(
                checkpoint_command_result=base_pb2.CheckpointCommandResult(relation=cached))
        elif kind == "remove_cached_remote_relation_command":
            client.kept.remove(command.remove_cached_remote_relation_command.relation.relation_id)
        else:
            number = commands_pb2.Command.DESCRIPTOR.fields_by_name[kind].number if kind else 0
            raise PlanNotSupported.field("spark.connect.Command", str(kind), number)

    @staticmethod
    def _sql_command(client: ClientSession, command: commands_pb2.SqlCommand) -> base_pb2.ExecutePlanResponse.SqlCommandResult:
        """Spark runs a command at once and answers a query with the relation to run it by;
        sparkwire's SQL is queries only, so the query is analyzed now (its mistakes
        surface at ``spark.sql``, as in Spark) and answered with its relation."""
        if command.HasField("input"):
            relation = command.input
        else:
            relation = relations_pb2.Relation(sql=relations_pb2.SQL(
                query=command.sql, args=command.args, pos_args=command.pos_args,
                named_arguments=command.named_arguments, pos_arguments=command.pos_arguments))
        client.frame(relation)
        return base_pb2.ExecutePlanResponse.SqlCommandResult(relation=relation)

    @staticmethod
    def _create_view(client: ClientSession, command: commands_pb2.CreateDataFrameViewCommand) -> None:
        """A temporary view of the client's session, or a global one, which every client
        of this server shares (their sessions are made from one, ``connect.sessions``)."""
        df = client.frame(command.input)
        if command.is_global:
            (df.createOrReplaceGlobalTempView if command.replace else df.createGlobalTempView)(command.name)
        elif command.replace:
            df.createOrReplaceTempView(command.name)
        else:
            df.createTempView(command.name)

    # -- analyze -------------------------------------------------------------------------------
    @_spark_errors
    def AnalyzePlan(self, request: base_pb2.AnalyzePlanRequest,  # noqa: N802
                    context: grpc.ServicerContext) -> base_pb2.AnalyzePlanResponse:
        with self.sessions.use(request.session_id) as client:
            return self._answer(_analyze(client, request), request, client)

    # -- config, interrupt, release ------------------------------------------------------------
    @_spark_errors
    def Config(self, request: base_pb2.ConfigRequest,  # noqa: N802
               context: grpc.ServicerContext) -> base_pb2.ConfigResponse:
        with self.sessions.use(request.session_id) as client:
            pairs = configure(client.session, request.operation)
            return self._answer(base_pb2.ConfigResponse(pairs=pairs), request, client)

    @_spark_errors
    def Interrupt(self, request: base_pb2.InterruptRequest,  # noqa: N802
                  context: grpc.ServicerContext) -> base_pb2.InterruptResponse:
        kind = request.interrupt_type
        with self.sessions.use(request.session_id) as client:
            if kind == _INTERRUPT.INTERRUPT_TYPE_TAG:
                ids = client.operations.interrupt(tag=request.operation_tag)
            elif kind == _INTERRUPT.INTERRUPT_TYPE_OPERATION_ID:
                ids = client.operations.interrupt(operation_id=request.operation_id)
            else:
                ids = client.operations.interrupt()
            return self._answer(base_pb2.InterruptResponse(interrupted_ids=ids), request, client)

    @_spark_errors
    def ReleaseExecute(self, request: base_pb2.ReleaseExecuteRequest,  # noqa: N802
                       context: grpc.ServicerContext) -> base_pb2.ReleaseExecuteResponse:
        with self.sessions.use(request.session_id) as client:
            return self._answer(base_pb2.ReleaseExecuteResponse(operation_id=request.operation_id),
                                request, client)

    @_spark_errors
    def ReattachExecute(self, request: base_pb2.ReattachExecuteRequest,  # noqa: N802
                        context: grpc.ServicerContext) -> Iterator[base_pb2.ExecutePlanResponse]:
        raise SparkwireError(
            f"[INVALID_HANDLE.OPERATION_NOT_FOUND] The handle {request.operation_id} is invalid. "
            "Operation not found.", condition="INVALID_HANDLE.OPERATION_NOT_FOUND",
            parameters={"handle": request.operation_id})

    @_spark_errors
    def ReleaseSession(self, request: base_pb2.ReleaseSessionRequest,  # noqa: N802
                       context: grpc.ServicerContext) -> base_pb2.ReleaseSessionResponse:
        released = self.sessions.release(request.session_id)
        response = base_pb2.ReleaseSessionResponse(session_id=request.session_id)
        if released is not None:
            response.server_side_session_id = released.server_id
        return response


def _analyze(client: ClientSession, request: base_pb2.AnalyzePlanRequest) -> base_pb2.AnalyzePlanResponse:
    """The answer to ``request`` in ``client``'s session, but for the session ids."""
    session = client.session
    response = base_pb2.AnalyzePlanResponse()
    kind = request.WhichOneof("analyze")
    answer = base_pb2.AnalyzePlanResponse
    if kind == "spark_version":
        response.spark_version.CopyFrom(answer.SparkVersion(version=session.version))
    elif kind == "schema":
        df = client.frame(request.schema.plan.root)
        response.schema.CopyFrom(answer.Schema(schema=to_proto(df.schema)))
    elif kind == "explain":
        df = client.frame(request.explain.plan.root)
        extended = request.explain.explain_mode in _EXPLAIN_EXTENDED
        response.explain.CopyFrom(answer.Explain(explain_string=df.explain_string(extended)))
    elif kind == "tree_string":
        df = client.frame(request.tree_string.plan.root)
        level = request.tree_string.level if request.tree_string.HasField("level") else None
        response.tree_string.CopyFrom(answer.TreeString(tree_string=df.schema.treeString(level)))
    elif kind == "ddl_parse":  # the schema of an empty frame: our DDL parser, Spark's nullability
        schema = session.createDataFrame([], request.ddl_parse.ddl_string).schema
        response.ddl_parse.CopyFrom(answer.DDLParse(parsed=to_proto(schema)))
    elif kind in ("persist", "unpersist", "get_storage_level"):
        _keep(client, request, response)
    elif kind in ("is_local", "is_streaming"):
        # nothing sparkwire runs is collected on the client only, nor a stream
        getattr(response, str(kind)).SetInParent()
    else:
        number = base_pb2.AnalyzePlanRequest.DESCRIPTOR.fields_by_name[kind].number if kind else 0
        raise PlanNotSupported.field("spark.connect.AnalyzePlanRequest", str(kind), number)
    return response


def _keep(client: ClientSession, request: base_pb2.AnalyzePlanRequest,
          response: base_pb2.AnalyzePlanResponse) -> None:
    """``persist``, ``unpersist`` and ``storageLevel``, on the frame the client's session
    keeps for the relation (``kept``)."""
    kind = request.WhichOneof("analyze")
    rel = getattr(request, str(kind)).relation
    df = client.frame(rel)
    if kind == "persist":
        level = request.persist.storage_level if request.persist.HasField("storage_level") else None
        client.kept.persist(rel, df, level)
    elif kind == "unpersist":
        client.kept.unpersist(rel, df)
    else:
        response.get_storage_level.storage_level.CopyFrom(storage_level_proto(df.storageLevel))
    getattr(response, str(kind)).SetInParent()
