"""URL, UTF-8 and quoting functions of the registry, and ``typeof``, with Spark's semantics
(the worker's builders: ``coordinator.worker.compile.calls_transcoding``); each checked
against PySpark (``tests/spark/test_formats.py``):

- ``url_encode`` is Java's ``URLEncoder`` in UTF-8: letters, digits and ``.-*_`` kept,
  a space ``+``, every other byte ``%XX`` (upper case); ``url_decode`` its inverse (``+`` a
  space), failing with ``CANNOT_DECODE_URL`` on a ``%`` not followed by two hex digits, where
  ``try_url_decode`` is NULL. Escapes that decode to invalid UTF-8 (Java writes U+FFFD)
  fail the query, and are NULL for ``try_url_decode``;
- ``is_valid_utf8``, ``make_valid_utf8``, ``validate_utf8`` and ``try_validate_utf8`` take
  strings, which in Arrow are valid UTF-8 by construction: true, and the string itself; of
  a binary they are refused (Spark casts the bytes to a string that may be invalid);
- ``quote`` wraps a string in single quotes, a ``'`` inside escaped by ``\\`` (a ``\\`` is not);
- ``mask`` replaces each upper-case letter (Unicode's Lu), lower-case letter (Ll) and
  decimal digit (Nd) by its replacement (``X``, ``x``, ``n``), any other character by the
  fourth (none by default); a NULL replacement keeps its class. Java also counts the few
  "other" upper- and lower-case symbols (circled letters, Roman numerals, ``ª``) as letters,
  which are kept here;
- ``typeof`` is Spark's ``simpleString`` of its argument's type, known when the query is
  analyzed (``planner.logical.typed_calls`` adds it to the call);
- ``jaro_winkler_similarity`` is the Jaro similarity plus Winkler's boost (0.1 for each
  character of a common prefix of at most 4), the boost applied whatever the similarity; 1 for two empty strings.
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr, Lit
from sparkwire.planner.logical.functions.base import Function, checked_call, option, plain, shown

_UPPER, _LOWER, _DIGIT, _OTHER = Lit(value="X"), Lit(value="x"), Lit(value="n"), Lit(value=None)


def mask(string: Expr, upper: Expr = _UPPER, lower: Expr = _LOWER, digit: Expr = _DIGIT,
         other: Expr = _OTHER) -> Expr:
    """Each replacement is one character, or NULL to keep that class as it is (literals,
    as Spark requires them)."""
    for replacement in (upper, lower, digit, other):
        value = option(replacement)
        if value is not None and not (isinstance(value, str) and len(value) == 1):
            raise AnalysisError(f"mask takes one-character literals (or NULL) as replacements, "
                                f"got {shown(replacement)}")
    return checked_call("mask", string, upper, lower, digit, other)


FUNCTIONS = (Function.of("mask", mask),) + tuple(
    plain(name) for name in ("url_encode", "url_decode", "try_url_decode", "is_valid_utf8",
                             "make_valid_utf8", "validate_utf8", "try_validate_utf8", "quote",
                             "typeof")
) + (plain("jaro_winkler_similarity", 2),)
