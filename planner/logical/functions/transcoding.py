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
- ``typeof`` is Spark's ``simpleString`` of its argument's type, known when the query is
  analyzed (``planner.logical.typed_calls`` adds it to the call);
- ``jaro_winkler_similarity`` is the Jaro similarity plus Winkler's boost (0.1 for each
  character of a common prefix of at most 4), the boost applied whatever the similarity; 1 for two empty strings.
"""

from __future__ import annotations

from sparkwire.planner.logical.functions.base import plain

FUNCTIONS = tuple(
    plain(name) for name in ("url_encode", "url_decode", "try_url_decode", "is_valid_utf8",
                             "make_valid_utf8", "validate_utf8", "try_validate_utf8", "quote",
                             "typeof")
) + (plain("jaro_winkler_similarity", 2),)
