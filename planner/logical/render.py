"""Expressions as text, in two voices.

``sql`` is for people reading plans (``explain``): identifiers quoted when they are not
plain, strings in single quotes, ``count(*)``. ``output_name`` is the column name PySpark
would give an unaliased expression (``sum(x)``, ``count(1)``, ``count(DISTINCT x)``,
``RANK() OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING
AND CURRENT ROW)``: a window's frame is always spelled out, ``-1 FOLLOWING`` for one row
before, and a few ranking functions are upper case, all as Spark 4 prints them), so
code ported from PySpark finds its columns under the same names; it is then made a valid
identifier, since a string literal may carry characters identifiers refuse.
"""

from __future__ import annotations

from collections.abc import Callable

import re

from sparkwire.planner.logical import frames
from sparkwire.planner.logical.literal_args import TYPED_ARITHMETIC
from sparkwire.planner.logical.identifiers import MAX_IDENTIFIER_LENGTH
from sparkwire.planner.logical.expressions import (
    AggCall,
    Call,
    Case,
    Cast,
    Column,
    Expr,
    Frame,
    Grouping,
    Lambda,
    LambdaVar,
    LISTAGGS,
    Lit,
    NamedExpr,
    Over,
    Ref,
    SortKey,
    WindowCall,
)

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_UNSAFE = re.compile(r'["`\x00-\x1f\x7f]')
_INFIX = {
    "add": "+", "sub": "-", "mul": "*", "div": "/", "decimal_div": "/", "mod": "%",
    "eq": "=", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
    "and": "AND", "or": "OR",
    "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
}
# PySpark's names where they differ from the allow-list's (its case included: ``FLOOR(x)``).
_FUNCTION_NAMES = {
    "trunc_date": "trunc", "floor": "FLOOR", "ceil": "CEIL",
    "floor_double": "FLOOR", "ceil_double": "CEIL",
    "sqrt": "SQRT", "pow": "POWER", "log": "LOG", "log10": "LOG10", "log2": "LOG2",
    "log1p": "LOG1P", "exp": "EXP", "signum": "SIGNUM", "rlike": "RLIKE",
    "regexp_like": "REGEXP_LIKE", "regexp": "REGEXP",
    "create_map": "map", "named_struct": "struct", "spark_partition_id": "SPARK_PARTITION_ID",
    **{fn: fn.upper() for fn in (  # planner.logical.functions.elementary
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
        "acosh", "atanh", "cot", "sec", "csc", "hypot", "degrees", "radians", "pi", "e", "cbrt",
        "expm1")},
}
# How Spark 4 spells the comparator ``array_sort`` has when none is given (NULLs last).
_ARRAY_SORT_COMPARATOR = (
    "lambdafunction((IF(((namedlambdavariable() IS NULL) AND (namedlambdavariable() IS NULL)), 0, "
    "(IF((namedlambdavariable() IS NULL), 1, (IF((namedlambdavariable() IS NULL), -1, "
    "(IF((namedlambdavariable() < namedlambdavariable()), -1, (IF((namedlambdavariable() > "
    "namedlambdavariable()), 1, 0)))))))))), namedlambdavariable(), namedlambdavariable())"
)
# The special doubles (a literal holds them as Python prints them) as Java prints them.
_JAVA_SPECIAL = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}
# Named without their argument, the query's clock reading (``planner.logical.functions.dates``).
_NILADIC = frozenset({"current_date", "current_timestamp", "now", "localtimestamp"})
# ``date_part(field, source, value)`` shows its field and source only (Spark's spellings).
_DATE_PARTS = {"date_part": "date_part({}, {})", "datepart": "datepart({} FROM {})",
               "extract": "extract({} FROM {})"}
# Calls the planner answered, shown without the answer it added (``typeof``, ``schema_of_json``; ``to_json``'s and ``from_json``'s type).
_ANSWERED = frozenset({"typeof", "schema_of_json", "to_json", "from_json"})
# The random functions: a seed and whether the planner drew it, then how many operands
# Spark shows (``task_values``; ``uniform``'s type name after them is the analyzer's).
_SEEDED = {"rand": 0, "randn": 0, "uniform": 2, "randstr": 1, "shuffle": 1}
# Spark prints these window functions in upper case, the others in lower case.
_WINDOW_NAMES = {"rank": "RANK", "dense_rank": "DENSE_RANK", "percent_rank": "PERCENT_RANK"}


