"""SQL function calls to the planner's string, date and math functions.

sqlglot parses each known function into its own node class (``instr`` and ``locate`` both
into ``StrPosition``, ``log10(x)`` into ``Log(10, x)``, Spark's date functions with their
argument wrapped in ``TsOrDsToDate``); this module maps those classes onto the functions
of ``planner.api.functions``, so a call written in SQL (``F.expr``, ``selectExpr``,
``session.sql``) is checked exactly as the same call made from Python is: patterns must be
literals and pass the same checks. A function not listed here (nor a collection form of
``planner.sql.collections``) is ``... is not supported``.

Both ``session.sql`` and ``F.expr`` parse in sqlglot's Spark dialect, so a call keeps
Spark's meaning: ``regexp_replace`` replaces every match, positions are 1-based.
``instr(s, t)`` and ``locate(t, s)`` mean the same and are both named ``instr``; a
``log(10, x)`` is computed (and named) as ``log10(x)``, sqlglot parsing both alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.time import format_time

from sparkwire.planner.logical import expressions as ex
import sparkwire.planner.api.functions as F
from sparkwire.planner.api.functions import Column
from sparkwire.planner.sql.collections import Translate, collection

_SPARK = Dialect.get_or_raise("spark")
_Args = list[Column]

# sqlglot wraps date-taking arguments in conversions Spark does implicitly anyway.
_IMPLICIT = (exp.TsOrDsToDate, exp.TimeStrToTime)


def unwrapped(node: exp.Expression | None) -> exp.Expression | None:
    while isinstance(node, _IMPLICIT) and node.args.get("format") is None:
        node = node.this
    return node


def _pattern(column: Column) -> Any:
    """A datetime pattern as Spark wrote it: sqlglot keeps patterns in its own (strftime)
    form and gives Spark's back through the Spark dialect's inverse mapping."""
    value = _text(column)
    if not isinstance(value, str):
        return value
    return format_time(value, _SPARK.INVERSE_TIME_MAPPING, _SPARK.INVERSE_TIME_TRIE)


def _one(fn: Callable[[Column], Column]) -> Callable[[_Args], Column]:
    return lambda a: fn(a[0])


def _text(column: Column) -> Any:
    """A literal's value (patterns and units are plain Python values in ``F``), else the column."""
    node = column.expr
    return node.value if isinstance(node, ex.Lit) and node.type is None else column


_Build = Callable[[_Args], Column]
# node class -> (the node's arguments, in order, that are the call's) and the call
_BY_CLASS: dict[type[exp.Expression], tuple[tuple[str, ...], _Build]] = {
    exp.ConcatWs: (("expressions",), lambda a: F.concat_ws(_text(a[0]), *a[1:])),
    exp.RegexpReplace: (("this", "expression", "replacement"),
                        lambda a: F.regexp_replace(a[0], _text(a[1]), _text(a[2]))),
    exp.RegexpExtract: (("this", "expression", "group"),
                        lambda a: F.regexp_extract(a[0], _text(a[1]), _text(a[2]) if len(a) > 2 else 1)),
    exp.RegexpLike: (("this", "expression"), lambda a: a[0].rlike(_text(a[1]))),
    exp.Initcap: (("this",), _one(F.initcap)),
    exp.Format: (("this", "expressions"), lambda a: F.format_string(_text(a[0]), *a[1:])),
    exp.StartsWith: (("this", "expression"), lambda a: a[0].startswith(a[1])),
    exp.EndsWith: (("this", "expression"), lambda a: a[0].endswith(a[1])),
    exp.Contains: (("this", "expression"), lambda a: a[0].contains(a[1])),
    exp.NullSafeEQ: (("this", "expression"), lambda a: a[0].eqNullSafe(a[1])),
    exp.CurrentDate: ((), lambda a: F.current_date()),
    exp.CurrentTimestamp: ((), lambda a: F.current_timestamp()),
    exp.DateDiff: (("this", "expression"), lambda a: F.datediff(a[0], a[1])),
    exp.MonthsBetween: (("this", "expression"), lambda a: F.months_between(a[0], a[1])),
    exp.TimeToStr: (("this", "format"),
                    lambda a: F.date_format(a[0], _pattern(a[1]))),
    exp.TsOrDsToDate: (("this", "format"),
                       lambda a: F.to_date(a[0], *map(_pattern, a[1:]))),
    exp.StrToTime: (("this", "format"),
                    lambda a: F.to_timestamp(a[0], _pattern(a[1]))),
    exp.TimestampTrunc: (("unit", "this"), lambda a: F.date_trunc(_text(a[0]), a[1])),
    # sqlglot's Spark dialect reads from_utc_timestamp/to_utc_timestamp as these
    exp.AtTimeZone: (("this", "zone"), lambda a: F.from_utc_timestamp(a[0], _text(a[1]))),
    exp.FromTimeZone: (("this", "zone"), lambda a: F.to_utc_timestamp(a[0], _text(a[1]))),
    exp.StrToUnix: (("this", "format"), lambda a: F.unix_timestamp(a[0], _pattern(a[1]))),
    exp.UnixToStr: (("this", "format"), lambda a: F.from_unixtime(a[0], _pattern(a[1]))),
    exp.CurrentTimezone: ((), lambda a: F.current_timezone()),
    exp.DateTrunc: (("this", "unit"), lambda a: F.trunc(a[0], _text(a[1]))),
    exp.Hour: (("this",), _one(F.hour)),
    exp.Minute: (("this",), _one(F.minute)),
    exp.Second: (("this",), _one(F.second)),
    exp.DayOfWeek: (("this",), _one(F.dayofweek)),
    exp.DayOfYear: (("this",), _one(F.dayofyear)),
    exp.WeekOfYear: (("this",), _one(F.weekofyear)),
    exp.DayOfMonth: (("this",), _one(F.dayofmonth)),
    exp.Quarter: (("this",), _one(F.quarter)),
    exp.LastDay: (("this",), _one(F.last_day)),
    exp.NextDay: (("this", "expression"), lambda a: F.next_day(a[0], _text(a[1]))),
    exp.AddMonths: (("this", "expression"), lambda a: F.add_months(a[0], a[1])),
    exp.TsOrDsAdd: (("this", "expression"), lambda a: _date_add(a[0], a[1])),
    exp.Round: (("this", "decimals"), lambda a: F.round(a[0], *map(_text, a[1:]))),
    exp.Floor: (("this",), _one(F.floor)),
    exp.Ceil: (("this",), _one(F.ceil)),
    exp.Sqrt: (("this",), _one(F.sqrt)),
    exp.Pow: (("this", "expression"), lambda a: F.pow(a[0], a[1])),
    exp.Ln: (("this",), _one(F.ln)),
    exp.Exp: (("this",), _one(F.exp)),
    exp.Sign: (("this",), _one(F.signum)),
    exp.Greatest: (("this", "expressions"), lambda a: F.greatest(*a)),
    exp.Least: (("this", "expressions"), lambda a: F.least(*a)),
    exp.Array: (("expressions",), lambda a: F.array(*a)),
    exp.ArrayContains: (("this", "expression"), lambda a: F.array_contains(a[0], a[1])),
    exp.ArraySize: (("this",), _one(F.size)),
    exp.ArrayDistinct: (("this",), _one(F.array_distinct)),
    exp.MapKeys: (("this",), _one(F.map_keys)),
    exp.RegexpSplit: (("this", "expression", "limit"), lambda a: F.split(a[0], *map(_text, a[1:]))),
    exp.ArrayAgg: (("this",), _one(F.collect_list)),
    exp.ArrayUniqueAgg: (("this",), _one(F.collect_set)),
}
_BY_NAME: dict[str, _Build] = {
    "bround": lambda a: F.bround(a[0], *map(_text, a[1:])),
    "log1p": _one(F.log1p),
    "pmod": lambda a: F.pmod(a[0], a[1]),
    "to_timestamp_ltz": lambda a: F.to_timestamp_ltz(a[0], *map(_pattern, a[1:])),
    "to_timestamp_ntz": lambda a: F.to_timestamp_ntz(a[0], *map(_pattern, a[1:])),
    "instr": lambda a: F.instr(a[0], a[1]),
    "lpad": lambda a: F.lpad(a[0], a[1], a[2]),
    "rpad": lambda a: F.rpad(a[0], a[1], a[2]),
    "map_values": _one(F.map_values),
}


