"""Compile a validated operator tree into one DuckDB query.

A task plan arrives as pydantic models (``planner.plan``); the worker turns its fragment into
SQL here and nowhere else. The SQL is built as a sqlglot expression tree and rendered with
``dialect="duckdb", identify=True``, so the generator quotes every identifier and literal:
no user-controlled string is ever formatted into SQL text by this module. Identifiers were
already checked by the model validators (no quotes, no control characters); quoting here is
the second line of defence, not the only one.

Shape of the output: every operator wraps its input as a derived table with a generated alias
(``_t0``, ``_t1`` ...). That is deliberately naive: DuckDB's optimizer flattens the nesting,
and one rule per operator is easy to check. Leaves read tables the worker registers under
names this module owns (``exchange_table``, ``scan_table``) or call ``read_parquet`` directly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable

from sqlglot import exp

from sparkwire.planner.expressions import AggCall, Call, Case, Cast, Column, Expr, Lit, NamedExpr, SortKey
from sparkwire.planner.plan import (
    Aggregate,
    Boundary,
    Exchange,
    Filter,
    Limit,
    LocalSource,
    Operator,
    ParquetScan,
    Project,
    Sort,
    operators,
)

__all__ = [
    "PARTITION_COLUMN",
    "CompileError",
    "compile_fragment",
    "duckdb_type",
    "exchange_table",
    "parquet_scans",
    "scan_needs_dataset",
    "scan_table",
]

#: The column a shuffle stage appends: the output partition of each row, in ``[0, P)``.
PARTITION_COLUMN = "__sparkwire_partition"

_DIALECT = "duckdb"


class CompileError(ValueError):
    """A fragment that validated as a model but cannot be compiled (a planner bug)."""


def exchange_table(stage: int) -> str:
    """The name under which the worker registers the stream arriving from ``stage``."""
    return f"exchange_{int(stage)}"


#: Where the driver's worker registers the chunk of in-memory data a LocalSource task reads.
LOCAL_TABLE = "local_source"


def scan_table(index: int) -> str:
    """The name under which the worker registers the row-group dataset of scan ``index``.

    ``index`` is the scan's position in ``parquet_scans(fragment)``.
    """
    return f"scan_{int(index)}"


def scan_needs_dataset(scan: ParquetScan) -> bool:
    """Whether a scan reads only some row groups, and so goes through a registered dataset.

    DuckDB's ``read_parquet`` cannot be told which row groups to read, so a scan whose
    splits name row groups is read by a ``pyarrow.dataset`` built from exactly those row
    groups (``engine.row_group_dataset``) and registered under ``scan_table``.
    Whole files are read natively by DuckDB, which is faster and honours its file-access
    lock-down.
    """
    return any(split.row_groups is not None for split in scan.splits)


def parquet_scans(fragment: Operator) -> list[ParquetScan]:
    """The distinct Parquet scans of a fragment, in the order that numbers their tables."""
    scans: list[ParquetScan] = []
    for node in operators(fragment):
        if isinstance(node, ParquetScan) and node not in scans:
            scans.append(node)
    return scans


def compile_fragment(fragment: Operator, output: Boundary) -> str:
    """One DuckDB ``SELECT`` computing ``fragment`` and, for a shuffle, each row's partition."""
    compiler = _Compiler(parquet_scans(fragment))
    query = compiler.operator(fragment)
    if output.kind == "shuffle":
        if not output.keys:
            raise CompileError("a shuffle boundary needs at least one key")
        keys = [compiler.expr(key) for key in output.keys]
        # HASH returns UBIGINT (never negative), so the modulo by an unsigned P lies in [0, P).
        bucket = exp.Mod(
            this=exp.Anonymous(this="hash", expressions=keys),
            expression=_cast(exp.Literal.number(output.partitions), "UBIGINT"),
        )
        query = exp.select(
            exp.Star(), exp.alias_(_cast(bucket, "BIGINT"), _ident(PARTITION_COLUMN))
        ).from_(compiler.derived(query))
    return query.sql(dialect=_DIALECT, identify=True)


def _unique(names: Iterable[str], where: str) -> None:
    """Refuse names equal but for case: DuckDB resolves even quoted identifiers ignoring
    case, so ``"a"`` would silently read column ``"A"`` (and ``"a"`` become ``"a_1"``)."""
    seen: dict[str, str] = {}
    for name in names:
        key = name.casefold()
        if key in seen:
            raise CompileError(
                f"{where}: columns {seen[key]!r} and {name!r} clash (DuckDB ignores case)"
            )
        seen[key] = name


def _ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def _col(name: str) -> exp.Column:
    return exp.Column(this=_ident(name))


def _cast(value: exp.Expression, type_sql: str) -> exp.Cast:
    return exp.Cast(this=value, to=exp.DataType.build(type_sql, dialect=_DIALECT))


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
    "timestamp": "TIMESTAMP",
}
_DECIMAL = re.compile(r"decimal\((\d{1,2}),(\d{1,2})\)")


