"""SQL calls of the elementary math, bitwise, digest and encoding functions
(``planner.logical.functions.elementary``, ``bits``, ``encodings``): the node classes
sqlglot parses them into, and the names it leaves anonymous, merged into
``planner.sql.functions``' tables.

sqlglot reads ``sha`` and ``sha1`` into one node, and ``bit_get`` and ``getbit`` into
another: they mean the same and are named ``sha1(x)`` and ``bit_get(x, p)`` here; ``x << n``
and ``x >> n`` are ``shiftleft``/``shiftright`` (Spark names them ``(x << n)``).
"""

from __future__ import annotations

from sqlglot import exp

#: node class -> (the node's arguments, in order, that are the call's) and the registry's name
MATH_CLASSES: dict[type[exp.Expr], tuple[tuple[str, ...], str]] = {
    **{cls: (("this",), cls.__name__.lower()) for cls in (
        exp.Sin, exp.Cos, exp.Tan, exp.Asin, exp.Acos, exp.Sinh, exp.Cosh, exp.Tanh, exp.Asinh,
        exp.Acosh, exp.Atanh, exp.Cot, exp.Sec, exp.Csc, exp.Degrees, exp.Radians, exp.Cbrt,
        exp.Rint, exp.Factorial, exp.Negative, exp.MD5, exp.Hex, exp.Unhex)},
    exp.Atan: (("this",), "atan"),
    exp.Atan2: (("this", "expression"), "atan2"),
    exp.Pi: ((), "pi"),
    exp.WidthBucket: (("this", "min_value", "max_value", "num_buckets"), "width_bucket"),
    exp.SHA: (("this",), "sha1"),
    exp.SHA2: (("this", "length"), "sha2"),
    exp.ToBase64: (("this",), "base64"),
    exp.FromBase64: (("this",), "unbase64"),
    exp.BitwiseCount: (("this",), "bit_count"),
    exp.Getbit: (("this", "expression"), "bit_get"),
    exp.BitwiseLeftShift: (("this", "expression"), "shiftleft"),
    exp.BitwiseRightShift: (("this", "expression"), "shiftright"),
    exp.BitwiseNot: (("this",), "bitwise_not"),
    exp.BitwiseAnd: (("this", "expression"), "bitwise_and"),
    exp.BitwiseOr: (("this", "expression"), "bitwise_or"),
    exp.BitwiseXor: (("this", "expression"), "bitwise_xor"),
    exp.BitwiseAndAgg: (("this",), "bit_and"),
    exp.BitwiseOrAgg: (("this",), "bit_or"),
    exp.BitwiseXorAgg: (("this",), "bit_xor"),
}
#: The ones sqlglot leaves as anonymous calls, resolved by their own names.
MATH_NAMES = frozenset({
    "expm1", "positive", "bin", "hypot", "e", "shiftrightunsigned", "sha", "getbit",
})