def function(node: exp.Expression, translate: Translate) -> ex.Expr | None:
    """The planner expression for the function call ``node``, or None if it is no call
    this module knows."""
    if isinstance(node, exp.Anonymous):
        build = _BY_NAME.get(node.name.lower())
        if build is None:
            return None
        return build([Column(translate(a)) for a in node.expressions]).expr
    if isinstance(node, exp.StrPosition):
        return _position(node, translate)
    if isinstance(node, exp.Pad):
        pad = F.lpad if node.args.get("is_left") else F.rpad
        args = [Column(translate(node.args[k])) for k in ("this", "expression", "fill_pattern")]
        return pad(*args).expr
    if isinstance(node, exp.Log):
        return _log(node, translate)
    nested = collection(node, translate)
    if nested is not None:
        return nested
    entry = _BY_CLASS.get(type(node))
    if entry is None:
        return None
    keys, build = entry
    args: _Args = []
    for key in keys:
        value = node.args.get(key)
        for part in value if isinstance(value, list) else [value]:
            part = unwrapped(part)
            if part is not None:
                args.append(Column(_unit(part) if isinstance(part, exp.Var) else translate(part)))
    return build(args).expr


def _position(node: exp.StrPosition, translate: Translate) -> ex.Expr:
    """``instr(s, sub)``, or ``locate(sub, s, pos)`` when a position is given (sqlglot
    parses both into one node; without a position they mean the same)."""
    s, sub = translate(node.this), translate(node.args["substr"])
    position = node.args.get("position")
    if position is None:
        return F.instr(Column(s), Column(sub)).expr
    pos = _text(Column(translate(position)))
    return F.locate(_text(Column(sub)), Column(s), pos).expr


def _log(node: exp.Log, translate: Translate) -> ex.Expr:
    if node.expression is None:
        return F.ln(Column(translate(node.this))).expr
    base, x = translate(node.this), Column(translate(node.expression))
    if isinstance(base, ex.Lit) and base.value in (10, 2):
        return (F.log10 if base.value == 10 else F.log2)(x).expr
    return F.log(Column(base), x).expr


def _date_add(start: Column, days: Column) -> Column:
    """``date_sub(d, n)`` parses as ``TsOrDsAdd(d, n * -1)``: given back its name."""
    node = days.expr
    minus_one = (ex.Lit(value=-1), ex.Call(fn="neg", args=(ex.Lit(value=1),)))
    if isinstance(node, ex.Call) and node.fn == "mul" and node.args[1] in minus_one:
        return F.date_sub(start, Column(node.args[0]))
    return F.date_add(start, days)


def _unit(var: exp.Var) -> ex.Expr:
    return ex.Lit(value=var.name)
