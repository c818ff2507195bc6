"""Transports found by name.

Built-in transports are a table of name → ``module:Class`` plus the extra to install when its
optional dependency is missing; they are imported on first use and cached. Third parties add
transports through the ``sparkwire.transports`` entry-point group (value ``module:Class``) or
``register_transport``. Nothing here imports a backend until it is asked for.
"""

from __future__ import annotations

import difflib
import importlib
import threading
from collections.abc import Mapping
from importlib.metadata import entry_points
from types import MappingProxyType
from typing import Any

from sparkwire.transport.base import WorkerTransport
from sparkwire.transport.errors import ConfigError, UnknownTransport
from sparkwire.transport.security import Security

ENTRY_POINT_GROUP = "sparkwire.transports"

# name -> (import target, extra that provides its dependencies or "")
_BUILTIN: dict[str, tuple[str, str]] = {
    "memory": ("sparkwire.transport.memory:MemoryTransport", ""),
    "zmq": ("sparkwire.transport.zmq:ZmqTransport", "zmq"),
    "shm": ("sparkwire.transport.shm:ShmTransport", "zmq"),
    "flight": ("sparkwire.transport.flight:FlightTransport", "flight"),
    "hybrid": ("sparkwire.transport.hybrid:HybridTransport", "zmq"),
}

_targets: dict[str, tuple[str | type[WorkerTransport], str]] = dict(_BUILTIN)
_loaded: dict[str, type[WorkerTransport]] = {}
_lock = threading.Lock()
_entry_points_read = False


def _read_entry_points() -> None:
    global _entry_points_read
    if _entry_points_read:
        return
    _entry_points_read = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        _targets.setdefault(ep.name, (ep.value, ""))


def available_transports() -> Mapping[str, str]:
    """Read-only view of every known transport name and where it is implemented."""
    with _lock:
        _read_entry_points()
        return MappingProxyType(
            {name: target if isinstance(target, str) else f"{target.__module__}:{target.__name__}"
             for name, (target, _) in _targets.items()}
        )


def register_transport(
    name: str, target: str | type[WorkerTransport], *, clobber: bool = False
) -> None:
    """Add a transport under ``name``; refuses to replace an existing one unless ``clobber``."""
    with _lock:
        _read_entry_points()
        if name in _targets and not clobber:
            raise ConfigError(f"transport {name!r} is already registered (pass clobber=True)")
        _targets[name] = (target, "")
        _loaded.pop(name, None)


def transport_class(name: str) -> type[WorkerTransport]:
    """The class registered as ``name``, imported now if needed."""
    with _lock:
        _read_entry_points()
        if name in _loaded:
            return _loaded[name]
        if name not in _targets:
            close = difflib.get_close_matches(name, _targets, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise UnknownTransport(
                f"unknown transport {name!r}; known: {', '.join(sorted(_targets))}{hint}"
            )
        target, extra = _targets[name]
        cls = target if isinstance(target, type) else _import(name, target, extra)
        if not (isinstance(cls, type) and issubclass(cls, WorkerTransport)):
            raise ConfigError(f"transport {name!r} ({target}) is not a WorkerTransport")
        _loaded[name] = cls
        return cls


def create_transport(
    name: str,
    options: Mapping[str, Any] | None = None,
    security: Security | None = None,
    window: int | None = None,
) -> WorkerTransport:
    """A new transport instance; ``options`` are the transport's own keyword arguments.

    ``security`` goes to transports that authenticate (``Capabilities.authenticates``); one
    that crosses processes without authenticating runs only with security off. ``window``
    (bytes per stream, from a worker's memory plan) sets ``Capabilities.window_option``
    unless ``options`` set it already.
    """
    cls = transport_class(name)
    kwargs = dict(options or {})
    if window is not None and cls.capabilities.window_option is not None:
        kwargs.setdefault(cls.capabilities.window_option, window)
    if cls.capabilities.authenticates:
        if security is not None:
            kwargs["security"] = security
    elif cls.capabilities.crosses_processes and (security or Security()).enabled:
        raise ConfigError(
            f"transport {name!r} cannot authenticate its callers; run it with "
            "security.enabled=false, on a trusted network only"
        )
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ConfigError(f"bad options for transport {name!r}: {exc}") from exc


def _import(name: str, target: str, extra: str) -> Any:
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        hint = f" (pip install 'sparkwire[{extra}]')" if extra else ""
        raise ConfigError(f"transport {name!r} needs a missing dependency{hint}: {exc}") from exc
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ConfigError(f"transport {name!r}: {module_name} has no {attr!r}") from None
