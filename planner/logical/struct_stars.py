"""The fields of a ``struct(...)`` that only the scope can settle, settled by the resolver:

- ``struct("*")`` is a struct of every column in scope (``struct("t.*")``: of every column
  of the frame aliased ``t``), each field named after its column, as PySpark builds it;
- ``struct(s["f"])`` names its field ``f`` when ``s`` is a struct (Spark names a field
  after the struct field it extracts), ``col<n>`` when ``s`` is a map or an array.

The API cannot do either when it builds the call (``F.struct`` knows no frame): it names
such a field ``col<n>`` and leaves the star as a column ``*``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Call, Column, Expr, Lit

#: The (name, column) pairs a star of that qualifier (``""``: none) stands for.
StarColumns = Callable[[str], Sequence[tuple[str, Expr]]]


def settled_struct(node: Expr, star_columns: StarColumns, resolve: Callable[[Expr], Expr],
                   is_struct: Callable[[Expr], bool]) -> Expr | None:
    """``node`` (a ``named_struct`` with a star or an extracted field) with each star's
    columns in its place (as ``star_columns`` gives them) and each ``s["f"]`` of a struct
    ``s`` named ``f``, its values resolved by ``resolve``; None when ``node`` needs neither."""
    if not (isinstance(node, Call) and node.fn == "named_struct"
            and any(_star(v) is not None or _extracted(n, v, i) is not None
                    for i, (n, v) in enumerate(zip(node.args[::2], node.args[1::2]), start=1))):
        return None
    args: list[Expr] = []
    for position, (name, value) in enumerate(zip(node.args[::2], node.args[1::2], strict=True), start=1):
        qualifier = _star(value)
        if qualifier is not None:
            chosen = star_columns(qualifier)
            if not chosen:
                raise AnalysisError(f"cannot resolve {qualifier}.* in struct(): no such DataFrame alias")
            for field_name, column in chosen:
                args += [Lit(value=field_name), column]
            continue
        field = _extracted(name, value, position)
        if field is not None and isinstance(value, Call) and is_struct(value.args[0]):
            name = Lit(value=field)
        args += [name, resolve(value)]
    return Call(fn="named_struct", args=tuple(args))


def _star(value: Expr) -> str | None:
    """The qualifier of a star (``""`` for ``*``); None: not a star."""
    if not isinstance(value, Column):
        return None
    if value.name == "*":
        return ""
    return value.name[:-2] if value.name.endswith(".*") else None


def _extracted(name: Expr, value: Expr, position: int) -> str | None:
    """The key of an ``s["f"]`` field the API named ``col<position>``; else None."""
    if (isinstance(value, Call) and value.fn == "get_item" and isinstance(value.args[1], Lit)
            and isinstance(value.args[1].value, str) and name == Lit(value=f"col{position}")):
        return value.args[1].value
    return None
