"""``hmac(key, message, algorithm)``: a message's HMAC (RFC 2104) as binary, with Spark's
semantics (the worker's builder: ``coordinator.worker.compile.calls_hmac``); checked
against PySpark (``tests/spark/test_macs.py``).

- ``key`` and ``message`` are binaries (strings cast to their UTF-8 bytes, as Spark casts
  them implicitly, hidden from the name); either NULL gives NULL; an empty key fails the
  query (Java's ``Mac`` refuses it: ``HMAC_CRYPTO_ERROR``);
- ``algorithm`` is a string literal (PySpark's default ``SHA-256``), read as Spark reads it:
  in any case, with or without its ``-``. MD5, SHA-1 and SHA-256 work; SHA-224, SHA-384 and
  SHA-512 are refused, as DuckDB has no such digest to build them from; any other name is
  Spark's ``INVALID_PARAMETER_VALUE.HMAC_ALGORITHM``, raised when the query is planned.
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Cast, Expr, Lit
from sparkwire.planner.logical.functions.base import Function, checked_call, option, shown

#: Spark's algorithm names (without the ``-``), and the digest each is built from here.
DIGESTS = {"MD5": "md5", "SHA1": "sha1", "SHA256": "sha256"}
_NO_DIGEST = frozenset({"SHA224", "SHA384", "SHA512"})
_DEFAULT = Lit(value="SHA-256")


def hmac(key: Expr, message: Expr, algorithm: Expr = _DEFAULT) -> Expr:
    name = option(algorithm)
    if not isinstance(name, str):
        raise AnalysisError(f"hmac takes a string literal algorithm here (a column is not supported by "
                            f"sparkwire), got {shown(algorithm)}")
    plain = name.upper()
    if plain.startswith("SHA-"):
        plain = "SHA" + plain.removeprefix("SHA-")
    if plain in _NO_DIGEST:
        raise AnalysisError(f"hmac with {name} is not supported by sparkwire: DuckDB has no {name} digest "
                            "to build it from (MD5, SHA-1 and SHA-256 work)")
    if plain not in DIGESTS:
        raise AnalysisError(
            "[INVALID_PARAMETER_VALUE.HMAC_ALGORITHM] The value of parameter(s) `algorithm` in `hmac` is "
            "invalid: expects one of the algorithms 'SHA-224', 'SHA-256', 'SHA-384', 'SHA-512', 'SHA-1', "
            f"'MD5', but got '{name}'.")
    return checked_call("hmac", Cast(expr=key, to="binary"), Cast(expr=message, to="binary"), algorithm)


FUNCTIONS = (Function.of("hmac", hmac),)
