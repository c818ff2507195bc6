"""``Config``: the session's runtime config (``Session.conf``, Spark's keys) over the protocol.

Each operation maps to one ``RuntimeConfig`` method, with Spark's answers: ``get`` of a
key never set fails with ``SQL_CONF_NOT_FOUND``, ``get_option`` answers it as unset,
``is_modifiable`` as ``"true"``/``"false"``.

The client itself reads some of Spark's settings (how to convert pandas and Python rows,
when to upload a local relation as an artifact, ``repr``'s eager evaluation ...) with a
plain ``get``, which must not fail: ``CLIENT_DEFAULTS`` answers them, with Spark's default
values, where the session has no value of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql.connect.proto import base_pb2

from sparkwire.coordinator.connect.errors import PlanNotSupported

if TYPE_CHECKING:
    from sparkwire.coordinator.session import Session

KeyValue = base_pb2.KeyValue
#: Spark's defaults for the settings PySpark's Spark Connect client reads. A local relation
#: of 64 MiB or more is uploaded in chunks as an artifact, which this server does not take
#: yet (the chunk sizes below only shape that upload).
CLIENT_DEFAULTS = {
    "spark.sql.timestampType": "TIMESTAMP_LTZ",
    "spark.sql.session.localRelationCacheThreshold": str(64 << 20),
    "spark.sql.session.localRelationSizeLimit": str(3 << 30),
    "spark.sql.session.localRelationChunkSizeRows": "10000",
    "spark.sql.session.localRelationChunkSizeBytes": str(16 << 20),
    "spark.sql.session.localRelationBatchOfChunksSizeBytes": str(1 << 30),
    "spark.sql.execution.pandas.convertToArrowArraySafely": "false",
    "spark.sql.execution.pandas.inferPandasDictAsMap": "false",
    "spark.sql.pyspark.inferNestedDictAsStruct.enabled": "false",
    "spark.sql.pyspark.legacy.inferArrayTypeFromFirstElement.enabled": "false",
    "spark.sql.pyspark.legacy.inferMapTypeFromFirstPair.enabled": "false",
    "spark.sql.execution.arrow.useLargeVarTypes": "false",
    "spark.sql.execution.pandas.structHandlingMode": "legacy",
    "spark.sql.execution.arrow.pyspark.selfDestruct.enabled": "false",
    "spark.sql.execution.pyspark.binaryAsBytes": "true",
    "spark.sql.repl.eagerEval.enabled": "false",
    "spark.sql.repl.eagerEval.maxNumRows": "20",
    "spark.sql.repl.eagerEval.truncate": "20",
}


def configure(session: Session, operation: base_pb2.ConfigRequest.Operation) -> list[KeyValue]:
    """Runs ``operation`` on ``session.conf``; the pairs Spark answers it with."""
    conf = session.conf
    kind = operation.WhichOneof("op_type")
    match kind:
        case "set":
            for pair in operation.set.pairs:
                conf.set(pair.key, pair.value)
            return []
        case "get":
            return [_pair(key, conf.get(key, CLIENT_DEFAULTS[key]) if key in CLIENT_DEFAULTS else conf.get(key))
                    for key in operation.get.keys]
        case "get_with_default":
            return [_pair(p.key, conf.get(p.key, p.value if p.HasField("value") else None))
                    for p in operation.get_with_default.pairs]
        case "get_option":
            return [_pair(key, conf.get(key, CLIENT_DEFAULTS.get(key))) for key in operation.get_option.keys]
        case "get_all":
            prefix = operation.get_all.prefix
            return [_pair(k, v) for k, v in sorted(conf.getAll().items()) if k.startswith(prefix)]
        case "unset":
            for key in operation.unset.keys:
                conf.unset(key)
            return []
        case "is_modifiable":
            return [_pair(k, str(conf.isModifiable(k)).lower()) for k in operation.is_modifiable.keys]
    number = base_pb2.ConfigRequest.Operation.DESCRIPTOR.fields_by_name[kind].number if kind else 0
    raise PlanNotSupported.field("spark.connect.ConfigRequest.Operation", str(kind), number)


def _pair(key: str, value: object) -> KeyValue:
    return KeyValue(key=key) if value is None else KeyValue(key=key, value=str(value))
