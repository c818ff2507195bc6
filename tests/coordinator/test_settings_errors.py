"""A bad setting names itself and where it came from (file, env var, keyword); the ANSI
setting reaches the plan; a SparkSession name sparkwire lacks is not supported."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from sparkwire.coordinator import Session, load_settings
from sparkwire.transport.errors import ConfigError


@pytest.fixture(autouse=True)
def _no_sparkwire_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in [n for n in os.environ if n.startswith("SPARKWIRE_")]:
        monkeypatch.delenv(name)


def test_each_source_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "sparkwire.toml"
    config.write_text('workers = 0\nbogus = 1\n[worker]\ntask_slots = "x"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(config)
    message = str(caught.value)
    assert f"workers: Input should be greater than or equal to 1 (from config file {config})" in message
    assert "worker.task_slots: Input should be a valid integer" in message
    assert f"bogus: unknown setting (from config file {config})" in message
    assert "validation error" not in message and "type=" not in message

    monkeypatch.setenv("SPARKWIRE_ANSI", "maybe")
    with pytest.raises(ConfigError, match=r"ansi: .* \(from env var SPARKWIRE_ANSI\)"):
        load_settings()
    monkeypatch.setenv("SPARKWIRE_ANSI", "false")
    assert load_settings().ansi is False
    with pytest.raises(ConfigError, match=r"workers: .* \(from keyword argument workers=\)"):
        load_settings(workers=-1)
    with pytest.raises(ConfigError, match=r"workers: .* \(from flag --workers\)"):
        load_settings(workers=-1, overrides_from="flag")


def test_a_bad_time_zone_names_its_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "sparkwire.toml"
    config.write_text('time_zone = "Europe/Atlantis"\n')
    with pytest.raises(ConfigError, match=r"time_zone: unknown time zone 'Europe/Atlantis'.*"
                                          rf"\(from config file {config}\)"):
        load_settings(config)
    monkeypatch.setenv("SPARKWIRE_TIME_ZONE", "PST")
    with pytest.raises(ConfigError, match=r"time_zone: unknown time zone 'PST'.*IANA.*"
                                          r"\(from env var SPARKWIRE_TIME_ZONE\)"):
        load_settings()
    monkeypatch.setenv("SPARKWIRE_TIME_ZONE", "America/Los_Angeles")
    assert load_settings().time_zone == "America/Los_Angeles"
    with pytest.raises(ConfigError, match=r"time_zone: time zone offset '\+18:30' is not an "
                                          r"offset from -18:00 to \+18:00 \(from keyword argument"):
        load_settings(time_zone="+18:30")
    with pytest.raises(ConfigError, match=r"time_zone: .* \(from flag --time-zone\)"):
        load_settings(time_zone="../etc/localtime", overrides_from="flag")
    assert load_settings(time_zone="-03:30").time_zone == "-03:30"


def test_the_time_zone_travels_in_the_plan_and_defaults_to_utc() -> None:
    table = pa.table({"a": [1]})
    with Session(workers=1) as utc, Session(workers=1, time_zone="Asia/Kolkata") as kolkata:
        assert utc.createDataFrame(table).staged_plan().time_zone == "UTC"
        assert kolkata.createDataFrame(table).staged_plan().time_zone == "Asia/Kolkata"


def test_ansi_travels_in_the_plan_and_defaults_on() -> None:
    table = pa.table({"a": [1]})
    with Session(workers=1) as on, Session(workers=1, ansi=False) as off:
        assert on.createDataFrame(table).staged_plan().ansi is True
        assert off.createDataFrame(table).staged_plan().ansi is False
        with pytest.raises(AttributeError, match=r"`readStream` is not supported by sparkwire "
                                                 r"\(PySpark's SparkSession\.readStream\)"):
            on.readStream
