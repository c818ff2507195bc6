"""Arrow types of expressions, inferred the way Spark SQL types them.

The planner knows every column's Arrow type from the start (Parquet footers, local tables)
and infers the type of each expression from its inputs, so a DataFrame has a ``schema``
before anything runs and the planner can coerce join and set-operation keys to one type
before hashing: DuckDB's ``hash`` of 1 as INTEGER, DOUBLE and DECIMAL differ, so rows that
compare equal would land in different partitions.

Rules (Spark's, where they are simple; each one written down):

- integer arithmetic widens to the wider operand; any floating operand makes ``float64``;
  decimal with integer is decimal; ``/`` is ``float64`` (PySpark's true division) unless an
  operand is decimal and none floating: then ``decimal(p1-s1+s2+max(6,s1+p2+1),
  max(6,s1+p2+1))``, capped at 38 digits as every decimal result is;
- comparisons, logic, ``in``, ``between``, null tests are ``bool``;
- ``length``/``year``/``month``/``day`` are ``int32``; ``try_double`` is ``float64``; string functions give strings;
  ``date_add``/``add_months`` give dates;
- ``count`` is ``int64``; ``sum`` of integers is ``int64``, of floats ``float64``, of
  ``decimal(p,s)`` ``decimal(min(38,p+10),s)``; ``avg`` is ``float64`` (of decimals
  ``decimal(min(38,p+4),min(38,s+4))``); ``min``/``max`` keep their input's type;
- ``case``/``coalesce``/``greatest``/``least`` take the common type of their arguments;
- string functions (``concat_ws``, ``lpad``, ``regexp_replace``, ``date_format`` ...) give
  strings, ``instr``/``locate``/``datediff`` and the date parts (``hour``, ``dayofweek``,
  ``weekofyear`` ...) ``int32``, ``rlike``/``startswith``/``contains``/``<=>`` ``bool``;
  ``to_date``/``trunc``/``last_day``/``next_day`` dates, ``to_timestamp``/``date_trunc``
  timestamps (instants: Arrow ``timestamp[us, tz=UTC]``; ``timestamp_ntz`` is
  ``timestamp[us]``, ``planner.spark.timezones``); ``months_between``, ``sqrt``, ``pow``, the logarithms, ``exp`` and
  ``signum`` ``float64``;
- ``floor``/``ceil`` are ``int64``, of ``decimal(p,s)`` ``decimal(p-s+1,0)``; ``round``/
  ``bround`` keep integer and float types and turn ``decimal(p,s)`` to scale ``d`` into
  ``decimal(p-s+1+min(s,d),min(s,d))`` (``decimal(max(p-s+1,1-d),0)`` for ``d < 0``);
  ``pmod`` types as ``%``; trigonometry and the other elementary functions
  (``planner.logical.functions.elementary``) ``float64`` (``factorial``/``width_bucket``
  ``int64``), the shifts ``int32`` (``int64`` of an ``int64``), ``bit_count`` ``int32``,
  ``bit_get`` ``int8``, ``bitwise_and``/``_or``/``_xor`` (``&``, ``|``, ``^``) the wider
  of their two integers, ``bitwise_not``/``negative``/``positive`` and ``bit_and``/``bit_or``/
  ``bit_xor`` their argument's type, digests and ``hex``/``base64``/``bin`` strings,
  ``unhex``/``unbase64`` binary;
- ``format_string`` needs one argument per directive and refuses ``%s`` of a float, a
  date or a timestamp (Spark prints Java's text of its internal value) and ``%d`` of a
  non-integer (``planner.spark.format_string``).
- over a window (``planner.logical.windowing``): ``row_number``/``rank``/``dense_rank``/``ntile``
  are ``int32``, ``percent_rank``/``cume_dist`` ``float64``, ``lag``/``lead`` and
  ``first``/``last`` keep their input's type; an aggregate has its aggregate type.
- arrays, maps, structs and the aggregates that build or summarise them: see
  ``planner.logical.collection_types``. An array is ``list<element: T>`` (PySpark's ``toArrow()``
  name for the element field), whatever its source named it.

Where the engine would produce another type the planner still reports this one; making the
engine agree everywhere (casting its results) is tracked with the relational core's result
types.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

import pyarrow as pa

from sparkwire.planner.logical import (array_types, collection_types, format_types, function_types,
                                       struct_updates, summary_types, time_types, typenames)
from sparkwire.planner.spark import format_string, number_formats
from sparkwire.planner.spark.timezones import INSTANT, WALL_CLOCK
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import (
    AggCall, Call, Case, Cast, Column, Expr, Grouping, Lambda, LambdaVar, Lit, Over, WindowCall,
)

_INT_RANK = {pa.int8(): 1, pa.int16(): 2, pa.int32(): 3, pa.int64(): 4}
_INT_DIGITS = {pa.int8(): 3, pa.int16(): 5, pa.int32(): 10, pa.int64(): 20}
_BOOL_RESULT = frozenset(
    {"eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not", "is_null", "is_not_null", "isnan", "in",
     "between", "like", "rlike", "startswith", "endswith", "contains", "eq_null_safe"}
)
_INT32_RESULT = frozenset(
    {"length", "year", "month", "day", "instr", "locate", "datediff", "hour", "minute", "second",
     "dayofweek", "dayofyear", "weekofyear", "quarter", "bit_count"}
)
_FIXED_RESULT: dict[str, pa.DataType] = {
    **dict.fromkeys(
        ("lower", "upper", "substring", "substr", "concat", "trim", "ltrim", "rtrim",
         "concat_ws", "lpad", "rpad", "regexp_replace", "regexp_extract", "initcap",
         "format_string", "date_format"),
        pa.string(),
    ),
    **dict.fromkeys(
        ("date_add", "date_sub", "add_months", "current_date", "to_date", "trunc_date", "last_day",
         "next_day"),
        pa.date32(),
    ),
    **dict.fromkeys(("current_timestamp", "to_timestamp", "to_timestamp_ltz", "date_trunc",
                     "from_utc_timestamp", "to_utc_timestamp"), INSTANT),
    "to_timestamp_ntz": WALL_CLOCK,
    # Spark's void: a call that returns only by failing the query, or NULL
    **dict.fromkeys(("raise_error", "assert_true"), pa.null()),
    "unix_timestamp": pa.int64(),
    **dict.fromkeys(("from_unixtime", "current_timezone"), pa.string()),
    **dict.fromkeys(
        ("months_between", "sqrt", "pow", "log", "ln", "log10", "log2", "log1p", "exp", "signum"),
        pa.float64(),
    ),
    **function_types.MATH_RESULT,
    **function_types.DATE_RESULT,
    **function_types.TASK_RESULT,
    **format_types.FORMAT_RESULT,
}
#: Java's shifts: of a bigint a bigint, of a narrower integer an int.
_SHIFTS = frozenset({"shiftleft", "shiftright", "shiftrightunsigned"})
#: ``&``, ``|``, ``^`` of two integers: the wider of the two, as Spark coerces them.
_BITWISE = frozenset({"bitwise_and", "bitwise_or", "bitwise_xor"})
_NAMED = {
    "bool": pa.bool_(), "int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(),
    "int64": pa.int64(), "float32": pa.float32(), "float64": pa.float64(),
    "string": pa.string(), "binary": pa.binary(), "date": pa.date32(),
    "timestamp": INSTANT, "timestamp_ntz": WALL_CLOCK, "time": time_types.TIME,
}


def from_name(name: str) -> pa.DataType:
    """The Arrow type of a planner type name (``int64``, ``decimal(12,2)``, ``array<int32>``
    ...); an array's element field is named ``element``, as in PySpark's ``toArrow()``."""
    return _arrow(typenames.parse(name))


def _arrow(tree: typenames.TypeTree) -> pa.DataType:
    if tree.kind == "array":
        return pa.list_(pa.field("element", _arrow(tree.args[0])))
    if tree.kind == "map":
        return pa.map_(_arrow(tree.args[0]), _arrow(tree.args[1]))
    if tree.kind == "struct":
        return pa.struct([pa.field(f, _arrow(a)) for f, a in zip(tree.fields, tree.args, strict=True)])
    if tree.name in _NAMED:
        return _NAMED[tree.name]
    precision, scale = tree.name[len("decimal("):-1].split(",")
    return pa.decimal128(int(precision), int(scale))


@functools.lru_cache(maxsize=1024)
def to_name(t: pa.DataType) -> str | None:
    """The planner type name of an Arrow type, or None where casts cannot name it. Cached:
    the typing passes name an operand's type at every comparison (TPC-DS: 38 a query),
    each a scan of the named types."""
    t = _plain(t)
    for name, known in _NAMED.items():
        if t == known:
            return name
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pa.types.is_map(t):
        parts = [to_name(t.key_type), to_name(t.item_type)]
        return None if None in parts else f"map<{parts[0]},{parts[1]}>"
    if pa.types.is_list(t):
        inner = to_name(t.value_type)
        return None if inner is None else f"array<{inner}>"
    if pa.types.is_struct(t):
        fields = [(f.name, to_name(f.type)) for f in t]
        if any(n is None for _, n in fields):
            return None
        name = "struct<" + ",".join(f"{f}:{n}" for f, n in fields) + ">"
        try:
            typenames.parse(name)
        except ValueError:
            return None
        return name
    return None


def is_nested(t: pa.DataType) -> bool:
    t = _plain(t)
    return bool(pa.types.is_list(t) or pa.types.is_map(t) or pa.types.is_struct(t))


def infer(expr: Expr, columns: Mapping[str, pa.DataType]) -> pa.DataType:
    """The type of ``expr`` over columns of the given (plan-internal) names."""
    match expr:
        case Column():
            try:
                return columns[expr.name]
            except KeyError:
                raise AnalysisError(f"cannot resolve column {expr.name!r}") from None
        case Lit():
            return _literal(expr)
        case Cast():
            return from_name(expr.to)
        case Case():
            values = [v for _, v in expr.branches]
            if expr.otherwise is not None:
                values.append(expr.otherwise)
            return common_all([infer(v, columns) for v in values])
        case AggCall():
            return _aggregate(expr, columns)
        case Over():
            return infer(expr.function, columns)
        case Grouping():  # Spark's types: a tinyint bit, a bigint id
            return pa.int8() if expr.fn == "grouping" else pa.int64()
        case WindowCall():
            return _window(expr, columns)
        case Call():
            return _call(expr, columns)
        case LambdaVar() if expr.type is not None:  # typed by planner.logical.lambdas
            return from_name(expr.type)
        case Lambda():  # a lambda's type is its body's, as an argument sees it
            return infer(expr.body, columns)
    raise AnalysisError(f"cannot type expression {type(expr).__name__}")


def common(a: pa.DataType, b: pa.DataType) -> pa.DataType:
    """The type both ``a`` and ``b`` widen to, as Spark's type coercion finds it."""
    a, b = _plain(a), _plain(b)
    if a == b:
        return a
    if pa.types.is_null(a):
        return b
    if pa.types.is_null(b):
        return a
    if _numeric(a) and _numeric(b):
        if pa.types.is_floating(a) or pa.types.is_floating(b):
            return pa.float64()
        if a in _INT_RANK and b in _INT_RANK:
            return a if _INT_RANK[a] >= _INT_RANK[b] else b
        return _decimal_union(_as_decimal(a), _as_decimal(b))
    if pa.types.is_string(a) and pa.types.is_string(b):
        return pa.string()
    if {_kind(a), _kind(b)} <= {"date", "timestamp"}:
        # Spark: a date widens to either timestamp; an instant and a wall clock to an instant
        return INSTANT if INSTANT in (a, b) else WALL_CLOCK
    raise AnalysisError(f"no common type for {a} and {b}")


