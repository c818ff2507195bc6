"""String builders: Spark's semantics (``planner.logical.functions.strings``) in DuckDB.

Where DuckDB's function of the same name differs, the template says how: its
``substring`` reads a start of 0 as "before the first character" (Spark: the first),
its ``lpad`` raises on an empty pad, its ``regexp_replace`` replaces only the first match
and writes groups as ``\\1`` (Java: ``$1``), and its ``printf`` prints NULL as NULL where
Java prints ``null``. ``upper``, ``lower`` and ``initcap`` follow Java's case mapping
(``casing``).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity, literal_int, literal_text
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import cast
from sparkwire.coordinator.worker.compile.templates import over, template
from sparkwire.planner.spark import format_string
from sparkwire.planner.spark.regex import java_replacement

# Spark's 0-based start: a positive start counts from 1, a negative from the end, 0 is 1.
_START = "(CASE WHEN :p > 0 THEN :p - 1 WHEN :p < 0 THEN length(:s) + :p ELSE 0 END)"
# A NULL position or length is NULL, where DuckDB's greatest() would skip it.
_SUBSTRING = template(
    "CASE WHEN :p IS NOT NULL AND :n IS NOT NULL THEN "
    f"substring(:s, greatest({_START}, 0) + 1, greatest({_START} + :n - greatest({_START}, 0), 0)) END"
)
_SUBSTRING_TO_END = template(f"CASE WHEN :p IS NOT NULL THEN substring(:s, greatest({_START}, 0) + 1) END")
_PAD = (
    "CASE WHEN :pad IS NULL THEN NULL WHEN :pad = '' OR :n <= length(:s) "
    "THEN substring(:s, 1, greatest(:n, 0)) ELSE {fn}(:s, :n, :pad) END"
)
# Spark finds the empty string at 1 whatever the start (UTF8String.indexOf returns 0).
_LOCATE = template(
    "CASE WHEN :sub = '' AND :s IS NOT NULL THEN 1 WHEN instr(substring(:s, :p), :sub) = 0 THEN 0 "
    "ELSE instr(substring(:s, :p), :sub) + :p - 1 END"
)
_LOCATE_BEFORE_START = template("CASE WHEN :s IS NULL OR :sub IS NULL THEN NULL ELSE 0 END")


def _substring(args: list[exp.Expr]) -> exp.Expr:
    if len(args) != 3:
        arity("substring", args, 2)
    text, start = cast(args[0], "VARCHAR"), args[1]
    if isinstance(start, exp.Literal) and start.is_int and int(start.this) >= 0:
        # The usual case, a start written as a number from 0 on: Spark's 0 is its 1, and
        # from 1 on DuckDB's substring agrees. The general form costs Q22 a third of its time.
        first = exp.Literal.number(max(int(start.this), 1))
        if len(args) == 2:
            return exp.Anonymous(this="substring", expressions=[text, first])
        return exp.Anonymous(this="substring", expressions=[text, first, _non_negative(args[2])])
    if len(args) == 3:
        return _SUBSTRING(s=text, p=start, n=args[2])
    return _SUBSTRING_TO_END(s=text, p=start)


def _non_negative(length: exp.Expr) -> exp.Expr:
    """A length below 0 takes nothing in Spark; DuckDB's substring counts it backwards."""
    if isinstance(length, exp.Literal) and length.is_int and int(length.this) >= 0:
        return length
    return exp.Greatest(this=length, expressions=[exp.Literal.number(0)])


def _regexp_replace(args: list[exp.Expr]) -> exp.Expr:
    arity("regexp_replace", args, 4)  # the 4th, the position, is 1 (planner.logical.literal_args)
    rewrite = java_replacement(literal_text(args[2], "regexp_replace's replacement"))
    return exp.Anonymous(
        this="regexp_replace",
        expressions=[args[0], args[1], exp.Literal.string(rewrite), exp.Literal.string("g")],
    )


def _locate(args: list[exp.Expr]) -> exp.Expr:
    arity("locate", args, 3)
    sub, s, start = args
    position = literal_int(start, "locate's position")
    if position < 1:
        return _LOCATE_BEFORE_START(s=s, sub=sub)
    if position == 1:
        return exp.Anonymous(this="instr", expressions=[s, sub])
    return _LOCATE(s=s, sub=sub, p=start)


def _format_string(args: list[exp.Expr]) -> exp.Expr:
    if not args:
        raise CompileError("format_string takes a format")
    parts = format_string.parse(literal_text(args[0], "format_string's format"))
    values = iter(args[1:])
    pieces: list[exp.Expr] = []
    for part in parts:
        if isinstance(part, str):
            pieces.append(exp.Literal.string(part))
            continue
        value = next(values, None)
        if value is None:
            raise CompileError("format_string has fewer arguments than directives")
        if part.conversion == "s":
            value = cast(value, "VARCHAR")
        printed = exp.Anonymous(this="printf", expressions=[exp.Literal.string(part.printf), value])
        null = exp.Anonymous(
            this="printf", expressions=[exp.Literal.string(part.null_printf), exp.Literal.string("null")]
        )
        pieces.append(exp.Coalesce(this=printed, expressions=[null]))
    result: exp.Expr = pieces[0] if pieces else exp.Literal.string("")
    for piece in pieces[1:]:
        result = exp.DPipe(this=result, expression=piece, safe=False)
    return result


def _concat_ws(args: list[exp.Expr]) -> exp.Expr:
    if len(args) < 2:
        raise CompileError("concat_ws takes a separator and at least one column")
    return exp.Anonymous(this="concat_ws", expressions=[cast(a, "VARCHAR") for a in args])


def _named(name: str, n: int) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(name, args, n)
        return exp.Anonymous(this=name, expressions=args)

    return build


TEXT_CALLS: dict[str, Builder] = {
    "substring": _substring,
    "substr": _substring,
    "concat_ws": _concat_ws,
    "lpad": over(_PAD.format(fn="lpad"), "s", "n", "pad"),
    "rpad": over(_PAD.format(fn="rpad"), "s", "n", "pad"),
    "regexp_replace": _regexp_replace,
    "regexp_extract": _named("regexp_extract", 3),
    "rlike": _named("regexp_matches", 2),
    "instr": _named("instr", 2),
    "locate": _locate,
    "format_string": _format_string,
    "startswith": _named("starts_with", 2),
    "endswith": _named("ends_with", 2),
    "contains": _named("contains", 2),
    "eq_null_safe": over(":a IS NOT DISTINCT FROM :b", "a", "b"),
}
