"""``session.conf``: PySpark's ``RuntimeConfig``, so a PySpark program's ``spark.conf.set``
and ``get`` run unchanged.

As Spark does, it accepts any key and keeps its value as a string, with four kinds of key:

- **honoured**: the Spark keys that are the name of a sparkwire setting
  (``spark.sql.session.timeZone`` is ``time_zone``, ``spark.sql.ansi.enabled`` ``ansi``,
  ``spark.sql.adaptive.enabled`` ``adaptive``, ``spark.sql.autoBroadcastJoinThreshold``
  ``broadcast_threshold``): a value is checked as Spark checks it (Spark's
  ``INVALID_CONF_VALUE`` otherwise) and applies to the queries planned after it;
- **static** (``spark.sql.warehouse.dir`` ...): fixed when Spark starts, refused at run time
  with Spark's ``CANNOT_MODIFY_STATIC_CONFIG``;
- **Spark core** (``spark.executor.memory`` ...: ``spark.`` but not ``spark.sql.``): refused
  with ``CANNOT_MODIFY_CONFIG``, as Spark 4 refuses them;
- **checked, kept**: ``spark.sql.shuffle.partitions`` (sparkwire sizes shuffles by bytes)
  and ``spark.sql.caseSensitive`` (``true`` is refused: names resolve case-insensitively
  only);
- **any other**: kept and given back, with no effect. ``get`` of one never set is Spark's
  ``SQL_CONF_NOT_FOUND`` unless a default is given, except the few whose Spark default
  programs read (``spark.sql.shuffle.partitions`` is ``"200"``; sparkwire sizes shuffles by
  bytes instead).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from sparkwire.coordinator.config import Settings
from sparkwire.planner.spark.timezones import check_time_zone
from sparkwire.transport.errors import ConfigError

#: Spark's static SQL keys (``StaticSQLConf``) a program is likely to try to set.
STATIC = frozenset({
    "spark.sql.warehouse.dir", "spark.sql.catalogImplementation", "spark.sql.globalTempDatabase",
    "spark.sql.extensions", "spark.sql.queryExecutionListeners", "spark.sql.cache.serializer",
    "spark.sql.streaming.streamingQueryListeners", "spark.sql.ui.retainedExecutions",
    "spark.sql.sources.schemaStringLengthThreshold", "spark.sql.event.truncate.length",
    "spark.sql.defaultUrlStreamHandlerFactory.enabled", "spark.sql.hive.thriftServer.singleSession",
})
#: Spark's defaults of keys sparkwire keeps without honouring, as ``conf.get`` gives them.
SPARK_DEFAULTS = {"spark.sql.shuffle.partitions": "200", "spark.sql.caseSensitive": "false",
                  "spark.sql.globalTempDatabase": "global_temp"}
_CHECKED = {"spark.sql.shuffle.partitions": "int", "spark.sql.caseSensitive": "boolean"}


def _boolean(value: Any) -> bool:
    text = str(value).strip().lower()
    if isinstance(value, bool) or text in ("true", "false"):
        return text == "true"
    raise ValueError(f"expected true or false, got {value!r}")


def _int(value: Any) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise ValueError(f"expected an integer, got {value!r}") from None


def _bytes(value: Any) -> int:
    """Spark's ``autoBroadcastJoinThreshold``: bytes (``10485760``, ``10485760b``, ``10MB``);
    -1 turns broadcasts off, which a threshold of 0 does here."""
    text = str(value).strip().lower()
    units = {"b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "g": 1 << 30, "gb": 1 << 30}
    for suffix in sorted(units, key=len, reverse=True):
        if text.endswith(suffix) and text[: -len(suffix)].strip().lstrip("-").isdigit():
            return max(0, int(text[: -len(suffix)]) * units[suffix])
    return max(0, _int(text))


@dataclass(frozen=True)
class _Honoured:
    """A Spark key that is one sparkwire setting: how a value is checked, how it reads."""

    setting: str
    check: Callable[[Any], Any]
    show: Callable[[Any], str]


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


#: Spark's key -> the sparkwire setting it is.
HONOURED = {
    "spark.sql.session.timeZone": _Honoured("time_zone", check_time_zone, _text),
    "spark.sql.ansi.enabled": _Honoured("ansi", _boolean, _text),
    "spark.sql.adaptive.enabled": _Honoured("adaptive", _boolean, _text),
    "spark.sql.autoBroadcastJoinThreshold": _Honoured("broadcast_threshold", _bytes, lambda v: f"{v}b"),
}
_MISSING = object()


class _Owner(Protocol):
    settings: Settings


class RuntimeConfig:
    """Reads and changes the owning session's settings through Spark's keys, and keeps the
    other keys a program sets."""

    def __init__(self, owner: _Owner) -> None:
        # the Session: its ``settings`` are replaced, never mutated, so a query being
        # planned sees one consistent set
        self._owner = owner
        self._kept: dict[str, str] = {}

    def set(self, key: str, value: Any) -> None:
        _check_modifiable(key)
        honoured = HONOURED.get(key)
        if honoured is None:
            if key in _CHECKED and _checked(key, value, _boolean if _CHECKED[key] == "boolean" else _int) is True:
                raise ConfigError("sparkwire resolves names case-insensitively only, as Spark does by default")
            self._kept[key] = _text(value)
            return
        checked = _checked(key, value, honoured.check)
        self._owner.settings = self._owner.settings.model_copy(update={honoured.setting: checked})
        self._kept[key] = _text(value)  # Spark gives back a value as it was set

    def get(self, key: str, default: Any = _MISSING) -> Any:
        """The value as Spark's ``conf.get`` gives it, a string (``"true"``, ``"UTC"``);
        ``default`` for a key never set, if given; else Spark's ``SQL_CONF_NOT_FOUND``."""
        if key in self._kept:
            return self._kept[key]
        if (honoured := HONOURED.get(key)) is not None:
            return honoured.show(getattr(self._owner.settings, honoured.setting))
        if default is not _MISSING:
            return default
        if key in SPARK_DEFAULTS:
            return SPARK_DEFAULTS[key]
        raise ConfigError(f"the Spark setting {key!r} is not set", condition="SQL_CONF_NOT_FOUND",
                          parameters={"sqlConf": f'"{key}"'})

    def getAll(self) -> dict[str, str]:  # noqa: N802 - PySpark's name (a property there)
        """Every key set and every honoured one, with their values."""
        return {**{key: self.get(key) for key in HONOURED}, **self._kept}

    def unset(self, key: str) -> None:
        """Back to the default, as Spark's ``unset``."""
        _check_modifiable(key)
        self._kept.pop(key, None)
        if (honoured := HONOURED.get(key)) is not None:
            default = Settings.model_fields[honoured.setting].default
            self._owner.settings = self._owner.settings.model_copy(update={honoured.setting: default})

    def isModifiable(self, key: str) -> bool:  # noqa: N802 - PySpark's name
        """Whether ``key`` is a setting a session may change: Spark's answer for the keys
        it knows, which for sparkwire are the honoured ones (a key Spark does not know is
        not modifiable there either)."""
        return key in HONOURED or (key in SPARK_DEFAULTS and key not in STATIC)