def sql(expr: Expr) -> str:
    return _render(expr, naming=False)


def output_name(expr: Expr) -> str:
    name = _UNSAFE.sub("'", _render(expr, naming=True))
    return name[:MAX_IDENTIFIER_LENGTH]


def identifier(name: str) -> str:
    return name if _PLAIN.fullmatch(name) else f'"{name}"'


def named(item: NamedExpr) -> str:
    if isinstance(item.expr, Column) and item.expr.name == item.name:
        return identifier(item.name)
    return f"{sql(item.expr)} AS {identifier(item.name)}"


def sort_key(key: SortKey, naming: bool = False) -> str:
    order = "ASC" if key.ascending else "DESC"
    nulls = "FIRST" if key.nulls_first else "LAST"
    return f"{_render(key.expr, naming)} {order} NULLS {nulls}"


def _listagg(expr: AggCall, naming: bool) -> str:
    """Spark's name for ``listagg``: ``listagg(DISTINCT s, ,) WITHIN GROUP (ORDER BY i ASC
    NULLS FIRST)``, the delimiter shown as its text (``NULL`` for none)."""
    assert expr.arg is not None
    distinct = "DISTINCT " if expr.fn == "listagg_distinct" else ""
    delimiter = "NULL" if expr.separator is None else expr.separator
    text = f"{expr.alias or 'listagg'}({distinct}{_render(expr.arg, naming)}, {delimiter})"
    if expr.other is None:
        return text
    key = SortKey(expr=expr.other, ascending=expr.ascending, nulls_first=expr.nulls_first)
    return f"{text} WITHIN GROUP (ORDER BY {sort_key(key, naming)})"


def window_function(function: AggCall | WindowCall, frame: Frame | None) -> str:
    """A ``Window`` operator's item, for explain: the function, then its frame if any."""
    text = sql(function)
    return text if frame is None else f"{text} {frames.frame_text(frame)}"


def _window_call(expr: WindowCall, naming: bool) -> str:
    name = _WINDOW_NAMES.get(expr.fn, expr.fn)
    if expr.fn == "ntile":
        return f"ntile({expr.offset})"
    if expr.arg is None:
        return f"{name}()"
    if expr.fn == "counter_diff":
        given = (expr.arg,) if expr.start is None else (expr.arg, expr.start)
        return f"counter_diff({', '.join(_render(e, naming) for e in given)})"
    if expr.fn == "nth_value":
        nulls = " ignore nulls" if expr.ignore_nulls else ""
        return f"nth_value({_render(expr.arg, naming)}, {expr.offset}){nulls}"
    default = "NULL" if expr.default is None else _render(expr.default, naming)
    return f"{name}({_render(expr.arg, naming)}, {expr.offset}, {default})"


def _over(expr: Over, naming: bool) -> str:
    parts = []
    if expr.partition_by:
        parts.append("PARTITION BY " + ", ".join(_render(e, naming) for e in expr.partition_by))
    if expr.order_by:
        parts.append("ORDER BY " + ", ".join(sort_key(k, naming) for k in expr.order_by))
    frame = frames.effective(expr.function, expr.frame, bool(expr.order_by))
    parts.append(frames.frame_text(frame))
    return f"{_render(expr.function, naming)} OVER ({' '.join(parts)})"


