"""Generators of the registry: ``explode``, ``explode_outer``, ``posexplode`` and
``posexplode_outer``, each one row per element of an array or entry of a map; ``inline``
and ``inline_outer``, one row per struct of an array of structs, a column per field (named
as the fields; a NULL struct a row of NULLs, as Spark's).

A generator is no expression: it may only stand as an item of a select, which plans it as
a ``Generate`` operator (``planner.logical.generate``). Its columns are Spark's (``col``;
``key``, ``value``; ``pos`` first for the ``pos`` forms) unless ``named``; ``outer`` keeps
a NULL or empty collection as one row of NULLs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from sparkwire.planner.logical.expressions import Expr
from sparkwire.planner.logical.functions.base import alias


class GeneratorSpec(Protocol):
    """What planning a generator reads: a ``Generator``, or the DataFrame API's column
    wrapping one."""

    @property
    def expr(self) -> Expr: ...

    @property
    def position(self) -> bool: ...

    @property
    def outer(self) -> bool: ...

    @property
    def names(self) -> tuple[str, ...] | None: ...

    @property
    def function(self) -> str: ...


@dataclass(frozen=True)
class Generator:
    """A generator of the collection ``expr``: with the element's position (``position``),
    keeping empty collections (``outer``), its columns under ``names`` (None: Spark's)."""

    expr: Expr
    position: bool
    outer: bool
    names: tuple[str, ...] | None = None
    #: ``inline``: the collection is an array of structs, a column per field
    inline: bool = False

    @property
    def function(self) -> str:
        if self.inline:
            return "inline_outer" if self.outer else "inline"
        return _name(self.position, self.outer)

    def named(self, *names: str) -> Generator:
        """This generator with its columns named, one name per column."""
        return replace(self, names=tuple(alias(name) for name in names))


def _generator(position: bool, outer: bool) -> Callable[[Expr], Generator]:
    def build(collection: Expr) -> Generator:
        return Generator(collection, position=position, outer=outer)

    return build


def _name(position: bool, outer: bool) -> str:
    return f"{'pos' if position else ''}explode{'_outer' if outer else ''}"


def _inline(outer: bool) -> Callable[[Expr], Generator]:
    def build(collection: Expr) -> Generator:
        return Generator(collection, position=False, outer=outer, inline=True)

    return build


GENERATORS = {
    **{_name(p, o): _generator(p, o) for p in (False, True) for o in (False, True)},
    "inline": _inline(False),
    "inline_outer": _inline(True),
}
