"""What a DataFrame needs from whoever runs it; the coordinator's Session implements it.

The planner only builds plans, so it states its needs as protocols instead of importing the
coordinator (which imports the planner).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import TracebackType
from typing import Protocol

import pyarrow as pa

from sparkwire.planner.logical.analyzer import Relation
from sparkwire.planner.logical.plan import Operator
from sparkwire.planner.logical.sources import CachedSource, LocalSource
from sparkwire.planner.logical.staged import StagedPlan
from sparkwire.planner.pipeline import PlanSettings


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


class View(Protocol):
    """What a temporary view keeps of a DataFrame: its plan and attributes, as SQL reads
    them (``planner.sql``). A DataFrame is one; stating only this keeps the executor's
    contract below the DataFrame."""

    @property
    def relation(self) -> Relation: ...


class Executor(PlanSettings, Protocol):
    """A session that runs plans: the settings planning reads (``planner.pipeline``), and
    what DataFrames ask of it (temporary views, local tables, running a plan, caches)."""

    def register_view(self, name: str, view: View) -> None:
        """Keep ``view`` under ``name`` for SQL queries (``createOrReplaceTempView``)."""

    @property
    def views(self) -> Mapping[str, View]:
        """The views by name (folded), read-only (``createTempView`` refuses a name taken)."""

    def register_global_view(self, name: str, view: View, replace: bool) -> None:
        """Keep ``view`` under ``name`` in ``global_temp``, shared with the sessions made from
        this one (``createGlobalTempView``); Spark's ``TEMP_TABLE_OR_VIEW_ALREADY_EXISTS``
        for a name taken, unless ``replace``."""

    def register_local(self, table: pa.Table) -> LocalSource:
        """Keep ``table`` for the queries that read it, choosing how it is chunked."""

    def execute(self, plan: StagedPlan) -> ResultStream:
        """Start the plan and return its result stream."""

    def cache(self, plan: Operator, level: object = None) -> None:
        """Keep ``plan``'s result on the workers from its first use on (``planner.api.caching``),
        remembering the storage level asked (the first, as Spark keeps it)."""

    def storage_level(self, plan: Operator) -> object:
        """The storage level ``plan`` was cached with; None when it is not cached."""

    def uncache(self, plan: Operator) -> None:
        """Release ``plan``'s cache; a no-op if it has none."""

    def has_caches(self) -> bool:
        """Whether any plan is cached (planning skips the lookup when none is)."""

    def cached_source(self, plan: Operator) -> CachedSource | None:
        """The cache of exactly ``plan``, materialized now if it is not yet; else None."""
