"""Spark's type grammar and DDL schemas (``"a int, b decimal(10,2)"``, ``"array<int>"``)
read into Arrow types, by a bounded recursive descent: the one reader of schema strings for
the DataFrame API (``createDataFrame``, ``read.csv(schema=...)``, ``cast``) and for the
functions that take a schema literal (``from_json``), in Python or in SQL text. A schema
string is user input: it is parsed, never evaluated.
"""

from __future__ import annotations

import re

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import time_types
from sparkwire.planner.spark.timezones import INSTANT, WALL_CLOCK

_ATOMIC: dict[str, pa.DataType] = {
    "string": pa.string(), "varchar": pa.string(), "char": pa.string(),
    "boolean": pa.bool_(), "bool": pa.bool_(),
    "tinyint": pa.int8(), "byte": pa.int8(), "smallint": pa.int16(), "short": pa.int16(),
    "int": pa.int32(), "integer": pa.int32(), "bigint": pa.int64(), "long": pa.int64(),
    "float": pa.float32(), "real": pa.float32(), "double": pa.float64(),
    "date": pa.date32(), "timestamp": INSTANT, "timestamp_ltz": INSTANT, "timestamp_ntz": WALL_CLOCK,
    "binary": pa.binary(), "void": pa.null(), "decimal": pa.decimal128(10, 0),
    "time": time_types.TIME,
}
_TOKEN = re.compile(r"\s*(`[^`]*`|[A-Za-z_][A-Za-z0-9_]*|\d+|[<>(),:])")
#: Nested types deeper than this are refused (a schema string is user input).
MAX_TYPE_DEPTH = 32


class _Parser:
    """Recursive descent over Spark's type grammar: names, ``decimal(p,s)``,
    ``array<t>``, ``map<k,v>``, ``struct<name:t,...>``; a DDL is ``name type, ...``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[str] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            match = _TOKEN.match(text, pos)
            if match is None:
                raise AnalysisError(f"cannot parse the schema {text!r} at {text[pos:]!r}")
            self.tokens.append(match.group(1))
            pos = match.end()
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token.lower() != expected):
            want = f"{expected!r}" if expected else "more"
            raise AnalysisError(f"cannot parse the schema {self.text!r}: expected {want}, got {token!r}")
        self.pos += 1
        return token

    def name(self) -> str:
        token = self.take()
        return token[1:-1] if token.startswith("`") else token

    def data_type(self, depth: int = 0) -> pa.DataType:
        if depth > MAX_TYPE_DEPTH:
            raise AnalysisError(f"the schema {self.text!r} nests deeper than {MAX_TYPE_DEPTH}")
        word = self.take().lower()
        if word == "array":
            self.take("<")
            element = self.data_type(depth + 1)
            self.take(">")
            return pa.list_(pa.field("element", element))
        if word == "map":
            self.take("<")
            key = self.data_type(depth + 1)
            self.take(",")
            value = self.data_type(depth + 1)
            self.take(">")
            return pa.map_(key, value)
        if word == "struct":
            self.take("<")
            fields: list[pa.Field] = []
            while self.peek() != ">":
                if fields:
                    self.take(",")
                name = self.name()
                self.take(":")
                fields.append(pa.field(name, self.data_type(depth + 1)))
            self.take(">")
            return pa.struct(fields)
        if word == "decimal" and self.peek() == "(":
            self.take("(")
            precision = int(self.take())
            scale = 0
            if self.peek() == ",":
                self.take(",")
                scale = int(self.take())
            self.take(")")
            if not 1 <= precision <= 38 or not 0 <= scale <= precision:
                raise AnalysisError(f"decimal({precision},{scale}) is not a valid decimal type")
            return pa.decimal128(precision, scale)
        if word == "time" and self.peek() == "(":
            self.take("(")
            digits = self.take()
            self.take(")")
            return time_types.checked_precision(int(digits) if digits.isdigit() else -1)
        if word in ("varchar", "char") and self.peek() == "(":
            self.take("(")
            self.take()
            self.take(")")
        if word not in _ATOMIC:
            raise AnalysisError(f"unknown type {word!r} in schema {self.text!r}")
        return _ATOMIC[word]

    def ddl(self) -> pa.Schema:
        fields: list[pa.Field] = []
        while self.peek() is not None:
            if fields:
                self.take(",")
            name = self.name()
            if self.peek() == ":":
                self.take(":")
            fields.append(pa.field(name, self.data_type()))
        if not fields:
            raise AnalysisError("an empty schema")
        return pa.schema(fields)

    def done(self) -> None:
        if self.peek() is not None:
            raise AnalysisError(f"cannot parse the schema {self.text!r}: unexpected {self.peek()!r}")


def parse_type(text: str) -> pa.DataType:
    """The Arrow type of a Spark type name (``array<int>``, ``decimal(10,2)``)."""
    parser = _Parser(text)
    result = parser.data_type()
    parser.done()
    return result


def parse_schema(text: str) -> pa.Schema:
    """A DDL string (``"a int, b string"``) or a ``struct<...>`` type as a schema."""
    if text.strip().lower().startswith("struct<"):
        return pa.schema(list(parse_type(text)))
    parser = _Parser(text)
    result = parser.ddl()
    parser.done()
    return result
