"""``parse_url`` and ``try_parse_url`` (``planner.logical.functions.urls``): Spark reads the
URL with ``java.net.URI`` (RFC 2396 with Java's deviations) and answers its raw parts;
here the same grammar is written as RE2 patterns over the text.

- the scheme is the text before the first ``:`` that comes before any ``/?#`` (it must be
  ``ALPHA *(ALPHA | DIGIT | + - .)``); after it, text not starting with ``/`` is opaque
  (``mailto:x``): it has a scheme and a fragment, no host, path or query;
- every part allows its RFC 2396 characters, ``%`` with two hex digits, and any non-ASCII
  character that is neither a space nor a control (Java's "other"); anything else, a
  malformed escape, ``scheme://`` with nothing after, makes the URL invalid: ``INVALID_URL``
  under ANSI (``parse_url``), NULL otherwise and for ``try_parse_url``;
- an authority is server-based (``[userinfo@]host[:port]``: a hostname whose last of
  several labels starts with a letter, an IPv4 address of four bytes up to 255, or a
  bracketed IPv6 address; a port up to 2^31 - 1) when it parses so, else registry-based if
  its characters allow (no host, no user info, the authority as it is), else invalid; an
  empty authority (``file:///x``) is NULL;
- ``FILE`` is the path and ``?query``; ``QUERY`` with a key is the value of the first
  ``key=`` pair (Spark's ``(&|^)key=([^&]*)``); an unknown part is NULL, and so is the
  answer where an argument is NULL (the URL is not read then).

Bracketed IPv6 addresses are checked against RFC 4291's forms, which may differ from
Java's parser on malformed ones.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import ModeBuilder
from sparkwire.coordinator.worker.compile.errors import CompileError, raise_error
from sparkwire.coordinator.worker.compile.templates import template

__all__ = ["URL_MODE_CALLS"]

_ESCAPED = r"%[0-9A-Fa-f]{2}"
_OTHER = r"[^\x00-\x7F\p{Zs}\p{Zl}\p{Zp}\x{80}-\x{9F}]"
_MARKS = r"A-Za-z0-9\-_.!~*'()"


def _chars(allowed: str) -> str:
    return rf"(?:[{allowed}{_MARKS}]|{_ESCAPED}|{_OTHER})"


_URIC = _chars(r";/?:@&=+$,\[\]")
_URIC_NO_SLASH = _chars(r";?:@&=+$,\[\]")
_PATH = _chars(r";/:@&=+$,")
_USERINFO = _chars(r";:&=+$,")
_REGISTRY = _chars(r"$,;:@&=+")
_SERVER = _chars(r";:&=+$,@\[\]")
_SCHEME = r"[A-Za-z][A-Za-z0-9+.\-]*"
_TAIL = rf"(?:\?{_URIC}*)?(?:#{_URIC}*)?"
_BYTE = r"0*(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4 = rf"{_BYTE}\.{_BYTE}\.{_BYTE}\.{_BYTE}"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?"
_TOP = r"[A-Za-z](?:[A-Za-z0-9\-]*[A-Za-z0-9])?"
_HOSTNAME = rf"(?:{_LABEL}\.?|(?:{_LABEL}\.)+{_TOP}\.?)"
_H = r"[0-9A-Fa-f]{1,4}"
_V4 = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(?:\.(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}"
_IPV6 = "|".join([
    rf"(?:{_H}:){{7}}{_H}", rf"(?:{_H}:){{1,7}}:", rf"(?:{_H}:){{1,6}}:{_H}",
    *(rf"(?:{_H}:){{1,{k}}}(?::{_H}){{1,{7 - k}}}" for k in range(1, 6)), rf":(?:(?::{_H}){{1,7}}|:)",
    rf"(?:{_H}:){{6}}{_V4}", rf"::(?:{_H}:){{0,5}}{_V4}", rf"(?:{_H}:){{1,5}}:(?:{_H}:){{0,4}}{_V4}",
])
_HOST = rf"(?:{_IPV4}|{_HOSTNAME}|\[(?:{_IPV6})\])"
_SERVER_AUTHORITY = rf"^(?:{_USERINFO}*@)?({_HOST})(?::[0-9]*)?$"

_PATTERNS = {
    "has_scheme": r"^[^/?#]*:",
    "opaque": rf"^{_SCHEME}:{_URIC_NO_SLASH}{_URIC}*(?:#{_URIC}*)?$",
    "schemed": rf"^{_SCHEME}:/(?:/{_SERVER}*)?{_PATH}*{_TAIL}$",
    "plain": rf"^(?://{_SERVER}*)?{_PATH}*{_TAIL}$",
    "bare": rf"^(?:{_SCHEME}:)?//$",
    "authority": r"^(?:[^:/?#]+:)?//([^/?#]+)",
    "parts": r"^(?:[^:/?#]+:)?(?://[^/?#]*)?([^?#]*)(?:\?([^#]*))?",
    "query": r"^[^#]*\?",
    "server": _SERVER_AUTHORITY,
    "registry": rf"^{_REGISTRY}+$",
    "port": r":([0-9]+)$",
}
_P = {name: exp.Literal.string(pattern) for name, pattern in _PATTERNS.items()}

_VALID = template(
    "CASE WHEN regexp_matches(:u, :has_scheme) THEN regexp_matches(:u, :opaque) OR regexp_matches(:u, :schemed) "
    "ELSE regexp_matches(:u, :plain) END AND NOT regexp_matches(:u, :bare) "
    "AND (NOT regexp_matches(:u, :authority) OR :server_ok OR regexp_matches(:a, :registry))")
_HIERARCHICAL = template("NOT regexp_matches(:u, :opaque)")
_AUTHORITY = template("CASE WHEN regexp_matches(:u, :authority) THEN regexp_extract(:u, :authority, 1) END")
_SERVER_OK = template(
    "coalesce(regexp_matches(:a, :server) AND (regexp_extract(:a, :port, 1) = '' "
    "OR coalesce(try_cast(regexp_extract(:a, :port, 1) AS HUGEINT) <= 2147483647, false)), false)")
_QUERY = template("CASE WHEN :hier AND regexp_matches(:u, :query) THEN regexp_extract(:u, :parts, 2) END")
_PATH_PART = template("CASE WHEN :hier THEN regexp_extract(:u, :parts, 1) END")
_PARTS = {
    "HOST": template("CASE WHEN :server_ok THEN regexp_extract(:a, :server, 1) END"),
    "PATH": _PATH_PART,
    "QUERY": _QUERY,
    "REF": template("CASE WHEN contains(:u, '#') THEN regexp_extract(:u, '^[^#]*#(.*)$', 1) END"),
    "PROTOCOL": template("CASE WHEN regexp_matches(:u, :has_scheme) THEN regexp_extract(:u, '^([^:/?#]*):', 1) END"),
    "FILE": template("CASE WHEN :q IS NULL THEN :path ELSE :path || '?' || :q END"),
    "AUTHORITY": template("CASE WHEN :hier THEN :a END"),
    "USERINFO": template("CASE WHEN :server_ok AND contains(:a, '@') THEN regexp_extract(:a, '^([^@]*)@', 1) END"),
}
_KEYED = template(
    "CASE WHEN regexp_matches(:q, '(&|^)' || regexp_escape(:k) || '=([^&]*)') "
    "THEN regexp_extract(:q, '(&|^)' || regexp_escape(:k) || '=([^&]*)', 2) END")
_ANSWER = template(
    "CASE WHEN :u IS NULL OR :p IS NULL OR :k IS NULL THEN NULL WHEN :valid THEN :part ELSE :invalid END")


_NO_TEXT = exp.cast(exp.Null(), "VARCHAR")


def _chosen(part: exp.Expr, values: dict[str, exp.Expr]) -> exp.Expr:
    """The value of the part ``part`` names: picked now when it is a literal, else chosen
    per row; NULL for a name Spark does not know."""
    if isinstance(part, exp.Literal) and part.is_string:
        return values.get(part.name, _NO_TEXT.copy())
    return exp.Case(ifs=[exp.If(this=exp.EQ(this=part.copy(), expression=exp.Literal.string(name)), true=value)
                         for name, value in values.items()], default=_NO_TEXT.copy())


def _parse_url(fn: str) -> ModeBuilder:
    def build(args: Sequence[exp.Expr], ansi: bool) -> exp.Expr:
        if len(args) not in (2, 3):
            raise CompileError(f"{fn} takes 2 or 3 arguments, got {len(args)}")
        url, part = args[0], args[1]
        nodes = {name: node.copy() for name, node in _P.items()}
        authority = _AUTHORITY(u=url, **nodes)
        server_ok = _SERVER_OK(a=authority, **nodes)
        hier = _HIERARCHICAL(u=url, **nodes)
        query = _QUERY(u=url, hier=hier, **nodes)
        values = {"u": url, "a": authority, "server_ok": server_ok, "hier": hier, "q": query,
                  "path": _PATH_PART(u=url, hier=hier, **nodes), **nodes}
        if len(args) == 3:
            value = _chosen(part, {"QUERY": _KEYED(q=query, k=args[2])})
        else:
            value = _chosen(part, {name: build_part(**values) for name, build_part in _PARTS.items()})
        failing = ansi and fn == "parse_url"
        invalid = raise_error("INVALID_URL", "The url is invalid: ", url.copy(), ". Use \"try_parse_url\" to "
                              "tolerate invalid URL and return NULL instead.") if failing else exp.Null()
        key = args[2] if len(args) == 3 else exp.Literal.string("")
        valid = _VALID(u=url, a=authority, server_ok=server_ok, **nodes)
        return _ANSWER(u=url, p=part.copy(), k=key, valid=valid, part=value, invalid=invalid)

    return build


URL_MODE_CALLS: dict[str, ModeBuilder] = {"parse_url": _parse_url("parse_url"),
                                          "try_parse_url": _parse_url("try_parse_url")}
