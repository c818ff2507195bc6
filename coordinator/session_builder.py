"""PySpark's ways to reach a session: ``Session.builder...getOrCreate()``, the active
session (``getActiveSession``, ``active``) and the session's tags.

- ``master("local[N]")`` (or ``local[*]``, ``local``) gives N in-process workers (the cores
  of this host for ``*``, one for ``local``), the nearest sparkwire has to Spark's local mode;
  any other master is refused: workers in Spark executors are ``Session(spark=...)``;
- ``config`` keys of ``spark.sql.`` are set on the session's ``conf`` as Spark applies
  them (``planner``'s honoured keys take effect, the static ones are fixed at start as in
  Spark, and so accepted here with no effect); other keys (``spark.app.name``,
  ``spark.executor.memory`` ...) configure a JVM there is not, and are kept without effect;
- the active session is the last one built or made and not yet stopped, process-wide:
  sparkwire's sessions do not follow threads as Spark's do;
- tags (``addTag`` ...) are per thread, as Spark's; a tag is a non-empty string without a
  comma (Spark's ``SPARK_JOB_TAGS_SEP``), refused with Spark's messages otherwise.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from sparkwire.coordinator.runtime_config import STATIC, RuntimeConfig
from sparkwire.transport.errors import ConfigError


class _Session(Protocol):
    conf: RuntimeConfig


#: the session class (``coordinator.session.Session``), which imports this module
S = TypeVar("S", bound=_Session)

_LOCAL = re.compile(r"local(?:\[(\*|[1-9][0-9]*)(?:,[0-9]+)?\])?")
_state = threading.Lock()
_active: list[Any] = []  # at most one: the active session


def activate(session: _Session) -> None:
    with _state:
        _active[:] = [session]


def deactivate(session: _Session) -> None:
    with _state:
        if _active and _active[0] is session:
            _active.clear()


def active_session() -> Any:
    """The active session, or None."""
    with _state:
        return _active[0] if _active else None


class Builder(Generic[S]):
    """``Session.builder``: options gathered, then ``getOrCreate()`` or ``create()`` of a
    session made by ``factory`` (the session class, given its number of workers)."""

    def __init__(self, factory: Callable[[int | None], S]) -> None:
        self._factory = factory
        self._options: dict[str, str] = {}

    def config(self, key: str | None = None, value: Any = None, conf: Any = None,
               map: dict[str, Any] | None = None) -> Builder[S]:  # noqa: A002 - PySpark's name
        pairs: dict[str, Any] = dict(map or {})
        if conf is not None:
            pairs.update(dict(conf.getAll()))
        if key is not None:
            pairs[key] = value
        for k, v in pairs.items():
            self._options[k] = str(v).lower() if isinstance(v, bool) else str(v)
        return self

    def master(self, master: str) -> Builder[S]:
        return self.config("spark.master", master)

    def appName(self, name: str) -> Builder[S]:  # noqa: N802 - PySpark's name
        return self.config("spark.app.name", name)

    def enableHiveSupport(self) -> Builder[S]:  # noqa: N802 - PySpark's name
        raise ConfigError("enableHiveSupport is not supported by sparkwire: there is no Hive metastore")

    def remote(self, url: str) -> Builder[S]:
        raise ConfigError("remote is not supported by sparkwire: there is no Spark Connect client")

    def getOrCreate(self) -> S:  # noqa: N802 - PySpark's name
        """The active session with this builder's ``spark.sql.`` options set on its conf,
        else a new one."""
        session: S | None = active_session()
        if session is None:
            return self.create()
        self._configure(session)
        return session

    def create(self) -> S:
        """A new session (which makes itself the active one)."""
        session = self._factory(_workers(self._options.get("spark.master")))
        self._configure(session)
        return session

    def _configure(self, session: S) -> None:
        for key, value in self._options.items():
            if key.startswith("spark.sql.") and key not in STATIC:
                session.conf.set(key, value)


def _workers(master: str | None) -> int | None:
    """In-process workers for a ``local`` master; None (the settings' count) without one."""
    if master is None:
        return None
    found = _LOCAL.fullmatch(master.strip())
    if found is None:
        raise ConfigError(f"master {master!r} is not supported by sparkwire: only local[N] "
                          "(in-process workers); for Spark executors use Session(spark=...)")
    count = found.group(1)
    if count is None:
        return 1
    return (os.cpu_count() or 1) if count == "*" else int(count)


class Tags:
    """A session's tags, one set per thread."""

    def __init__(self) -> None:
        self._local = threading.local()

    def _set(self) -> set[str]:
        tags: set[str] | None = getattr(self._local, "tags", None)
        if tags is None:
            tags = self._local.tags = set()
        return tags

    def add(self, tag: str) -> None:
        self._set().add(_checked(tag))

    def remove(self, tag: str) -> None:
        self._set().discard(_checked(tag))

    def get(self) -> set[str]:
        return set(self._set())

    def clear(self) -> None:
        self._set().clear()


def _checked(tag: str) -> str:
    if not isinstance(tag, str) or not tag:
        raise ConfigError("Spark job tag cannot be an empty string.")
    if "," in tag:
        raise ConfigError("Spark job tag cannot contain ','.")
    return tag
