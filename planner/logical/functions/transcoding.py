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
- ``to_binary(s, fmt)`` reads hex digits (the default; an odd count gets a leading 0),
  UTF-8 or base64 (whitespace among the digits skipped, padding optional but exact when
  given) into bytes; malformed text fails with
  ``CONVERSION_INVALID_INPUT``, where ``try_to_binary`` is NULL;
- ``typeof`` is Spark's ``simpleString`` of its argument's type, known when the query is
  analyzed (``planner.logical.typed_calls`` adds it to the call);
- ``jaro_winkler_similarity`` is the Jaro similarity plus Winkler's boost (0.1 for each
  character of a common prefix of at most 4), the boost applied whatever the similarity; 1 for two empty strings.
"""

from __future__ import annotations

from typing import cast

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr, Lit, ScalarFunction
from sparkwire.planner.logical.functions.base import Function, allowed, checked_call, option, plain, shown

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


#: ``to_binary``'s formats, in any case (the worker reads them so too).
BINARY_FORMATS = frozenset({"hex", "utf-8", "utf8", "base64"})


def _binary(name: str) -> Function:
    fn = cast(ScalarFunction, allowed(name, ScalarFunction))

    def build(string: Expr, fmt: Expr | None = None) -> Expr:
        if fmt is None:
            return checked_call(fn, string)
        value = option(fmt)
        if not isinstance(value, str) or value.lower() not in BINARY_FORMATS:
            raise AnalysisError(f"{name} takes the format 'hex', 'utf-8', 'utf8' or 'base64' as a "
                                f"literal, got {shown(fmt)}")
        return checked_call(fn, string, fmt)

    return Function.of(name, build)


FUNCTIONS = (Function.of("mask", mask), _binary("to_binary"), _binary("try_to_binary")) + tuple(
    plain(name) for name in ("url_encode", "url_decode", "try_url_decode", "is_valid_utf8",
                             "make_valid_utf8", "validate_utf8", "try_validate_utf8", "quote",
                             "typeof")
) + (plain("jaro_winkler_similarity", 2),)
