"""``Session``: the entry point users hold, PySpark-style.

    from sparkwire.coordinator import Session
    from sparkwire.planner.api import functions as F

    with Session(workers=4) as session:
        df = session.read.parquet("lineitem/")
        df.groupBy("l_returnflag").agg(F.sum("l_quantity")).toArrow()

A session owns a cluster (by default in-process workers over the memory transport, the
embedded default) and a ``QueryCoordinator``, and implements the planner's ``Executor``
protocol so DataFrames can plan against its size and run on it.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from dataclasses import dataclass
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import pyarrow as pa

from sparkwire.coordinator.clusters.base import Cluster
from sparkwire.coordinator.clusters.choice import make_cluster
from sparkwire.coordinator.config import Settings, load_settings
from sparkwire.coordinator.execution import QueryResult
from sparkwire.coordinator.query_coordinator import QueryCoordinator
from sparkwire.coordinator.metrics import Progress, QueryMetrics
from sparkwire.coordinator.catalog import not_found
from sparkwire.coordinator.catalog_global import GlobalTempCatalog
from sparkwire.coordinator.global_temp import GlobalTempViews, lookup
from sparkwire.coordinator.runtime_config import RuntimeConfig
from sparkwire.coordinator.session_builder import Builder, Tags, activate, active_session, deactivate
from sparkwire.coordinator.spark_io import export_spark_dataframe, is_spark_dataframe
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.executor import View
from sparkwire.planner.api.tvf import TableValuedFunction
from sparkwire.planner.api.sources import DataFrameReader, create_dataframe, range_dataframe, sql_dataframe
from sparkwire.planner.sql.parameters import Args
from sparkwire.planner.logical.expressions import AggCall, NamedExpr
from sparkwire.planner.pipeline import plan_on
from sparkwire.planner.logical.plan import Aggregate, Keep, Operator, output_columns
from sparkwire.planner.logical.sources import CachedSource, LocalSource
from sparkwire.planner.logical.staged import StagedPlan
from sparkwire.planner.api.pyspark_names import SESSION
from sparkwire.planner.api.unsupported import missing_attribute
from sparkwire.transport.base import WorkerTransport
from sparkwire.transport.errors import ConfigError, SparkwireError
from sparkwire.transport.closing import Closeable

if TYPE_CHECKING:
    from sparkwire.coordinator.ui import UiServer


#: The Spark release whose semantics sparkwire's results are compared with (``version``).
SPARK_VERSION = "4.3.0"


class _BuilderProperty:
    """``Session.builder``: a new ``Builder`` at each access, as PySpark's class property gives one."""

    def __get__(self, instance: object, owner: type[Session]) -> Builder[Session]:
        return Builder(lambda workers: owner(workers=workers))