def common_all(types: list[pa.DataType]) -> pa.DataType:
    result = pa.null()
    for t in types:
        result = common(result, t)
    return result


def _call(expr: Call, columns: Mapping[str, pa.DataType]) -> pa.DataType:
    if expr.fn in _BOOL_RESULT:
        return pa.bool_()
    if expr.fn in _INT32_RESULT:
        return pa.int32()
    args = [infer(a, columns) for a in expr.args]
    if expr.fn in collection_types.COLLECTION_FUNCTIONS:
        return collection_types.call_type(expr, [_plain(a) for a in args], common_all)
    if expr.fn in array_types.ARRAY_FUNCTIONS:
        return array_types.call_type(expr, [_plain(a) for a in args], common_all)
    if expr.fn in function_types.FUNCTIONS:
        if expr.fn == "printf":
            _check_format_arguments(expr, args)
        return function_types.call_type(expr, [_plain(a) for a in args], common_all, _arithmetic)
    if expr.fn == "try_double":
        return pa.float64()
    if expr.fn == "session_value":
        return pa.string()
    if expr.fn in ("to_number", "try_to_number"):
        written = expr.args[1]
        assert isinstance(written, Lit) and isinstance(written.value, str)  # the registry's
        parsed = number_formats.parse(written.value)
        return pa.decimal128(parsed.precision, parsed.scale)
    if expr.fn in ("exact_integer", "from_json"):
        named = expr.args[1]
        assert isinstance(named, Lit) and isinstance(named.value, str)  # literal_args
        return from_name(named.value)
    if expr.fn == "decimal_div":
        return _arithmetic("div", args[0], args[1])
    if expr.fn == "decimal_avg":
        scale = expr.args[2]
        assert isinstance(scale, Lit) and isinstance(scale.value, int)  # literal_args
        return pa.decimal128(38, scale.value)
    if expr.fn in ("add", "sub", "mul", "mod", "pmod", "div"):
        if any(pa.types.is_decimal(_plain(a)) for a in args):
            # Spark types an integer literal beside a decimal with the fewest digits it
            # needs (spark.sql.legacy.literal.pickMinimumPrecision): 2 is decimal(1,0).
            args = [_literal_decimal(e) or a for e, a in zip(expr.args, args, strict=True)]
        return _arithmetic("mod" if expr.fn == "pmod" else expr.fn, args[0], args[1])
    if expr.fn in ("coalesce", "greatest", "least"):
        return common_all(args)
    if expr.fn == "update_fields":
        return struct_updates.updated_type(args[0], expr, args)
    if expr.fn == "uniform":  # the type both bounds up-cast to (Spark's Uniform.dataType)
        return _uniform(_plain(args[2]), _plain(args[3]))
    if expr.fn == "shuffle":
        return args[2]
    if expr.fn == "timestampadd":  # a wall clock stays one, anything else becomes an instant
        return WALL_CLOCK if args[2] == WALL_CLOCK else INSTANT
    if expr.fn in _FIXED_RESULT:
        if expr.fn == "format_string":
            _check_format_arguments(expr, args)
        return _FIXED_RESULT[expr.fn]
    if expr.fn in ("round", "bround", "round_double", "bround_double"):
        scale = expr.args[1]
        assert isinstance(scale, Lit) and isinstance(scale.value, int)  # literal_args
        return _rounded(_plain(args[0]), scale.value)
    if expr.fn in ("floor_double", "ceil_double"):
        return pa.int64()
    if expr.fn in _SHIFTS:
        value, count = _plain(args[0]), _plain(args[1])
        if value not in _INT_RANK or count not in _INT_RANK:
            raise AnalysisError(f"{expr.fn} takes an integer and an int count, got "
                                f"{spark_type_name(value)} and {spark_type_name(count)}")
        return pa.int64() if value == pa.int64() else pa.int32()
    if expr.fn in _BITWISE:
        left, right = _plain(args[0]), _plain(args[1])
        known = [t for t in (left, right) if t != pa.null()]
        if not known or any(t not in _INT_RANK for t in known):
            raise AnalysisError(f"{expr.fn} takes two integers, got {spark_type_name(left)} and "
                                f"{spark_type_name(right)}")
        return max(known, key=_INT_RANK.__getitem__)
    if expr.fn in ("floor", "ceil", "ceiling"):
        arg = _plain(args[0])
        return _bounded(arg.precision - arg.scale + 1, 0) if pa.types.is_decimal(arg) else pa.int64()
    # neg, abs, trunc
    return _plain(args[0])


