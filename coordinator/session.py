"""``Session``: the entry point users hold, PySpark-style.

    from coordinator import Session
    from planner import functions as F

    with Session(workers=4) as session:
        df = session.read.parquet("lineitem/")
        df.groupBy("l_returnflag").agg(F.sum("l_quantity")).toArrow()

A session owns a cluster (by default in-process workers over the memory transport, the
embedded default) and a ``QueryCoordinator``, and implements the planner's ``Executor``
protocol so DataFrames can plan against its size and run on it.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import pyarrow as pa

from coordinator.cluster import Cluster, LocalCluster
from coordinator.config import Settings, load_settings
from coordinator.execution import Progress, QueryCoordinator, QueryMetrics, QueryResult
from coordinator.process_cluster import ProcessCluster
from planner.dataframe import DataFrame, DataFrameReader, create_dataframe
from planner.plan import LocalSource, StagedPlan
from transport.base import WorkerTransport
from transport.registry import transport_class


class Session:
    """A connection to a sparkwire cluster; a context manager, and closing twice is safe.

    ``workers`` and ``transport`` override the settings loaded from ``config_file`` (or
    ``SPARKWIRE_CONFIG``) and ``SPARKWIRE_…`` env vars. A transport that crosses processes
    gets a ``ProcessCluster`` of local worker processes; the memory transport (the default)
    an in-process ``LocalCluster``. Pass a ``WorkerTransport`` instance as ``transport`` to
    run the in-process cluster over it.
    """

    def __init__(
        self,
        workers: int | None = None,
        transport: str | WorkerTransport | None = None,
        *,
        config_file: str | Path | None = None,
        settings: Settings | None = None,
        progress: Progress | None = None,
        **overrides: Any,
    ) -> None:
        if settings is None:
            kind = transport if isinstance(transport, str) else None
            settings = load_settings(config_file, transport=kind, workers=workers, **overrides)
        self.settings = settings
        if isinstance(transport, WorkerTransport):
            self.cluster: Cluster = LocalCluster(settings, transport)
        elif transport_class(settings.transport.kind).capabilities.crosses_processes:
            self.cluster = ProcessCluster(settings)
        else:
            self.cluster = LocalCluster(settings)
        self._coordinator = QueryCoordinator(self.cluster, settings)
        self.progress = progress
        self.last_metrics: QueryMetrics | None = None
        self._sources: list[str] = []
        self._closed = False
        self.read = DataFrameReader(self)

    # -- planner.executor.Executor ---------------------------------------------------------
    @property
    def workers(self) -> int:
        return len(self.cluster.addresses)

    def register_local(self, table: pa.Table) -> LocalSource:
        wanted = -(-table.num_rows // self.settings.local_chunk_rows)
        chunks = max(1, min(self.workers, wanted))
        size = -(-table.num_rows // chunks) if table.num_rows else 0
        pieces = [table.slice(i * size, size) for i in range(chunks)] if size else [table]
        source_id = f"local_{uuid.uuid4().hex[:12]}"
        self.cluster.driver.publish(source_id, pieces)
        self._sources.append(source_id)
        return LocalSource(source_id=source_id, chunks=len(pieces), columns=tuple(table.column_names))

    def execute(self, plan: StagedPlan) -> QueryResult:
        result = self._coordinator.execute(plan, self.progress)
        self.last_metrics = result.metrics
        return result

    # -- PySpark-style API -------------------------------------------------------------
    def createDataFrame(self, data: Any) -> DataFrame:  # noqa: N802 - PySpark's name
        """A DataFrame over a ``pyarrow.Table`` or a pandas DataFrame held by this session."""
        return create_dataframe(self, data)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for source_id in self._sources:
            self.cluster.driver.unpublish(source_id)
        self.cluster.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
