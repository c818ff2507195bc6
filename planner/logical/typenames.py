"""The grammar of plan type names, nested ones included, parsed with bounded nesting::

    type   := simple | decimal(p,s) | array<type> | map<type,type> | struct<field:type,...>
    simple := bool | int8 | int16 | int32 | int64 | float32 | float64 | string | binary
              | date | timestamp | timestamp_ntz | time

A type name travels inside task plans (casts, typed literals), so it is validated as
strictly as an identifier: a closed set of leaves, nesting at most ``MAX_TYPE_DEPTH``, at
most ``MAX_STRUCT_FIELDS`` fields a struct, field names that are valid identifiers and hold
none of the grammar's own characters (``<>,:``). ``parse`` gives a small tree
the planner (Arrow types) and the worker (DuckDB types) each walk; ``spark_name`` spells a
tree as Spark's ``simpleString`` does (``array<int>``, ``struct<a:int,b:string>``,
``map<string,bigint>``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sparkwire.planner.logical.identifiers import check_identifier
from sparkwire.planner.limits import MAX_STRUCT_FIELDS, MAX_TYPE_DEPTH, MAX_TYPE_NAME_LENGTH

SIMPLE = frozenset({
    "bool", "int8", "int16", "int32", "int64", "float32", "float64", "string", "binary",
    "date", "timestamp", "timestamp_ntz", "time",
})
SPARK_SIMPLE = {
    "bool": "boolean", "int8": "tinyint", "int16": "smallint", "int32": "int",
    "int64": "bigint", "float32": "float", "float64": "double", "string": "string",
    "binary": "binary", "date": "date", "timestamp": "timestamp",
    "timestamp_ntz": "timestamp_ntz", "time": "time(6)",
}
_DECIMAL = re.compile(r"decimal\((\d{1,2}),(\d{1,2})\)")
_TOKEN = re.compile(r"[A-Za-z0-9_]+(?:\(\d{1,2},\d{1,2}\))?")
_FIELD = re.compile(r"[^<>,:]+")


@dataclass(frozen=True)
class TypeTree:
    """``kind`` is ``simple`` (``name`` a leaf or ``decimal(p,s)``), ``array`` (``args``:
    the element), ``map`` (``args``: key, value) or ``struct`` (``fields`` and ``args``)."""

    kind: str
    name: str = ""
    args: tuple[TypeTree, ...] = ()
    fields: tuple[str, ...] = ()


def parse(text: str) -> TypeTree:
    """The tree of a type name; ``ValueError`` naming what is wrong otherwise."""
    if len(text) > MAX_TYPE_NAME_LENGTH:
        raise ValueError(f"type name longer than {MAX_TYPE_NAME_LENGTH} characters")
    parser = _Parser(text)
    tree = parser.type(0)
    if parser.pos != len(text):
        raise ValueError(f"unexpected {text[parser.pos:]!r} in type {text!r}")
    return tree


def check_field_name(name: str) -> str:
    """A struct field name: a valid identifier without the grammar's ``<>,:``."""
    check_identifier(name)
    if _FIELD.fullmatch(name) is None:
        raise ValueError(f"struct field name {name!r} holds one of <>,:")
    return name


def from_spark(text: str, leaves: dict[str, str]) -> str:
    """A Spark type string (``array<int>``, ``map<string,bigint>``) in the plan's words:
    each leaf type (a word before ``<``, ``,``, ``>`` or the end) renamed by ``leaves``."""
    return re.sub(r"(?<![A-Za-z0-9_])[a-z]+(?=[<>,]|$)",
                  lambda m: leaves.get(m[0], m[0]), text)


def render(tree: TypeTree) -> str:
    """The plan type name of a tree (``parse``'s inverse)."""
    return _spell(tree, lambda leaf: leaf)


def spark_name(tree: TypeTree) -> str:
    """Spark's ``simpleString`` of the type (``df.dtypes``)."""
    return _spell(tree, lambda leaf: SPARK_SIMPLE.get(leaf, leaf))


def _spell(tree: TypeTree, leaf: object) -> str:
    assert callable(leaf)
    if tree.kind == "simple":
        return str(leaf(tree.name))
    inner = [_spell(a, leaf) for a in tree.args]
    if tree.kind == "struct":
        inner = [f"{f}:{t}" for f, t in zip(tree.fields, inner, strict=True)]
    return f"{tree.kind}<{','.join(inner)}>"


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def type(self, depth: int) -> TypeTree:
        if depth > MAX_TYPE_DEPTH:
            raise ValueError(f"type {self.text!r} nests deeper than {MAX_TYPE_DEPTH} levels")
        match = _TOKEN.match(self.text, self.pos)
        if match is None:
            raise ValueError(f"expected a type at {self.text[self.pos:]!r} in {self.text!r}")
        word = match[0]
        self.pos = match.end()
        if word in ("array", "map", "struct") and self._peek("<"):
            self.pos += 1
            tree = {"array": self._array, "map": self._map, "struct": self._struct}[word](depth + 1)
            self._expect(">")
            return tree
        if word in SIMPLE:
            return TypeTree("simple", word)
        decimal = _DECIMAL.fullmatch(word)
        if decimal and 1 <= int(decimal[1]) <= 38 and int(decimal[2]) <= int(decimal[1]):
            return TypeTree("simple", word)
        raise ValueError(
            f"unknown type {word!r}; known: {sorted(SIMPLE)}, decimal(p,s), array<T>, "
            "map<K,V> and struct<name:T,...>"
        )

    def _array(self, depth: int) -> TypeTree:
        return TypeTree("array", args=(self.type(depth),))

    def _map(self, depth: int) -> TypeTree:
        key = self.type(depth)
        self._expect(",")
        return TypeTree("map", args=(key, self.type(depth)))

    def _struct(self, depth: int) -> TypeTree:
        fields: list[str] = []
        args: list[TypeTree] = []
        while True:
            match = _FIELD.match(self.text, self.pos)
            if match is None:
                raise ValueError(f"expected a struct field name in type {self.text!r}")
            fields.append(check_field_name(match[0]))
            self.pos = match.end()
            self._expect(":")
            args.append(self.type(depth))
            if len(fields) > MAX_STRUCT_FIELDS:
                raise ValueError(f"a struct type has more than {MAX_STRUCT_FIELDS} fields")
            if not self._peek(","):
                break
            self.pos += 1
        if len({f.casefold() for f in fields}) != len(fields):
            raise ValueError(f"struct type {self.text!r} repeats a field name")
        return TypeTree("struct", args=tuple(args), fields=tuple(fields))

    def _peek(self, char: str) -> bool:
        return self.text.startswith(char, self.pos)

    def _expect(self, char: str) -> None:
        if not self._peek(char):
            raise ValueError(f"expected {char!r} at position {self.pos} of type {self.text!r}")
        self.pos += 1
