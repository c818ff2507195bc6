"""What a DataFrame needs from whoever runs it; the coordinator's Session implements it.

The planner only builds plans, so it states its needs as protocols instead of importing the
coordinator (which imports the planner).
"""

from __future__ import annotations

from collections.abc import Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Protocol

import pyarrow as pa

from sparkwire.planner.logical.plan import CachedSource, LocalSource, Operator
from sparkwire.planner.logical.staged import StagedPlan

if TYPE_CHECKING:
    from sparkwire.planner.api.dataframe import DataFrame


class ResultStream(Protocol):
    """A query's result as Arrow batches; ``pyarrow.RecordBatchReader`` is one.

    Closing releases the query on every worker (a stream dropped early cancels its tasks);
    closing twice is safe.
    """

    @property
    def schema(self) -> pa.Schema: ...

    def __iter__(self) -> Iterator[pa.RecordBatch]: ...

    def close(self) -> None: ...

    def __enter__(self) -> ResultStream: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None: ...


class Executor(Protocol):
    @property
    def workers(self) -> int:
        """Cluster size; task and partition counts are derived from it."""

    @property
    def broadcast_threshold(self) -> int:
        """A join side estimated at most this many bytes is broadcast."""

    @property
    def range_sort_rows(self) -> int:
        """A full sort of at least this many (estimated) rows is range-partitioned; 0 never."""

    @property
    def task_bytes(self) -> int:
        """Bytes of scanned columns per scan task; a query reading at most this is one
        stage; 0: two scan tasks per worker and never one stage."""

    @property
    def ansi(self) -> bool:
        """Spark's ANSI mode (``spark.sql.ansi.enabled``): errors for division by zero,
        overflow and invalid casts; off, NULL. Carried to workers in the plan."""

    @property
    def time_zone(self) -> str:
        """Spark's session time zone (``spark.sql.session.timeZone``, ``planner.spark.timezones``):
        naive timestamps given to ``createDataFrame`` are wall clocks there; carried to
        workers in the plan."""

    def register_view(self, name: str, df: DataFrame) -> None:
        """Keep ``df`` under ``name`` for SQL queries (``createOrReplaceTempView``)."""

    def register_local(self, table: pa.Table) -> LocalSource:
        """Keep ``table`` for the queries that read it, choosing how it is chunked."""

    def execute(self, plan: StagedPlan) -> ResultStream:
        """Start the plan and return its result stream."""

    def cache(self, plan: Operator) -> None:
        """Keep ``plan``'s result on the workers from its first use on (``planner.api.caching``)."""

    def uncache(self, plan: Operator) -> None:
        """Release ``plan``'s cache; a no-op if it has none."""

    def has_caches(self) -> bool:
        """Whether any plan is cached (planning skips the lookup when none is)."""

    def cached_source(self, plan: Operator) -> CachedSource | None:
        """The cache of exactly ``plan``, materialized now if it is not yet; else None."""
