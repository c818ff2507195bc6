"""``soundex`` and ``format_number``: Spark's semantics (``planner.logical.functions.spellings``)
in DuckDB.

``soundex`` is Spark's (``UTF8String.soundex``), not DuckDB's (it has none): the code of
each letter after the first, H and W skipped, a code kept where it differs from the one
before, vowels and any other character (non-ASCII letters too) resetting "the one before";
the first letter upper-cased, three codes padded with ``0``; a string not starting with an
ASCII letter is itself. It is one pass over the string's codes: every character but the
first mapped to its digit (others to ``0``), H and W (``7``) dropped, then a digit kept
where it is not ``0`` and differs from its left neighbour.

``format_number(x, d)`` is Java's ``DecimalFormat("#,###,###,##0.000")`` (``d`` zeros),
rounding half to even on the exact value. Of a double the analyzer says so (the third
argument, ``planner.logical.typed_calls``): DuckDB's ``format`` (the fmt library) rounds
the double's exact binary value half to even, as Java does, and groups by thousands; a
double of 2^53 or more fails the query (below). NaN is ``NaN`` and the infinities ``∞``/``-∞``, as
Java's symbols. An integer is its digits grouped; a decimal is rounded half to even
(``round_even``) and padded to ``d`` places; a negative value rounding to zero keeps its
``-`` (Java's ``-0.00``). A negative ``d`` is NULL.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity, literal_int, literal_text
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import cast
from sparkwire.coordinator.worker.compile.templates import over, template

__all__ = ["SPELLING_CALLS"]

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
#: Each letter's Soundex digit, A to Z (``7``: H and W, which are skipped).
_CODES = "01230127022455012623017202" * 2
#: The digits of a string's letters, its first letter's first, the rest's H and W dropped.
_DIGITS = (f"translate(left(:s, 1), '{_LETTERS}', '{_CODES}') || replace(translate("
           f"regexp_replace(substr(:s, 2), '[^A-Za-z]', '0', 'g'), '{_LETTERS}', '{_CODES}'), '7', '')")
_SOUNDEX = (
    "CASE WHEN :s = '' THEN '' WHEN NOT regexp_full_match(left(:s, 1), '[A-Za-z]') THEN :s "
    "ELSE upper(left(:s, 1)) || rpad(left(coalesce(array_to_string(list_transform("
    f"range(2, length({_DIGITS}) + 1), __sparkwire_i -> CASE WHEN "
    f"substr({_DIGITS}, __sparkwire_i, 1) NOT IN ('0', substr({_DIGITS}, __sparkwire_i - 1, 1)) "
    f"THEN substr({_DIGITS}, __sparkwire_i, 1) END), ''), ''), 3), 3, '0') END")

#: Digits grouped by thousands from the right (Java's grouping separator ``,``).
_GROUP = template("reverse(rtrim(regexp_replace(reverse(:digits), '([0-9]{3})', '\\1,', 'g'), ','))")
#: Java writes a double of 2^53 or more from ``FloatingDecimal``'s digits, which are
#: neither the shortest nor the exact ones (``1.0E23`` as ``99,999,999,999,999,990,000,000``):
#: no DuckDB function gives them, so such a value fails the query rather than differ.
_TOO_BIG = exp.Anonymous(this="error", expressions=[exp.Literal.string(
    "format_number of a double of magnitude 2^53 or more is not supported by sparkwire: Java writes "
    "it from its FloatingDecimal digits, which DuckDB cannot reproduce; cast it to a decimal first")])
_DOUBLE = template(
    "CASE WHEN isnan(:x) THEN 'NaN' WHEN isinf(:x) THEN (CASE WHEN :x > 0 THEN '∞' ELSE '-∞' END) "
    "WHEN abs(:x) >= 9007199254740992 THEN :too_big ELSE format(:pattern, :x) END")
#: An integer's or a rounded decimal's text: its sign, its grouped digits, its fraction.
_SIGNED = template("CASE WHEN :x < 0 THEN '-' ELSE '' END || :grouped || :fraction")


def _format_number(args: list[exp.Expr]) -> exp.Expr:
    arity("format_number", args, 3)
    places = literal_int(args[1], "format_number's decimal places")
    kind = literal_text(args[2], "format_number's operand kind")
    x = args[0]
    if places < 0:
        return cast(exp.Null(), "VARCHAR")
    zeros = exp.Literal.string("." + "0" * places if places else "")
    if kind == "double":
        return _DOUBLE(x=x, too_big=_TOO_BIG.copy(), pattern=exp.Literal.string(f"{{:,.{places}f}}"))
    if kind == "integer":
        digits = exp.func("ltrim", cast(x.copy(), "VARCHAR"), exp.Literal.string("-"))
        return _SIGNED(x=x, grouped=_GROUP(digits=digits), fraction=zeros)
    if kind != "decimal":
        raise CompileError(f"format_number of {kind!r}")
    text = exp.func("ltrim", cast(exp.func("round_even", x.copy(), exp.Literal.number(places)), "VARCHAR"),
                    exp.Literal.string("-"))
    whole = exp.func("split_part", text, exp.Literal.string("."), exp.Literal.number(1))
    fraction: exp.Expr = exp.Literal.string("")
    if places:
        digits = exp.func("rpad", exp.func("split_part", text.copy(), exp.Literal.string("."), exp.Literal.number(2)),
                          exp.Literal.number(places), exp.Literal.string("0"))
        fraction = exp.DPipe(this=exp.Literal.string("."),
                             expression=exp.func("left", digits, exp.Literal.number(places)))
    return _SIGNED(x=x, grouped=_GROUP(digits=whole), fraction=fraction)


SPELLING_CALLS: dict[str, Builder] = {
    "soundex": over(_SOUNDEX, "s"),
    "format_number": _format_number,
}
