"""TaskEngine: Parquet reading, lock-down, identifiers, interruption, lifecycle."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st
from pydantic import ValidationError

from sparkwire.coordinator.worker.engine import (
    Databases,
    EngineError,
    EngineInterrupted,
    EngineSettings,
    TaskEngine,
)
from sparkwire.coordinator.worker.compile import ExchangeTable, compile_fragment
from sparkwire.planner.logical.expressions import Call, Column, Lit, NamedExpr, SortKey
from sparkwire.planner.logical.plan import Exchange, Filter, Project, Sort
from sparkwire.planner.logical.sources import FileSplit, KeyRange, ParquetScan
from sparkwire.planner.logical.staged import Boundary, StagedPlan
from sparkwire.transport.errors import PlanRejected
from tests.engine.engine_helpers import ENGINE_MEMORY, engine_for, exchange, run_fragment

RESULT = Boundary(kind="result")
LONG_QUERY = "SELECT count(*) FROM range(1000000000) a, range(1000000) b"


@pytest.fixture
def parquet_dir(tmp_path: Path) -> Path:
    """data/part-0 (ids 0..99, row groups of 10), data/part-1 (100..149); other/secret."""
    data, other = tmp_path / "data", tmp_path / "other"
    data.mkdir()
    other.mkdir()
    pq.write_table(pa.table({"id": range(100), "v": [f"v{i}" for i in range(100)]}), data / "part-0.parquet", row_group_size=10)
    pq.write_table(pa.table({"id": range(100, 150), "v": ["w"] * 50}), data / "part-1.parquet")
    pq.write_table(pa.table({"id": [1], "v": ["secret"]}), data / "sibling.parquet")
    pq.write_table(pa.table({"id": [1], "v": ["secret"]}), other / "secret.parquet")
    return tmp_path


def ids(t: pa.Table) -> list[int]:
    return sorted(t.column("id").to_pylist())


def test_parquet_scan_whole_files(settings: EngineSettings, parquet_dir: Path) -> None:
    scan = ParquetScan(
        splits=(FileSplit(path=str(parquet_dir / "data/part-0.parquet")), FileSplit(path=str(parquet_dir / "data/part-1.parquet"))),
        columns=("id",),
    )
    with engine_for(settings) as eng:
        got = run_fragment(eng, scan)
    assert got.column_names == ["id"] and ids(got) == list(range(150))


def test_parquet_scan_row_groups(settings: EngineSettings, parquet_dir: Path) -> None:
    scan = ParquetScan(
        splits=(
            FileSplit(path=str(parquet_dir / "data/part-0.parquet"), row_groups=(1, 3)),
            FileSplit(path=str(parquet_dir / "data/part-1.parquet")),  # whole file, mixed in
        ),
        columns=("v", "id"),
    )
    fragment = Filter(input=scan, predicate=Call(fn="lt", args=(Column(name="id"), Lit(value=120))))
    assert "read_parquet" not in compile_fragment(fragment, RESULT).sql.lower()
    with engine_for(settings) as eng:
        got = run_fragment(eng, fragment)
    assert got.column_names == ["v", "id"]
    assert ids(got) == [*range(10, 20), *range(30, 40), *range(100, 120)]



@pytest.mark.parametrize("low,high", [(20, 130), (None, 40), (120, None), (None, None)])
def test_parquet_scan_reads_only_its_key_range(settings: EngineSettings, parquet_dir: Path,
                                               low: int | None, high: int | None) -> None:
    """A task's share of files in a co-located join: the rows whose key lies in the range."""
    keys = KeyRange(column="id", low=low, high=high)
    whole = ParquetScan(splits=(FileSplit(path=str(parquet_dir / "data/part-0.parquet"), keys=keys),
                                FileSplit(path=str(parquet_dir / "data/part-1.parquet"), keys=keys)),
                        columns=("id",))
    groups = ParquetScan(splits=(FileSplit(path=str(parquet_dir / "data/part-0.parquet"), row_groups=(0, 1, 5),
                                           keys=keys),
                                 FileSplit(path=str(parquet_dir / "data/part-1.parquet"), keys=keys)),
                         columns=("id",))
    with engine_for(settings) as eng:
        got, grouped = run_fragment(eng, whole), run_fragment(eng, groups)
    every = range(150)
    assert ids(grouped) == [i for i in [*range(20), *range(50, 60), *range(100, 150)]
                            if (low is None or i >= low) and (high is None or i < high)]
    assert ids(got) == [i for i in every if (low is None or i >= low) and (high is None or i < high)]


