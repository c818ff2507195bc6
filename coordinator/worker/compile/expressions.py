"""Expressions to DuckDB SQL: every function the plan's allow-list names, its literals
and types, as sqlglot trees the fragment compiler (``compiler``) places in its queries.

Each allowed scalar function has one builder, here in ``CALLS`` or in the string, date,
math and collection groups (``calls_text``, ``calls_dates``, ``calls_math``,
``calls_collections``, gathered by ``calls``), or, when its result depends on Spark's ANSI mode,
in ``calls.MODE_CALLS`` (``div``, ``mod``, integer ``add`` ...); each aggregate has one entry in
``AGGREGATES`` and each window function one builder in ``WINDOW_CALLS``. Where Spark's
semantics differ from DuckDB's default, the builder says so (``concat``, ``date_add`` ...).
Nothing is formatted into SQL text here either.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from sqlglot import exp

from sparkwire.planner import typenames
from sparkwire.planner.expressions import Lit

DIALECT = "duckdb"


class CompileError(ValueError):
    """A fragment that validated as a model but cannot be compiled (a planner bug)."""


def ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def col(name: str) -> exp.Column:
    return exp.Column(this=ident(name))


def cast(value: exp.Expression, type_sql: str) -> exp.Cast:
    return exp.Cast(this=value, to=exp.DataType.build(type_sql, dialect=DIALECT))


_SIMPLE_TYPES = {
    "bool": "BOOLEAN",
    "int8": "TINYINT",
    "int16": "SMALLINT",
    "int32": "INTEGER",
    "int64": "BIGINT",
    "float32": "FLOAT",
    "float64": "DOUBLE",
    "string": "VARCHAR",
    "binary": "BLOB",
    "date": "DATE",
    "timestamp": "TIMESTAMPTZ",  # Spark's timestamp is an instant (zones)
    "timestamp_ntz": "TIMESTAMP",
}
_DECIMAL = re.compile(r"decimal\((\d{1,2}),(\d{1,2})\)")
_NESTED = {"array": exp.DataType.Type.ARRAY, "map": exp.DataType.Type.MAP,
           "struct": exp.DataType.Type.STRUCT}


def duckdb_type(name: str) -> exp.DataType:
    """The DuckDB type for a sparkwire type name (already validated by ``TypeName``):
    ``array<T>`` is ``T[]``, ``map<K,V>`` ``MAP(K, V)``, ``struct<a:T>`` ``STRUCT("a" T)``."""
    try:
        tree = typenames.parse(name)
    except ValueError as exc:
        raise CompileError(str(exc)) from None
    return _duckdb_type(tree)


def _duckdb_type(tree: typenames.TypeTree) -> exp.DataType:
    if tree.kind == "struct":
        fields = [exp.ColumnDef(this=ident(f), kind=_duckdb_type(a))
                  for f, a in zip(tree.fields, tree.args, strict=True)]
        return exp.DataType(this=_NESTED["struct"], expressions=fields, nested=True)
    if tree.kind in _NESTED:
        return exp.DataType(this=_NESTED[tree.kind], expressions=[_duckdb_type(a) for a in tree.args],
                            nested=True)
    if tree.name in _SIMPLE_TYPES:
        return exp.DataType.build(_SIMPLE_TYPES[tree.name], dialect=DIALECT)
    match = _DECIMAL.fullmatch(tree.name)
    if match is None:
        raise CompileError(f"unknown type {tree.name!r}")
    params = [exp.DataTypeParam(this=exp.Literal.number(int(g))) for g in match.groups()]
    return exp.DataType(this=exp.DataType.Type.DECIMAL, expressions=params)


def paren(node: exp.Expression) -> exp.Expression:
    """Parenthesise compound operands: sqlglot renders a built tree without precedence.

    ``AND``/``OR`` are ``exp.Func`` subclasses in sqlglot, so connectives are checked first:
    left bare, ``(a OR b) AND c`` would print as ``a OR b AND c``.
    """
    if isinstance(node, exp.Connector):
        return exp.Paren(this=node)
    if isinstance(node, (exp.Column, exp.Literal, exp.Null, exp.Boolean, exp.Paren, exp.Func)):
        return node
    if isinstance(node, exp.Cast):
        return node
    return exp.Paren(this=node)


def _binary(cls: type[exp.Expression]) -> Callable[[list[exp.Expression]], exp.Expression]:
    def build(args: list[exp.Expression]) -> exp.Expression:
        arity(cls.__name__, args, 2)
        return cls(this=paren(args[0]), expression=paren(args[1]))

    return build


def _unary(cls: type[exp.Expression]) -> Callable[[list[exp.Expression]], exp.Expression]:
    def build(args: list[exp.Expression]) -> exp.Expression:
        arity(cls.__name__, args, 1)
        return cls(this=paren(args[0]))

    return build


def arity(fn: str, args: list[exp.Expression], n: int) -> None:
    if len(args) != n:
        raise CompileError(f"{fn} takes {n} argument(s), got {len(args)}")


def _chain(cls: type[exp.Expression]) -> Callable[[list[exp.Expression]], exp.Expression]:
    """``and`` / ``or`` of two or more operands, folded left."""

    def build(args: list[exp.Expression]) -> exp.Expression:
        if len(args) < 2:
            raise CompileError(f"{cls.__name__} takes at least 2 arguments, got {len(args)}")
        result = paren(args[0])
        for arg in args[1:]:
            result = cls(this=result, expression=paren(arg))
        return result

    return build


def _is_null(args: list[exp.Expression]) -> exp.Expression:
    arity("is_null", args, 1)
    return exp.Is(this=paren(args[0]), expression=exp.Null())


def _is_not_null(args: list[exp.Expression]) -> exp.Expression:
    return exp.Not(this=exp.Paren(this=_is_null(args)))


def _in(args: list[exp.Expression]) -> exp.Expression:
    if not args:
        raise CompileError("in takes a value and a list")
    if len(args) == 1:
        # `x IN ()` is not SQL; an empty list matches nothing (Spark 4 semantics, even for NULL).
        return exp.Boolean(this=False)
    return exp.In(this=paren(args[0]), expressions=args[1:])


def _between(args: list[exp.Expression]) -> exp.Expression:
    arity("between", args, 3)
    return exp.Between(this=paren(args[0]), low=paren(args[1]), high=paren(args[2]))


def _date_shift(unit: str) -> Callable[[list[exp.Expression]], exp.Expression]:
    """``date_add(d, n)`` / ``add_months(d, n)`` as Spark has them: a DATE moved by ``n``
    days or months (DuckDB's date + interval is a TIMESTAMP, so it is cast back); a month
    past the end of the next is its last day, in both engines."""

    def build(args: list[exp.Expression]) -> exp.Expression:
        arity(f"date shift by {unit}", args, 2)
        amount = exp.Anonymous(this=f"to_{unit}", expressions=[cast(args[1], "INTEGER")])
        return cast(exp.Add(this=paren(args[0]), expression=amount), "DATE")

    return build


def _concat(args: list[exp.Expression]) -> exp.Expression:
    """``a || b || ...``: NULL when any part is NULL, as Spark's ``concat``; DuckDB's
    ``concat()`` would skip NULL parts."""
    if not args:
        raise CompileError("concat takes at least 1 argument")
    result = cast(args[0], "VARCHAR")
    for arg in args[1:]:
        result = exp.DPipe(this=result, expression=cast(arg, "VARCHAR"), safe=False)
    return result


def _named_function(name: str) -> Callable[[list[exp.Expression]], exp.Expression]:
    def build(args: list[exp.Expression]) -> exp.Expression:
        arity(name, args, 1)
        return exp.Anonymous(this=name, expressions=args)

    return build


def _coalesce(args: list[exp.Expression]) -> exp.Expression:
    if not args:
        raise CompileError("coalesce takes at least 1 argument")
    return exp.Coalesce(this=args[0], expressions=args[1:])


def _func(cls: type[exp.Func]) -> Callable[[list[exp.Expression]], exp.Expression]:
    def build(args: list[exp.Expression]) -> exp.Expression:
        arity(cls.__name__.lower(), args, 1)
        return cls(this=args[0])

    return build


CALLS: dict[str, Callable[[list[exp.Expression]], exp.Expression]] = {
    "eq": _binary(exp.EQ),
    "ne": _binary(exp.NEQ),
    "lt": _binary(exp.LT),
    "le": _binary(exp.LTE),
    "gt": _binary(exp.GT),
    "ge": _binary(exp.GTE),
    "and": _chain(exp.And),
    "or": _chain(exp.Or),
    "not": _unary(exp.Not),
    "is_null": _is_null,
    "is_not_null": _is_not_null,
    "isnan": _named_function("isnan"),
    # describe()'s reading of a string column as numbers: NULL where it is none (Spark's
    # lenient cast), never an error
    "try_double": lambda args: exp.TryCast(this=args[0], to=exp.DataType.build("DOUBLE")),
    "in": _in,
    "between": _between,
    "coalesce": _coalesce,
    "like": _binary(exp.Like),
    "concat": _concat,
    "trim": _named_function("trim"),
    "ltrim": _named_function("ltrim"),
    "rtrim": _named_function("rtrim"),
    "date_add": _date_shift("days"),
    "add_months": _date_shift("months"),
    "abs": _func(exp.Abs),
    "trunc": lambda args: exp.Anonymous(this="trunc", expressions=args),
    "length": _func(exp.Length),
    "year": _func(exp.Year),
    "month": _func(exp.Month),
    "day": _func(exp.Day),
}

AGGREGATES: dict[str, type[exp.AggFunc]] = {
    "sum": exp.Sum,
    "avg": exp.Avg,
    "min": exp.Min,
    "max": exp.Max,
    "count": exp.Count,
    # Spark's any_value keeps NULLs (isIgnoreNull=false): that is DuckDB's first(), not its
    # any_value(), which skips them. Every first() of one aggregate reads the same row, so
    # dropDuplicates keeps whole input rows.
    "any_value": exp.First,
    # Spark's first/last keep NULLs unless told to skip them (``edge_aggregate``).
    "first": exp.First,
    "last": exp.Last,
}

#: first/last over a window frame: the frame's first or last row.
WINDOW_EDGES: dict[str, type[exp.Func]] = {"first": exp.FirstValue, "last": exp.LastValue}


def edge_aggregate(fn: str, arg: exp.Expression, ignore_nulls: bool) -> exp.Expression:
    """``first``/``last`` of a group; skipping NULLs is a ``FILTER`` on the aggregate
    (DuckDB's ``any_value`` skips them too, but there is no such ``last``)."""
    call = AGGREGATES[fn](this=arg)
    if not ignore_nulls:
        return call
    keep = exp.Not(this=exp.Paren(this=exp.Is(this=paren(arg.copy()), expression=exp.Null())))
    return exp.Filter(this=call, expression=exp.Where(this=keep))


def edge_over_window(fn: str, arg: exp.Expression, ignore_nulls: bool) -> exp.Expression:
    """``first``/``last`` over a window frame: ``first_value``/``last_value`` of the frame,
    ``IGNORE NULLS`` for Spark's ``ignorenulls``."""
    call = WINDOW_EDGES[fn](this=arg)
    return exp.IgnoreNulls(this=call) if ignore_nulls else call


def _ranking(cls: type[exp.Func]) -> Callable[[list[exp.Expression], int], exp.Expression]:
    def build(args: list[exp.Expression], offset: int) -> exp.Expression:
        arity(cls.__name__, args, 0)
        return cls()

    return build


def _ntile(args: list[exp.Expression], buckets: int) -> exp.Expression:
    """As Spark's: the first ``rows % n`` buckets get one row more than the rest."""
    arity("ntile", args, 0)
    return exp.Ntile(this=exp.Literal.number(buckets))


def _shift(cls: type[exp.Func]) -> Callable[[list[exp.Expression], int], exp.Expression]:
    """``lag``/``lead(value, rows, default)``; the planner gave the default the value's type
    (DuckDB refuses a default of another type)."""

    def build(args: list[exp.Expression], offset: int) -> exp.Expression:
        if len(args) not in (1, 2):
            raise CompileError(f"{cls.__name__} takes a value and a default, got {len(args)} arguments")
        default = args[1] if len(args) == 2 else None
        return cls(this=args[0], offset=exp.Literal.number(offset), default=default)

    return build


#: Window functions Spark types ``int`` (DuckDB: BIGINT); the compiler casts them.
INTEGER_WINDOW_CALLS = frozenset({"row_number", "rank", "dense_rank", "ntile"})

#: Ranking and offset functions over a window: (arguments, offset or buckets) -> call.
WINDOW_CALLS: dict[str, Callable[[list[exp.Expression], int], exp.Expression]] = {
    "row_number": _ranking(exp.RowNumber),
    "rank": _ranking(exp.Rank),
    "dense_rank": _ranking(exp.DenseRank),
    "percent_rank": _ranking(exp.PercentRank),
    "cume_dist": _ranking(exp.CumeDist),
    "ntile": _ntile,
    "lag": _shift(exp.Lag),
    "lead": _shift(exp.Lead),
}



def literal(lit: Lit) -> exp.Expression:
    """A literal; typed literals are a cast of their text, so precision is never lost."""
    value = lit.value
    node: exp.Expression
    if value is None:
        node = exp.Null()
    elif isinstance(value, bool):
        node = exp.Boolean(this=value)
    elif isinstance(value, int):
        node = exp.Literal.number(value)
    elif isinstance(value, float):
        # DuckDB reads `0.1` as DECIMAL(1,1); PySpark's float literal is a double. Casting
        # the shortest round-trip text keeps every bit and also spells nan and +-inf.
        text = repr(value) if math.isfinite(value) else str(value)
        node = cast(exp.Literal.string(text), "DOUBLE")
    else:
        node = exp.Literal.string(value)
    if lit.type is None:
        return node
    if lit.type == "binary" and isinstance(value, str):
        # CAST(text AS BLOB) reads `\xNN` escapes and refuses non-ASCII; a binary literal
        # given as text means its UTF-8 bytes, which is what encode() returns.
        return exp.Anonymous(this="encode", expressions=[node])
    return exp.Cast(this=node, to=duckdb_type(lit.type))