def _rounded(arg: pa.DataType, scale: int) -> pa.DataType:
    """Spark's ``round``/``bround`` type: integers and floats keep theirs; a decimal keeps
    one more integral digit (rounding may carry) and at most ``scale`` fractional ones."""
    if not pa.types.is_decimal(arg):
        return arg
    integral = arg.precision - arg.scale + 1
    if scale < 0:
        return _bounded(max(integral, -scale + 1), 0)
    new_scale = min(arg.scale, scale)
    return _bounded(integral + new_scale, new_scale)


def _check_format_arguments(expr: Call, args: list[pa.DataType]) -> None:
    """One argument per directive, and no ``%s`` of a float (``planner.spark.format_string``)."""
    pattern = expr.args[0]
    assert isinstance(pattern, Lit) and isinstance(pattern.value, str)  # literal_args
    wanted = format_string.directives(pattern.value)
    if len(wanted) != len(args) - 1:
        raise AnalysisError(
            f"format_string {pattern.value!r} takes {len(wanted)} argument(s), got {len(args) - 1}"
        )
    for directive, arg in zip(wanted, args[1:], strict=True):
        arg = _plain(arg)
        printable = pa.types.is_string(arg) or pa.types.is_integer(arg) or pa.types.is_boolean(arg) \
            or pa.types.is_decimal(arg) or pa.types.is_null(arg)
        if not printable or (directive.conversion == "d" and not pa.types.is_integer(arg)):
            raise AnalysisError(
                f"format_string %{directive.conversion} of a {spark_type_name(arg)} is not "
                "supported by sparkwire"
            )


