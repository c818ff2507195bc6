"""JSON, URL and UTF-8 builders: Spark's semantics (``planner.logical.functions.jsons``,
``transcoding``) in DuckDB's JSON extension and string functions.

DuckDB's JSON functions fail on text that is not JSON, where Spark answers NULL: each is
guarded by ``json_valid`` first. ``get_json_object``'s path is read as Spark reads it
(``planner.spark.json_path``) and given to ``json_extract_string`` with every key quoted; a
path Spark refuses is NULL. DuckDB's ``url_encode`` keeps ``~`` and escapes ``*`` and the
space, where Java's ``URLEncoder`` does the opposite: put right after it. Its
``url_decode`` leaves ``+`` and a malformed escape as they are: the ``+`` becomes a space
first, and a ``%`` left once the well-formed escapes are removed fails the query (or is
NULL, ``try_url_decode``). ``to_json`` is written from its value's type (``json_text``), ``from_json`` read into its
schema's (``json_read``). ``typeof`` and ``schema_of_json`` answer the literal the planner
added to the call. ``jaro_winkler_similarity`` is Spark's: the Winkler boost of a common
prefix (up to 4 characters, scaled by 0.1) applied whatever the Jaro similarity, where
DuckDB's applies it above 0.7 only; two empty strings are 1 (DuckDB: 0).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity, literal_text
from sparkwire.coordinator.worker.compile.errors import CompileError, raise_error
from sparkwire.coordinator.worker.compile.json_read import from_json
from sparkwire.coordinator.worker.compile.json_text import json_text
from sparkwire.coordinator.worker.compile.nodes import call, ident
from sparkwire.coordinator.worker.compile.templates import over, template
from sparkwire.planner.logical import typenames
from sparkwire.planner.spark import json_path

__all__ = ["FORMAT_CALLS"]

_EXTRACT = template("CASE WHEN json_valid(:j) THEN json_extract_string(:j, :path) END")
_MALFORMED = "contains(regexp_replace(:s, '%[0-9A-Fa-f]{2}', '', 'g'), '%')"
_DECODED = "url_decode(replace(:s, '+', ' '))"
#: The common prefix of ``a`` and ``b``, up to 4 characters (Winkler's boost).
_PREFIX = " + ".join(f"CAST(length(:a) >= {i} AND left(:a, {i}) = left(:b, {i}) AS INTEGER)"
                     for i in range(1, 5))
#: The base64 digits of ``:s``, whitespace and padding aside.
_DATA = "length(regexp_replace(:s, '[^A-Za-z0-9+/]', '', 'g'))"
#: to_binary's formats but UTF-8: (is the text well formed, its bytes). Base64 as Spark
#: takes it: whitespace among the digits, the padding optional, but if given it completes
#: a multiple of 4 (and no single digit dangles).
_BINARY = {
    "hex": (template("regexp_full_match(:s, '[0-9A-Fa-f]*')"),
            template("unhex(CASE WHEN length(:s) % 2 = 1 THEN '0' || :s ELSE :s END)")),
    "base64": (template("regexp_full_match(:s, '[A-Za-z0-9+/\\s]*(==?)?') AND CASE WHEN contains(:s, '=') "
                        f"THEN ({_DATA} + length(:s) - length(replace(:s, '=', ''))) % 4 = 0 "
                        f"ELSE {_DATA} % 4 <> 1 END"),
               template("from_base64(regexp_replace(:s, '[^A-Za-z0-9+/]', '', 'g') "
                        f"|| repeat('=', (4 - {_DATA} % 4) % 4))")),
}
_BINARY_CASE = template("CASE WHEN :s IS NULL THEN NULL WHEN :valid THEN :decoded ELSE :malformed END")
_URL_DECODE = template(f"CASE WHEN {_MALFORMED} THEN :fail ELSE {_DECODED} END")


def _get_json_object(args: list[exp.Expr]) -> exp.Expr:
    arity("get_json_object", args, 2)
    parsed = json_path.steps(literal_text(args[1], "get_json_object's path"))
    if parsed is None:
        return exp.Cast(this=exp.Null(), to=exp.DataType.build("VARCHAR"))
    if json_path.WILDCARD in parsed:
        raise CompileError("get_json_object with a wildcard path")
    try:
        path = json_path.duckdb_path(parsed)
    except ValueError as exc:
        raise CompileError(str(exc)) from None
    return _EXTRACT(j=args[0], path=exp.Literal.string(path))


def _answered(name: str) -> Builder:
    """A call the planner answered: its second argument, the literal it added."""
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(name, args, 2)
        literal_text(args[1], f"{name}'s answer")
        return args[1]

    return build


def _typed(name: str, write: Callable[[exp.Expr, typenames.TypeTree], exp.Expr]) -> Builder:
    """``to_json(value, type)`` and ``from_json(text, type)``: the planner names the type
    (``typed_calls``, ``jsons.from_json``), which the SQL is written from."""
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(name, args, 2)
        try:
            tree = typenames.parse(literal_text(args[1], f"{name}'s type"))
        except ValueError as exc:
            raise CompileError(str(exc)) from None
        return write(args[0], tree)

    return build


def _mask(args: list[exp.Expr]) -> exp.Expr:
    """Each character of ``s`` by its class's replacement, one pass over the characters so a
    replacement is never replaced again; a NULL replacement keeps the character."""
    arity("mask", args, 5)
    char = exp.Column(this=ident("__sparkwire_char"))

    def kept(replacement: exp.Expr) -> exp.Expr:
        return char.copy() if isinstance(replacement, exp.Null) else replacement

    ifs = [exp.If(this=call("regexp_full_match", char.copy(), exp.Literal.string(pattern)), true=kept(replacement))
           for pattern, replacement in zip((r"\p{Lu}", r"\p{Ll}", r"\p{Nd}"), args[1:4], strict=True)]
    each = exp.Lambda(this=exp.Case(ifs=ifs, default=kept(args[4])), expressions=[ident("__sparkwire_char")])
    masked = call("array_to_string", call("list_transform", call("string_split", args[0], exp.Literal.string("")),
                                           each), exp.Literal.string(""))
    return exp.Case(ifs=[exp.If(this=exp.Is(this=args[0].copy(), expression=exp.Null()), true=exp.Null())],
                    default=masked)


def _to_binary(fail: bool) -> Builder:
    """Hex, UTF-8 or base64 text as bytes; malformed text fails the query (``to_binary``)
    or is NULL (``try_to_binary``)."""
    def build(args: list[exp.Expr]) -> exp.Expr:
        if len(args) != 1:
            arity("to_binary", args, 2)
        fmt = "hex" if len(args) == 1 else literal_text(args[1], "to_binary's format").lower()
        if fmt in ("utf-8", "utf8"):
            return call("encode", args[0])
        if fmt not in _BINARY:
            raise CompileError(f"to_binary's format {fmt!r}")
        valid, decode = _BINARY[fmt]
        malformed: exp.Expr = exp.Null()
        if fail:
            malformed = raise_error(
                "CONVERSION_INVALID_INPUT", "The value '", args[0].copy(), "' (STRING) cannot be converted "
                "to BINARY because it is malformed. Correct the value as per the syntax, or change its "
                "format. Use `try_to_binary` to tolerate malformed input and return NULL instead.")
        return _BINARY_CASE(s=args[0], valid=valid(s=args[0].copy()), decoded=decode(s=args[0].copy()),
                            malformed=malformed)

    return build


def _url_decode(args: list[exp.Expr]) -> exp.Expr:
    arity("url_decode", args, 1)
    fail = raise_error("CANNOT_DECODE_URL", "The provided URL cannot be decoded: ", args[0].copy(),
                       ". Please ensure that the URL is properly formatted and try again.")
    return _URL_DECODE(s=args[0], fail=fail)


FORMAT_CALLS: dict[str, Builder] = {
    "get_json_object": _get_json_object,
    "json_array_length": over(
        "CASE WHEN json_valid(:j) THEN (CASE WHEN json_type(:j) = 'ARRAY' "
        "THEN CAST(json_array_length(:j) AS INTEGER) END) END", "j"),
    "json_object_keys": over(
        "CASE WHEN json_valid(:j) THEN (CASE WHEN json_type(:j) = 'OBJECT' THEN json_keys(:j) END) END",
        "j"),
    "schema_of_json": _answered("schema_of_json"),
    "to_json": _typed("to_json", json_text),
    "from_json": _typed("from_json", from_json),
    "typeof": _answered("typeof"),
    "url_encode": over("replace(replace(replace(url_encode(:s), '%20', '+'), '%2A', '*'), '~', '%7E')", "s"),
    "url_decode": _url_decode,
    "mask": _mask,
    "to_binary": _to_binary(fail=True),
    "try_to_binary": _to_binary(fail=False),
    "try_url_decode": over(f"CASE WHEN {_MALFORMED} THEN NULL ELSE try({_DECODED}) END", "s"),
    "is_valid_utf8": over("CASE WHEN :s IS NOT NULL THEN true END", "s"),
    **dict.fromkeys(("make_valid_utf8", "validate_utf8", "try_validate_utf8"),
                    over("CAST(:s AS VARCHAR)", "s")),
    "quote": over("'''' || replace(:s, '''', '\\''') || ''''", "s"),
    "jaro_winkler_similarity": over(
        "CASE WHEN :a = '' AND :b = '' THEN 1.0 ELSE "
        f"jaro_similarity(:a, :b) + ({_PREFIX}) * 0.1 * (1 - jaro_similarity(:a, :b)) END", "a", "b"),
}
