"""sqlglot expressions to planner expressions, for the SQL front end.

Only what the planner's allow-list can carry is translated; anything else is an
``SqlError`` naming the construct and where it stands in the query. Column references come
out as ``Column("alias.name")`` (``qualify`` has qualified every one), which the analyzer
resolves against the relation in scope. Subqueries are not expressions here: the
translator takes them out of predicates before this module sees them. Operators, ``CASE``
and ``CAST`` are built here; every function call by the function registry
(``planner.logical.functions``, the sqlglot classes mapped in ``planner.sql.functions``), as
the DataFrame API's are.

``f OVER (PARTITION BY ... ORDER BY ... ROWS|RANGE BETWEEN ...)`` becomes an ``Over``
(named windows were written into each ``OVER`` first, ``syntax.inline_windows``); frame
bounds must be integer literals, and an ``ORDER BY`` inside ``OVER`` without ``NULLS
FIRST/LAST`` sorts NULLs as Spark does, first ascending and last descending.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable

from sqlglot import exp

from sparkwire.planner.logical import expressions as ex, time_types
from sparkwire.planner.logical.functions import registry
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.functions.casts import cast_type
from sparkwire.planner.logical.functions.listaggs import within_group
from sparkwire.planner.logical.literals import literal
from sparkwire.planner.limits import check_in_list
from sparkwire.planner.sql.errors import SqlError
from sparkwire.planner.sql.aggregate_functions import EDGES, IGNORING_NULLS
from sparkwire.planner.sql.functions import function, unwrapped
from sparkwire.planner.sql.syntax import is_lambda_exists

_BINARY: dict[type[exp.Expr], ex.ScalarFunction] = {
    exp.Add: "add", exp.Sub: "sub", exp.Mul: "mul", exp.Div: "div", exp.Mod: "mod",
    exp.EQ: "eq", exp.NEQ: "ne", exp.LT: "lt", exp.LTE: "le", exp.GT: "gt", exp.GTE: "ge",
    exp.And: "and", exp.Or: "or", exp.Like: "like", exp.NullSafeEQ: "eq_null_safe",
}
# node class -> the registry's name (``planner.logical.functions``)
_UNARY: dict[type[exp.Expr], str] = {
    exp.Abs: "abs", exp.Lower: "lower", exp.Upper: "upper", exp.Length: "length",
    exp.Year: "year", exp.Month: "month", exp.Day: "day",
}
_AGGREGATES: dict[type[exp.Expr], str] = {
    exp.Sum: "sum", exp.Avg: "avg", exp.Min: "min", exp.Max: "max", exp.AnyValue: "any_value",
    exp.First: "first", exp.Last: "last",
}
_TRUE = ex.Lit(value=True)
_SQL_TYPES = {
    "VARCHAR": "string", "TEXT": "string", "CHAR": "string", "DATE": "date",
    "TIMESTAMP": "timestamp", "TIMESTAMP_LTZ": "timestamp", "TIMESTAMP_NTZ": "timestamp_ntz",
    "TIMESTAMPNTZ": "timestamp_ntz", "TIMESTAMPLTZ": "timestamp", "TIMESTAMPTZ": "timestamp",
    "DOUBLE": "float64", "FLOAT": "float32", "INT": "int32",
    "BIGINT": "int64", "SMALLINT": "int16", "TINYINT": "int8", "BOOLEAN": "bool",
}


def expression(node: exp.Expr) -> ex.Expr:
    """The planner expression for ``node``."""
    match node:
        case exp.Paren():
            return expression(node.this)
        case exp.Column():
            return _column(node)
        case exp.Literal():
            return _literal(node)
        case exp.Boolean():
            return ex.Lit(value=bool(node.this))
        case exp.Null():
            return ex.Lit(value=None)
        case exp.Neg():
            value = expression(node.this)
            number = value.value if isinstance(node.this, exp.Literal) and isinstance(value, ex.Lit) else None
            if isinstance(number, int | float) and not isinstance(number, bool):
                return ex.Lit(value=-number)  # Spark reads -1 as one literal (and names it so)
            return ex.Call(fn="neg", args=(value,))
        case exp.Not():
            return _not(node)
        case exp.Is():
            if not isinstance(node.expression, exp.Null):
                raise unsupported(node, "IS other than IS NULL")
            return ex.Call(fn="is_null", args=(expression(node.this),))
        case exp.In():
            if node.args.get("query") is not None:
                raise unsupported(node, "IN with a subquery outside a WHERE condition")
            check_in_list(len(node.expressions))
            items = [expression(e) for e in node.expressions]
            return ex.Call(fn="in", args=(expression(node.this), *items))
        case exp.Between():
            parts = (node.this, node.args["low"], node.args["high"])
            return ex.Call(fn="between", args=tuple(expression(p) for p in parts))
        case exp.Case():
            return _case(node)
        case exp.If():
            otherwise = node.args.get("false")
            return ex.Case(
                branches=((expression(node.this), expression(node.args["true"])),),
                otherwise=None if otherwise is None else expression(otherwise),
            )
        case exp.Cast() | exp.TryCast():
            return _cast(node)
        case exp.Add() | exp.Sub() if isinstance(node.expression, exp.Interval):
            return _interval(node)
        case exp.DateAdd():
            return registry.call("date_add", expression(node.this), expression(node.expression))
        case exp.DPipe():
            return registry.call("concat", expression(node.this), expression(node.expression))
        case exp.Concat() if not isinstance(node, exp.ConcatWs):
            return registry.call("concat", *(expression(e) for e in node.expressions))
        case exp.Trim():
            if node.expression is not None:
                raise unsupported(node, "TRIM of characters other than spaces")
            fn = {"LEADING": "ltrim", "TRAILING": "rtrim"}.get((node.args.get("position") or "").upper(), "trim")
            return registry.call(fn, expression(node.this))
        case exp.Coalesce():
            args = [node.this, *node.expressions]
            return registry.call("coalesce", *(expression(a) for a in args))
        case exp.Substring():
            args = [node.this, node.args["start"]]
            if node.args.get("length") is not None:
                args.append(node.args["length"])
            return registry.call("substring", *(expression(a) for a in args))
        case exp.Extract():  # the field as written: Spark names extract(year FROM d) so
            return registry.call("extract", ex.Lit(value=node.this.name), expression(node.expression))
        case exp.Count():
            return _count(node)
        case exp.GroupConcat():
            return _listagg(node)
        case exp.Window():
            return _window(node)
        case exp.IgnoreNulls() if type(node.this) in EDGES:
            # Spark's first(x, true) and first(x) IGNORE NULLS, as an aggregate
            return registry.call(IGNORING_NULLS[type(node.this)], expression(node.this.this), _TRUE)
        case exp.FirstValue() | exp.LastValue():
            return registry.call(EDGES[type(node)], expression(node.this))
        case exp.Subquery() | exp.Select() | exp.Exists() if not is_lambda_exists(node):
            raise unsupported(node, "a subquery here")
        case exp.Explode() | exp.Inline():
            # planner.sql.generators takes them where Spark does: a SELECT item, LATERAL
            raise unsupported(node, f"the generator {node.sql_name().lower()} inside an expression")
    for kinds, build in _TABLES:
        if type(node) in kinds:
            return build(node)
    called = function(node, expression)
    if called is not None:
        return called
    raise unsupported(node, _function_name(node))


def _function_name(node: exp.Expr) -> str:
    if isinstance(node, exp.Anonymous):
        return f"the function {node.name}"
    if isinstance(node, exp.Func):
        return f"the function {node.sql_name().lower()}"
    return type(node).__name__.upper()


def _binary(node: exp.Expr) -> ex.Expr:
    fn = _BINARY[type(node)]
    call = ex.Call(fn=fn, args=(expression(node.this), expression(node.expression)))
    return ex.Call(fn="not", args=(call,)) if node.args.get("negate") else call


def _unary(node: exp.Expr) -> ex.Expr:
    # Spark SQL's year(d) parses as Year(TsOrDsToDate(d)): a conversion Spark does anyway.
    argument = unwrapped(node.this)
    if argument is None:
        raise unsupported(node, f"{type(node).__name__.upper()} without its argument")
    return registry.call(_UNARY[type(node)], expression(argument))


def _aggregate(node: exp.Expr) -> ex.Expr:
    arg = node.this
    if isinstance(arg, exp.Distinct):
        raise unsupported(node, f"{type(node).__name__.upper()}(DISTINCT ...)")
    if node.args.get("expression") is not None:  # Spark's first(x, true)
        raise unsupported(node, f"{type(node).__name__.upper()} with a second argument")
    return registry.call(_AGGREGATES[type(node)], expression(arg))


_TABLES: tuple[tuple[tuple[type[exp.Expr], ...], Callable[[exp.Expr], ex.Expr]], ...] = (
    (tuple(_BINARY), _binary),
    (tuple(_UNARY), _unary),
    (tuple(_AGGREGATES), _aggregate),
)


_INTERVAL_UNITS = {"DAY": ("date_add", 1), "WEEK": ("date_add", 7), "MONTH": ("add_months", 1),
                   "YEAR": ("add_months", 12)}


def _interval(node: exp.Add | exp.Sub) -> ex.Expr:
    """``date ± INTERVAL 'n' unit`` on a column (constant dates are folded by sqlglot)."""
    interval = node.expression
    unit = interval.unit.name.upper() if interval.unit is not None else ""
    if unit.endswith("S"):
        unit = unit[:-1]
    amount = interval.this
    if unit not in _INTERVAL_UNITS or not isinstance(amount, exp.Literal):
        raise unsupported(node, f"interval arithmetic in {unit or 'this unit'}")
    try:
        n = int(amount.this)
    except ValueError:
        raise unsupported(node, "a fractional interval") from None
    fn, scale = _INTERVAL_UNITS[unit]
    n *= scale * (-1 if isinstance(node, exp.Sub) else 1)
    return registry.call(fn, expression(node.this), ex.Lit(value=n))


def _column(node: exp.Column) -> ex.Expr:
    if isinstance(node.this, exp.Star):
        raise unsupported(node, "* outside a SELECT list")
    # t.c, or a struct's field path (s.f, t.s.f), which the analyzer tells apart
    return ex.Column(name=".".join(part.name for part in node.parts))


def _literal(node: exp.Literal) -> ex.Expr:
    if node.is_string:
        return ex.Lit(value=node.this)
    text = node.this
    try:
        return ex.Lit(value=int(text))
    except ValueError:
        pass
    if "e" in text.lower():
        return ex.Lit(value=float(text))
    # A decimal literal is exact in Spark SQL (0.06 is decimal(2,2)), not a double.
    return literal(decimal.Decimal(text))


def _not(node: exp.Not) -> ex.Expr:
    inner = node.this.unnest() if isinstance(node.this, exp.Paren) else node.this
    if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
        return ex.Call(fn="is_not_null", args=(expression(inner.this),))
    return ex.Call(fn="not", args=(expression(node.this),))


def _case(node: exp.Case) -> ex.Expr:
    if node.this is not None:
        raise unsupported(node, "CASE <value> WHEN (write CASE WHEN <condition>)")
    branches = tuple(
        (expression(branch.this), expression(branch.args["true"])) for branch in node.args["ifs"]
    )
    default = node.args.get("default")
    return ex.Case(branches=branches, otherwise=None if default is None else expression(default))


def _cast(node: exp.Cast) -> ex.Expr:
    to = node.to
    name = to.this.name if hasattr(to.this, "name") else str(to.this)
    if to.is_type(exp.DataType.Type.DECIMAL):
        params = [p.this.name for p in to.expressions]
        type_name = f"decimal({params[0]},{params[1] if len(params) > 1 else 0})" if params else "decimal(10,0)"
    else:
        type_name = _SQL_TYPES.get(name.upper(), name.lower())
    try:
        type_name = cast_type(type_name)
    except AnalysisError:
        raise unsupported(node, f"CAST to {to.sql()}") from None
    value = node.this
    if isinstance(value, exp.Literal) and value.is_string and type_name in ("date", "timestamp", "timestamp_ntz"):
        return ex.Lit(value=value.this, type=type_name)
    if isinstance(value, exp.Literal) and value.is_string and type_name == "time" \
            and (parsed := time_types.parse_text(value.this)) is not None:  # TIME'12:34' as Spark names it
        return literal(parsed)
    return ex.Cast(expr=expression(value), to=type_name, safe=isinstance(node, exp.TryCast))


def _count(node: exp.Count) -> ex.Expr:
    arg = node.this
    if arg is None or isinstance(arg, exp.Star):
        return registry.call("count")
    if isinstance(arg, exp.Distinct):
        if len(arg.expressions) != 1:
            raise unsupported(node, "COUNT(DISTINCT ...) of several columns")
        return registry.call("count_distinct", expression(arg.expressions[0]))
    return registry.call("count", expression(arg))


def _listagg(node: exp.GroupConcat) -> ex.Expr:
    """``listagg``/``string_agg`` (sqlglot reads both as one node, so both are named
    ``listagg``), ``DISTINCT`` and ``WITHIN GROUP (ORDER BY key)`` included."""
    arg, keys = node.this, []
    if isinstance(arg, exp.Order):
        arg, keys = arg.this, arg.expressions
    distinct = isinstance(arg, exp.Distinct)
    if distinct:
        if len(arg.expressions) != 1:
            raise unsupported(node, "LISTAGG(DISTINCT ...) of several columns")
        arg = arg.expressions[0]
    if len(keys) > 1:
        raise unsupported(node, "LISTAGG ... WITHIN GROUP (ORDER BY ...) of several keys")
    separator = node.args.get("separator")
    args = [expression(arg)] + ([] if separator is None else [expression(separator)])
    call = registry.call("listagg_distinct" if distinct else "listagg", *args)
    assert isinstance(call, ex.AggCall)
    return within_group(call, sort_key(keys[0])) if keys else call


_RANKING: dict[type[exp.Expr], str] = {
    exp.RowNumber: "row_number", exp.Rank: "rank", exp.DenseRank: "dense_rank",
    exp.PercentRank: "percent_rank", exp.CumeDist: "cume_dist",
}


def _window(node: exp.Window) -> ex.Expr:
    if node.args.get("alias") is not None:
        raise SqlError.at(node, f"unknown window {node.args['alias'].name!r}")
    order = node.args.get("order")
    keys = tuple(sort_key(o) for o in order.expressions) if order is not None else ()
    try:
        return ex.Over(
            function=_window_function(node.this),
            partition_by=tuple(expression(e) for e in node.args.get("partition_by") or []),
            order_by=keys,
            frame=_frame(node.args.get("spec")),
        )
    except ValueError as exc:  # a model's bound: too many keys, a frame out of order
        raise SqlError.at(node, f"invalid window: {exc}") from None


def _window_function(node: exp.Expr) -> ex.AggCall | ex.WindowCall:
    inner = node.this if isinstance(node, exp.IgnoreNulls) else node
    function = _window_call(node, inner)
    if not isinstance(function, ex.AggCall | ex.WindowCall):
        raise unsupported(node, f"{type(inner).__name__.upper()} over a window")
    return function


def _window_call(node: exp.Expr, inner: exp.Expr) -> ex.Expr:
    """The call ``node`` (``inner``, under an ``IGNORE NULLS`` or not) computes over a window."""
    ignore_nulls = inner is not node
    if type(inner) in _RANKING:
        return registry.call(_RANKING[type(inner)])
    if isinstance(inner, exp.NthValue):
        return registry.call("nth_value", expression(inner.this),
                             ex.Lit(value=_integer(inner.args["offset"], inner)),
                             ex.Lit(value=ignore_nulls))
    if ignore_nulls and type(inner) not in EDGES:
        raise unsupported(node, "IGNORE NULLS other than in first/last/nth_value")
    if type(inner) in EDGES:
        if inner.args.get("expression") is not None:
            raise unsupported(node, f"{type(inner).__name__.upper()} with a second argument")
        names = IGNORING_NULLS if ignore_nulls else EDGES
        return registry.call(names[type(inner)], expression(inner.this), ex.Lit(value=ignore_nulls))
    if isinstance(inner, exp.Ntile):
        return registry.call("ntile", ex.Lit(value=_integer(inner.this, inner)))
    if isinstance(inner, exp.Lag | exp.Lead):
        offset = inner.args.get("offset")
        rows = ex.Lit(value=1 if offset is None else _integer(offset, inner))
        default = inner.args.get("default")
        defaults = () if default is None else (expression(default),)
        return registry.call("lag" if isinstance(inner, exp.Lag) else "lead", expression(inner.this), rows, *defaults)
    return expression(inner)


def _frame(spec: exp.WindowSpec | None) -> ex.Frame | None:
    if spec is None:
        return None
    if spec.args.get("exclude") is not None:
        raise unsupported(spec, "EXCLUDE in a window frame")
    return ex.Frame(
        unit=spec.args["kind"].lower(),
        start=_bound(spec.args.get("start"), spec.args.get("start_side"), spec),
        end=_bound(spec.args.get("end"), spec.args.get("end_side"), spec),
    )


def _bound(value: exp.Expr | str | None, side: str | None, spec: exp.WindowSpec) -> int | None:
    """``UNBOUNDED`` is None, ``CURRENT ROW`` 0, ``n PRECEDING`` -n, ``n FOLLOWING`` n."""
    if value is None or (isinstance(value, str) and value.upper() == "UNBOUNDED"):
        return None
    if isinstance(value, str) and value.upper() == "CURRENT ROW":
        return 0
    n = _integer(value, spec)
    return -n if (side or "").upper() == "PRECEDING" else n


def _integer(node: exp.Expr | str | None, where: exp.Expr) -> int:
    value = expression(node) if isinstance(node, exp.Expression) else None
    if not (isinstance(value, ex.Lit) and isinstance(value.value, int)
            and not isinstance(value.value, bool)):
        raise unsupported(where, "a window offset or bound other than an integer literal")
    return value.value


def sort_key(node: exp.Ordered, computed: ex.Expr | None = None) -> ex.SortKey:
    """An ``ORDER BY`` item, NULLs first ascending and last descending unless it says; by
    the ``computed`` column where the key was computed as a hidden item
    (``planner.sql.ordering``)."""
    descending = bool(node.args.get("desc"))
    nulls_first = node.args.get("nulls_first")
    if nulls_first is None:
        nulls_first = not descending  # Spark: NULLS FIRST ascending, NULLS LAST descending
    return ex.SortKey(expr=expression(node.this) if computed is None else computed,
                      ascending=not descending, nulls_first=bool(nulls_first))


def unsupported(node: exp.Expr, what: str) -> SqlError:
    return SqlError.at(node, f"{what} is not supported by sparkwire")
