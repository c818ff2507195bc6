"""SQL function calls to the function registry (``planner.logical.functions``).

sqlglot parses each known function into its own node class (``instr`` and ``locate`` both
into ``StrPosition``, ``log10(x)`` into ``Log(10, x)``, Spark's date functions with their
argument wrapped in ``TsOrDsToDate``); this module maps those classes onto the registry's
names, so a call written in SQL (``F.expr``, ``selectExpr``, ``session.sql``) is built and
checked exactly as the same call made from Python is: patterns must be literals and pass
the same checks. A function not listed here (nor a collection form of
``planner.sql.collections``, nor a higher-order call of ``planner.sql.lambdas``) is
``... is not supported``.

Both ``session.sql`` and ``F.expr`` parse in sqlglot's Spark dialect, so a call keeps
Spark's meaning: ``regexp_replace`` replaces every match, positions are 1-based.
``instr(s, t)`` and ``locate(t, s)`` mean the same and are both named ``instr``; a
``log(10, x)`` is computed (and named) as ``log10(x)``, sqlglot parsing both alike.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.time import format_time

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.functions import registry
from sparkwire.planner.sql.aggregate_functions import AGGREGATE_CLASSES, AGGREGATE_NAMES
from sparkwire.planner.sql.array_functions import ARRAY_CLASSES, ARRAY_NAMES
from sparkwire.planner.sql.collections import Translate, collection
from sparkwire.planner.sql.format_functions import FORMAT_CLASSES, FORMAT_NAMES, spark_path
from sparkwire.planner.sql.lambdas import higher_order
from sparkwire.planner.sql.math_functions import MATH_CLASSES, MATH_NAMES
from sparkwire.planner.sql.session_functions import SESSION_CLASSES, SESSION_NAMES
from sparkwire.planner.logical.functions.vectors import VECTOR_NAMES
from sparkwire.planner.sql.task_functions import TASK_CLASSES, TASK_NAMES

_SPARK = Dialect.get_or_raise("spark")

# sqlglot wraps date-taking arguments in conversions Spark does implicitly anyway.
_IMPLICIT = (exp.TsOrDsToDate, exp.TimeStrToTime)


def unwrapped(node: exp.Expr | None) -> exp.Expr | None:
    while isinstance(node, _IMPLICIT) and node.args.get("format") is None:
        node = node.this
    return node


# node class -> (the node's arguments, in order, that are the call's) and the registry's name
_BY_CLASS: dict[type[exp.Expr], tuple[tuple[str, ...], str]] = {
    exp.ConcatWs: (("expressions",), "concat_ws"),
    exp.RegexpReplace: (("this", "expression", "replacement"), "regexp_replace"),
    exp.RegexpExtract: (("this", "expression", "group"), "regexp_extract"),
    exp.RegexpLike: (("this", "expression"), "rlike"),
    exp.Initcap: (("this",), "initcap"),
    exp.Format: (("this", "expressions"), "format_string"),
    exp.StartsWith: (("this", "expression"), "startswith"),
    exp.EndsWith: (("this", "expression"), "endswith"),
    exp.Contains: (("this", "expression"), "contains"),
    exp.CurrentDate: ((), "current_date"),
    exp.CurrentTimestamp: ((), "current_timestamp"),
    exp.DateDiff: (("this", "expression"), "datediff"),
    exp.MonthsBetween: (("this", "expression"), "months_between"),
    exp.TimeToStr: (("this", "format"), "date_format"),
    exp.TsOrDsToDate: (("this", "format"), "to_date"),
    exp.StrToTime: (("this", "format"), "to_timestamp"),
    exp.TimestampTrunc: (("unit", "this"), "date_trunc"),
    # sqlglot's Spark dialect reads from_utc_timestamp/to_utc_timestamp as these
    exp.AtTimeZone: (("this", "zone"), "from_utc_timestamp"),
    exp.FromTimeZone: (("this", "zone"), "to_utc_timestamp"),
    exp.StrToUnix: (("this", "format"), "unix_timestamp"),
    exp.UnixToStr: (("this", "format"), "from_unixtime"),
    exp.CurrentTimezone: ((), "current_timezone"),
    exp.DateTrunc: (("this", "unit"), "trunc"),
    exp.Hour: (("this",), "hour"),
    exp.Minute: (("this",), "minute"),
    exp.Second: (("this",), "second"),
    exp.DayOfWeek: (("this",), "dayofweek"),
    exp.DayOfYear: (("this",), "dayofyear"),
    exp.WeekOfYear: (("this",), "weekofyear"),
    exp.DayOfMonth: (("this",), "dayofmonth"),
    exp.Quarter: (("this",), "quarter"),
    exp.LastDay: (("this",), "last_day"),
    exp.NextDay: (("this", "expression"), "next_day"),
    exp.AddMonths: (("this", "expression"), "add_months"),
    exp.TsOrDsAdd: (("this", "expression"), "date_add"),
    # the later date functions (planner.logical.functions.calendar); sqlglot reads
    # date_diff as DateDiff and to_unix_timestamp as StrToUnix, so they take those names
    exp.Day: (("this",), "day"),
    exp.Dayname: (("this",), "dayname"),
    exp.Monthname: (("this",), "monthname"),
    exp.TimestampFromParts: (("year", "month", "day", "hour", "min", "sec"), "make_timestamp"),
    exp.UnixDate: (("this",), "unix_date"),
    exp.UnixSeconds: (("this",), "unix_seconds"),
    exp.UnixMillis: (("this",), "unix_millis"),
    exp.UnixMicros: (("this",), "unix_micros"),
    exp.DateFromUnixDate: (("this",), "date_from_unix_date"),
    exp.Localtimestamp: ((), "localtimestamp"),
    exp.ConvertTimezone: (("source_tz", "target_tz", "timestamp"), "convert_timezone"),
    # TIMESTAMPDIFF(unit, start, end), TIMESTAMPADD(unit, n, ts) and DATEADD(unit, n, ts)
    exp.TimestampDiff: (("unit", "expression", "this"), "timestampdiff"),
    exp.TimestampAdd: (("unit", "expression", "this"), "timestampadd"),
    exp.IsNan: (("this",), "isnan"),
    exp.Nanvl: (("this", "expression"), "nanvl"),
    exp.Round: (("this", "decimals"), "round"),
    exp.Floor: (("this",), "floor"),
    exp.Ceil: (("this",), "ceil"),
    exp.Sqrt: (("this",), "sqrt"),
    exp.Pow: (("this", "expression"), "pow"),
    exp.Ln: (("this",), "ln"),
    exp.Exp: (("this",), "exp"),
    exp.Sign: (("this",), "signum"),
    exp.Greatest: (("this", "expressions"), "greatest"),
    exp.Least: (("this", "expressions"), "least"),
    exp.Array: (("expressions",), "array"),
    exp.ArrayContains: (("this", "expression"), "array_contains"),
    exp.ArraySize: (("this",), "size"),
    exp.ArrayDistinct: (("this",), "array_distinct"),
    exp.MapKeys: (("this",), "map_keys"),
    exp.RegexpSplit: (("this", "expression", "limit"), "split"),
    exp.ArrayAgg: (("this",), "collect_list"),
    exp.ArrayUniqueAgg: (("this",), "collect_set"),
    # the statistical aggregates (sqlglot reads var_samp as Variance, named variance(x) here)
    exp.Stddev: (("this",), "stddev"),
    exp.StddevSamp: (("this",), "stddev_samp"),
    exp.StddevPop: (("this",), "stddev_pop"),
    exp.Variance: (("this",), "variance"),
    exp.VariancePop: (("this",), "var_pop"),
    exp.Skewness: (("this",), "skewness"),
    exp.Kurtosis: (("this",), "kurtosis"),
    exp.CovarSamp: (("this", "expression"), "covar_samp"),
    exp.CovarPop: (("this", "expression"), "covar_pop"),
    exp.Corr: (("this", "expression"), "corr"),
    **{getattr(exp, "Regr" + name.capitalize()): (("this", "expression"), f"regr_{name}")
       for name in ("count", "avgx", "avgy", "sxx", "syy", "sxy", "slope", "intercept", "r2")},
    # the later aggregates (planner.logical.functions.summaries)
    exp.LogicalAnd: (("this",), "bool_and"),
    exp.LogicalOr: (("this",), "bool_or"),
    exp.ArgMax: (("this", "expression"), "max_by"),
    exp.ArgMin: (("this", "expression"), "min_by"),
    exp.Median: (("this",), "median"),
    exp.Quantile: (("this", "quantile"), "percentile"),
    exp.Grouping: (("expressions",), "grouping"),
    exp.GroupingId: (("expressions",), "grouping_id"),
    **MATH_CLASSES,
    **ARRAY_CLASSES,
    **AGGREGATE_CLASSES,
    **SESSION_CLASSES,
    **TASK_CLASSES,
    **FORMAT_CLASSES,
}
#: The functions sqlglot leaves as anonymous calls, resolved by their own names.
_BY_NAME = frozenset({
    "bround", "log1p", "pmod", "to_timestamp_ltz", "to_timestamp_ntz", "instr", "lpad", "rpad",
    "map_values", "std", "raise_error", "assert_true", "weekday", "date_part", "datepart",
    "make_date", "make_timestamp_ntz", "make_timestamp_ltz", "timestamp_seconds", "try_make_timestamp",
    "try_make_timestamp_ltz", "try_make_timestamp_ntz", "make_time", "to_time", "try_to_time",
    "current_time", "time_diff", "time_trunc", "time_to_micros", "time_to_millis", "time_to_seconds",
    "time_from_micros", "time_from_millis", "time_from_seconds",
    "timestamp_millis", "timestamp_micros", "now", "every", "some", "product", "try_to_date",
    "try_to_timestamp", *MATH_NAMES, *ARRAY_NAMES, *AGGREGATE_NAMES, *SESSION_NAMES, *FORMAT_NAMES,
    *TASK_NAMES, *VECTOR_NAMES, "counter_diff",
})
#: The functions whose second argument is a datetime pattern, in sqlglot's form.
_PATTERNED = frozenset({
    "date_format", "to_date", "to_timestamp", "unix_timestamp", "from_unixtime",
    "to_timestamp_ltz", "to_timestamp_ntz",
})


def function(node: exp.Expr, translate: Translate) -> ex.Expr | None:
    """The planner expression for the function call ``node``, or None if it is no call
    this module knows."""
    lambdas = higher_order(node, translate)
    if lambdas is not None:
        return lambdas
    if isinstance(node, exp.Anonymous):
        name = node.name.lower()
        if name not in _BY_NAME:
            return None
        return _call(name, [translate(a) for a in node.expressions])
    if isinstance(node, exp.StrPosition):
        return _position(node, translate)
    if isinstance(node, exp.Pad):
        padded = [translate(node.args[k]) for k in ("this", "expression", "fill_pattern")]
        return registry.call("lpad" if node.args.get("is_left") else "rpad", *padded)
    if isinstance(node, exp.Log):
        return _log(node, translate)
    if isinstance(node, exp.TimeTrunc | exp.TimeDiff | exp.CurrentTime):
        return _time_call(node, translate)
    if isinstance(node, exp.JSONExtractScalar):
        path = spark_path(node.expression) or translate(node.expression)
        return registry.call("get_json_object", translate(node.this), path)
    nested = collection(node, translate)
    if nested is not None:
        return nested
    entry = _BY_CLASS.get(type(node))
    if entry is None:
        return None
    keys, name = entry
    args: list[ex.Expr] = []
    for key in keys:
        value = node.args.get(key)
        for part in value if isinstance(value, list) else [value]:
            part = unwrapped(part)
            if part is not None:
                args.append(_unit(part) if isinstance(part, exp.Var) else translate(part))
    return _call(name, args)


def _time_call(node: exp.TimeTrunc | exp.TimeDiff | exp.CurrentTime, translate: Translate) -> ex.Expr:
    """``time_trunc(unit, t)``, ``time_diff(unit, start, end)`` and ``current_time([p])``,
    which sqlglot reads into its own nodes: the unit is ``this``, a time ``expression`` and
    ``unit`` (a bare column name there read as a ``Var``, taken back as the column)."""
    keys = {exp.TimeTrunc: ("this", "unit"), exp.TimeDiff: ("this", "expression", "unit"),
            exp.CurrentTime: ("this",)}[type(node)]
    args = []
    for key in keys:
        part = node.args.get(key)
        if isinstance(part, exp.Var):
            part = exp.column(part.name)
        if part is not None:
            args.append(translate(part))
    name = {exp.TimeTrunc: "time_trunc", exp.TimeDiff: "time_diff", exp.CurrentTime: "current_time"}[type(node)]
    return registry.call(name, *args)


def _call(name: str, args: list[ex.Expr]) -> ex.Expr:
    if name in _PATTERNED and len(args) > 1:
        args[1] = _pattern(args[1])
    if name == "date_add" and len(args) == 2:
        return _date_add(*args)
    return registry.call(name, *args)


def _pattern(arg: ex.Expr) -> ex.Expr:
    """A datetime pattern as Spark wrote it: sqlglot keeps patterns in its own (strftime)
    form and gives Spark's back through the Spark dialect's inverse mapping."""
    if not (isinstance(arg, ex.Lit) and arg.type is None and isinstance(arg.value, str)):
        return arg
    return ex.Lit(value=format_time(arg.value, _SPARK.INVERSE_TIME_MAPPING, _SPARK.INVERSE_TIME_TRIE))


def _position(node: exp.StrPosition, translate: Translate) -> ex.Expr:
    """``instr(s, sub)``, or ``locate(sub, s, pos)`` when a position is given (sqlglot
    parses both into one node; without a position they mean the same)."""
    s, sub = translate(node.this), translate(node.args["substr"])
    position = node.args.get("position")
    if position is None:
        return registry.call("instr", s, sub)
    return registry.call("locate", sub, s, translate(position))


def _log(node: exp.Log, translate: Translate) -> ex.Expr:
    if node.expression is None:
        return registry.call("ln", translate(node.this))
    base, x = translate(node.this), translate(node.expression)
    if isinstance(base, ex.Lit) and base.value in (10, 2):
        return registry.call("log10" if base.value == 10 else "log2", x)
    return registry.call("log", base, x)


def _date_add(start: ex.Expr, days: ex.Expr) -> ex.Expr:
    """``date_sub(d, n)`` parses as ``TsOrDsAdd(d, n * -1)``: given back its name."""
    minus_one = (ex.Lit(value=-1), ex.Call(fn="neg", args=(ex.Lit(value=1),)))
    if isinstance(days, ex.Call) and days.fn == "mul" and days.args[1] in minus_one:
        return registry.call("date_sub", start, days.args[0])
    return registry.call("date_add", start, days)


def _unit(var: exp.Var) -> ex.Expr:
    return ex.Lit(value=var.name)
