"""Arguments that must be literals, and the check each one passes.

Regular expressions, datetime patterns, format strings, units and day names are user data
that changes what a function means, so they travel as literals and are checked wherever a
``Call`` is validated: when the planner builds it (an ``AnalysisError`` for the user) and
when a worker parses a task plan (the plan is refused before anything is compiled). Scales
and group indexes must be literal integers because DuckDB needs them constant; the
integer type an arithmetic call is computed in is a literal type name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

from sparkwire.planner.logical import typenames
from sparkwire.planner.spark import datetime_patterns, format_string, regex, timezones
from sparkwire.planner.errors import AnalysisError


class _NotLiteral:
    def __repr__(self) -> str:
        return "NOT_LITERAL"


#: Stands for an argument that is not a literal.
NOT_LITERAL: Final = _NotLiteral()

Check = Callable[[object], object]


def _text(check: Callable[[str], object]) -> Check:
    def run(value: object) -> object:
        if not isinstance(value, str):
            raise AnalysisError(f"expected a string literal, got {value!r}")
        return check(value)

    return run


def _time_zone(name: str) -> str:
    try:
        return timezones.check_time_zone(name)
    except ValueError as exc:
        raise AnalysisError(str(exc)) from None


def _integer(value: object) -> object:
    if not isinstance(value, int) or isinstance(value, bool):
        raise AnalysisError(f"expected an integer literal, got {value!r}")
    return value


def _one(value: object) -> object:
    if value != 1 or isinstance(value, bool):
        raise AnalysisError(f"a position other than 1 ({value!r}) is not supported by sparkwire")
    return value


def _boolean(value: object) -> object:
    if not isinstance(value, bool):
        raise AnalysisError(f"expected a boolean literal, got {value!r}")
    return value


#: Spark's integer types, named in integer arithmetic so the worker wraps or fails as Spark
#: does (``planner.logical.typed``, ``worker.compile.integers``).
INTEGER_TYPES = ("int8", "int16", "int32", "int64")
#: The integer arithmetic calls, by the position of that type (after the operands).
TYPED_ARITHMETIC = {
    "add": 2, "sub": 2, "mul": 2, "neg": 1, "negative": 1,
    "try_add": 2, "try_subtract": 2, "try_multiply": 2,
    # Java's shifts wrap at the integer's width (planner.logical.functions.bits)
    "shiftleft": 2, "shiftright": 2, "shiftrightunsigned": 2,
}


def _zero(value: object) -> object:
    if value != 0 or isinstance(value, bool):
        raise AnalysisError(f"a group other than 0 ({value!r}) is not supported by sparkwire")
    return value


#: The character sets ``encode``/``decode`` take: DuckDB's strings are UTF-8 and only UTF-8.
_CHARSETS = frozenset({"utf-8", "utf8"})


def _charset(value: object) -> object:
    if not isinstance(value, str) or value.lower() not in _CHARSETS:
        raise AnalysisError(f"the character set {value!r} is not supported by sparkwire (UTF-8 is)")
    return value


def _integer_type(value: object) -> object:
    if value not in INTEGER_TYPES:
        raise AnalysisError(f"expected an integer type name, got {value!r}")
    return value


def _type_name(value: object) -> object:
    if not isinstance(value, str):
        raise AnalysisError(f"expected a type name, got {value!r}")
    try:
        typenames.parse(value)
    except ValueError as exc:
        raise AnalysisError(str(exc)) from None
    return value


def _struct_type(value: object) -> object:
    if not isinstance(value, str):
        raise AnalysisError(f"expected a struct type name, got {value!r}")
    try:
        tree = typenames.parse(value)
    except ValueError as exc:
        raise AnalysisError(str(exc)) from None
    if tree.kind != "struct":
        raise AnalysisError(f"expected a struct type name, got {value!r}")
    return value


#: Spark's error classes: ``USER_RAISED_EXCEPTION``, ``SCALAR_SUBQUERY_TOO_MANY_ROWS`` ...
_ERROR_CLASS = re.compile(r"[A-Z][A-Z0-9_]*")


def _error_class(value: str) -> str:
    """An error class leads the worker's message in brackets (``[CLASS] text``), where the
    coordinator reads it back (``transport.errors.QueryError``): only Spark's form passes."""
    if not _ERROR_CLASS.fullmatch(value):
        raise AnalysisError(f"expected an error class such as USER_RAISED_EXCEPTION, got {value!r}")
    return value


