"""More string functions of the registry: pieces, searches, regular expressions, bytes.

Spark's semantics, kept by the worker's builders (``coordinator.worker.compile.calls_texts``)
where DuckDB's function of the same name differs; each checked against PySpark
(``tests/spark/test_texts.py``):

- lengths and positions count characters (code points), ``octet_length``/``bit_length``
  the UTF-8 bytes; ``left``/``right``/``repeat`` of a negative count give ``''``;
- ``chr``/``char`` of ``n`` is the character ``n mod 256`` (``''`` for a negative ``n``);
  ``ascii`` the code point of the first character, 0 for ``''``;
- ``split_part`` counts a negative part from the end, gives ``''`` past either end, the
  whole string for an empty delimiter (parts 1 and -1 only) and fails for part 0
  (``INVALID_INDEX_OF_ZERO``, in either ANSI mode); ``substring_index`` gives ``''`` for a
  count of 0 or an empty delimiter, and does not count overlapping delimiters (Spark does:
  ``substring_index('aaa', 'aa', 2)``);
- ``overlay(s, r, pos, len)`` is ``s`` before ``pos``, ``r``, then ``s`` from ``pos + len``
  as ``substring`` reads positions; a negative ``len`` is ``r``'s length;
- ``levenshtein`` with a threshold is -1 beyond it; ``find_in_set`` is 0 for a string
  holding a comma; ``elt`` past its strings is NULL, or with ANSI on
  ``INVALID_ARRAY_INDEX``;
- regular expressions are Java's, checked as ``rlike``'s; ``regexp_substr`` is NULL where
  nothing (or only ``''``) matches, ``regexp_instr`` the 1-based start of the first match
  (0 for none; group 0 only), ``regexp_count`` the non-overlapping matches;
- ``encode``/``decode`` take UTF-8 only; ``decode`` of invalid UTF-8 fails the query where
  Spark writes U+FFFD; ``reverse`` keeps a base character with its combining marks (DuckDB
  reverses grapheme clusters, Spark code points) and takes strings, not arrays;
- ``uuid()`` is a random version-4 UUID per row, as text.
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr, Lit
from sparkwire.planner.logical.functions.base import Function, checked_call, plain

_WHOLE_REPLACE = Lit(value=-1)  # overlay's len: the replacement's length
_NOTHING = Lit(value="")
_FIRST = Lit(value=1)
_MATCH = Lit(value=0)


def overlay(string: Expr, replacement: Expr, position: Expr, length: Expr = _WHOLE_REPLACE) -> Expr:
    return checked_call("overlay", string, replacement, position, length)


def levenshtein(left: Expr, right: Expr, threshold: Expr | None = None) -> Expr:
    extra = () if threshold is None else (threshold,)
    return checked_call("levenshtein", left, right, *extra)


def btrim(string: Expr, characters: Expr | None = None) -> Expr:
    return checked_call("btrim", string, *(() if characters is None else (characters,)))


def replace(string: Expr, search: Expr, replacement: Expr = _NOTHING) -> Expr:
    return checked_call("replace", string, search, replacement)


def position(substring: Expr, string: Expr, start: Expr = _FIRST) -> Expr:
    return checked_call("position", substring, string, start)


def regexp_extract_all(string: Expr, pattern: Expr, group: Expr = _FIRST) -> Expr:
    return checked_call("regexp_extract_all", string, pattern, group)


def regexp_instr(string: Expr, pattern: Expr, group: Expr = _MATCH) -> Expr:
    return checked_call("regexp_instr", string, pattern, group)


def elt(*args: Expr) -> Expr:
    if len(args) < 2:
        raise AnalysisError("elt takes an index and at least one string")
    return checked_call("elt", *args)


def printf(*args: Expr) -> Expr:
    if not args:
        raise AnalysisError("printf takes a format")
    return checked_call("printf", *args)


FUNCTIONS = (
    *(plain(name) for name in ("reverse", "ascii", "chr", "char", "octet_length", "bit_length",
                               "char_length", "character_length", "lcase", "ucase")),
    *(plain(name, 2) for name in ("left", "right", "repeat", "like", "ilike", "regexp_like", "regexp",
                                  "regexp_count", "regexp_substr", "find_in_set")),
    *(plain(name, 3) for name in ("translate", "split_part", "substring_index")),
    plain("encode", 2),
    plain("decode", 2),
    plain("uuid", 0),
    Function.of("overlay", overlay),
    Function.of("levenshtein", levenshtein),
    Function.of("btrim", btrim),
    Function.of("replace", replace),
    Function.of("position", position),
    Function.of("regexp_extract_all", regexp_extract_all),
    Function.of("regexp_instr", regexp_instr),
    Function.of("elt", elt),
    Function.of("printf", printf),
)
