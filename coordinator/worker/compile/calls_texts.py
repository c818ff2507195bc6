"""The later string builders: Spark's semantics (``planner.logical.functions.texts``) in
DuckDB, by template where DuckDB's function of the same name differs:

- DuckDB's ``left``/``right`` of a negative count keep all but that many characters (Spark:
  ``''``), its ``split_part`` splits an empty delimiter into characters (Spark: the whole
  string), its ``levenshtein`` has no threshold;
- ``substring_index`` and ``find_in_set`` are DuckDB's list functions over
  ``string_split``; ``regexp_count`` counts ``regexp_extract_all``'s matches; ``regexp_instr``
  measures the shortest prefix before a match, found by one more pattern wrapped around the
  user's (already checked as Java's, ``planner.spark.regex``);
- ``overlay``, ``position``, ``printf``, ``lcase``/``ucase`` reuse ``substring``,
  ``locate``, ``format_string``, ``lower``/``upper`` (``calls_text``, ``casing``).

``elt``, whose index past its strings fails only with ANSI on, is a mode builder.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, ModeBuilder, arity, literal_text
from sparkwire.coordinator.worker.compile.calls_text import TEXT_CALLS
from sparkwire.coordinator.worker.compile.casing import CASING_CALLS
from sparkwire.coordinator.worker.compile.errors import ANSI_HINT, CompileError, raise_error
from sparkwire.coordinator.worker.compile.nodes import call, cast, paren
from sparkwire.coordinator.worker.compile.templates import over, template

__all__ = ["TEXT_MODE_CALLS", "TEXTS_CALLS"]

_COUNT = "CASE WHEN :n < 0 THEN 0 ELSE :n END"
_ZERO_INDEX = raise_error(
    "INVALID_INDEX_OF_ZERO",
    "The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1).")
_SPLIT_PART = template(
    "CASE WHEN :s IS NULL OR :d IS NULL OR :n IS NULL THEN NULL WHEN :n = 0 THEN :zero "
    "WHEN :d = '' THEN (CASE WHEN :n IN (1, -1) THEN :s ELSE '' END) "
    "ELSE split_part(:s, :d, :n) END")
_SUBSTRING_INDEX = (
    "CASE WHEN :s IS NULL OR :d IS NULL OR :c IS NULL THEN NULL WHEN :d = '' OR :c = 0 THEN '' "
    "WHEN :c > 0 THEN array_to_string(list_slice(string_split(:s, :d), 1, :c), :d) "
    "ELSE array_to_string(list_slice(string_split(:s, :d), :c, -1), :d) END")
_FIND_IN_SET = (
    "CASE WHEN :s IS NULL OR :l IS NULL THEN NULL WHEN contains(:s, ',') THEN 0 "
    "ELSE CAST(coalesce(list_position(string_split(:l, ','), :s), 0) AS INTEGER) END")
_LEVENSHTEIN = template(
    "CAST(CASE WHEN levenshtein(:a, :b) > :t THEN -1 ELSE levenshtein(:a, :b) END AS INTEGER)")
_INSTR = template(
    "CASE WHEN :s IS NULL THEN NULL WHEN regexp_matches(:s, :r) "
    "THEN CAST(length(regexp_extract(:s, :prefix, 1)) + 1 AS INTEGER) ELSE 0 END")


def _bytes(factor: int) -> Builder:
    """``octet_length``/``bit_length``: the UTF-8 bytes, times ``factor``."""
    return over(f"CAST(strlen(:s) * {factor} AS INTEGER)", "s")


def _split_part(args: list[exp.Expr]) -> exp.Expr:
    arity("split_part", args, 3)
    return _SPLIT_PART(s=args[0], d=args[1], n=args[2], zero=_ZERO_INDEX.copy())


def _overlay(args: list[exp.Expr]) -> exp.Expr:
    """``s`` before ``pos``, the replacement, ``s`` from ``pos + len`` (``len`` below 0: the
    replacement's length), each piece as Spark's ``substring`` reads it."""
    arity("overlay", args, 4)
    s, replacement, position, length = args
    taken = exp.Case(ifs=[exp.If(this=exp.GTE(this=paren(length), expression=exp.Literal.number(0)),
                                 true=length)], default=exp.Length(this=replacement.copy()))
    substring = TEXT_CALLS["substring"]
    before = substring([s, exp.Literal.number(1), exp.Sub(this=paren(position),
                                                          expression=exp.Literal.number(1))])
    after = substring([s.copy(), exp.Add(this=paren(position.copy()), expression=exp.Paren(this=taken))])
    return exp.DPipe(this=exp.DPipe(this=before, expression=replacement, safe=False),
                     expression=after, safe=False)


def _levenshtein(args: list[exp.Expr]) -> exp.Expr:
    if len(args) == 2:
        return cast(call("levenshtein", *args), "INTEGER")
    arity("levenshtein", args, 3)
    return _LEVENSHTEIN(a=args[0], b=args[1], t=args[2])


def _btrim(args: list[exp.Expr]) -> exp.Expr:
    if len(args) not in (1, 2):
        raise CompileError(f"btrim takes 1 or 2 arguments, got {len(args)}")
    return call("trim", *args)


def _regexp_instr(args: list[exp.Expr]) -> exp.Expr:
    """The characters before the first match, plus one: the shortest prefix after which the
    pattern matches, anchored at the start so ``^`` and ``\\b`` keep their context."""
    arity("regexp_instr", args, 3)  # the 3rd, the group, is 0 (planner.logical.literal_args)
    pattern = literal_text(args[1], "regexp_instr's pattern")
    prefix = exp.Literal.string(f"^(?s:(.*?))(?:{pattern})")
    return _INSTR(s=args[0], r=args[1], prefix=prefix)


def _regexp_substr(args: list[exp.Expr]) -> exp.Expr:
    arity("regexp_substr", args, 2)
    return call("nullif", call("regexp_extract", args[0], args[1], exp.Literal.number(0)), "")


def _position(args: list[exp.Expr]) -> exp.Expr:
    return TEXT_CALLS["locate"](args)


def _elt(args: Sequence[exp.Expr], ansi: bool) -> exp.Expr:
    """``elt(n, s1, s2 ...)``: the ``n``-th string; past them NULL, or with ANSI on
    ``INVALID_ARRAY_INDEX`` (a NULL ``n`` is NULL in both)."""
    if len(args) < 2:
        raise CompileError("elt takes an index and at least one string")
    index, strings = args[0], args[1:]
    ifs = [exp.If(this=exp.EQ(this=paren(index.copy()), expression=exp.Literal.number(i)),
                  true=cast(s, "VARCHAR")) for i, s in enumerate(strings, 1)]
    missing: exp.Expr = exp.Null()
    if ansi:
        missing = exp.Case(ifs=[exp.If(this=exp.Is(this=paren(index.copy()), expression=exp.Null()),
                                       true=exp.Null())],
                           default=raise_error("INVALID_ARRAY_INDEX", "The index ", index.copy(),
                                               f" is out of bounds. The array has {len(strings)} "
                                               f"elements. {ANSI_HINT}"))
    return exp.Case(ifs=ifs, default=missing)


def _named(name: str, n: int) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(name, args, n)
        return call(name, *args)

    return build


TEXTS_CALLS: dict[str, Builder] = {
    "left": over(f"left(:s, {_COUNT})", "s", "n"),
    "right": over(f"right(:s, {_COUNT})", "s", "n"),
    "repeat": _named("repeat", 2),
    "reverse": _named("reverse", 1),
    "ascii": over("CAST(ascii(:s) AS INTEGER)", "s"),
    **dict.fromkeys(("chr", "char"), over(
        "CASE WHEN :n < 0 THEN '' ELSE chr(CAST(:n % 256 AS INTEGER)) END", "n")),
    "octet_length": _bytes(1),
    "bit_length": _bytes(8),
    **dict.fromkeys(("char_length", "character_length"), over("CAST(length(:s) AS INTEGER)", "s")),
    "btrim": _btrim,
    "translate": _named("translate", 3),
    "overlay": _overlay,
    "split_part": _split_part,
    "substring_index": over(_SUBSTRING_INDEX, "s", "d", "c"),
    "levenshtein": _levenshtein,
    "printf": TEXT_CALLS["format_string"],
    "ilike": over("ilike_escape(:s, :p, '\\')", "s", "p"),
    **dict.fromkeys(("regexp_like", "regexp"), TEXT_CALLS["rlike"]),
    "regexp_count": over("CAST(len(regexp_extract_all(:s, :r)) AS INTEGER)", "s", "r"),
    "regexp_extract_all": _named("regexp_extract_all", 3),
    "regexp_substr": _regexp_substr,
    "regexp_instr": _regexp_instr,
    "find_in_set": over(_FIND_IN_SET, "s", "l"),
    "lcase": CASING_CALLS["lower"],
    "ucase": CASING_CALLS["upper"],
    "replace": _named("replace", 3),
    "position": _position,
    "encode": over("encode(:s)", "s", "charset"),
    "decode": over("decode(:b)", "b", "charset"),
    "uuid": lambda args: cast(call("uuid", *args), "VARCHAR"),
}

#: The string builders whose SQL depends on the ANSI mode (``calls.MODE_CALLS``).
TEXT_MODE_CALLS: dict[str, ModeBuilder] = {"elt": _elt}
