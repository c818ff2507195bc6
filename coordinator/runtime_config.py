"""``session.conf``: PySpark's ``RuntimeConfig`` for the settings a query reads when it is
planned, so a PySpark program's ``spark.conf.set("spark.sql.session.timeZone", "UTC")``
runs unchanged.

Two of Spark's keys are known, each the name of one sparkwire setting:
``spark.sql.session.timeZone`` (``time_zone``) and ``spark.sql.ansi.enabled`` (``ansi``).
A value is checked as the setting is from any other source, and applies to the queries
run after it (and to ``createDataFrame`` calls after it, which read naive timestamps in
the zone); a key sparkwire does not know is refused rather than silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from sparkwire.coordinator.config import Settings
from sparkwire.planner.spark.timezones import check_time_zone
from sparkwire.transport.errors import ConfigError

#: Spark's key -> sparkwire's setting.
KEYS = {"spark.sql.session.timeZone": "time_zone", "spark.sql.ansi.enabled": "ansi"}
_MISSING = object()


def _boolean(value: Any) -> bool:
    text = str(value).strip().lower()
    if isinstance(value, bool) or text in ("true", "false"):
        return text == "true"
    raise ValueError(f"expected true or false, got {value!r}")


#: How each setting's value is checked, as ``config.Settings`` checks it.
_CHECKS: dict[str, Callable[[Any], Any]] = {"time_zone": check_time_zone, "ansi": _boolean}


class _Owner(Protocol):
    settings: Settings


class RuntimeConfig:
    """Reads and changes the owning session's settings through Spark's keys."""

    def __init__(self, owner: _Owner) -> None:
        # the Session: its ``settings`` are replaced, never mutated, so a query being
        # planned sees one consistent set
        self._owner = owner

    def set(self, key: str, value: Any) -> None:
        setting = _setting(key)
        try:
            checked = _CHECKS[setting](value)
        except ValueError as exc:
            raise ConfigError(f"cannot set {key} to {value!r}: {exc}") from None
        self._owner.settings = self._owner.settings.model_copy(update={setting: checked})

    def get(self, key: str, default: Any = _MISSING) -> Any:
        """The value as Spark's ``conf.get`` gives it, a string (``"true"``, ``"UTC"``); for
        a key sparkwire does not know, ``default`` if one is given."""
        if key not in KEYS and default is not _MISSING:
            return default
        value = getattr(self._owner.settings, _setting(key))
        return str(value).lower() if isinstance(value, bool) else str(value)

    def unset(self, key: str) -> None:
        """Back to the default, as Spark's ``unset``."""
        setting = _setting(key)
        default = Settings.model_fields[setting].default
        self._owner.settings = self._owner.settings.model_copy(update={setting: default})

    def isModifiable(self, key: str) -> bool:  # noqa: N802 - PySpark's name
        return key in KEYS


def _setting(key: str) -> str:
    if key not in KEYS:
        raise ConfigError(
            f"sparkwire does not know the Spark setting {key!r}; known: {', '.join(sorted(KEYS))}"
        )
    return KEYS[key]
