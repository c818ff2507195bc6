"""The same PySpark program on the same data, in real PySpark and in sparkwire, compared.

A program is a function ``program(api, *frames)``: ``api`` is PySpark's namespace or ours
(``api.F`` the functions module, ``api.Window``, ``api.T`` the types module), and ``frames``
are DataFrames made from the given Arrow tables by each engine's ``createDataFrame``. The
oracle is PySpark itself (ANSI as Spark's default): column names, result types (``dtypes``,
and the Arrow types of timestamps) and values must match, on every sparkwire session given
(the API tests use one with 1 worker and one with 3) and, as a third engine, through a
``Remote``: the unchanged PySpark program run by PySpark's Spark Connect client against
sparkwire's server (a module marked ``connect`` gets one in its ``sessions``,
``conftest.py``). PySpark's answer is computed once and compared with every engine. Both engines run in the session time
zone ``time_zone`` (UTC unless given); instants compare as PySpark's ``collect()`` gives
them, wall clocks in the Python process's zone. Rows compare as a multiset unless
``ordered``; floats approximately.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pyarrow as pa


@dataclass(frozen=True)
class Api:
    """What a PySpark program reaches for, from one engine."""

    F: ModuleType
    Window: Any
    T: Any


def pyspark_api() -> Api:
    from pyspark.sql import Window, functions, types

    return Api(functions, Window, types)


def sparkwire_api() -> Api:
    import sparkwire

    return Api(sparkwire.functions, getattr(sparkwire, "Window", None), getattr(sparkwire, "types", None))


Program = Callable[..., Any]


def connect_api() -> Api:
    """PySpark's namespace as a Spark Connect program reaches it: the functions and
    ``Window`` that ``pyspark.sql.functions`` hands out once a remote session is made (here
    named directly, so the process's classic Spark session stays classic)."""
    from pyspark.sql import types
    from pyspark.sql.connect import functions
    from pyspark.sql.connect.window import Window

    return Api(functions, Window, types)


@dataclass(frozen=True)
class Remote:
    """The third engine: ``client``, a PySpark Spark Connect session on sparkwire's server;
    programs run on it with PySpark's own namespace (``connect_api``)."""

    client: Any

    def __getattr__(self, name: str) -> Any:
        """What a test loops over its engines for (``conf``, ``createDataFrame``, ``range``,
        ``read``, ``sql``) is the client's, as a PySpark program would find it."""
        return getattr(self.client, name)


def session_of(engine: Any) -> Any:
    """What a program's ``createDataFrame`` and ``sql`` are called on: a sparkwire session,
    or a ``Remote``'s client."""
    return engine.client if isinstance(engine, Remote) else engine


def assert_same(
    program: Program,
    tables: Iterable[pa.Table],
    spark: Any,
    sessions: Iterable[Any],
    *,
    ordered: bool = False,
    rel: float = 1e-9,
    time_zone: str = "UTC",
) -> None:
    """``program`` gives the same names, types and rows in PySpark and in each session,
    both in the session time zone ``time_zone``."""
    tables = list(tables)
    want_types, want_rows, want_times = _expected(program, tables, spark, time_zone)
    for session in sessions:
        if isinstance(session, Remote):
            _check_remote(program, tables, session.client, want_types, want_rows, ordered=ordered,
                          rel=rel, time_zone=time_zone)
            continue
        before = session.conf.get(ZONE_KEY)
        session.conf.set(ZONE_KEY, time_zone)
        try:
            ours = program(sparkwire_api(), *(session.createDataFrame(t) for t in tables))
            assert ours.dtypes == want_types, f"types on {session.settings.workers} worker(s)"
            result = ours.toArrow()
        finally:
            session.conf.set(ZONE_KEY, before)
        assert result.schema == ours.arrow_schema, "the result has the types the schema promised"
        assert _timestamp_types(result.schema) == want_times, "Arrow timestamp types as PySpark's"
        got_rows = [normalize(_maps_as_dicts(row, result.schema), want_types)
                    for row in result.to_pylist()]
        _assert_rows(got_rows, want_rows, ordered=ordered, rel=rel,
                     where=f"{session.settings.workers} worker(s)")


def assert_same_remote(program: Program, tables: Iterable[pa.Table], spark: Any, remote: Any, *,
                       ordered: bool = False, rel: float = 1e-9) -> None:
    """``program``, unchanged, gives the same names, types and rows through ``remote`` (a
    PySpark Spark Connect session on sparkwire's server, ``sparkwire.connect``) as in
    classic PySpark, both in UTC; rows as each one's ``collect()`` gives them."""
    tables = list(tables)
    want_types, want_rows, _ = _expected(program, tables, spark, "UTC")
    _check_remote(program, tables, remote, want_types, want_rows, ordered=ordered, rel=rel, time_zone="UTC")


@contextmanager
def active(remote: Any) -> Iterator[None]:
    """``remote`` as the thread's active Spark Connect session for the body. The client
    binds a checkpoint's result (``localCheckpoint``, ``checkpoint``) to
    ``SparkSession.active()``, not to the session that made it: that is the first client
    session made in the thread and not yet stopped, which in a test process may be another
    test's, on another server. The checkpointed frame's later plans then go to that session,
    which has no such relation ("no cached relation ... in this session")."""
    from pyspark.sql.connect.session import SparkSession as RemoteSession

    before = getattr(RemoteSession._active_session, "session", None)
    RemoteSession._active_session.session = remote
    try:
        yield
    finally:
        RemoteSession._active_session.session = before


def _check_remote(program: Program, tables: list[pa.Table], remote: Any, want_types: list[tuple[str, str]],
                  want_rows: list[tuple[Any, ...]], *, ordered: bool, rel: float, time_zone: str) -> None:
    """``program`` through the Spark Connect session ``remote`` gives PySpark's answer."""
    remote.conf.set(ZONE_KEY, time_zone)
    with active(remote):
        ours = program(connect_api(), *(remote.createDataFrame(t) for t in tables))
        assert [(f.name, f.dataType.simpleString()) for f in ours.schema.fields] == want_types, "Spark Connect"
        got_rows = [normalize(row.asDict(recursive=True), want_types) for row in ours.collect()]
    _assert_rows(got_rows, want_rows, ordered=ordered, rel=rel, where="Spark Connect")


def _expected(program: Program, tables: list[pa.Table], spark: Any, time_zone: str) -> tuple[
        list[tuple[str, str]], list[tuple[Any, ...]], dict[str, pa.DataType]]:
    """PySpark's answer: the (name, type) pairs, the normalized rows and the Arrow types of
    the timestamp columns."""
    spark.conf.set(ZONE_KEY, time_zone)
    expected = program(pyspark_api(), *(spark.createDataFrame(t) for t in tables))
    want_types = [(f.name, f.dataType.simpleString()) for f in expected.schema.fields]
    want_rows = [normalize(row.asDict(recursive=True), want_types) for row in expected.collect()]
    want_times = _timestamp_types(expected.toArrow().schema) if _has_timestamps(want_types) else {}
    return want_types, want_rows, want_times


ZONE_KEY = "spark.sql.session.timeZone"


def _has_timestamps(types: list[tuple[str, str]]) -> bool:
    return any("timestamp" in t for _, t in types)


def _timestamp_types(schema: pa.Schema) -> dict[str, pa.DataType]:
    """The Arrow types of the top-level timestamp columns (PySpark's ``toArrow()`` gives an
    instant as ``timestamp[us, tz=UTC]`` whatever the session zone)."""
    return {f.name: f.type for f in schema if pa.types.is_timestamp(f.type)}


def normalize(row: dict[str, Any], types: list[tuple[str, str]]) -> tuple[Any, ...]:
    """A row as a tuple in column order, with maps as sorted item lists (Arrow gives maps as
    lists of pairs, PySpark as dicts) and nested rows as dicts."""
    return tuple(_value(row[name]) for name, _ in types)


def _maps_as_dicts(row: dict[str, Any], schema: pa.Schema) -> dict[str, Any]:
    """Arrow's maps (lists of key-value pairs, an empty map an empty list) as dicts, as
    PySpark's ``asDict(recursive=True)`` gives them, found by the Arrow types."""
    return {f.name: _arrow_value(row[f.name], f.type) for f in schema}


def _arrow_value(value: Any, t: pa.DataType) -> Any:
    if value is None:
        return None
    if pa.types.is_map(t):
        return {k: _arrow_value(v, t.item_type) for k, v in value}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [_arrow_value(v, t.value_type) for v in value]
    if pa.types.is_struct(t):
        return {f.name: _arrow_value(value[f.name], f.type) for f in t}
    return value


def _value(value: Any) -> Any:
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        # an instant from Arrow, as PySpark's collect() gives it: a wall clock in this
        # process's zone (Spark reads it with datetime.fromtimestamp)
        return value.astimezone().replace(tzinfo=None)
    if isinstance(value, dict):
        return {k: _value(v) for k, v in value.items()}
    if isinstance(value, list):
        if value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
            return sorted(((k, _value(v)) for k, v in value), key=_sort_key)
        return [_value(v) for v in value]
    return value


def _sort_key(value: Any) -> Any:
    """A total order over mixed rows: None first, then by type name, then by value."""
    if isinstance(value, (tuple, list)):
        return (1, "seq", tuple(_sort_key(v) for v in value))
    if isinstance(value, dict):
        return (1, "map", tuple(sorted((k, _sort_key(v)) for k, v in value.items())))
    if value is None:
        return (0, "", 0)
    if isinstance(value, float) and math.isnan(value):
        return (1, "nan", 0)
    if isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool):
        return (1, "num", float(value))
    if isinstance(value, (dt.datetime, dt.date)):
        return (1, type(value).__name__, value.isoformat())
    return (1, type(value).__name__, value)


