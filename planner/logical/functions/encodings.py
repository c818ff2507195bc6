"""Digests and binary-to-text encodings of the registry, with Spark's semantics (the
worker's builders: ``coordinator.worker.compile.calls_encodings``):

- ``md5``, ``sha1``/``sha`` and ``sha2`` digest the bytes of a binary, or of a string's
  UTF-8, into lower-case hex; ``sha2`` takes 0 or 256 (SHA-256) as its bit length, a
  literal: 224, 384 and 512 are refused (DuckDB has no SHA-224/384/512), any other length
  is NULL as in Spark;
- ``base64`` encodes bytes (a string's UTF-8) with padding, no line breaks; ``unbase64``
  decodes to ``binary``, the padding optional as Java's decoder takes it;
- ``hex`` of an integer is the upper-case hex of its two's complement as a ``bigint``
  (``hex(-1)`` is 16 ``F``s), of a string or binary the upper-case hex of its bytes;
  ``unhex`` decodes hex digits (an odd count gets a leading 0) to ``binary``, NULL for any
  other character; ``bin`` is the binary digits of a ``bigint``'s two's complement.

- ``to_base32`` encodes bytes (a string's UTF-8) in RFC 4648's base32, ``=`` padded;
  ``from_base32`` decodes to ``binary`` as Apache Commons' lenient decoder does (case
  ignored, characters outside the alphabet skipped, a last partial byte dropped).

``crc32``, ``hash`` and ``xxhash64`` are refused with their reason
(``planner.api.refused``); ``conv`` is not written yet.
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr, Lit
from sparkwire.planner.logical.functions.base import Function, checked_call, int_option, plain, shown

#: SHA-2 bit lengths Spark knows that DuckDB cannot compute.
_UNSUPPORTED_SHA2 = frozenset({224, 384, 512})


def sha2(value: Expr, bits: Expr) -> Expr:
    """``sha2(x, 256)`` (or 0); a length Spark does not know is NULL, as in Spark."""
    length = int_option(bits)
    if length is None:
        raise AnalysisError(f"sha2 takes an int literal bit length, got {shown(bits)}")
    if length in _UNSUPPORTED_SHA2:
        raise AnalysisError(f"sha2 with {length} bits is not supported by sparkwire "
                            "(DuckDB has SHA-256 only); use 256")
    return checked_call("sha2", value, Lit(value=length))


FUNCTIONS = (
    *(plain(name) for name in ("md5", "sha1", "base64", "unbase64", "hex", "unhex", "bin")),
    plain("sha"),
    Function.of("sha2", sha2),
    plain("to_base32"),
    plain("from_base32"),
)