def test_a_scan_s_splits_read_one_key_range(parquet_dir: Path) -> None:
    from sparkwire.coordinator.worker.compile import CompileError

    path = str(parquet_dir / "data/part-0.parquet")
    scan = ParquetScan(splits=(FileSplit(path=path, keys=KeyRange(column="id", low=1)),
                               FileSplit(path=path)), columns=("id",))
    with pytest.raises(CompileError, match="different key ranges"):
        compile_fragment(scan, RESULT)
    with pytest.raises(ValidationError, match="not a column of its scan"):
        ParquetScan(splits=(FileSplit(path=path, keys=KeyRange(column="v", high=3)),), columns=("id",))
    with pytest.raises(ValidationError):
        KeyRange(column="id", low=1 << 63)

def test_input_files_lists_every_split(parquet_dir: Path) -> None:
    a, b = str(parquet_dir / "data/part-0.parquet"), str(parquet_dir / "data/part-1.parquet")
    scan = ParquetScan(splits=(FileSplit(path=a), FileSplit(path=b, row_groups=(0,)), FileSplit(path=a)), columns=("id",))
    assert compile_fragment(Filter(input=scan, predicate=Lit(value=True)), RESULT).files == (a, b)


@pytest.mark.parametrize("outside", ["other/secret.parquet", "data/../other/secret.parquet", "../x.parquet"])
def test_files_outside_the_data_roots_are_refused(
    settings: EngineSettings, parquet_dir: Path, outside: str
) -> None:
    """A task's files outside the configured roots are refused as the task opens them, and
    DuckDB itself refuses them too, whatever SQL asks."""
    settings = settings.model_copy(update={"data_roots": (parquet_dir / "data",)})
    scan = ParquetScan(splits=(FileSplit(path=str(parquet_dir / outside)),), columns=("v",))
    with engine_for(settings) as eng:
        with pytest.raises(PlanRejected, match="outside the worker's data roots|cannot read"):
            run_fragment(eng, scan)
        with pytest.raises(EngineError, match="Permission|access"):
            list(eng.run(f"SELECT * FROM read_parquet('{parquet_dir / outside}')"))
        sibling = ParquetScan(splits=(FileSplit(path=str(parquet_dir / "data/sibling.parquet")),), columns=("v",))
        assert run_fragment(eng, sibling).column("v").to_pylist() == ["secret"]


def test_tasks_share_the_workers_database(settings: EngineSettings) -> None:
    """A cursor per task on one open database: what one task registers another cannot
    see, and closing a task leaves the database (and its spill directory) open."""
    with Databases(settings, settings.temp_directory, ENGINE_MEMORY) as databases:
        with databases.task() as first, databases.task() as second:
            first.register("t", pa.table({"x": [1]}))
            with pytest.raises(EngineError, match="t"):
                list(second.run("SELECT * FROM t"))
            assert first.connection.execute("SELECT current_setting('temp_directory')").fetchone() == \
                second.connection.execute("SELECT current_setting('temp_directory')").fetchone()
        assert len(list(settings.temp_directory.iterdir())) == 1
        with databases.task() as third:
            assert third.connection.execute(
                "SELECT current_setting('memory_limit')").fetchone()[0] == "800.0 MiB"
            assert len(list(settings.temp_directory.iterdir())) == 1
    assert list(settings.temp_directory.iterdir()) == []


def _threads(engine: TaskEngine) -> int:
    return int(engine.connection.execute("SELECT current_setting('threads')").fetchall()[0][0])


def _task_in_thread(databases: Databases) -> tuple[threading.Thread, list[object]]:
    """``databases.task()`` asked on another thread; the list gets its engine or error."""
    got: list[object] = []

    def ask() -> None:
        try:
            got.append(databases.task())
        except EngineError as exc:
            got.append(exc)

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    return thread, got


