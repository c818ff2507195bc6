"""The frames one client asked the server to keep: persisted relations and checkpoints.

sparkwire caches a result by its plan (``DataFrame.persist``), but every request translates
its relations afresh, and a translated local relation is a new source with a plan of its
own: so a relation persisted in one request would never be found in the next. Spark's
server keys persisted plans by their analyzed form; here a persisted relation is kept with
the frame it was translated to, under its protocol bytes (a frame the client sends again
carries the same plan ids, hence the same bytes), and ``relations.Relations`` hands out
that frame, whose plan the cache knows. A checkpoint is the protocol's
``CachedRemoteRelation``: the frame kept under an id the server chooses, which later plans
name, until the client removes it. Both live as long as the client's session.
"""

from __future__ import annotations

import threading
import uuid
from typing import cast

from pyspark.sql.connect.proto import common_pb2, relations_pb2

from sparkwire.coordinator.connect.errors import PlanNotSupported
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.storage_level import StorageLevel

Relation = relations_pb2.Relation
#: At most this many frames kept per client; beyond, a new one is refused.
MOST_KEPT = 1024


class KeptFrames:
    """One client session's persisted relations and checkpoints (thread-safe: a client may
    run several operations at once)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._persisted: dict[bytes, DataFrame] = {}
        self._checkpoints: dict[str, DataFrame] = {}
        #: Counts the changes, so a translation made before one is not reused after
        #: (``translated``): a relation translated again finds the frames kept since.
        self.version = 0

    def persisted(self, rel: Relation) -> DataFrame | None:
        """The frame ``rel`` was persisted as, if it was (None fast when nothing is)."""
        if not self._persisted:
            return None
        with self._lock:
            return self._persisted.get(_key(rel))

    def persist(self, rel: Relation, df: DataFrame, level: common_pb2.StorageLevel | None) -> None:
        df.persist(StorageLevel.MEMORY_AND_DISK_DESER if level is None else storage_level(level))
        with self._lock:
            self._check_room()
            self._persisted[_key(rel)] = df
            self.version += 1

    def unpersist(self, rel: Relation, df: DataFrame) -> None:
        df.unpersist()
        with self._lock:
            self._persisted.pop(_key(rel), None)
            self.version += 1

    def checkpoint(self, df: DataFrame) -> str:
        """Keep ``df`` (already checkpointed) under a new id, which the client names it by."""
        relation_id = str(uuid.uuid4())
        with self._lock:
            self._check_room()
            self._checkpoints[relation_id] = df
            self.version += 1
        return relation_id

    def checkpointed(self, relation_id: str) -> DataFrame:
        with self._lock:
            df = self._checkpoints.get(relation_id)
        if df is None:
            raise PlanNotSupported(f"no cached relation {relation_id!r} in this session",
                                   condition="INVALID_HANDLE.SESSION_CHANGED")
        return df

    def remove(self, relation_id: str) -> None:
        """The client dropped its checkpointed frame: release the workers' copy."""
        with self._lock:
            df = self._checkpoints.pop(relation_id, None)
            self.version += 1
        if df is not None:
            df.unpersist()

    def _check_room(self) -> None:
        if len(self._persisted) + len(self._checkpoints) >= MOST_KEPT:
            raise PlanNotSupported(f"a session keeps at most {MOST_KEPT} persisted or checkpointed frames",
                                   condition="CONNECT_INVALID_PLAN.TOO_MANY_KEPT_FRAMES")


def storage_level(level: common_pb2.StorageLevel) -> StorageLevel:
    return StorageLevel(level.use_disk, level.use_memory, level.use_off_heap, level.deserialized,
                        level.replication or 1)


def storage_level_proto(level: object) -> common_pb2.StorageLevel:
    """A level as ``DataFrame.storageLevel`` reports it (ours: the frames here are
    persisted with ``storage_level``'s), in the protocol's form."""
    level = cast(StorageLevel, level)
    return common_pb2.StorageLevel(use_disk=level.useDisk, use_memory=level.useMemory,
                                 use_off_heap=level.useOffHeap, deserialized=level.deserialized,
                                 replication=level.replication)


def _key(rel: Relation) -> bytes:
    return rel.SerializeToString(deterministic=True)