def decimal_operands(expr: Call, columns: Mapping[str, pa.DataType]) -> list[pa.Decimal128Type]:
    """The decimal types Spark computes the operands of a decimal ``expr`` in: integers
    widen to the digits they may have (an integer literal to the digits it has)."""
    args = [_plain(infer(a, columns)) for a in expr.args]
    args = [_literal_decimal(e) or a for e, a in zip(expr.args, args, strict=True)]
    return [_as_decimal(a) for a in args]


def _arithmetic(fn: str, a: pa.DataType, b: pa.DataType) -> pa.DataType:
    a, b = _plain(a), _plain(b)
    if _kind(a) == "date" and fn in ("add", "sub") and b in _INT_RANK:
        return pa.date32()
    if not (pa.types.is_decimal(a) or pa.types.is_decimal(b)) or pa.types.is_floating(
        a
    ) or pa.types.is_floating(b):
        return pa.float64() if fn == "div" else common(a, b)
    da, db = _as_decimal(a), _as_decimal(b)
    p1, s1, p2, s2 = da.precision, da.scale, db.precision, db.scale
    if fn == "div":
        scale = max(6, s1 + p2 + 1)
        return _bounded(p1 - s1 + s2 + scale, scale)
    if fn == "mul":
        return _bounded(p1 + p2 + 1, s1 + s2)
    if fn == "mod":
        scale = max(s1, s2)
        return _bounded(min(p1 - s1, p2 - s2) + scale, scale)
    scale = max(s1, s2)
    return _bounded(max(p1 - s1, p2 - s2) + scale + 1, scale)


