"""Package attributes imported on first use (PEP 562), so that importing one module of a
package does not import everything its ``__init__`` re-exports.

A worker process imports ``sparkwire.coordinator.worker.service``, which runs
``sparkwire/__init__.py`` and ``sparkwire/coordinator/__init__.py`` first; when those
re-exported the whole user surface, every worker loaded the DataFrame API, the SQL front end
and the session it never uses (11 MB of its 178 MB, ``benchmarks/fixed_costs.py``). With
``lazy_exports`` the names stay where users find them (``from sparkwire import Session``)
and cost nothing until used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping


def lazy_exports(
    namespace: MutableMapping[str, object], exports: Mapping[str, str],
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the module whose ``globals()`` is ``namespace``.

    ``exports`` maps each name to ``"module:attribute"``, or to ``"module"`` for a module
    exported whole. A name is imported the first time it is read, then kept in
    ``namespace``, where later reads find it without a call.
    """

    def __getattr__(name: str) -> object:
        target = exports.get(name)
        if target is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        module, _, attribute = target.partition(":")
        value: object = importlib.import_module(module)
        if attribute:
            value = getattr(value, attribute)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *exports})

    return __getattr__, __dir__
