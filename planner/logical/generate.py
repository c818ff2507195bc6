"""A generator in ``select`` (``F.explode`` and its family) as a ``Generate`` operator.

Spark's output names: ``col`` for an array's element, ``key`` and ``value`` for a map's
entry, ``pos`` (``int``, 0-based) first for the ``pos`` forms, the fields' names for
``inline``; ``alias(*names)`` renames
them, one name per output. One generator per ``select``, as in Spark. The generated
columns get internal names apart from the input's (``col#2`` beside a column ``col``);
the select's projection gives them their user names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import pyarrow as pa

from sparkwire.planner.logical.analyzer import Attribute, Scope, fresh
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr
from sparkwire.planner.logical.functions.generators import GeneratorSpec
from sparkwire.planner.logical.plan import Generate, Operator


def generate(
    plan: Operator, attrs: Sequence[Attribute], generator: GeneratorSpec,
) -> tuple[Generate, list[Attribute], list[tuple[str, Expr]]]:
    """The operator, the attributes it adds after ``attrs`` and the generated columns as
    ``(user name, column)`` select outputs; ``generator`` is the registry's ``Generator``
    (``planner.logical.functions.generators``) or a DataFrame's column wrapping one."""
    scope = Scope(attrs)
    collection = scope.resolve(generator.expr)
    kind_type = scope.type_of(collection)
    kind: Literal["array", "map", "structs"]
    if generator.function.startswith("inline"):
        element = kind_type.value_type if pa.types.is_list(kind_type) else None
        if element is None or not pa.types.is_struct(element):
            raise AnalysisError(f"{generator.function} takes an array of structs, got {kind_type}")
        kind, names, out_types = "structs", [f.name for f in element], [f.type for f in element]
    elif pa.types.is_map(kind_type):
        kind, names, out_types = "map", ["key", "value"], [kind_type.key_type, kind_type.item_type]
    elif pa.types.is_list(kind_type):
        kind, names, out_types = "array", ["col"], [kind_type.value_type]
    else:
        raise AnalysisError(f"{generator.function} takes an array or a map, got {kind_type}")
    if generator.position:
        names, out_types = ["pos", *names], [pa.int32(), *out_types]
    if generator.names is not None:
        if len(generator.names) != len(names):
            raise AnalysisError(
                f"{generator.function} of a {kind} makes {len(names)} column(s) "
                f"({', '.join(names)}); alias gave {len(generator.names)} name(s)"
            )
        names = list(generator.names)
    taken = {a.internal.casefold() for a in attrs}
    internals = []
    for name in names:
        internal = name if name.casefold() not in taken else fresh(name, taken)
        taken.add(internal.casefold())
        internals.append(internal)
    op = Generate(input=plan, expr=collection, kind=kind, position=generator.position,
                  outer=generator.outer, names=tuple(internals))
    added = [Attribute(n, i, t) for n, i, t in zip(names, internals, out_types, strict=True)]
    return op, added, [(a.name, a.column) for a in added]