def _aggregate(expr: AggCall, columns: Mapping[str, pa.DataType]) -> pa.DataType:
    if expr.fn in ("count", "count_distinct"):
        return pa.int64()
    assert expr.arg is not None
    arg = _plain(infer(expr.arg, columns))
    collected = collection_types.aggregate_type(expr, arg)
    if collected is None:
        collected = summary_types.aggregate_type(expr, arg)
    if collected is not None:
        return collected
    if expr.fn in ("min", "max", "any_value", "quantile", "first", "last", "mode"):
        return arg
    if expr.fn in ("bit_and", "bit_or", "bit_xor"):
        if arg not in _INT_RANK:
            raise AnalysisError(f"{expr.fn} takes an integer column, got {spark_type_name(arg)}")
        return arg
    if expr.fn in ("sum", "sum_distinct", "try_sum"):
        if pa.types.is_decimal(arg):
            return _capped(arg.precision + 10, arg.scale)
        return pa.float64() if pa.types.is_floating(arg) else pa.int64()
    if expr.fn == "stddev_samp":
        return pa.float64()
    # avg, try_avg
    if pa.types.is_decimal(arg):
        return _capped(arg.precision + 4, arg.scale + 4)
    return pa.float64()


def _window(expr: WindowCall, columns: Mapping[str, pa.DataType]) -> pa.DataType:
    if expr.fn in ("percent_rank", "cume_dist"):
        return pa.float64()
    if expr.arg is not None:  # lag, lead
        return _plain(infer(expr.arg, columns))
    return pa.int32()


def _literal(lit: Lit) -> pa.DataType:
    if lit.type is not None:
        return from_name(lit.type)
    value = lit.value
    if value is None:
        return pa.null()
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int32() if -(2**31) <= value < 2**31 else pa.int64()
    if isinstance(value, float):
        return pa.float64()
    return pa.string()


