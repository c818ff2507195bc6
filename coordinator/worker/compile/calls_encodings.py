"""Digest and encoding builders: Spark's semantics (``planner.logical.functions.encodings``)
in DuckDB.

Spark digests and encodes bytes, a string's being its UTF-8. DuckDB's ``md5``, ``sha1``,
``sha256`` and ``hex`` take a VARCHAR or a BLOB alike, but ``to_base64`` only a BLOB, and
its VARCHAR-to-BLOB cast reads ``\\x`` escapes and refuses non-ASCII text: a string is
``encode``d instead (the choice by ``typeof``, folded when DuckDB binds the query). ``hex``
of an integer is of its bigint, which is DuckDB's ``hex`` of any integer too; ``unhex``
of anything but hex digits is NULL (DuckDB fails); ``unbase64`` pads the text to a multiple
of four first, as Java's decoder does not need the padding.

DuckDB has no base32: ``to_base32`` (RFC 4648, ``=`` padded to 8 characters) goes through
the bytes' hex digits, written as bits and read back five at a time; ``from_base32`` is
Apache Commons' lenient decoder, as Spark's: case ignored, any character outside the
alphabet skipped, and bits short of a whole byte at the end dropped (``ZZ`` is one byte);
text going on after its ``=`` padding fails the query (Spark reads it in a way of its own:
``M=ZXW6`` is ``0x03``).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity, literal_int
from sparkwire.coordinator.worker.compile.templates import over, template

_BYTES = "CASE WHEN typeof(:x) = 'VARCHAR' THEN encode(CAST(:x AS VARCHAR)) ELSE CAST(:x AS BLOB) END"
_SHA256 = template("sha256(:x)")
_BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
#: The bits of a string's UTF-8 or of a binary, through their hex digits.
_BITS = template(
    "array_to_string(list_transform(string_split(CASE WHEN typeof(:x) = 'BLOB' THEN hex(:x) "
    "ELSE hex(CAST(:x AS VARCHAR)) END, ''), __sparkwire_h -> lpad(bin(CAST('0x' || __sparkwire_h "
    "AS INTEGER)), 4, '0')), '')")
_TO_BASE32 = template(
    "rpad(array_to_string(list_transform(range(0, length(:bits), 5), __sparkwire_i -> "
    f"substr('{_BASE32}', CAST('0b' || rpad(substr(:bits, __sparkwire_i + 1, 5), 5, '0') AS INTEGER) + 1, 1)), ''), "
    "CAST(ceil(length(:bits) / 40) * 8 AS INTEGER), '=')")
#: The bits of base32 text, read as Commons' lenient decoder reads it.
_BASE32_BITS = template(
    "array_to_string(list_transform(string_split(regexp_replace(upper(split_part(:s, '=', 1)), "
    f"'[^A-Z2-7]', '', 'g'), ''), __sparkwire_c -> lpad(bin(strpos('{_BASE32}', __sparkwire_c) - 1), 5, '0')), '')")
#: Text going on after its padding (``M=ZXW6``), which Spark decodes in a way of its own.
_AFTER_PADDING = exp.Anonymous(this="error", expressions=[exp.Literal.string(
    "from_base32 of text going on after its '=' padding is not supported by sparkwire")])
_FROM_BASE32 = template(
    "CASE WHEN regexp_matches(:s, '=[^=]') THEN :after_padding ELSE unhex(array_to_string(list_transform(range(0, length(:bits) // 8 * 8, 8), __sparkwire_i -> "
    "printf('%02X', CAST('0b' || substr(:bits, __sparkwire_i + 1, 8) AS INTEGER))), '')) END")


def _sha2(args: list[exp.Expr]) -> exp.Expr:
    """``sha2(x, 0)`` and ``sha2(x, 256)`` are SHA-256; any other length is NULL, as in Spark
    (224, 384 and 512 are refused when the call is built)."""
    arity("sha2", args, 2)
    if literal_int(args[1], "sha2's bit length") in (0, 256):
        return _SHA256(x=args[0])
    return exp.Cast(this=exp.Null(), to=exp.DataType.build("VARCHAR"))


def _to_base32(args: list[exp.Expr]) -> exp.Expr:
    arity("to_base32", args, 1)
    return _TO_BASE32(bits=_BITS(x=args[0]))


def _from_base32(args: list[exp.Expr]) -> exp.Expr:
    arity("from_base32", args, 1)
    return _FROM_BASE32(s=args[0], bits=_BASE32_BITS(s=args[0].copy()), after_padding=_AFTER_PADDING.copy())


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
    "to_base32": _to_base32,
    "from_base32": _from_base32,
}
