"""``to_number``/``try_to_number(text, format)`` (``planner.spark.number_formats``, where
Spark's rules are written down): the trimmed text matched against the format's pattern, its
digits read as the format's decimal; a mismatch fails the query as Spark's
``INVALID_FORMAT.MISMATCH_INPUT`` (``to_number``) or is NULL (``try_to_number``)."""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity, literal_text
from sparkwire.coordinator.worker.compile.errors import CompileError, raise_error
from sparkwire.coordinator.worker.compile.templates import template
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.spark import number_formats

__all__ = ["NUMBER_FORMAT_CALLS"]

_G = {name: f"regexp_extract(trim(:s), :p, {i})" for i, name in
      enumerate(("open", "lead", "whole", "fraction", "trail", "close"), 1)}
_VALID = (f"regexp_full_match(trim(:s), :p) AND ({_G['whole']} <> '' OR {_G['fraction']} <> '') "
          f"AND ({_G['open']} = '<') = ({_G['close']} = '>')")
_NEGATIVE = f"({_G['lead']} = '-' OR {_G['trail']} = '-' OR {_G['open']} = '<')"
_DIGITS = template(
    f"CASE WHEN {_NEGATIVE} THEN '-' ELSE '' END || coalesce(nullif(replace({_G['whole']}, ',', ''), ''), '0') "
    f"|| '.' || {_G['fraction']} || '0'")
_NUMBER = template(f"CASE WHEN :s IS NULL THEN NULL WHEN {_VALID} THEN :value ELSE :mismatch END")


def _to_number(fn: str) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(fn, args, 2)
        text = literal_text(args[1], f"{fn}'s format")
        try:
            parsed = number_formats.parse(text)
        except AnalysisError as exc:
            raise CompileError(str(exc)) from None
        mismatch = exp.Null() if fn == "try_to_number" else raise_error(
            "INVALID_FORMAT.MISMATCH_INPUT", f"The format is invalid: {text}. The input \"STRING\" ",
            args[0].copy(), " does not match the format.")
        pattern = exp.Literal.string(parsed.pattern)
        value = exp.cast(_DIGITS(s=args[0], p=pattern), f"DECIMAL({parsed.precision}, {parsed.scale})")
        return _NUMBER(s=args[0], p=pattern, value=value, mismatch=mismatch)

    return build


NUMBER_FORMAT_CALLS: dict[str, Builder] = {fn: _to_number(fn) for fn in ("to_number", "try_to_number")}