class Session(Closeable):
    """A connection to a sparkwire cluster; a context manager, and closing twice is safe.

    ``workers`` and ``transport`` override the settings loaded from ``config_file`` (or
    ``SPARKWIRE_CONFIG``) and ``SPARKWIRE_…`` env vars. A transport that crosses processes
    gets a ``ProcessCluster`` of local worker processes; the memory transport (the default)
    an in-process ``LocalCluster``. Pass a ``WorkerTransport`` instance as ``transport`` to
    run the in-process cluster over it. Pass a ``Cluster`` you built (say, a ``ProcessCluster``
    with ``placements``) as ``cluster`` to run on it with its settings; the session then owns
    it and closes it, unless it comes with the ``coordinator`` already running on it, which
    the session then shares (``newSession``) and closes neither.

    ``ui=True`` (or the ``ui.port`` setting) serves the live query UI and ``/metrics`` on
    the driver (``coordinator.ui``) at ``ui_url`` until the session closes.
    """

    def __init__(
        self,
        workers: int | None = None,
        transport: str | WorkerTransport | None = None,
        *,
        cluster: Literal["local", "process", "spark"] | Cluster | None = None,
        spark: Any = None,
        config_file: str | Path | None = None,
        settings: Settings | None = None,
        progress: Progress | None = None,
        ui: bool = False,
        **overrides: Any,
    ) -> None:
        if settings is None and cluster is not None and not isinstance(cluster, str):
            settings = cluster.settings
        if settings is None:
            kind = transport if isinstance(transport, str) else None
            settings = load_settings(config_file, transport=kind, workers=workers, **overrides)
        self.cluster: Cluster = make_cluster(settings, cluster, spark, transport)
        # one coordinator a cluster: it takes the workers' status reports for itself
        self._coordinator = QueryCoordinator(self.cluster, settings)
        #: The live UI (``coordinator.ui``) this session serves; None: off.
        self.ui: UiServer | None = None
        if ui or settings.ui.port is not None:
            from sparkwire.coordinator.ui import start_ui  # its server loads only when asked for

            self.ui = start_ui(settings.ui, self._coordinator)
        #: The session this one shares its cluster with (``newSession``); None: it owns it.
        self._parent: Session | None = None
        #: Spark's ``global_temp`` database, shared with the sessions made from this one.
        self.global_views = GlobalTempViews()
        self._own_state(settings, spark, progress)
        activate(self)

    def _own_state(self, settings: Settings, spark: Any, progress: Progress | None) -> None:
        """What each session has of its own, even beside others on one cluster."""
        self.settings = settings
        #: the settings as made, which a new session starts from (``conf.set`` replaces ``settings``)
        self._made_with = settings
        self.spark = spark
        self.progress = progress
        self._last: QueryResult | None = None
        self._sources: list[str] = []
        self._views: dict[str, View] = {}
        self._caches: dict[Operator, _Cache] = {}
        self._exchange: Path | None = None
        self._closed = False
        self.read = DataFrameReader(self)
        #: PySpark's ``spark.conf``: Spark's keys, the ones sparkwire has honoured.
        self.conf = RuntimeConfig(self)
        #: PySpark's ``spark.catalog``: the temporary views and Parquet tables by name, and
        #: the global views this session shares.
        self.catalog = GlobalTempCatalog(self)
        self._tags = Tags()
        #: Every query of this session carries it, so ``interruptAll`` stops this session's
        #: queries only, not those of the others sharing the cluster.
        self._scope = f"sparkwire-session-{uuid.uuid4().hex}"

    def newSession(self) -> Session:  # noqa: N802 - PySpark's name
        """PySpark's ``newSession``: a session of its own temporary views, runtime config
        (as this one was made, without its later ``conf.set``, as Spark's starts from the
        context's), caches and tags, on this session's cluster. Closing it
        leaves the cluster running; closing this one ends the cluster for both. The active
        session stays this one."""
        child = object.__new__(Session)
        child.cluster = self.cluster
        child._coordinator = self._coordinator
        child.ui = self.ui
        child._parent = self
        child.global_views = self.global_views
        child._own_state(self._made_with, self.spark, self.progress)
        return child

    # -- PySpark's ways to reach a session (``coordinator.session_builder``) -----------------
    builder = _BuilderProperty()
    Builder = Builder

    @classmethod
    def getActiveSession(cls) -> Session | None:  # noqa: N802 - PySpark's name
        """The last session made and not stopped, else None."""
        session: Session | None = active_session()
        return session

    @classmethod
    def active(cls) -> Session:
        """``getActiveSession``, or Spark's ``NO_ACTIVE_OR_DEFAULT_SESSION`` when there is none."""
        session: Session | None = active_session()
        if session is None:
            raise ConfigError("there is no active session", condition="NO_ACTIVE_OR_DEFAULT_SESSION")
        return session

    @property
    def tvf(self) -> TableValuedFunction:
        """Spark 4's table-valued functions (``planner.api.tvf``)."""
        return TableValuedFunction(self)

    @property
    def version(self) -> str:
        """The Spark version whose semantics sparkwire follows (results are compared with it)."""
        return SPARK_VERSION

    def emptyDataFrame(self, schema: Any) -> DataFrame:  # noqa: N802 - PySpark's name
        """A DataFrame of no rows with ``schema`` (a ``StructType`` or a DDL string)."""
        return self.createDataFrame([], schema)

    def addTag(self, tag: str) -> None:  # noqa: N802 - PySpark's name
        self._tags.add(tag)

    def removeTag(self, tag: str) -> None:  # noqa: N802 - PySpark's name
        self._tags.remove(tag)

    def getTags(self) -> set[str]:  # noqa: N802 - PySpark's name
        """This thread's tags."""
        return self._tags.get()

    def clearTags(self) -> None:  # noqa: N802 - PySpark's name
        self._tags.clear()

    def interruptAll(self) -> list[str]:  # noqa: N802 - PySpark's name
        """Stop every query of this session still running, from any thread: each fails with
        ``QueryCancelled`` (Spark's ``SPARK_JOB_CANCELLED``) and its tasks are cancelled on
        every worker. The ids of the queries interrupted."""
        return self._coordinator.interrupt(
            lambda _query, tags: self._scope in tags,
            lambda query: f"[SPARK_JOB_CANCELLED] Job {query} cancelled as part of cancellation of all jobs")

    def interruptTag(self, tag: str) -> list[str]:  # noqa: N802 - PySpark's name
        """Stop the running queries started under job tag ``tag`` (``addTag``)."""
        return self._coordinator.interrupt(
            lambda _query, tags: tag in tags and self._scope in tags,
            lambda query: f"[SPARK_JOB_CANCELLED] Job {query} cancelled part of cancelled job tags {tag}")

    def interruptOperation(self, op_id: str) -> list[str]:  # noqa: N802 - PySpark's name
        """Stop the running query whose id is ``op_id`` (as ``interruptAll`` and
        ``interruptTag`` return them); [] when none such runs. Spark's operation ids are
        numbers, ours are the query ids."""
        return self._coordinator.interrupt(
            lambda query, tags: query == op_id and self._scope in tags,
            lambda query: f"[SPARK_JOB_CANCELLED] Job {query} cancelled as part of cancellation of the operation")

    def stop(self) -> None:
        """``close()``, PySpark's name for it."""
        self.close()

    @property
    def workers(self) -> int:
        """How many workers the cluster has (plans are sized by ``cores``, not by this)."""
        return len(self.cluster.addresses)

    # -- planner.api.executor.Executor ---------------------------------------------------------
    @property
    def cores(self) -> int:
        return self.cluster.cores

    @property
    def broadcast_threshold(self) -> int:
        return self.settings.broadcast_threshold

    @property
    def range_sort_rows(self) -> int:
        return self.settings.range_sort_rows

    @property
    def task_bytes(self) -> int:
        return self.settings.task_bytes

    @property
    def ansi(self) -> bool:
        return self.settings.ansi

    @property
    def time_zone(self) -> str:
        return self.settings.time_zone

    def register_local(self, table: pa.Table) -> LocalSource:
        wanted = -(-table.num_rows // self.settings.local_chunk_rows)
        chunks = max(1, min(self.cores, wanted))  # a task each: at most one per core
        size = -(-table.num_rows // chunks) if table.num_rows else 0
        pieces = [table.slice(i * size, size) for i in range(chunks)] if size else [table]
        source_id = f"local_{uuid.uuid4().hex[:12]}"
        self.cluster.driver.publish(source_id, pieces)
        self._sources.append(source_id)
        return LocalSource(source_id=source_id, chunks=len(pieces),
                           columns=tuple(table.column_names), bytes=table.nbytes,
                           rows=table.num_rows)

    def cache(self, plan: Operator, level: object = None) -> None:
        self._caches.setdefault(plan, _Cache(level=level))

    def storage_level(self, plan: Operator) -> object:
        cache = self._caches.get(plan)
        return None if cache is None else cache.level

    def uncache(self, plan: Operator) -> None:
        cache = self._caches.pop(plan, None)
        if cache is not None and cache.source is not None:
            self._release(cache.source)

    def has_caches(self) -> bool:
        return bool(self._caches)

    def cached_source(self, plan: Operator) -> CachedSource | None:
        """The cache of ``plan``, materialized at its first use, and again after a worker
        holding one of its chunks was lost: as Spark recomputes lost cached partitions from
        their lineage, the cached plan runs again (the whole of it, on the live workers)
        instead of the queries on it failing."""
        cache = self._caches.get(plan)
        if cache is None:
            return None
        if cache.source is not None and not self._live_members().issuperset(cache.source.addresses):
            self._release(cache.source)  # what the live holders kept: the new run replaces it
            cache.source = None
        if cache.source is None:
            cache.source = self._materialize(plan, f"cache_{uuid.uuid4().hex}")
        return cache.source

    def _live_members(self) -> set[str]:
        """Addresses that still hold what was put there: the live workers and the driver. A
        worker that died is dead, or replaced by one at a new address (ports and socket
        paths are chosen when a worker starts), empty either way."""
        return {*self.cluster.addresses, self.cluster.driver_address} - set(self.cluster.dead())

    def _materialize(self, plan: Operator, cache_id: str) -> CachedSource:
        """Run ``plan`` once, its last stage kept as the cache, counting its rows."""
        counted = Aggregate(input=Keep(input=plan, cache_id=cache_id), keys=(),
                            aggregates=(NamedExpr(name="rows", expr=AggCall(fn="count")),))
        staged = plan_on(self, counted, ["rows"])
        kept = next(stage for stage in staged.stages if stage.keep == cache_id)
        with self.execute(staged) as result:
            rows = sum(sum(batch.column(0).to_pylist()) for batch in result)
            addresses = tuple(result.placement(kept.id, task) for task in range(kept.tasks))
        return CachedSource(cache_id=cache_id, chunks=kept.tasks, addresses=addresses,
                            columns=tuple(output_columns(plan)), rows=rows)

    def _release(self, source: CachedSource) -> None:
        """Drop the chunks from the holders still live; a lost one took its chunks with it."""
        live = self._live_members()
        for address in dict.fromkeys(source.addresses):
            if address not in live:
                continue
            try:
                self.cluster.client(address).cancel(source.cache_id)
            except SparkwireError:
                pass  # a worker gone took its chunks with it

    def register_view(self, name: str, view: View) -> None:
        self._views[name.casefold()] = view

    @property
    def views(self) -> Mapping[str, View]:
        """The temporary views and tables by name (folded), read-only."""
        return MappingProxyType(self._views)

    def register_global_view(self, name: str, view: View, replace: bool) -> None:
        self.global_views.create(name, view, replace)

    def drop_view(self, name: str) -> bool:
        """Whether a view of that name was there to drop."""
        return self._views.pop(name.casefold(), None) is not None

    def is_cached(self, df: DataFrame) -> bool:
        return df.plan in self._caches

    def clear_caches(self) -> None:
        for plan in list(self._caches):
            self.uncache(plan)

    def execute(self, plan: StagedPlan) -> QueryResult:
        result = self._coordinator.execute(plan, self.progress, frozenset({*self._tags.get(), self._scope}))
        self._last = result
        return result

    @property
    def ui_url(self) -> str | None:
        """Where the live UI is served (``ui=True``); None when it is off."""
        return self.ui.url if self.ui is not None else None

    @property
    def last_metrics(self) -> QueryMetrics | None:
        """The metrics of the last query run, of the attempt that produced its result."""
        return self._last.metrics if self._last is not None else None

    def __getattr__(self, name: str) -> object:
        # Only called for missing attributes: PySpark's SparkSession API sparkwire lacks.
        raise missing_attribute("Session", name, SESSION, "SparkSession")

    # -- PySpark-style API -------------------------------------------------------------
    def createDataFrame(self, data: Any, schema: Any = None) -> DataFrame:  # noqa: N802 - PySpark's name
        """A DataFrame over a ``pyarrow.Table``, a pandas DataFrame, a list of rows (tuples,
        lists, dicts, ``Row``s; ``schema`` a DDL string, a ``StructType`` or column names),
        or a Spark DataFrame.

        A Spark DataFrame is written as Parquet by Spark's executors into the session's
        exchange directory and read from there, so its rows never gather on the driver.
        """
        if is_spark_dataframe(data):
            if self._exchange is None:
                self._exchange = Path(tempfile.mkdtemp(prefix="sparkwire-exchange-",
                                                       dir=self.settings.spark_exchange_dir))
            path = export_spark_dataframe(data, self._exchange, self.settings.timeouts.partition_wait)
            return self.read.parquet(str(path))
        return create_dataframe(self, data, schema)

    def range(self, start: int, end: int | None = None, step: int = 1,
              numPartitions: int | None = None) -> DataFrame:  # noqa: N803 - PySpark's name
        """A ``bigint`` column ``id`` from ``start`` to ``end`` (exclusive) by ``step``,
        generated by the workers in ``numPartitions`` slices (``planner.logical.ranges``)."""
        return range_dataframe(self, start, end, step, numPartitions)

    def table(self, tableName: str) -> DataFrame:  # noqa: N803 - PySpark's name
        """The temporary view or table of that name, or the global view ``global_temp.name``,
        as ``spark.table`` gives it."""
        view = lookup(tableName, self, self.global_views)
        if not isinstance(view, DataFrame):
            raise not_found(tableName)
        return view

    def sql(self, sqlQuery: str, args: Args = None, **kwargs: object) -> DataFrame:  # noqa: N803 - PySpark's name
        """A DataFrame for one SQL query over the session's temporary views (and the global
        ones, as ``global_temp.name``), its ``:name`` or
        ``?`` parameters bound to ``args`` (a dict or a list) as literals, its text formatted
        with ``kwargs`` first as PySpark's is (``"... FROM {df} WHERE id > {n}"``). Parsed
        and planned here; workers receive plans, never SQL text."""
        views = {**self._views, **self.global_views.for_sql()}
        return sql_dataframe(self, sqlQuery, views, args, kwargs)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for cache in self._caches.values():
            if cache.source is not None:
                self._release(cache.source)
        self._caches.clear()
        owner = self
        while owner._parent is not None:
            owner = owner._parent
        kept = self.global_views.local_sources() if owner is not self else set()
        for source_id in self._sources:
            if source_id in kept:
                owner._sources.append(source_id)  # a global view reads it: it lives as long
            else:
                self.cluster.driver.unpublish(source_id)
        if self._exchange is not None:
            shutil.rmtree(self._exchange, ignore_errors=True)
        if self._parent is None:
            deactivate(self)
            if self.ui is not None:
                self.ui.close()
            self.cluster.close()
            self._coordinator.close()


@dataclass
class _Cache:
    """A cached plan: where its chunks are, and under which id, once it is materialized."""

    source: CachedSource | None = None
    #: the storage level asked, which ``df.storageLevel`` reports (``planner.api.storage_level``)
    level: object = None
