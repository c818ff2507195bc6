"""Digest and encoding builders: Spark's semantics (``planner.logical.functions.encodings``)
in DuckDB.

Spark digests and encodes bytes, a string's being its UTF-8. DuckDB's ``md5``, ``sha1``,
``sha256`` and ``hex`` take a VARCHAR or a BLOB alike, but ``to_base64`` only a BLOB, and
its VARCHAR-to-BLOB cast reads ``\\x`` escapes and refuses non-ASCII text: a string is
``encode``d instead (the choice by ``typeof``, folded when DuckDB binds the query). ``hex``
of an integer is of its bigint, which is DuckDB's ``hex`` of any integer too; ``unhex``
of anything but hex digits is NULL (DuckDB fails); ``unbase64`` pads the text to a multiple
of four first, as Java's decoder does not need the padding.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity, literal_int
from sparkwire.coordinator.worker.compile.templates import over, template

_BYTES = "CASE WHEN typeof(:x) = 'VARCHAR' THEN encode(CAST(:x AS VARCHAR)) ELSE CAST(:x AS BLOB) END"
_SHA256 = template("sha256(:x)")


def _sha2(args: list[exp.Expr]) -> exp.Expr:
    """``sha2(x, 0)`` and ``sha2(x, 256)`` are SHA-256; any other length is NULL, as in Spark
    (224, 384 and 512 are refused when the call is built)."""
    arity("sha2", args, 2)
    if literal_int(args[1], "sha2's bit length") in (0, 256):
        return _SHA256(x=args[0])
    return exp.Cast(this=exp.Null(), to=exp.DataType.build("VARCHAR"))


ENCODING_CALLS: dict[str, Builder] = {
    "md5": over("md5(:x)", "x"),
    "sha1": over("sha1(:x)", "x"),
    "sha": over("sha1(:x)", "x"),
    "sha2": _sha2,
    "base64": over(f"to_base64({_BYTES})", "x"),
    "unbase64": over("from_base64(:x || repeat('=', (4 - length(:x) % 4) % 4))", "x"),
    "hex": over("hex(:x)", "x"),
    "unhex": over("CASE WHEN regexp_full_match(:x, '[0-9A-Fa-f]*') THEN unhex(:x) END", "x"),
    "bin": over("bin(CAST(:x AS BIGINT))", "x"),
}