def test_a_wide_task_gets_every_slots_threads_and_never_runs_beside_others(
        settings: EngineSettings) -> None:
    """A wide task (one waiting on no other) runs on a second database with the threads of
    every slot, under the same memory limit; the two databases never work at once, so a
    task arriving meanwhile waits until it ends, and one arriving while others run gets no
    more threads. ``TaskEngine.threads`` says which it got, as DuckDB does."""
    assert settings.threads == 1
    with Databases(settings, settings.temp_directory, ENGINE_MEMORY, wide_threads=2) as databases:
        with databases.task(wide=True) as wide:
            assert _threads(wide) == wide.threads == 2
            assert wide.connection.execute(
                "SELECT current_setting('memory_limit')").fetchall() == [("800.0 MiB",)]
            waiting, got = _task_in_thread(databases)
            waiting.join(0.3)
            assert waiting.is_alive() and got == []  # held back while the wide task runs
            assert pa.Table.from_batches(list(wide.run("SELECT 42 AS x"))).column("x").to_pylist() == [42]
        waiting.join(10)
        (after,) = got
        assert isinstance(after, TaskEngine) and _threads(after) == after.threads == 1
        with after, databases.task(wide=True) as beside:
            assert _threads(beside) == 1  # others are running: the wide task takes one slot's
        with databases.task(wide=True) as again:
            assert _threads(again) == 2  # the second database stays open for the next one


def test_closing_ends_the_wait_of_a_task_held_back_by_a_wide_task(settings: EngineSettings) -> None:
    databases = Databases(settings, settings.temp_directory, ENGINE_MEMORY, wide_threads=2)
    wide = databases.task(wide=True)
    waiting, got = _task_in_thread(databases)
    waiting.join(0.2)
    assert waiting.is_alive()
    databases.close()
    waiting.join(10)
    assert not waiting.is_alive() and isinstance(got[0], EngineError) and "closed" in str(got[0])
    wide.close()
    assert list(settings.temp_directory.iterdir()) == []


def test_a_worker_with_one_slot_runs_a_wide_task_like_any_other(settings: EngineSettings) -> None:
    with Databases(settings, settings.temp_directory, ENGINE_MEMORY, wide_threads=1) as databases:
        with databases.task(wide=True) as wide, databases.task() as other:
            assert _threads(wide) == _threads(other) == 1  # one database, nothing held back
        assert len(list(settings.temp_directory.iterdir())) == 1


def test_every_cursor_runs_in_utc_whatever_the_machine_zone(
        settings: EngineSettings, monkeypatch: pytest.MonkeyPatch) -> None:
    """DuckDB takes its TimeZone from the machine; a worker's is UTC for every task's cursor,
    so instants come out as Arrow timestamp[us, tz=UTC] and only the plan's zone counts."""
    monkeypatch.setenv("TZ", "America/New_York")
    with Databases(settings, settings.temp_directory, ENGINE_MEMORY) as databases:
        with databases.task() as task:
            assert task.connection.execute("SELECT current_setting('TimeZone')").fetchall() == [("UTC",)]
            got = pa.Table.from_batches(list(task.run("SELECT TIMESTAMPTZ '2024-11-03 08:30:00+00' AS t")))
            assert got.schema.field("t").type == pa.timestamp("us", tz="UTC")
            with pytest.raises(duckdb.Error, match="locked|[Cc]annot change"):
                task.connection.execute("SET TimeZone = 'Asia/Tokyo'")


@pytest.mark.parametrize("roots", [False, True])
def test_configuration_is_locked(settings: EngineSettings, tmp_path: Path, roots: bool) -> None:
    """Locked with or without data roots; with them, no file outside is reachable."""
    data = tmp_path / "data"
    data.mkdir()
    if roots:
        settings = settings.model_copy(update={"data_roots": (data,)})
    with engine_for(settings) as engine:
        _check_locked(engine.connection, tmp_path, outside_roots=roots)


def _check_locked(con: duckdb.DuckDBPyConnection, tmp_path: Path, outside_roots: bool) -> None:
    for statement in (
        "SET enable_external_access = true",
        "SET lock_configuration = false",
        "SET allowed_directories = ['/']",
        "SET autoload_known_extensions = true",
        "SET python_enable_replacements = true",
    ):
        with pytest.raises(duckdb.Error, match="locked|[Cc]annot change"):
            con.execute(statement)
    refused = ["LOAD httpfs", "INSTALL httpfs", "SELECT * FROM read_csv('https://example.com/x')"]
    if outside_roots:
        refused += ["SELECT * FROM read_csv('/etc/passwd')",
                    f"COPY (SELECT 1) TO '{tmp_path / 'x.csv'}'",
                    f"ATTACH '{tmp_path / 'attack.db'}'"]
    for statement in refused:
        with pytest.raises(duckdb.Error):
            con.execute(statement)


