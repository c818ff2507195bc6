"""Types of the later string functions, the NULL functions, ``try_`` arithmetic and the math,
bit and encoding functions (``MATH_RESULT``), as Spark
SQL types them (``planner.logical.types`` asks here for these, as it asks
``collection_types`` for collections).

Rules (Spark's):

- ``ascii``, the lengths, ``levenshtein``, ``find_in_set``, ``position``, ``regexp_count``
  and ``regexp_instr`` are ``int32``; ``ilike``, ``regexp_like``/``regexp`` and
  ``equal_null`` ``bool``; ``encode`` is ``binary``; ``regexp_extract_all`` is
  ``array<string>``; the other string functions give strings;
- ``nvl``/``ifnull``/``nvl2`` and ``zeroifnull`` take the common type of their values
  (``zeroifnull`` with an ``int``), ``nullif``/``nullifzero`` their first argument's;
- ``try_add``/``try_subtract``/``try_multiply``/``try_mod`` are typed as ``+ - * %``,
  ``try_divide`` as ``/``; ``try_divide`` of a decimal is refused.

A string function of a collection (``reverse`` of an array) is refused naming the type.
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import time_types
from sparkwire.planner.logical.expressions import Call
from sparkwire.planner.spark.timezones import INSTANT, WALL_CLOCK

_INT32 = frozenset({
    "ascii", "octet_length", "bit_length", "char_length", "character_length", "levenshtein",
    "find_in_set", "position", "regexp_count", "regexp_instr",
})
_BOOL = frozenset({"ilike", "regexp_like", "regexp", "equal_null"})
_STRING = frozenset({
    "left", "right", "repeat", "reverse", "chr", "char", "btrim", "translate", "overlay",
    "split_part", "substring_index", "printf", "regexp_substr", "elt", "lcase", "ucase",
    "replace", "decode", "uuid",
})
#: Functions whose value differs between calls on the same row: a condition holding one may
#: not move where it would run a different number of times (``rules.pushdown``).
NONDETERMINISTIC = frozenset({"uuid", "rand", "randn", "monotonically_increasing_id",
                              "spark_partition_id", "uniform", "randstr", "shuffle"})
#: Functions of a row's position in its task (``worker.compile.calls_task``): a window in
#: DuckDB, which no aggregate's argument may hold (``planner.logical.aggregation``).
ROW_POSITIONED = frozenset({"rand", "randn", "monotonically_increasing_id", "uniform", "randstr",
                            "shuffle"})
#: ``try_`` arithmetic, by the operator it is typed as.
TRY_ARITHMETIC = {"try_add": "add", "try_subtract": "sub", "try_multiply": "mul",
                  "try_divide": "div", "try_mod": "mod"}
#: ``date_part`` and its spellings: typed as the field's call they carry last.
DATE_PARTS = frozenset({"date_part", "datepart", "extract"})
FUNCTIONS = frozenset({*_INT32, *_BOOL, *_STRING, *TRY_ARITHMETIC, *DATE_PARTS, "encode",
                       "regexp_extract_all", "nvl", "ifnull", "nvl2", "nullif", "nullifzero",
                       "zeroifnull", "nanvl"})

#: The fixed result types of ``planner.logical.functions.calendar`` (Spark's).
DATE_RESULT: dict[str, pa.DataType] = {
    **dict.fromkeys(("dayofmonth", "weekday", "dayofweek_iso", "unix_date", "date_diff"), pa.int32()),
    **dict.fromkeys(("dayname", "monthname"), pa.string()),
    "second_fraction": pa.decimal128(8, 6),
    **dict.fromkeys(("make_date", "date_from_unix_date", "try_to_date"), pa.date32()),
    **dict.fromkeys(("make_timestamp", "make_timestamp_ltz", "timestamp_seconds",
                     "timestamp_millis", "timestamp_micros", "now", "try_to_timestamp",
                     "try_make_timestamp", "try_make_timestamp_ltz"), INSTANT),
    **dict.fromkeys(("make_timestamp_ntz", "localtimestamp", "convert_timezone",
                     "try_make_timestamp_ntz"), WALL_CLOCK),
    **dict.fromkeys(("make_time", "to_time", "try_to_time", "current_time", "time_trunc",
                     "time_from_micros", "time_from_millis", "time_from_seconds"), time_types.TIME),
    **dict.fromkeys(("time_diff", "time_to_micros", "time_to_millis"), pa.int64()),
    "time_to_seconds": pa.decimal128(14, 6),
    "time_on_date": WALL_CLOCK,
    **dict.fromkeys(("unix_seconds", "unix_millis", "unix_micros", "to_unix_timestamp",
                     "timestampdiff"), pa.int64()),
}

#: The fixed result types of ``planner.logical.functions.task_values`` (Spark's).
TASK_RESULT: dict[str, pa.DataType] = {
    **dict.fromkeys(("rand", "randn"), pa.float64()),
    "monotonically_increasing_id": pa.int64(),
    "spark_partition_id": pa.int32(),
    "randstr": pa.string(),
}

#: The fixed result types of ``planner.logical.functions.elementary``, bits and encodings.
MATH_RESULT: dict[str, pa.DataType] = {
    **dict.fromkeys(
        ("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
         "acosh", "atanh", "cot", "sec", "csc", "hypot", "degrees", "radians", "cbrt", "expm1",
         "rint", "sign", "pi", "e"),
        pa.float64(),
    ),
    **dict.fromkeys(("factorial", "width_bucket"), pa.int64()),
    **dict.fromkeys(("bit_get", "getbit"), pa.int8()),
    **dict.fromkeys(("md5", "sha1", "sha", "sha2", "base64", "hex", "bin"), pa.string()),
    **dict.fromkeys(("unbase64", "unhex"), pa.binary()),
}

Common = Callable[[list[pa.DataType]], pa.DataType]
Arithmetic = Callable[[str, pa.DataType, pa.DataType], pa.DataType]


def call_type(expr: Call, args: list[pa.DataType], common_all: Common,
              arithmetic: Arithmetic) -> pa.DataType:
    """The type of ``expr``, one of ``FUNCTIONS``, over arguments of types ``args``."""
    fn = expr.fn
    if fn in TRY_ARITHMETIC:
        if fn == "try_divide" and any(pa.types.is_decimal(a) for a in args):
            raise AnalysisError("try_divide of a decimal is not supported by sparkwire; "
                                "cast it to double, or divide with / and ANSI off")
        return arithmetic(TRY_ARITHMETIC[fn], args[0], args[1])
    if fn in DATE_PARTS:
        return args[2]
    if fn == "nanvl":  # Spark's NaNvl: doubles, or floats where both are
        return pa.float32() if args == [pa.float32(), pa.float32()] else pa.float64()
    if fn in ("nvl", "ifnull"):
        return common_all(args)
    if fn == "nvl2":
        return common_all(args[1:])
    if fn in ("nullif", "nullifzero"):
        return args[0]
    if fn == "zeroifnull":
        return common_all([args[0], pa.int32()])
    for arg in args:
        if pa.types.is_list(arg) or pa.types.is_map(arg) or pa.types.is_struct(arg):
            raise AnalysisError(f"{fn} takes strings, got {arg}")
    if fn in _INT32:
        return pa.int32()
    if fn in _BOOL:
        return pa.bool_()
    if fn == "encode":
        return pa.binary()
    if fn == "regexp_extract_all":
        return pa.list_(pa.field("element", pa.string()))
    return pa.string()