def _render(expr: Expr, naming: bool) -> str:
    def r(e: Expr) -> str:
        return _render(e, naming)

    if isinstance(expr, Column | Ref):
        return expr.name if naming else identifier(expr.name)
    if isinstance(expr, Lit):
        return _literal(expr, naming)
    if isinstance(expr, Call):
        if expr.fn == "exact_integer":
            return r(expr.args[0])
        # integer arithmetic without the type the planner named (``planner.logical.typed``)
        args = [r(a) for a in expr.args[:TYPED_ARITHMETIC.get(expr.fn)]]
        if expr.fn == "ne" and naming:
            return f"(NOT ({args[0]} = {args[1]}))"
        if expr.fn in _INFIX:
            return "(" + f" {_INFIX[expr.fn]} ".join(args) + ")"
        if expr.fn == "neg":
            return f"(- {args[0]})"
        if expr.fn == "positive":
            return f"(+ {args[0]})"
        if expr.fn == "bitwise_not":
            return f"~{args[0]}"
        if expr.fn == "not":
            return f"(NOT {args[0]})"
        if expr.fn == "is_null":
            return f"({args[0]} IS NULL)"
        if expr.fn == "is_not_null":
            return f"({args[0]} IS NOT NULL)"
        if expr.fn == "in":
            return f"({args[0]} IN ({', '.join(args[1:])}))"
        if expr.fn == "like":
            return f"{args[0]} LIKE {args[1]}" if naming else f"({args[0]} LIKE {args[1]})"
        if expr.fn == "eq_null_safe":
            return f"({args[0]} <=> {args[1]})"
        if expr.fn in _NILADIC:
            return f"{expr.fn}()"
        if expr.fn == "current_time":  # its precision shown, the clock reading not
            return "current_time(6)"
        if expr.fn == "try_to_time":  # Spark names the parse it wraps
            return f"try_to_time(to_time({', '.join(args)}))"
        if expr.fn in _SEEDED:  # a seed the planner drew is hidden, as Spark hides it
            operands = args[2:2 + _SEEDED[expr.fn]]
            hidden = expr.args[1].value  # type: ignore[union-attr]
            return f"{expr.fn}({', '.join(operands if hidden else [*operands, args[0]])})"
        if expr.fn == "session_value":  # named as Spark names it (``current_schema()``)
            return f"{expr.args[0].value}()"  # type: ignore[union-attr]
        if expr.fn in _DATE_PARTS:
            return _DATE_PARTS[expr.fn].format(*args[:2])
        if expr.fn in _ANSWERED:
            return f"{expr.fn}({args[0]})"
        if expr.fn == "update_fields":  # Spark's UpdateFields: WithField(value), dropfield()
            ops = [f"WithField({a})" if op.value == "with" else "dropfield()"  # type: ignore[union-attr]
                   for op, a in zip(expr.args[1::3], args[3::3], strict=True)]
            return f"update_fields({', '.join([args[0], *ops])})"
        if expr.fn == "timestampadd":  # not the wall-clock flag the analyzer added
            return f"timestampadd({', '.join(args[:3])})"
        if expr.fn == "between":
            return f"({args[0]} BETWEEN {args[1]} AND {args[2]})"
        if expr.fn == "get_item":
            return f"{args[0]}[{args[1]}]"
        if expr.fn == "get_field":
            return f"{args[0]}.{expr.args[1].value if naming else args[1]}"  # type: ignore[union-attr]
        if expr.fn == "named_struct":
            args = _struct_fields(expr, args, struct_field_name)
        if expr.fn == "arrays_zip":  # an argument shows the alias it was given, as Spark's
            args = _struct_fields(expr, args, lambda value, position: str(position - 1))
        if expr.fn == "raise_error":  # Spark's RaiseError shows its class and parameters
            return f"raise_error({args[0]}, map(errorMessage, {args[1]}))"
        if expr.fn == "array_sort":
            return f"array_sort({args[0]}, {_ARRAY_SORT_COMPARATOR})"
        return f"{_FUNCTION_NAMES.get(expr.fn, expr.fn)}({', '.join(args)})"
    if isinstance(expr, AggCall):
        if expr.arg is None:
            return "count(1)" if naming else "count(*)"
        if expr.fn == "count_distinct":
            return f"count(DISTINCT {r(expr.arg)})"
        if expr.fn == "quantile":
            return f"quantile({r(expr.arg)}, {expr.fraction:g})"
        name = expr.alias or expr.fn  # Spark's name for the call (``first_value`` ...)
        if expr.alias == "deterministic_mode":
            return f"mode() WITHIN GROUP (ORDER BY {r(expr.arg)} DESC)"
        if expr.ignore_nulls and not naming:  # Spark names first(x, true) first(x)
            return f"{name}({r(expr.arg)}) IGNORE NULLS"
        if expr.fn == "sum_distinct":
            return f"sum(DISTINCT {r(expr.arg)})"
        if expr.fn == "percentile_approx":
            shown = repr(expr.fraction) if expr.fractions is None else \
                f"array({', '.join(map(repr, expr.fractions))})"
            return f"{name}({r(expr.arg)}, {shown}, {expr.accuracy})"
        if expr.fn in LISTAGGS:
            return _listagg(expr, naming)
        if expr.other is not None:
            return f"{expr.fn}({r(expr.arg)}, {r(expr.other)})"
        if expr.fn == "percentile":  # Spark shows the frequency, always 1 here
            shown = repr(expr.fraction) if expr.fractions is None else \
                f"array({', '.join(map(repr, expr.fractions))})"
            return f"percentile({r(expr.arg)}, {shown}, 1)"
        return f"{name}({r(expr.arg)})"
    if isinstance(expr, Grouping):
        return f"{expr.fn}({', '.join(r(a) for a in expr.args)})"
    if isinstance(expr, WindowCall):
        return _window_call(expr, naming)
    if isinstance(expr, Over):
        return _over(expr, naming)
    if isinstance(expr, LambdaVar):
        return expr.name
    if isinstance(expr, Lambda):  # Spark's spelling
        return f"lambdafunction({r(expr.body)}, {', '.join(expr.params)})"
    if isinstance(expr, Case):
        parts = [f"WHEN {r(c)} THEN {r(v)}" for c, v in expr.branches]
        if expr.otherwise is not None:
            parts.append(f"ELSE {r(expr.otherwise)}")
        return f"CASE {' '.join(parts)} END"
    assert isinstance(expr, Cast)
    if naming:  # PySpark names a cast column after what is cast
        return r(expr.expr)
    return f"{'TRY_CAST' if expr.safe else 'CAST'}({r(expr.expr)} AS {expr.to})"