def _assert_rows(got: list[tuple], want: list[tuple], *, ordered: bool, rel: float, where: str) -> None:
    assert len(got) == len(want), f"{len(got)} rows, PySpark has {len(want)} ({where})"
    if not ordered:
        got, want = sorted(got, key=_sort_key), sorted(want, key=_sort_key)
    for i, (g, w) in enumerate(zip(got, want)):
        assert _close(g, w, rel), f"row {i} ({where}):\n  sparkwire {g}\n  pyspark   {w}"


def _close(got: Any, want: Any, rel: float) -> bool:
    if isinstance(got, float) and isinstance(want, float):
        if math.isnan(got) or math.isnan(want):
            return math.isnan(got) and math.isnan(want)
        return math.isclose(got, want, rel_tol=rel, abs_tol=1e-12)
    if isinstance(got, (tuple, list)) and isinstance(want, (tuple, list)):
        return len(got) == len(want) and all(_close(g, w, rel) for g, w in zip(got, want))
    if isinstance(got, dict) and isinstance(want, dict):
        return got.keys() == want.keys() and all(_close(got[k], want[k], rel) for k in got)
    return type(got) is type(want) and got == want


def sql_program(text: str, views: tuple[str, ...] = ("t",)) -> Program:
    """A program running ``text`` over its frames as the temporary ``views`` (one frame:
    ``t``), in either engine."""

    def program(api: Api, *frames: Any) -> Any:
        for name, df in zip(views, frames, strict=True):
            df.createOrReplaceTempView(name)
        df = frames[0]
        run = df.sparkSession.sql if hasattr(df, "sparkSession") else df._executor.sql
        return run(text)

    return program


def assert_same_sql(query: str, views: dict[str, pa.Table], spark: Any, sessions: Iterable[Any]) -> None:
    """``query`` over the same tables as temp ``views`` gives the same rows (as a multiset,
    exactly) in PySpark's ``spark.sql`` and each session's ``sql``."""
    for name, table in views.items():
        spark.createDataFrame(table).createOrReplaceTempView(name)
    want = sorted(map(tuple, spark.sql(query).collect()), key=repr)
    for engine in sessions:
        session = session_of(engine)
        for name, table in views.items():
            session.createDataFrame(table).createOrReplaceTempView(name)
        got = session.sql(query).toArrow()
        assert sorted(zip(*(c.to_pylist() for c in got.columns)), key=repr) == want, query
