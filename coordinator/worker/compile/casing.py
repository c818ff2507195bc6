"""``upper``, ``lower`` and ``initcap`` as Spark computes them: Java's ``String.toUpperCase``
and ``toLowerCase``, which follow Unicode's full case mapping.

DuckDB maps each character to one character (Unicode's simple mapping), and that agrees
with the full mapping everywhere except on the characters whose full mapping is several
characters (Unicode's SpecialCasing: ``ß`` upper-cases to ``SS``, ``ﬁ`` to ``FI``, ``ŉ`` to
``ʼN``, ``İ`` lower-cases to ``i̇``; DuckDB keeps them or writes ``ẞ``). Those characters are
read from Python's Unicode database here (every one in the Basic Multilingual Plane, where
SpecialCasing has all of its entries), and a string holding one is mapped character by
character, the others as DuckDB maps them. Besides:

- ``lower`` writes a capital sigma as the final ``ς`` where it ends a word (a cased letter
  before it, none after it), as Java does; Java also looks through case-ignorable characters
  (apostrophes, combining marks) on either side, which this does not;
- ``initcap`` is Spark's (ICU case mappings, its default): the first character of every
  word (words are split by spaces only: ``o'neil mc-d`` is ``O'neil Mc-d``) in its full
  title case, ``ǆ`` as ``ǅ`` (not the upper case ``Ǆ``), ``ﬁ`` as ``Fi``, ``İ`` kept; the
  rest lower-cased as ``lower`` does.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Literal

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity
from sparkwire.coordinator.worker.compile.nodes import call, cast, ident

_CASED = r"\p{Lu}\p{Ll}\p{Lt}"
_CHARACTER = "__sparkwire_c"
_WORD = "__sparkwire_w"


@cache
def _table(mapping: Literal["upper", "lower", "title"]) -> dict[str, str]:
    """The characters whose full upper or lower case is more than one character; for
    ``title``, those whose title case is not their (DuckDB) upper case. Built on first use
    (a walk over the 63,488 characters of the plane takes some 10 ms)."""
    table: dict[str, str] = {}
    for code in range(0x10000):
        if 0xD800 <= code < 0xE000:
            continue
        c = chr(code)
        mapped = getattr(c, mapping)()
        if len(mapped) > 1 or (mapping == "title" and mapped != c.upper()):
            table[c] = mapped
    return table


def _lookup(table: dict[str, str], character: exp.Expr,
            otherwise: Callable[[exp.Expr], exp.Expr]) -> exp.Expr:
    """``table[character]``, or ``otherwise(character)`` for a character not in it."""
    mapping = call("map", exp.Array(expressions=[exp.Literal.string(k) for k in table]),
                   exp.Array(expressions=[exp.Literal.string(v) for v in table.values()]))
    return exp.Coalesce(this=call("map_extract_value", mapping, character),
                        expressions=[otherwise(character.copy())])


def _mapped(text: exp.Expr, table: dict[str, str],
            simple: Callable[[exp.Expr], exp.Expr]) -> exp.Expr:
    """``simple(text)``, but character by character through ``table`` where it holds one."""
    character = exp.Column(this=ident(_CHARACTER))
    each = exp.Lambda(this=_lookup(table, character, simple), expressions=[ident(_CHARACTER)])
    by_character = call("array_to_string", call("list_transform", call("string_split", text, ""), each), "")
    special = call("regexp_matches", text.copy(), "[" + "".join(table) + "]")
    return exp.Case(ifs=[exp.If(this=special, true=by_character)], default=simple(text.copy()))


def _upper(text: exp.Expr) -> exp.Expr:
    return _mapped(text, _table("upper"), lambda t: exp.Upper(this=t))


def _final_sigma(text: exp.Expr) -> exp.Expr:
    """``text`` with each capital sigma that ends a word already the final ``ς``."""
    final = call("regexp_replace", text, f"([{_CASED}])Σ([^{_CASED}]|$)", "\\1ς\\2", "g")
    return exp.Case(ifs=[exp.If(this=call("contains", text.copy(), "Σ"), true=final)],
                    default=text.copy())


def _lower(text: exp.Expr) -> exp.Expr:
    return _mapped(text, _table("lower"), lambda t: exp.Lower(this=t))


def _initcap(text: exp.Expr) -> exp.Expr:
    """Each word's first character title-cased as it is, the rest lower-cased (a word's first
    character is never a final sigma: a space or nothing comes before it)."""
    word = exp.Column(this=ident(_WORD))
    first = call("substring", word, exp.Literal.number(1), exp.Literal.number(1))
    rest = call("substring", word.copy(), exp.Literal.number(2))
    capitalised = exp.DPipe(this=_lookup(_table("title"), first, lambda c: exp.Upper(this=c)),
                            expression=_lower(rest), safe=False)
    words = call("string_split", _final_sigma(text), " ")
    each = exp.Lambda(this=capitalised, expressions=[ident(_WORD)])
    return call("array_to_string", call("list_transform", words, each), " ")


def _one(name: str, build: Callable[[exp.Expr], exp.Expr]) -> Builder:
    def builder(args: list[exp.Expr]) -> exp.Expr:
        arity(name, args, 1)
        return build(cast(args[0], "VARCHAR"))

    return builder


CASING_CALLS: dict[str, Builder] = {
    "upper": _one("upper", _upper),
    "lower": _one("lower", lambda text: _lower(_final_sigma(text))),
    "initcap": _one("initcap", _initcap),
}