def _struct_fields(expr: Call, args: list[str],
                   unnamed: Callable[[Expr, int], str]) -> list[str]:
    """Spark names ``F.struct(a, b.alias("c"), lit(1))`` ``struct(a, b AS c, 1)``: a field
    shows its value, and its name where an alias gave one (not the column's own name, nor
    what ``unnamed`` names a field at a 1-based position: ``col<position>`` in a struct, the
    0-based position in ``arrays_zip``)."""
    shown = []
    for position, (name, value) in enumerate(zip(expr.args[0::2], expr.args[1::2], strict=True), 1):
        text = args[2 * position - 1]
        own = value.name.rsplit(".", 1)[-1] if isinstance(value, Column | Ref) else unnamed(value, position)
        field = name.value if isinstance(name, Lit) else None
        shown.append(text if field == own else f"{text} AS {field}")
    return shown


def struct_field_name(value: Expr, position: int) -> str:
    """A struct field's default name: a field's own (``struct(s.f)`` has ``f``), else
    ``col<position>``."""
    if isinstance(value, Call) and value.fn == "get_field" and isinstance(value.args[1], Lit):
        return str(value.args[1].value)
    return f"col{position}"


def _literal(lit: Lit, naming: bool) -> str:
    value = lit.value
    if value is None:
        text = "NULL"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif lit.type in ("float32", "float64") and value in _JAVA_SPECIAL:  # as Java prints them
        text = _JAVA_SPECIAL[str(value)]
    elif isinstance(value, str) and not naming:
        text = "'" + value.replace("'", "''") + "'"
    else:
        text = str(value)
    if lit.type in ("date", "timestamp", "timestamp_ntz"):
        return f"{lit.type.upper()} '{value}'"
    if lit.type == "time":  # as Spark names it: the fraction without trailing zeros
        whole, _, fraction = str(value).partition(".")
        return f"TIME '{whole}{'.' + fraction.rstrip('0') if fraction.rstrip('0') else ''}'"
    if lit.type is None or naming:
        return text
    return f"CAST({text} AS {lit.type})"
