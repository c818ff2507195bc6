"""The UI's history on disk (``ui.history_dir``: ``coordinator.ui.history``, ``history_files``):
a driver's finished queries shown again by the next one, within the bounds, from owner-only
files; a hostile or corrupt file refused or skipped, never a crash."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import pytest

from sparkwire import Session
from sparkwire import functions as F
from sparkwire.coordinator.config import UiSettings, load_settings
from sparkwire.coordinator.ui.history import History
from sparkwire.coordinator.ui.history_files import CURRENT, PREVIOUS
from sparkwire.coordinator.ui.recorder import Recorder
from sparkwire.transport.errors import ConfigError, QueryError
from tests.ui.test_recorder import held, run_query


def _driver(settings: UiSettings) -> tuple[Recorder, History]:
    recorder = Recorder(settings)
    return recorder, History(settings, recorder)


def test_a_new_session_shows_the_queries_of_the_one_before(tmp_path: Path) -> None:
    history = tmp_path / "history"
    settings = load_settings(workers=1, ui={"port": 0, "history_dir": str(history)})
    with Session(settings=settings) as first:
        first.range(0, 10).filter(F.col("id") > 4).toArrow()
        first.range(0, 3).toArrow()
        assert first.ui is not None
        before = first.ui.recorder.queries()
    assert stat.S_IMODE(history.stat().st_mode) == 0o700
    assert stat.S_IMODE((history / CURRENT).stat().st_mode) == 0o600
    with Session(settings=settings) as second:
        assert second.ui is not None
        shown = second.ui.recorder.queries()
        assert [q["id"] for q in shown] == [q["id"] for q in before]
        assert shown == before
        old = second.ui.recorder.query(before[0]["id"])
        assert old is not None and old["state"] == "finished" and old["task_runs"]
        assert second.ui.recorder.counts().totals["queries_loaded"] == len(before)


def test_the_files_stay_within_the_count_and_byte_bounds(tmp_path: Path) -> None:
    by_count = UiSettings(history_dir=tmp_path / "count", history_queries=10)
    recorder, history = _driver(by_count)
    for i in range(45):
        run_query(recorder, f"q{i}")
    history.close()
    lines = sum(len((by_count.history_dir / name).read_bytes().splitlines())  # type: ignore[operator]
                for name in (CURRENT, PREVIOUS))
    assert lines <= 10
    again, history = _driver(by_count)
    history.close()
    assert [q["id"] for q in again.queries()] == [f"q{i}" for i in range(44, 34, -1)]

    by_bytes = UiSettings(history_dir=tmp_path / "bytes", history_bytes=1 << 16)
    recorder, history = _driver(by_bytes)
    for i in range(300):
        run_query(recorder, f"q{i}", QueryError("x" * 1500))
    history.close()
    on_disk = [(by_bytes.history_dir / name).stat().st_size for name in (CURRENT, PREVIOUS)]  # type: ignore[operator]
    assert sum(on_disk) <= 1 << 16
    again, history = _driver(by_bytes)
    history.close()
    kept = again.queries()
    assert 0 < len(kept) < 300 and kept[0]["id"] == "q299"
    assert again.history_bytes <= 1 << 16
    assert held(again) <= (1 << 16) + 200 * 4096  # the bound, plus the feed's fixed size


def test_compacted_queries_show_as_they_did(tmp_path: Path) -> None:
    recorder = Recorder(UiSettings())
    held_by = {}
    recorder.finished = lambda record: held_by.setdefault(record.id, record)
    run_query(recorder, "q")
    as_record = recorder.query("q")
    before = recorder.history_bytes
    line = recorder.compact(held_by["q"])
    assert json.loads(line) == as_record == recorder.query("q")
    assert recorder.queries()[0] == {k: v for k, v in as_record.items() if k in recorder.queries()[0]}
    assert 0 < recorder.history_bytes < before  # the JSON is smaller than the estimate


def test_corrupt_lines_are_skipped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings = UiSettings(history_dir=tmp_path)
    recorder, history = _driver(settings)
    run_query(recorder, "good")
    history.close()
    good = (tmp_path / CURRENT).read_bytes()
    view = json.loads(good)
    hostile = [b"not json", b'{"id": 1}', json.dumps({**view, "stages": "x"}).encode(),
               json.dumps({**view, "extra": 1}).encode(), b"[" * 100_000, b"\xff\xfe"]
    (tmp_path / CURRENT).write_bytes(b"\n".join([*hostile, good]))
    with caplog.at_level(logging.WARNING, logger="sparkwire.coordinator.ui.history_files"):
        again, history = _driver(settings)
    history.close()
    assert [q["id"] for q in again.queries()] == ["good"]
    assert f"skipped {len(hostile)} unreadable line(s)" in caplog.text


@pytest.mark.parametrize("spoil", ["open file", "open dir", "link", "not a dir"])
def test_files_others_could_touch_are_refused(tmp_path: Path, spoil: str) -> None:
    where = tmp_path / "history"
    where.mkdir(mode=0o700)
    if spoil == "open file":
        (where / CURRENT).write_bytes(b"")
        os.chmod(where / CURRENT, 0o644)
    elif spoil == "open dir":
        os.chmod(where, 0o755)
    elif spoil == "link":
        (tmp_path / "elsewhere").write_bytes(b"")
        (where / CURRENT).symlink_to(tmp_path / "elsewhere")
    else:
        where.rmdir()
        where.write_bytes(b"")
    with pytest.raises(ConfigError, match="history"):
        _driver(UiSettings(history_dir=where))