def test_python_variables_are_not_scanned(engine: TaskEngine) -> None:
    exchange_5 = pa.table({"a": [1]})  # noqa: F841 - a replacement scan would find this
    with pytest.raises(EngineError, match="exchange_5"):
        list(engine.run(compile_fragment(Exchange(stage=5, columns=("a",)), RESULT).sql))


def test_identifier_with_double_quote_is_refused_by_the_model() -> None:
    with pytest.raises(ValidationError, match="quote"):
        Column(name='a" FROM x; --')
    with pytest.raises(ValidationError, match="quote"):
        Exchange(stage=0, columns=('a"b',))
    with pytest.raises(ValidationError, match="quote"):
        NamedExpr(name='x"', expr=Lit(value=1))
    wire = {
        "stages": [{"id": 0, "tasks": 1, "output": {"kind": "result"},
                    "fragment": {"op": "exchange", "stage": 0, "columns": ['evil"']}}],
        "columns": ["ok"],
    }
    with pytest.raises(ValidationError, match="quote"):
        StagedPlan.model_validate(wire)


SQL_LOOKING = ["a; DROP TABLE x; --", "select", "x) AS y FROM z --", "it's", "a\\b", "ÜNICODE 名前", " sp ace "]


def test_sql_looking_identifiers_are_plain_names(engine: TaskEngine) -> None:
    t = pa.table({name: [i, i + 10] for i, name in enumerate(SQL_LOOKING)})
    first = SQL_LOOKING[0]
    fragment = Sort(
        input=Project(
            input=Filter(
                input=exchange(t),
                predicate=Call(fn="gt", args=(Column(name=first), Lit(value=5))),
            ),
            columns=tuple(NamedExpr(name=n[::-1], expr=Column(name=n)) for n in SQL_LOOKING),
        ),
        keys=(SortKey(expr=Column(name=first[::-1])),),
    )
    got = run_fragment(engine, fragment, {0: t})
    assert got.column_names == [n[::-1] for n in SQL_LOOKING]
    assert got.to_pylist() == [{n[::-1]: i + 10 for i, n in enumerate(SQL_LOOKING)}]


def test_names_equal_but_for_case_are_refused() -> None:
    from sparkwire.coordinator.worker.compile import CompileError

    with pytest.raises(CompileError, match="ignores case"):
        compile_fragment(Exchange(stage=0, columns=("a", "A")), RESULT)
    with pytest.raises(CompileError, match="ignores case"):
        compile_fragment(
            Project(input=Exchange(stage=0, columns=("a",)),
                    columns=(NamedExpr(name="x", expr=Column(name="a")), NamedExpr(name="X", expr=Lit(value=1)))),
            RESULT,
        )


identifiers = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters='"`\x7f'), min_size=1, max_size=40
)


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=identifiers, value=st.text(max_size=60))
def test_any_valid_identifier_and_string_round_trip(engine: TaskEngine, name: str, value: str) -> None:
    t = pa.table({name: [value]})
    fragment = Project(
        input=exchange(t, stage=3),
        columns=(NamedExpr(name=name, expr=Column(name=name)), NamedExpr(name="lit", expr=Lit(value=value))),
    ) if name.casefold() != "lit" else exchange(t, stage=3)
    got = run_fragment(engine, fragment, {3: t})
    assert got.column(name).to_pylist() == [value]
    if name.casefold() != "lit":
        assert got.column("lit").to_pylist() == [value]


def _interrupt_later(engine: TaskEngine, delay: float) -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(delay), engine.interrupt()))
    thread.start()
    return thread


def test_interrupt_stops_a_long_query_quickly(settings: EngineSettings) -> None:
    with engine_for(settings.model_copy(update={"threads": 2})) as eng:
        thread = _interrupt_later(eng, 0.3)
        start = time.perf_counter()
        with pytest.raises(EngineInterrupted):
            list(eng.run(LONG_QUERY))
        assert time.perf_counter() - start < 5
        thread.join()


def test_interrupt_while_streaming(engine: TaskEngine) -> None:
    stream = engine.run("SELECT a.range AS x FROM range(1000000000) a")
    assert next(stream).num_rows > 0
    thread = _interrupt_later(engine, 0.1)
    start = time.perf_counter()
    with pytest.raises(EngineInterrupted):
        for _ in stream:
            pass
    assert time.perf_counter() - start < 5
    thread.join()


