"""``conv(s, from, to)`` (``planner.logical.functions.radix``): Spark's
``NumberConverter`` in DuckDB.

Spark trims the string's spaces, takes a leading ``-``, reads the longest prefix of digits
valid in base ``from`` (ASCII ``0-9``, ``a-z``, ``A-Z``; anything else ends it) as an
unsigned 64-bit number, then writes it in base ``|to|`` with upper-case digits:

- reading overflows only while the value so far is below 2^63 (Java's ``v >= bound`` is a
  signed comparison): then the answer is ``-1`` as unsigned (``FFFFFFFFFFFFFFFF``), or with
  ANSI on ``ARITHMETIC_OVERFLOW``; past 2^63 the digits wrap around modulo 2^64 unchecked;
- a ``-`` with ``to > 0`` negates the value modulo 2^64 (a value of 2^63 or more gives -1);
  with ``to < 0`` the value is read as signed: negative ones (and any after a ``-``) are
  written as ``-`` and their magnitude, so ``-0`` is ``-0``;
- an empty string, after trimming, is NULL; so is a base outside 2..36.

The value lives in a HUGEINT: ``_READ`` folds the digits (``list_reduce``), ``_WRITE``
divides the digits back out, at most 64 of them. What several parts read is computed once,
bound as a lambda's parameter (``list_transform([x], p -> ...)[1]``): written out each
time, the SQL grew so large that DuckDB took seconds to plan it.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import ModeBuilder, literal_int
from sparkwire.coordinator.worker.compile.errors import ANSI_HINT, CompileError, raise_error
from sparkwire.coordinator.worker.compile.nodes import cast
from sparkwire.coordinator.worker.compile.templates import template

__all__ = ["RADIX_MODE_CALLS"]

_TWO_64 = "18446744073709551616"
_TWO_63 = "9223372036854775808"
#: The trimmed text, and the digits after its sign, each its value (99 for a non-digit).
_TRIMMED = "trim(:s, ' ')"
_BODY = f"CASE WHEN starts_with({_TRIMMED}, '-') THEN substr({_TRIMMED}, 2) ELSE {_TRIMMED} END"
_VALUES = (f"list_transform(string_split({_BODY}, ''), __sparkwire_c -> CASE "
           "WHEN ascii(__sparkwire_c) BETWEEN 48 AND 57 THEN ascii(__sparkwire_c) - 48 "
           "WHEN ascii(__sparkwire_c) BETWEEN 65 AND 90 THEN ascii(__sparkwire_c) - 55 "
           "WHEN ascii(__sparkwire_c) BETWEEN 97 AND 122 THEN ascii(__sparkwire_c) - 87 ELSE 99 END)")
#: The digits before the first one invalid in base ``:r`` (the values bound once, as a lambda's).
_DIGITS = (f"list_transform([{_VALUES}], __sparkwire_vs -> list_slice(__sparkwire_vs, 1, coalesce(list_position("
           "list_transform(__sparkwire_vs, __sparkwire_d -> __sparkwire_d >= :r), true), len(__sparkwire_vs) + 1) "
           "- 1))[1]")
#: The unsigned value read, -1 where it overflowed (Java's ``encode``).
_READ = (f"list_reduce({_DIGITS}, (__sparkwire_v, __sparkwire_d) -> CASE WHEN __sparkwire_v < 0 "
         f"THEN __sparkwire_v WHEN __sparkwire_v < {_TWO_63} AND __sparkwire_v * :r + __sparkwire_d >= {_TWO_64} "
         f"THEN -1 ELSE (__sparkwire_v * :r + __sparkwire_d) % {_TWO_64} END, CAST(0 AS HUGEINT))")
_UNSIGNED = template(f"list_transform([{_READ}], __sparkwire_r -> CASE WHEN __sparkwire_r < 0 THEN :overflow "
                     "ELSE __sparkwire_r END)[1]")
_NEGATED = template(f"CASE WHEN :u >= {_TWO_63} THEN {_TWO_64} - 1 ELSE ({_TWO_64} - :u) % {_TWO_64} END")
#: ``:u`` (0 to 2^64 - 1) in base ``:t``, upper-case digits (Java's ``decode``).
_WRITE = template(
    "CASE WHEN :u = 0 THEN '0' ELSE list_reduce(range(0, 64), (__sparkwire_w, __sparkwire_i) -> "
    "CASE WHEN __sparkwire_w.q = 0 THEN __sparkwire_w ELSE {'q': __sparkwire_w.q // :t, "
    "'s': substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', CAST(__sparkwire_w.q % :t AS INTEGER) + 1, 1) "
    "|| __sparkwire_w.s} END, {'q': CAST(:u AS HUGEINT), 's': ''}).s END")
_SIGNED = template(f"CASE WHEN :u >= {_TWO_63} THEN '-' || :magnitude WHEN :negative THEN '-' || :digits "
                   "ELSE :digits END")
#: The text of the value, which ``:text`` reads as ``__sparkwire_u`` (computed once).
_CONV = template(f"CASE WHEN {_TRIMMED} = '' THEN NULL ELSE list_transform([:value], __sparkwire_u -> :text)[1] END")


def _conv(args: Sequence[exp.Expr], ansi: bool) -> exp.Expr:
    if len(args) != 3:
        raise CompileError("conv takes a string and two bases")
    s = args[0]
    source, target = (literal_int(a, "conv's base") for a in args[1:])
    if not (2 <= source <= 36 and 2 <= abs(target) <= 36):
        return cast(exp.Null(), "VARCHAR")
    r, t = exp.Literal.number(source), exp.Literal.number(abs(target))
    overflow = raise_error("ARITHMETIC_OVERFLOW", f"Overflow in function conv(). {ANSI_HINT}") if ansi \
        else exp.Literal.number("18446744073709551615")
    value: exp.Expr = exp.column("__sparkwire_u")
    negative = exp.func("starts_with", exp.func("trim", s.copy(), exp.Literal.string(" ")),
                        exp.Literal.string("-"))
    if target > 0:
        u = exp.Case(ifs=[exp.If(this=negative, true=_NEGATED(u=value))], default=value.copy())
        text = _WRITE(u=u, t=t)
    else:
        text = _SIGNED(u=value, negative=negative, digits=_WRITE(u=value.copy(), t=t),
                       magnitude=_WRITE(u=exp.Sub(this=exp.Literal.number(_TWO_64), expression=value.copy()), t=t))
    return _CONV(s=s, value=_UNSIGNED(s=s.copy(), r=r, overflow=overflow), text=text)


RADIX_MODE_CALLS: dict[str, ModeBuilder] = {"conv": _conv}