def duckdb_type(name: str) -> exp.DataType:
    """The DuckDB type for a sparkwire type name (already validated by ``TypeName``)."""
    if name in _SIMPLE_TYPES:
        return exp.DataType.build(_SIMPLE_TYPES[name], dialect=_DIALECT)
    match = _DECIMAL.fullmatch(name)
    if match is None:
        raise CompileError(f"unknown type {name!r}")
    params = [exp.DataTypeParam(this=exp.Literal.number(int(g))) for g in match.groups()]
    return exp.DataType(this=exp.DataType.Type.DECIMAL, expressions=params)


def _paren(node: exp.Expression) -> exp.Expression:
    """Parenthesise compound operands: sqlglot renders a built tree without precedence."""
    if isinstance(node, (exp.Column, exp.Literal, exp.Null, exp.Boolean, exp.Paren, exp.Func)):
        return node
    if isinstance(node, exp.Cast):
        return node
    return exp.Paren(this=node)


def _binary(cls: type[exp.Expression]) -> Callable[[list[exp.Expression]], exp.Expression]:
    def build(args: list[exp.Expression]) -> exp.Expression:
        _arity(cls.__name__, args, 2)
        return cls(this=_paren(args[0]), expression=_paren(args[1]))

    return build


def _unary(cls: type[exp.Expression]) -> Callable[[list[exp.Expression]], exp.Expression]:
    def build(args: list[exp.Expression]) -> exp.Expression:
        _arity(cls.__name__, args, 1)
        return cls(this=_paren(args[0]))

    return build


def _arity(fn: str, args: list[exp.Expression], n: int) -> None:
    if len(args) != n:
        raise CompileError(f"{fn} takes {n} argument(s), got {len(args)}")


def _chain(cls: type[exp.Expression]) -> Callable[[list[exp.Expression]], exp.Expression]:
    """``and`` / ``or`` of two or more operands, folded left."""

    def build(args: list[exp.Expression]) -> exp.Expression:
        if len(args) < 2:
            raise CompileError(f"{cls.__name__} takes at least 2 arguments, got {len(args)}")
        result = _paren(args[0])
        for arg in args[1:]:
            result = cls(this=result, expression=_paren(arg))
        return result

    return build


def _div(args: list[exp.Expression]) -> exp.Expression:
    # PySpark's `/` always yields a double; DuckDB's `/` does too for integers (verified), but
    # casting both operands says so explicitly and also covers decimal operands.
    _arity("div", args, 2)
    return exp.Div(this=_cast(args[0], "DOUBLE"), expression=_cast(args[1], "DOUBLE"))


def _is_null(args: list[exp.Expression]) -> exp.Expression:
    _arity("is_null", args, 1)
    return exp.Is(this=_paren(args[0]), expression=exp.Null())


def _is_not_null(args: list[exp.Expression]) -> exp.Expression:
    return exp.Not(this=exp.Paren(this=_is_null(args)))


def _in(args: list[exp.Expression]) -> exp.Expression:
    if not args:
        raise CompileError("in takes a value and a list")
    if len(args) == 1:
        # `x IN ()` is not SQL; an empty list matches nothing (Spark 4 semantics, even for NULL).
        return exp.Boolean(this=False)
    return exp.In(this=_paren(args[0]), expressions=args[1:])


def _between(args: list[exp.Expression]) -> exp.Expression:
    _arity("between", args, 3)
    return exp.Between(this=_paren(args[0]), low=_paren(args[1]), high=_paren(args[2]))


def _coalesce(args: list[exp.Expression]) -> exp.Expression:
    if not args:
        raise CompileError("coalesce takes at least 1 argument")
    return exp.Coalesce(this=args[0], expressions=args[1:])


def _func(cls: type[exp.Func]) -> Callable[[list[exp.Expression]], exp.Expression]:
    def build(args: list[exp.Expression]) -> exp.Expression:
        _arity(cls.__name__.lower(), args, 1)
        return cls(this=args[0])

    return build


_CALLS: dict[str, Callable[[list[exp.Expression]], exp.Expression]] = {
    "add": _binary(exp.Add),
    "sub": _binary(exp.Sub),
    "mul": _binary(exp.Mul),
    "div": _div,
    "mod": _binary(exp.Mod),
    "neg": _unary(exp.Neg),
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
    "in": _in,
    "between": _between,
    "coalesce": _coalesce,
    "abs": _func(exp.Abs),
    "lower": _func(exp.Lower),
    "upper": _func(exp.Upper),
    "length": _func(exp.Length),
    "year": _func(exp.Year),
    "month": _func(exp.Month),
    "day": _func(exp.Day),
}

_AGGREGATES: dict[str, type[exp.AggFunc]] = {
    "sum": exp.Sum,
    "avg": exp.Avg,
    "min": exp.Min,
    "max": exp.Max,
    "count": exp.Count,
}


