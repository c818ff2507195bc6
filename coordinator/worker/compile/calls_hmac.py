"""``hmac(key, message, algorithm)`` (``planner.logical.functions.macs``): RFC 2104 over
DuckDB's digests, which give hex text (``unhex`` makes it bytes again).

With ``H`` the digest and ``B`` = 64 its block (the same for MD5, SHA-1 and SHA-256): a key
longer than ``B`` is ``H(key)``; the key, padded with zero bytes to ``B``, is XORed with
``0x36`` (inner) and ``0x5c`` (outer) byte by byte, over its hex text; the answer is
``H(outer || H(inner || message))``. An empty key fails the query, as Java's ``Mac`` does.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity, literal_text
from sparkwire.coordinator.worker.compile.errors import raise_error
from sparkwire.coordinator.worker.compile.templates import template
from sparkwire.planner.logical.functions.macs import DIGESTS

__all__ = ["HMAC_CALLS"]

_BLOCK = 64
#: The key, padded with zero bytes to the block, as hex text (``H(key)`` if it is longer).
_PADDED = (f"rpad(hex(CASE WHEN octet_length(:k) > {_BLOCK} THEN unhex(:digest_of_key) ELSE :k END), "
           f"{2 * _BLOCK}, '0')")
_XORED = ("unhex(array_to_string(list_transform(range(0, {block}), __sparkwire_i -> printf('%02x', "
          "xor(CAST('0x' || substr({padded}, 2 * __sparkwire_i + 1, 2) AS INTEGER), {pad}))), ''))")
_INNER = template(_XORED.format(block=_BLOCK, padded=_PADDED, pad=0x36) + " || :m")
_OUTER = template(_XORED.format(block=_BLOCK, padded=_PADDED, pad=0x5C) + " || :inner_digest")
_HMAC = template("CASE WHEN octet_length(:k) = 0 THEN :empty ELSE unhex(:outer_digest) END")
_EMPTY_KEY = ("The value of parameter(s) `key` in `hmac` is invalid: detail message: Empty key")


def _hmac(args: list[exp.Expr]) -> exp.Expr:
    arity("hmac", args, 3)
    algorithm = literal_text(args[2], "hmac's algorithm").upper()
    digest = DIGESTS[algorithm.replace("SHA-", "SHA")]
    key, message = args[0], args[1]
    key_digest = exp.Anonymous(this=digest, expressions=[key.copy()])
    inner = exp.func("unhex", exp.Anonymous(this=digest, expressions=[
        _INNER(k=key, digest_of_key=key_digest, m=message)]))
    outer = exp.Anonymous(this=digest, expressions=[_OUTER(k=key, digest_of_key=key_digest, inner_digest=inner)])
    return _HMAC(k=key, empty=raise_error("INVALID_PARAMETER_VALUE.HMAC_CRYPTO_ERROR", _EMPTY_KEY), outer_digest=outer)


HMAC_CALLS: dict[str, Builder] = {"hmac": _hmac}
