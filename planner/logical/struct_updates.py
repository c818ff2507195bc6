"""``Column.withField`` and ``Column.dropFields``: a struct with a field set or dropped,
Spark's ``UpdateFields``.

The API builds ``update_fields(struct, op, name, value, ...)``, one ``("with", name,
value)`` or ``("drop", name, NULL)`` triple per change, so the column is named as Spark
names it (``update_fields(s, WithField(1), dropfield())``) and typed before anything runs;
once the struct's type is known, the analyzer (``typed_calls``) writes it out as what the
worker already computes: ``CASE WHEN s IS NULL THEN NULL ELSE named_struct(...) END``, each
kept field read with ``get_field``. Spark's rules:

- a NULL struct stays NULL;
- names match in any case (Spark's default resolver); ``withField`` sets every field of the
  name (under the name given), or appends one; ``dropFields`` drops every field of the name,
  a name the struct lacks changes nothing, and dropping them all is an error;
- changes chained on one column are one ``update_fields``, applied in order;
- a dotted path (``"a.b"``) changes the struct in field ``a``: ``update_fields(s,
  WithField(update_fields(s.a, ...)))``, so a NULL ``a`` stays NULL.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Call, Case, Expr, Lit

_WITH, _DROP = "with", "drop"


def with_field(struct: Expr, path: str, value: Expr) -> Expr:
    """``struct`` with the field at ``path`` (dotted for a nested struct) set to ``value``."""
    head, _, rest = _split(path)
    if rest:
        value = with_field(_field(struct, head), rest, value)
    return _chained(struct, [Lit(value=_WITH), Lit(value=head), value])


def drop_fields(struct: Expr, *paths: str) -> Expr:
    """``struct`` without the fields at ``paths``; each nested path changes its struct once."""
    if not paths:
        raise AnalysisError("dropFields takes at least one field name")
    ops: list[Expr] = []
    for path in paths:
        head, _, rest = _split(path)
        if rest:
            ops += [Lit(value=_WITH), Lit(value=head), drop_fields(_field(struct, head), rest)]
        else:
            ops += [Lit(value=_DROP), Lit(value=head), Lit(value=None)]
    return _chained(struct, ops)


def _chained(struct: Expr, ops: list[Expr]) -> Call:
    """The changes ``ops`` after those ``struct`` already makes: Spark keeps one
    ``UpdateFields`` for ``s.withField(...).dropFields(...)``, and names it so."""
    if isinstance(struct, Call) and struct.fn == "update_fields":
        return Call(fn="update_fields", args=(*struct.args, *ops))
    return Call(fn="update_fields", args=(struct, *ops))


def updated_type(struct: pa.DataType, call: Call, values: Sequence[pa.DataType]) -> pa.StructType:
    """The struct type ``call`` gives, ``values`` being its arguments' types."""
    fields = _fields(struct)
    for (op, name, _), kind in zip(_ops(call), values[3::3], strict=True):
        fields = _apply(fields, op, name, kind)
    if not fields:
        raise AnalysisError("dropFields cannot drop all fields in struct")
    return pa.struct(fields)


def expanded(call: Call, struct: pa.DataType) -> Expr:
    """``call`` as a NULL check and a ``named_struct`` of the kept and set fields."""
    source = call.args[0]
    built: list[tuple[str, Expr]] = [(f.name, _field(source, f.name)) for f in _fields(struct)]
    for op, name, value in _ops(call):
        kept = [(n, e) for n, e in built if n.casefold() != name.casefold()]
        if op == _WITH:
            matched = len(kept) < len(built)
            kept = [(n, value) if n.casefold() == name.casefold() else (n, e) for n, e in built] \
                if matched else [*built, (name, value)]
            kept = [(name if n.casefold() == name.casefold() else n, e) for n, e in kept]
        built = kept
    if not built:
        raise AnalysisError("dropFields cannot drop all fields in struct")
    args: list[Expr] = [part for n, e in built for part in (Lit(value=n), e)]
    return Case(branches=((Call(fn="is_null", args=(source,)), Lit(value=None)),),
                otherwise=Call(fn="named_struct", args=tuple(args)))


def _apply(fields: list[pa.Field], op: str, name: str, kind: pa.DataType) -> list[pa.Field]:
    same = [f.name.casefold() == name.casefold() for f in fields]
    if op == _DROP:
        return [f for f, hit in zip(fields, same, strict=True) if not hit]
    if not any(same):
        return [*fields, pa.field(name, kind)]
    return [pa.field(name, kind) if hit else f for f, hit in zip(fields, same, strict=True)]


def _ops(call: Call) -> list[tuple[str, str, Expr]]:
    triples = call.args[1:]
    ops = []
    for op, name, value in zip(triples[0::3], triples[1::3], triples[2::3], strict=True):
        assert isinstance(op, Lit) and isinstance(name, Lit)  # built by this module
        ops.append((str(op.value), str(name.value), value))
    return ops


def _fields(struct: pa.DataType) -> list[pa.Field]:
    if not pa.types.is_struct(struct):
        raise AnalysisError(f"withField and dropFields take a struct, got {struct}")
    return [struct.field(i) for i in range(struct.num_fields)]


def _field(struct: Expr, name: str) -> Expr:
    return Call(fn="get_field", args=(struct, Lit(value=name)))


def _split(path: str) -> tuple[str, str, str]:
    if not path or any(not part for part in path.split(".")):
        raise AnalysisError(f"invalid field name {path!r}")
    return path.partition(".")