class _Compiler:
    """Turns one fragment into a sqlglot tree; owns the derived-table alias counter."""

    def __init__(self, scans: list[ParquetScan]) -> None:
        self._scans = scans
        self._aliases = 0

    def derived(self, query: exp.Select) -> exp.Subquery:
        alias = f"_t{self._aliases}"
        self._aliases += 1
        return query.subquery(_ident(alias))

    def operator(self, op: Operator) -> exp.Select:
        if isinstance(op, Exchange):
            _unique(op.columns, f"exchange from stage {op.stage}")
            table = exp.Table(this=_ident(exchange_table(op.stage)))
            return exp.select(*map(_col, op.columns)).from_(table)
        if isinstance(op, ParquetScan):
            _unique(op.columns, "parquet scan")
            return exp.select(*map(_col, op.columns)).from_(self._scan_source(op))
        if isinstance(op, LocalSource):
            _unique(op.columns, "local source")
            table = exp.Table(this=_ident(LOCAL_TABLE))
            return exp.select(*map(_col, op.columns)).from_(table)
        if isinstance(op, Filter):
            source = self.derived(self.operator(op.input))
            return exp.select(exp.Star()).from_(source).where(self.expr(op.predicate))
        if isinstance(op, Project):
            _unique((c.name for c in op.columns), "project")
            source = self.derived(self.operator(op.input))
            return exp.select(*map(self.named, op.columns)).from_(source)
        if isinstance(op, Aggregate):
            return self._aggregate(op)
        if isinstance(op, Sort):
            source = self.derived(self.operator(op.input))
            query = exp.select(exp.Star()).from_(source).order_by(*map(self.sort_key, op.keys))
            return query if op.limit is None else query.limit(op.limit)
        if isinstance(op, Limit):
            source = self.derived(self.operator(op.input))
            return exp.select(exp.Star()).from_(source).limit(op.n)
        raise CompileError(f"unsupported operator {type(op).__name__}")

    def _scan_source(self, scan: ParquetScan) -> exp.Expression:
        if not scan.splits:
            raise CompileError("a Parquet scan with no splits; give the task no scan instead")
        if scan_needs_dataset(scan):
            return exp.Table(this=_ident(scan_table(self._scans.index(scan))))
        paths = exp.Array(expressions=[exp.Literal.string(s.path) for s in scan.splits])
        return exp.Table(this=exp.Anonymous(this="read_parquet", expressions=[paths]))

    def _aggregate(self, op: Aggregate) -> exp.Select:
        source = self.derived(self.operator(op.input))
        _unique((c.name for c in (*op.keys, *op.aggregates)), "aggregate")
        outputs = [*map(self.named, op.keys), *map(self.named, op.aggregates)]
        if not outputs:
            raise CompileError("an aggregate with neither keys nor aggregates")
        query = exp.select(*outputs).from_(source)
        if op.keys:
            # Group by output position: keys come first, and positions cannot be captured by
            # an output alias that happens to share a name with an input column.
            positions = [exp.Literal.number(i + 1) for i in range(len(op.keys))]
            query = query.group_by(*positions)
        return query

    def named(self, named: NamedExpr) -> exp.Expression:
        return exp.alias_(self.expr(named.expr), _ident(named.name))

    def sort_key(self, key: SortKey) -> exp.Ordered:
        return exp.Ordered(
            this=self.expr(key.expr), desc=not key.ascending, nulls_first=key.nulls_first
        )

    def expr(self, node: Expr) -> exp.Expression:
        if isinstance(node, Column):
            return _col(node.name)
        if isinstance(node, Lit):
            return _literal(node)
        if isinstance(node, Call):
            return _CALLS[node.fn]([self.expr(arg) for arg in node.args])
        if isinstance(node, AggCall):
            return self._agg(node)
        if isinstance(node, Case):
            ifs = [exp.If(this=self.expr(c), true=self.expr(v)) for c, v in node.branches]
            default = exp.Null() if node.otherwise is None else self.expr(node.otherwise)
            return exp.Case(ifs=ifs, default=default)
        if isinstance(node, Cast):
            # Caveat: DuckDB's VARCHAR -> BLOB cast reads `\xNN` escapes and refuses
            # non-ASCII text, unlike Spark's UTF-8 encoding. The compiler does not know the
            # operand's type, and encode() would break BLOB -> BLOB, so it stays a plain cast.
            return exp.Cast(this=self.expr(node.expr), to=duckdb_type(node.to))
        raise CompileError(f"unsupported expression {type(node).__name__}")

    def _agg(self, node: AggCall) -> exp.Expression:
        if node.arg is None:
            if node.fn != "count":
                raise CompileError(f"{node.fn} needs an argument; only count takes none")
            return exp.Count(this=exp.Star())
        arg = self.expr(node.arg)
        if node.fn == "count_distinct":
            return exp.Count(this=exp.Distinct(expressions=[arg]))
        return _AGGREGATES[node.fn](this=arg)


def _literal(lit: Lit) -> exp.Expression:
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
        node = _cast(exp.Literal.string(text), "DOUBLE")
    else:
        node = exp.Literal.string(value)
    if lit.type is None:
        return node
    if lit.type == "binary" and isinstance(value, str):
        # CAST(text AS BLOB) reads `\xNN` escapes and refuses non-ASCII; a binary literal
        # given as text means its UTF-8 bytes, which is what encode() returns.
        return exp.Anonymous(this="encode", expressions=[node])
    return exp.Cast(this=node, to=duckdb_type(lit.type))