_REGEX = _text(regex.check_java_regex)
_DATETIME = _text(datetime_patterns.check_datetime_pattern)
_ZONE = _text(_time_zone)

CHECKS: dict[str, dict[int, Check]] = {
    **{fn: {position: _integer_type} for fn, position in TYPED_ARITHMETIC.items()},
    "exact_integer": {1: _integer_type},
    "raise_error": {0: _text(_error_class)},
    "decimal_avg": {2: _integer},
    "sort_array": {2: _struct_type},
    "array_sort": {1: _struct_type},
    **{fn: {2: _boolean} for fn in ("array_union", "array_intersect", "array_except")},
    "rlike": {1: _REGEX},
    "str_to_map": {1: _REGEX, 2: _REGEX},
    "regexp_replace": {1: _REGEX, 2: _text(regex.check_java_replacement), 3: _one},
    "regexp_extract": {1: _REGEX, 2: _integer},
    "locate": {2: _integer},
    "position": {2: _integer},
    **{fn: {1: _REGEX} for fn in ("regexp_like", "regexp", "regexp_count", "regexp_substr")},
    "regexp_extract_all": {1: _REGEX, 2: _integer},
    "regexp_instr": {1: _REGEX, 2: _zero},
    "levenshtein": {2: _integer},
    "encode": {1: _charset},
    "decode": {1: _charset},
    "format_string": {0: _text(format_string.check_format)},
    "printf": {0: _text(format_string.check_format)},
    "date_format": {1: _DATETIME},
    "to_date": {1: _DATETIME},
    "to_timestamp": {1: _DATETIME},
    "to_timestamp_ltz": {1: _DATETIME},
    "to_timestamp_ntz": {1: _DATETIME},
    "try_to_date": {1: _DATETIME},
    "try_to_timestamp": {1: _DATETIME},
    "to_time": {1: _DATETIME},
    "try_to_time": {1: _DATETIME},
    "unix_timestamp": {1: _DATETIME},
    "to_unix_timestamp": {1: _DATETIME},
    "from_unixtime": {1: _DATETIME},
    "from_utc_timestamp": {1: _ZONE},
    "to_utc_timestamp": {1: _ZONE},
    "convert_timezone": {0: _ZONE, 1: _ZONE},
    "date_trunc": {0: _text(datetime_patterns.timestamp_unit)},
    "trunc_date": {1: _text(datetime_patterns.date_unit)},
    "next_day": {1: _text(datetime_patterns.iso_day)},
    "months_between": {2: _boolean},
    "timestampdiff": {0: _text(datetime_patterns.diff_unit)},
    "timestampadd": {0: _text(datetime_patterns.add_unit)},
    "round": {1: _integer},
    "bround": {1: _integer},
    "sha2": {1: _integer},
    "round_double": {1: _integer},
    **{fn: {1: _type_name} for fn in ("from_json", "to_json")},
    "bround_double": {1: _integer},
}


def check_literal_args(fn: str, values: Sequence[object]) -> None:
    """Refuse a call whose pattern-like arguments are not valid literals, naming the function."""
    for position, check in CHECKS.get(fn, {}).items():
        if position >= len(values):
            continue
        value = values[position]
        if value is NOT_LITERAL:
            raise AnalysisError(f"{fn}: argument {position + 1} must be a literal")
        try:
            check(value)
        except AnalysisError as exc:
            raise AnalysisError(f"{fn}: {exc}") from None
