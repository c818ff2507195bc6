"""sparkwire settings: defaults < TOML file < ``SPARKWIRE_…`` env vars < keyword overrides.

The TOML file is the one named by ``config_file=`` or by the ``SPARKWIRE_CONFIG`` env var.
Nested fields use ``__`` in env vars: ``SPARKWIRE_TRANSPORT__KIND=memory``,
``SPARKWIRE_WORKER__TASK_SLOTS=4``. The transport section is ``transport.config`` (a
registry name plus options), so this module never imports a transport backend.
"""

from __future__ import annotations

import os
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ByteSize, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from sparkwire.planner.spark.timezones import DEFAULT_TIME_ZONE, check_time_zone
from sparkwire.transport.config import TransportConfig
from sparkwire.transport.errors import ConfigError

CONFIG_FILE_ENV = "SPARKWIRE_CONFIG"
_config_file: ContextVar[Path | None] = ContextVar("sparkwire_config_file", default=None)


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EngineSettings(_Section):
    """Resources of a worker's DuckDB database, shared by the tasks it runs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: Threads of the worker's database, which its concurrent tasks share; 0: from the
    #: worker's cores and slots (``WorkerSettings.threads``). An explicit count overrides.
    threads: int = Field(default=0, ge=0, le=256)
    #: Parent of the database's private spill directory; None: the worker's own temp dir.
    temp_directory: Path | None = None
    #: Directories tasks may read files under; empty: any (a worker facing the network
    #: must have them, ``clusters.hosting``).
    data_roots: tuple[Path, ...] = ()
    batch_rows: int = Field(default=65536, ge=1, le=16_777_216)


class WorkerSettings(_Section):
    # Two slots per worker: with in-process workers (one interpreter, one GIL) 4 slots took
    # 3.18 and 3.05 s for the 22 TPC-H SF1 queries against 3.06 and 2.91 s with 2 (two A/B
    # runs, 2 workers, 2 cores); over zmq, with worker processes, 4.47 s either way.
    task_slots: int = Field(default=2, ge=1, le=256)
    #: CPU cores each worker has, which plans are sized by (a stage runs at most a task per
    #: core of the cluster, ``planner.physical.sizing``); 0: counted where the workers run
    #: (``ClusterBase.cores``: this machine's CPUs for workers on it).
    cores: int = Field(default=0, ge=0, le=4096)
    #: A task's output is cut into its partitions in pieces of about this many bytes each
    #: (or ``engine.batch_rows`` rows), its batches gathered first up to a share of the
    #: store (``coordinator.worker.pieces``); 0 cuts every batch as DuckDB hands it over.
    piece_bytes: ByteSize = Field(default=ByteSize(1 << 20), ge=0)
    max_queued_tasks: int = Field(default=1024, ge=1)
    #: One query's share of the queue, so that it cannot starve the others (``admission``).
    max_queued_per_query: int = Field(default=512, ge=1)
    #: The whole worker's memory beyond its idle footprint: partition store, DuckDB and
    #: read-ahead share it (``coordinator.worker.memory``). Bytes, or "4GiB", "512MB".
    memory: ByteSize = Field(default=ByteSize(2 << 30), ge=128 << 20)
    spill_dir: Path | None = None  # None: a private temp dir per worker, removed on close
    engine: EngineSettings = Field(default_factory=EngineSettings)

    def threads(self, host_share: int = 0) -> int:
        """The threads of a worker's database: ``engine.threads`` where set; else as many
        as keep a worker whose slots are all busy at its cores and no more (DuckDB runs a
        query on its calling thread too: ``threads - 1 + task_slots`` in all), at least one.
        Its cores are ``cores`` where set, else ``host_share``: the CPUs of its machine that
        a cluster on that machine gives each of its workers there (``ClusterBase``); a
        worker that knows neither runs one thread per slot. A narrow stage's task alone on
        its worker runs on all of its threads (``worker.engine.Databases``). Measured on 2
        cores (CHANGELOG.md, issue 33): one worker with a thread more than that cost 6-8%
        more CPU seconds and no less wall time."""
        if self.engine.threads:
            return self.engine.threads
        return max(1, (self.cores or host_share) - self.task_slots + 1)


class TimeoutSettings(_Section):
    """Every wait is bounded; these are the bounds, in seconds."""

    partition_wait: float = Field(default=60.0, gt=0)  # for a partition's task to be delivered
    idle: float = Field(default=600.0, gt=0)  # between two batches of one partition
    shutdown: float = Field(default=10.0, gt=0)  # for worker threads to stop on close
    # for every worker to answer a query's cancel at its end; a slower one is not waited for
    cancel: float = Field(default=2.0, gt=0)
    # for one task to run on its worker; past it the task is stopped and its query fails (a
    # task run again would take as long), so that no task holds a slot for good
    task: float = Field(default=3600.0, gt=0)


class UiSettings(_Section):
    """The live query UI on the driver (``coordinator.ui``): off until ``port`` is set."""

    #: The port to serve on; 0: one the OS picks; None: no UI (``Session(ui=True)`` means 0).
    port: int | None = Field(default=None, ge=0, le=65535)
    #: The address to bind; off loopback a token and TLS are required (``ui.server``).
    host: str = "127.0.0.1"
    #: The token a browser or scraper sends (``Authorization: Bearer``, or ``?token=`` once,
    #: which sets a cookie): at least 16 bytes, as the cluster secret (``transport.security``).
    token: SecretStr | None = None
    #: A file (owner-only, like an ssh key) holding the token: the form to ship around.
    token_file: Path | None = None
    #: Requests served at once, live event streams included; one more is answered 503.
    max_clients: int = Field(default=16, ge=1, le=1024)
    #: Finished queries kept, oldest dropped first past either bound.
    history_queries: int = Field(default=500, ge=1)
    history_bytes: ByteSize = Field(default=ByteSize(32 << 20), ge=1 << 16)
    #: A directory (owner-only, 0700; made so when missing) where finished queries are kept
    #: as JSON lines, within the two bounds above, and read back when a driver starts.
    history_dir: Path | None = None
    #: Per query: the events kept (the latest), and the task runs drawn.
    events_per_query: int = Field(default=200, ge=1)
    tasks_per_query: int = Field(default=4096, ge=1)
    #: Serve HTTPS with this PEM certificate chain and its key (owner-only, like every key
    #: sparkwire reads); both or neither; required off loopback (``ui.server``).
    tls_cert: Path | None = None
    tls_key: Path | None = None

    @model_validator(mode="after")
    def _tls_pair(self) -> UiSettings:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("ui.tls_cert and ui.tls_key go together")
        return self


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="SPARKWIRE_", env_nested_delimiter="__", extra="forbid"
    )

    workers: int = Field(default=4, ge=1, le=1024)
    # createDataFrame splits a table into chunks of about this many rows, one task each
    # (at most one chunk per core of the cluster).
    local_chunk_rows: int = Field(default=100_000, ge=1)
    # Where Spark DataFrames are written as Parquet for sparkwire to read; None: a temp dir.
    # On a real Spark cluster, a path every executor and worker can read (shared storage).
    spark_exchange_dir: Path | None = None
    # A join side estimated at most this many bytes is broadcast instead of shuffled
    # (Spark's spark.sql.autoBroadcastJoinThreshold, same default); 0 never broadcasts.
    broadcast_threshold: int = Field(default=10 * 1024 * 1024, ge=0)
    # A full sort of at least this many estimated rows is range-partitioned over the
    # workers instead of sorted in one task; 0 never (see benchmarks/sort.py).
    range_sort_rows: int = Field(default=0, ge=0)
    # A scan gets a task per this many bytes of the Parquet columns it reads, and a shuffle a
    # partition per this many estimated bytes (at most one per core of the cluster), and a
    # query reading at most this many in all runs as one task; 0: a task per core, never
    # one stage (tests of distribution use 0).
    task_bytes: int = Field(default=16 * 1024 * 1024, ge=0)
    # Spark's spark.sql.adaptive.enabled: a stage reading a shuffle, where a decision can
    # change something, waits for its producers and is planned again from the bytes they
    # wrote (``coordinator.adaptive``: coalesce to task_bytes a task, split a skewed join
    # partition, read a join side that turned out under broadcast_threshold whole).
    adaptive: bool = True
    # A join input's partition is skewed over skew_factor times the median partition and
    # over skew_bytes (Spark's spark.sql.adaptive.skewJoin.skewedPartitionFactor, and
    # ...skewedPartitionThresholdInBytes with its default, 256 MiB).
    skew_factor: float = Field(default=5.0, gt=1)
    skew_bytes: int = Field(default=256 * 1024 * 1024, ge=0)
    # Spark's spark.sql.ansi.enabled (on by default since Spark 4): division by zero,
    # integer overflow and casts of invalid input raise an error naming Spark's error class;
    # off, division and casts give NULL instead (``coordinator.worker.compile.division``).
    ansi: bool = True
    # Spark's spark.sql.session.timeZone: the zone in which instants (``timestamp``) read
    # as wall clocks and wall clocks become instants (``planner.spark.timezones``). An IANA region
    # name or an offset "+08:00". UTC by default, where Spark takes the machine's zone: the
    # same query then gives the same rows on every machine (the reason is in timezones).
    time_zone: str = DEFAULT_TIME_ZONE
    transport: TransportConfig = Field(default_factory=TransportConfig)
    worker: WorkerSettings = Field(default_factory=WorkerSettings)
    timeouts: TimeoutSettings = Field(default_factory=TimeoutSettings)
    ui: UiSettings = Field(default_factory=UiSettings)

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        return check_time_zone(value)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        path = _config_file.get()
        if path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)


def load_settings(
    config_file: str | Path | None = None, transport: str | None = None, *,
    overrides_from: str = "keyword", **overrides: Any,
) -> Settings:
    """Settings from every source; a missing or malformed file, or a bad value from any
    source, is a ``ConfigError`` that names the setting and where it came from: the file,
    the ``SPARKWIRE_…`` env var, or the override (``overrides_from``: ``"keyword"`` for a
    keyword argument, ``"flag"`` for the command line's ``--name``).

    ``transport`` picks the transport kind (a CLI flag, ``Session(transport=...)``); the
    configured options are kept when the kind stays the same and dropped when it changes,
    since one transport's options mean nothing to another; security applies to all.
    """
    named = config_file or os.environ.get(CONFIG_FILE_ENV)
    path = Path(named) if named else None
    if path is not None and not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    token = _config_file.set(path)
    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        settings = Settings(**given)
    except ValidationError as exc:
        problems = "; ".join(_problem(error, given, overrides_from, path) for error in exc.errors())
        raise ConfigError(f"invalid sparkwire settings: {problems}") from None
    except ValueError as exc:  # a TOML syntax error surfaces as a ValueError subclass
        raise ConfigError(f"cannot read config file {path}: {exc}") from None
    finally:
        _config_file.reset(token)
    if transport is not None and transport != settings.transport.kind:
        chosen = settings.transport.model_copy(update={"kind": transport, "options": {}})
        settings = settings.model_copy(update={"transport": chosen})
    return settings


def _problem(error: Any, given: dict[str, Any], overrides_from: str, path: Path | None) -> str:
    """One validation error as ``setting: reason (from <source>)``, without pydantic's
    framing; the source is the first that set the setting, in the order they take effect."""
    loc = [str(part) for part in error["loc"]]
    dotted = ".".join(loc)
    reason = "unknown setting" if error["type"] == "extra_forbidden" else str(error["msg"])
    reason = reason.removeprefix("Value error, ")
    env = "SPARKWIRE_" + "__".join(loc).upper()
    if loc and loc[0] in given:
        source = f"flag --{loc[0].replace('_', '-')}" if overrides_from == "flag" \
            else f"keyword argument {loc[0]}="
    elif any(name.upper() == env for name in os.environ):
        source = f"env var {env}"
    elif path is not None:
        source = f"config file {path}"
    else:
        source = "defaults"
    return f"{dotted}: {reason} (from {source})"
