"""The ``sparkwire`` command run for real, as a subprocess: ``run`` and ``explain`` of a
Python file, a Python module and a .sql file; errors and plan text printed verbatim (rich
markup would eat every ``[...]``); flags that name themselves when wrong; and the pytest
fixture honouring ``SPARKWIRE_*`` env vars."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator.cli import main

pytestmark = pytest.mark.slow

QUERY = '''
import pyarrow as pa
from sparkwire import functions as F


def query(session):
    df = session.createDataFrame(pa.table({"k": ["a", "b", "a", None], "v": [1, 2, 3, 4]}))
    return df.groupBy("k").agg(F.sum("v").alias("total"), (F.sum("v") / {divisor}).alias("q"))
'''


def sparkwire(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "COLUMNS": "200", **(env or {})}
    environment = {k: v for k, v in environment.items() if not k.startswith("SPARKWIRE_")} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "sparkwire.coordinator.cli", *args], cwd=cwd, env=environment,
        capture_output=True, text=True, timeout=120,
    )


@pytest.fixture
def queries(tmp_path: Path) -> Path:
    (tmp_path / "by_file.py").write_text(QUERY.replace("{divisor}", "2"))
    package = tmp_path / "myqueries"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "zero.py").write_text(QUERY.replace("{divisor}", "0"))
    data = tmp_path / "data"
    data.mkdir()
    pq.write_table(pa.table({"id": [1, 2, 3], "name": ["x", "[bold]y[/bold]", None]}),
                   data / "items.parquet")
    (tmp_path / "count.sql").write_text("SELECT name, count(*) AS n FROM items GROUP BY name")
    return tmp_path


def test_run_a_python_file_a_module_and_a_sql_file(
    queries: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    done = sparkwire("--workers", "1", "run", "by_file.py", cwd=queries)
    assert done.returncode == 0, done.stderr
    assert "by_file.py result" in done.stdout and "total" in done.stdout
    assert "3 rows" in done.stdout
    # a module: Spark's ANSI mode fails the division by zero, naming the error class verbatim
    failed = sparkwire("--workers", "1", "run", "myqueries.zero", cwd=queries,
                       env={"PYTHONPATH": str(queries)})
    assert failed.returncode == 1
    assert "[DIVIDE_BY_ZERO] Division by zero" in failed.stdout

    # the rest in process, for speed
    monkeypatch.chdir(queries)
    monkeypatch.syspath_prepend(str(queries))
    assert main(["--workers", "1", "--no-ansi", "run", "myqueries.zero"]) == 0
    assert main(["--workers", "1", "run", "count.sql", "--data", "data"]) == 0
    assert "[bold]y[/bold]" in capsys.readouterr().out, "values are printed verbatim, not as markup"
    # the live UI: its URL printed, and without a terminal the run ends at once
    assert main(["--workers", "1", "run", "by_file.py", "--ui"]) == 0
    assert "live UI: http://127.0.0.1:" in capsys.readouterr().out


def test_explain_prints_the_plan_verbatim(queries: Path) -> None:
    done = sparkwire("--workers", "1", "explain", "by_file.py", cwd=queries)
    assert done.returncode == 0, done.stderr
    assert "result columns [k, total, q]" in done.stdout
    assert "Aggregate keys=[k]" in done.stdout


def test_mistakes_name_what_was_wrong(queries: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """In process (the same ``main`` the command runs), for speed."""
    monkeypatch.chdir(queries)
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["--workers", "0", "run", "by_file.py"]) == 1
    assert "workers: Input should be greater than or equal to 1 (from flag --workers)" in \
        capsys.readouterr().out
    monkeypatch.setenv("SPARKWIRE_ANSI", "maybe")
    assert main(["run", "by_file.py"]) == 1
    assert "(from env var SPARKWIRE_ANSI)" in capsys.readouterr().out
    monkeypatch.delenv("SPARKWIRE_ANSI")
    assert main(["run", "no_such_query"]) == 2
    assert "neither a .sql file, a Python file or module" in capsys.readouterr().out
    (queries / "no_function.py").write_text("x = 1\n")
    assert main(["run", "no_function.py"]) == 2
    assert "defines no function query(session)" in capsys.readouterr().out


def test_help_is_plain_and_current(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    for word in ("demo", "run", "explain", "worker", "--ansi", "query(session)", "SPARKWIRE_"):
        assert word in text
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "Python file (.py) or module" in " ".join(capsys.readouterr().out.split())


def test_pytest_fixture_honours_sparkwire_env_vars(tmp_path: Path) -> None:
    (tmp_path / "test_user.py").write_text(textwrap.dedent('''
        def test_settings(sparkwire_session):
            assert sparkwire_session.settings.ansi is False
            assert sparkwire_session.workers == 3

        def test_the_fixture_is_documented(sparkwire_session, request):
            from sparkwire.coordinator import pytest_plugin
            assert "SPARKWIRE_" in pytest_plugin.sparkwire_session.__doc__
    '''))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARKWIRE_")}
    env |= {"SPARKWIRE_ANSI": "false", "SPARKWIRE_WORKERS": "3"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("command", [["connect", "--ui"], ["ui"]])
def test_connect_serves_the_live_ui_of_its_standing_driver(
        command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``sparkwire connect --ui`` (or ``sparkwire ui``): the standing driver's UI answers
    while Spark Connect serves; Ctrl-C (SIGINT, sent once both answer) ends both. In process,
    for speed."""
    port, connect_port = free_port(), free_port()
    monkeypatch.setenv("SPARKWIRE_UI__PORT", str(port))
    answered: list[object] = []

    def interrupt_once_served() -> None:
        deadline = time.monotonic() + 60
        while len(answered) < 2 and time.monotonic() < deadline:
            try:
                if not answered:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/queries", timeout=5) as r:
                        answered.append(json.loads(r.read()))
                socket.create_connection(("127.0.0.1", connect_port), timeout=5).close()
                answered.append("connect")
            except OSError:
                time.sleep(0.1)
        os.kill(os.getpid(), signal.SIGINT)

    stopper = threading.Thread(target=interrupt_once_served)
    stopper.start()
    try:
        assert main(["--workers", "1", *command, "--port", str(connect_port)]) == 0
    finally:
        stopper.join(65)
    assert answered == [[], "connect"]
    assert f"live UI: http://127.0.0.1:{port}/" in capsys.readouterr().out


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