def _check_modifiable(key: str) -> None:
    if key in STATIC:
        raise ConfigError(f"{key!r} is fixed when Spark starts and cannot be changed at run time",
                          condition="CANNOT_MODIFY_STATIC_CONFIG", parameters={"key": f'"{key}"'})
    if key.startswith("spark.") and not key.startswith("spark.sql."):
        raise ConfigError(f"{key!r} is a Spark core setting, which a session cannot change",
                          condition="CANNOT_MODIFY_CONFIG",
                          parameters={"key": f'"{key}"', "docroot": "https://spark.apache.org/docs/latest"})


#: The type Spark names in ``INVALID_CONF_VALUE.TYPE_MISMATCH``, per check.
_TYPES: dict[Callable[[Any], Any], str] = {_boolean: "boolean", _int: "int", _bytes: "bytes"}


def _checked(key: str, value: Any, check: Callable[[Any], Any]) -> Any:
    """``value`` as ``check`` reads it, else Spark's ``INVALID_CONF_VALUE``."""
    try:
        return check(value)
    except ValueError as exc:
        message = f"cannot set {key} to {value!r}: {exc}"
        if check is check_time_zone:
            raise ConfigError(message, condition="INVALID_CONF_VALUE.TIME_ZONE",
                              parameters={"confValue": _text(value), "confName": key}) from None
        raise ConfigError(message, condition="INVALID_CONF_VALUE.TYPE_MISMATCH", parameters={
            "confName": key, "confValue": _text(value), "confType": _TYPES[check]}) from None