def _literal_decimal(expr: Expr) -> pa.DataType | None:
    if isinstance(expr, Lit) and expr.type is None and isinstance(expr.value, int) \
            and not isinstance(expr.value, bool):
        return pa.decimal128(max(1, len(str(abs(expr.value)))), 0)
    return None


def _bounded(precision: int, scale: int) -> pa.DataType:
    """Spark caps precision at 38, giving up scale (down to 6) to keep the integer digits."""
    if precision <= 38:
        return pa.decimal128(precision, scale)
    digits = precision - scale
    return pa.decimal128(38, max(38 - digits, min(scale, 6)))


def _capped(precision: int, scale: int) -> pa.DataType:
    """Spark's ``DecimalType.bounded``, the type of a decimal ``sum`` and ``avg``: precision
    and scale each capped at 38, no scale given up (unlike arithmetic's ``_bounded``)."""
    return pa.decimal128(min(precision, 38), min(scale, 38))


def _decimal_union(a: pa.Decimal128Type, b: pa.Decimal128Type) -> pa.DataType:
    scale = max(a.scale, b.scale)
    return _bounded(max(a.precision - a.scale, b.precision - b.scale) + scale, scale)


def _as_decimal(t: pa.DataType) -> pa.Decimal128Type:
    if pa.types.is_decimal(t):
        return t
    return pa.decimal128(_INT_DIGITS[t], 0)


def _numeric(t: pa.DataType) -> bool:
    return bool(pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t))


def _uniform(low: pa.DataType, high: pa.DataType) -> pa.DataType:
    """``uniform``'s type, as Spark's: of two integers the wider, of an integer and a float
    the float; a decimal bound's decimal (of two, the one with room for both); a double
    where a bound is NULL or else."""
    if not all(pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)
               or pa.types.is_null(t) for t in (low, high)):
        raise AnalysisError(f"uniform takes numeric bounds, got {spark_type_name(low)} and "
                            f"{spark_type_name(high)}")
    if pa.types.is_null(low) or pa.types.is_null(high):
        return pa.float64()
    if low == high:
        return low
    decimals = [t for t in (low, high) if pa.types.is_decimal(t)]
    if len(decimals) == 2:
        scale = max(low.scale, high.scale)
        return pa.decimal128(max(low.precision - low.scale, high.precision - high.scale) + scale, scale)
    if decimals:
        return decimals[0]
    if low in _INT_RANK and high in _INT_RANK:
        return max(low, high, key=_INT_RANK.__getitem__)
    if pa.float32() in (low, high) and (low in _INT_RANK or high in _INT_RANK):
        return pa.float32()
    return pa.float64()


def _plain(t: pa.DataType) -> pa.DataType:
    """Large and dictionary variants as their plain type, for comparing kinds."""
    if pa.types.is_dictionary(t):
        return _plain(t.value_type)
    if pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return pa.string()
    if pa.types.is_large_binary(t):
        return pa.binary()
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t) \
            or pa.types.is_large_list_view(t):
        return pa.list_(pa.field("element", _plain(t.value_type)))
    if pa.types.is_timestamp(t):
        # any unit; any zone is an instant (Spark's timestamp), no zone a wall clock
        return WALL_CLOCK if t.tz is None else INSTANT
    if time_types.is_time(t):  # any unit: DuckDB's TIME is microseconds, Spark's toArrow nanoseconds
        return time_types.TIME
    if pa.types.is_unsigned_integer(t):
        widened: dict[int, pa.DataType] = {8: pa.int16(), 16: pa.int32(), 32: pa.int64()}
        return widened.get(t.bit_width, pa.decimal128(20, 0))
    return t


_KINDS: tuple[tuple[str, Callable[[pa.DataType], bool]], ...] = (
    ("date", pa.types.is_date),
    ("timestamp", pa.types.is_timestamp),
)


def _kind(t: pa.DataType) -> str:
    return next((name for name, test in _KINDS if test(t)), str(t))


@functools.lru_cache(maxsize=1024)
def spark_type_name(t: pa.DataType) -> str:
    """The name Spark SQL gives the type (``df.dtypes``, ``printSchema``). Cached: SQL
    planning names every column of every view (TPC-DS: 425 a query, a fifth of its
    normalisation)."""
    if pa.types.is_null(t):
        return "void"
    name = to_name(t)
    if name is None:
        return str(t)
    return typenames.spark_name(typenames.parse(name))