def test_interrupt_before_run_fails_at_once(engine: TaskEngine) -> None:
    engine.interrupt()
    with pytest.raises(EngineInterrupted):
        engine.run(LONG_QUERY)


def test_close_is_idempotent_and_removes_spill_dir(settings: EngineSettings) -> None:
    assert settings.temp_directory is not None
    databases = Databases(settings, settings.temp_directory, ENGINE_MEMORY)
    eng = databases.task()
    spill = list(settings.temp_directory.iterdir())
    assert len(spill) == 1 and spill[0].name.startswith("sparkwire-duckdb-")
    databases.close()
    assert spill[0].exists()  # a running task keeps its database until it ends
    eng.close()
    eng.close()
    eng.interrupt()  # harmless after close
    databases.close()
    assert list(settings.temp_directory.iterdir()) == []
    with pytest.raises(EngineError, match="closed"):
        databases.task()


def test_empty_result_keeps_its_schema(engine: TaskEngine) -> None:
    t = pa.table({"a": pa.array([1, 2], pa.int16()), "b": ["x", "y"]})
    got = run_fragment(engine, Filter(input=exchange(t), predicate=Lit(value=False)), {0: t})
    assert got.num_rows == 0 and got.schema == t.schema


def test_batches_are_bounded_by_batch_rows(settings: EngineSettings) -> None:
    with engine_for(settings.model_copy(update={"batch_rows": 5000})) as eng:
        sizes = [b.num_rows for b in eng.run("SELECT * FROM range(123456)")]
    assert sum(sizes) == 123456 and max(sizes) <= 5000 * 2


def test_settings_validation() -> None:
    with pytest.raises(ValidationError):
        EngineSettings(threads=-1)
    with pytest.raises(ValueError, match="resolved"):  # 0, from the worker's cores, is resolved first
        Databases(EngineSettings(), Path("."), ENGINE_MEMORY)


def test_compiled_fragment_names_the_tables_it_reads() -> None:
    compiled = compile_fragment(Exchange(stage=7, columns=("a",)), RESULT)
    assert compiled.tables == (ExchangeTable(name="exchange_7", stage=7),)
    assert '"exchange_7"' in compiled.sql


@pytest.mark.slow
def test_spills_to_its_private_directory_under_lock_down(settings: EngineSettings) -> None:
    # DuckDB adds temp_directory to the allow-list itself; a sort larger than the memory
    # limit must still complete by spilling there.
    with engine_for(settings.model_copy(update={"threads": 2}), memory_limit=48 << 20) as eng:
        con = eng.connection
        assert con.execute("SELECT current_setting('temp_directory')").fetchall()[0][0].startswith(
            str(settings.temp_directory)
        )
        sql = "SELECT x, md5(x::VARCHAR) AS h FROM range(2000000) r(x) ORDER BY h"
        hashes = [h for b in eng.run(sql) for h in b.column("h").to_pylist()[:1]]
    assert len(hashes) > 1 and hashes == sorted(hashes)


def test_one_open_stream_at_a_time_and_close_releases_it(engine: TaskEngine) -> None:
    stream = engine.run("SELECT * FROM range(1000000)")
    next(stream)
    with pytest.raises(EngineError, match="open result"):
        engine.run("SELECT 42 AS x")
    stream.close()
    stream.close()
    assert [b.to_pylist() for b in engine.run("SELECT 42 AS x")] == [[{"x": 42}]]


def test_an_interrupt_landing_as_the_query_starts_still_stops_it(settings: EngineSettings) -> None:
    """DuckDB clears an interrupt when its query begins: interrupts sent while ``run`` is
    starting the query (the first milliseconds) must not be lost, or the task runs to its end
    (here seconds of one aggregate, which yields no row before it is done)."""
    query = "SELECT sum(a % 7) FROM range(1000000000) t(a)"
    delays = [i * 0.0002 for i in range(12)]
    with engine_for(settings) as eng:
        eng.run("SELECT 1").close()  # warm the cursor
    for delay in delays:
        with engine_for(settings) as eng:
            thread = _interrupt_later(eng, delay)
            start = time.perf_counter()
            with pytest.raises(EngineInterrupted):
                list(eng.run(query))
            assert time.perf_counter() - start < 0.5, delay
            thread.join()
