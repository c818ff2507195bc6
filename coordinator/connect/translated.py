"""The relations one client session had translated lately, so a plan is translated once.

The client asks about a DataFrame before it runs it (``toArrow``: ``AnalyzePlan`` for the
schema, then ``ExecutePlan``), and sends the same relation again each time it runs the same
DataFrame; translating it each time, local relations included (a new source on the
workers each time), was most of what the Spark Connect path cost over the in-process API
on a tiny query. Spark's server keeps a plan cache for the same reason
(``spark.connect.session.planCache``, per session): like it, only a relation carrying a
plan id, the id the client gives each DataFrame it builds, is kept, so two DataFrames built
alike (two ``spark.sql("SELECT rand()")``) are translated apart, each with its own draws, as
in Spark, while one DataFrame run twice keeps its plan, as a classic one does.

A translation is found by a digest of the relation's protocol bytes (so the keys stay small
whatever the local data the relation carries) and holds only while what gave it its meaning
is unchanged: the session's runtime settings (a ``conf.set`` replaces the settings object),
its temporary views, and the frames the client persisted or checkpointed
(``kept.KeptFrames.version``). At most ``MOST_TRANSLATED`` per session, the least recently
used dropped first.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from pyspark.sql.connect.proto import relations_pb2

from sparkwire.planner.api.dataframe import DataFrame

Relation = relations_pb2.Relation
#: Translations kept per client session (Spark's ``planCache.maxSize`` is 16 too).
MOST_TRANSLATED = 16


@dataclass(frozen=True)
class _Entry:
    state: tuple[object, ...]
    frame: DataFrame


class Translated:
    """One client session's recent translations (thread-safe: a client may send several
    requests at once)."""

    def __init__(self, limit: int = MOST_TRANSLATED) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._entries: OrderedDict[bytes, _Entry] = OrderedDict()

    def frame(self, rel: Relation, state: tuple[object, ...], translate: Callable[[], DataFrame]) -> DataFrame:
        """``rel``'s frame: the one kept for it under an equal ``state``, else
        ``translate()``'s, kept if ``rel`` has a plan id."""
        if not rel.common.HasField("plan_id"):
            return translate()
        key = hashlib.blake2b(rel.SerializeToString(deterministic=True), digest_size=16).digest()
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry.state == state:
                self._entries.move_to_end(key)
                return entry.frame
        df = translate()
        with self._lock:
            self._entries[key] = _Entry(state, df)
            self._entries.move_to_end(key)
            while len(self._entries) > self._limit:
                self._entries.popitem(last=False)
        return df

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
