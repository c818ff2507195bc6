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
names this module chooses and returns with the SQL (``CompiledFragment.tables``), or call
``read_parquet`` directly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import assert_never

from sqlglot import exp

from sparkwire.planner.expressions import AggCall, Call, Case, Cast, Column, Expr, Lit, NamedExpr, SortKey
from sparkwire.planner.plan import (
    Aggregate,
    Boundary,
    Exchange,
    FileSplit,
    Filter,
    Join,
    Limit,
    LocalSource,
    Operator,
    ParquetScan,
    Project,
    Sample,
    SetOperation,
    Sort,
    output_columns,
)

__all__ = [
    "PARTITION_COLUMN",
    "CompileError",
    "CompiledFragment",
    "ExchangeTable",
    "LocalTable",
    "RowGroupTable",
    "TableInput",
    "compile_fragment",
    "duckdb_type",
]

#: Reservoir samples are repeatable: the same input gives the same range bounds.
_SAMPLE_SEED = 42

#: The column a shuffle stage appends: the output partition of each row, in ``[0, P)``.
PARTITION_COLUMN = "__sparkwire_partition"

_DIALECT = "duckdb"


class CompileError(ValueError):
    """A fragment that validated as a model but cannot be compiled (a planner bug)."""


@dataclass(frozen=True)
class ExchangeTable:
    """Register the stream of producer stage ``stage`` (every partition this task reads
    from it, in routing order) under ``name``."""

    name: str
    stage: int


@dataclass(frozen=True)
class LocalTable:
    """Register this task's chunk of the driver's in-memory source ``source_id``."""

    name: str
    source_id: str


@dataclass(frozen=True)
class RowGroupTable:
    """Register a dataset of exactly these row groups (``engine.row_group_dataset``).

    DuckDB's ``read_parquet`` cannot be told which row groups to read, so a scan whose
    splits name row groups goes through a ``pyarrow.dataset``; whole files are read by DuckDB
    natively, which is faster and honours its file-access lock-down.
    """

    name: str
    splits: tuple[FileSplit, ...]


TableInput = ExchangeTable | LocalTable | RowGroupTable


@dataclass(frozen=True)
class CompiledFragment:
    """The query of one task and what it needs: the tables to register under the names the
    query uses, and every Parquet file it may read (the engine allows exactly those)."""

    sql: str
    tables: tuple[TableInput, ...]
    files: tuple[str, ...]


def compile_fragment(fragment: Operator, output: Boundary) -> CompiledFragment:
    """One DuckDB ``SELECT`` computing ``fragment`` and, for a shuffle, each row's partition;
    the fragment is walked once, collecting its tables as its leaves are compiled."""
    compiler = _Compiler()
    query = compiler.operator(fragment)
    if output.kind in ("shuffle", "range"):
        if not output.keys:
            raise CompileError(f"a {output.kind} boundary needs at least one key")
        keys = [compiler.expr(key) for key in output.keys]
        if output.kind == "range":
            if len(keys) != 1:
                raise CompileError("a range boundary has one key: the partition")
            # the plan computed each row's partition; clamped, so a bad plan cannot
            # name a partition that does not exist
            bucket: exp.Expression = exp.Greatest(
                this=exp.Literal.number(0),
                expressions=[exp.Least(
                    this=_cast(keys[0], "BIGINT"),
                    expressions=[exp.Literal.number(output.partitions - 1)],
                )],
            )
        else:
            # HASH returns UBIGINT (never negative), so the modulo by an unsigned P lies in
            # [0, P).
            bucket = exp.Mod(
                this=exp.Anonymous(this="hash", expressions=keys),
                expression=_cast(exp.Literal.number(output.partitions), "UBIGINT"),
            )
        query = exp.select(
            exp.Star(), exp.alias_(_cast(bucket, "BIGINT"), _ident(PARTITION_COLUMN))
        ).from_(compiler.derived(query))
    return CompiledFragment(
        sql=query.sql(dialect=_DIALECT, identify=True),
        tables=tuple(compiler.tables.values()),
        files=tuple(compiler.files),
    )


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


def _substring(args: list[exp.Expression]) -> exp.Expression:
    """SQL's 1-based ``substring(s, start, length)``; without a length, to the end."""
    if len(args) not in (2, 3):
        raise CompileError(f"substring takes 2 or 3 arguments, got {len(args)}")
    length = args[2] if len(args) == 3 else None
    return exp.Substring(this=args[0], start=args[1], length=length)


def _date_shift(unit: str) -> Callable[[list[exp.Expression]], exp.Expression]:
    """``date_add(d, n)`` / ``add_months(d, n)`` as Spark has them: a DATE moved by ``n``
    days or months (DuckDB's date + interval is a TIMESTAMP, so it is cast back); a month
    past the end of the next is its last day, in both engines."""

    def build(args: list[exp.Expression]) -> exp.Expression:
        _arity(f"date shift by {unit}", args, 2)
        amount = exp.Anonymous(this=f"to_{unit}", expressions=[_cast(args[1], "INTEGER")])
        return _cast(exp.Add(this=_paren(args[0]), expression=amount), "DATE")

    return build


def _concat(args: list[exp.Expression]) -> exp.Expression:
    """``a || b || ...``: NULL when any part is NULL, as Spark's ``concat``; DuckDB's
    ``concat()`` would skip NULL parts."""
    if not args:
        raise CompileError("concat takes at least 1 argument")
    result = _cast(args[0], "VARCHAR")
    for arg in args[1:]:
        result = exp.DPipe(this=result, expression=_cast(arg, "VARCHAR"), safe=False)
    return result


def _named_function(name: str) -> Callable[[list[exp.Expression]], exp.Expression]:
    def build(args: list[exp.Expression]) -> exp.Expression:
        _arity(name, args, 1)
        return exp.Anonymous(this=name, expressions=args)

    return build


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
    "like": _binary(exp.Like),
    "substring": _substring,
    "concat": _concat,
    "trim": _named_function("trim"),
    "ltrim": _named_function("ltrim"),
    "rtrim": _named_function("rtrim"),
    "date_add": _date_shift("days"),
    "add_months": _date_shift("months"),
    "abs": _func(exp.Abs),
    "trunc": lambda args: exp.Anonymous(this="trunc", expressions=args),
    "lower": _func(exp.Lower),
    "upper": _func(exp.Upper),
    "length": _func(exp.Length),
    "year": _func(exp.Year),
    "month": _func(exp.Month),
    "day": _func(exp.Day),
}

#: (side, kind) of the sqlglot ``Join`` node for each join type but ``cross``.
_JOIN_SHAPES: dict[str, tuple[str | None, str | None]] = {
    "inner": (None, None),
    "left": ("LEFT", None),
    "right": ("RIGHT", None),
    "full": ("FULL", None),
    "semi": (None, "SEMI"),
    "anti": (None, "ANTI"),
}

_SET_OPERATIONS: dict[str, type[exp.SetOperation]] = {
    "union": exp.Union,
    "intersect": exp.Intersect,
    "except": exp.Except,
}

_AGGREGATES: dict[str, type[exp.AggFunc]] = {
    "sum": exp.Sum,
    "avg": exp.Avg,
    "min": exp.Min,
    "max": exp.Max,
    "count": exp.Count,
    # Spark's any_value keeps NULLs (isIgnoreNull=false): that is DuckDB's first(), not its
    # any_value(), which skips them. Every first() of one aggregate reads the same row, so
    # dropDuplicates keeps whole input rows.
    "any_value": exp.First,
}


class _Compiler:
    """Turns one fragment into a sqlglot tree; owns the derived-table alias counter and
    collects the tables and files the query reads."""

    def __init__(self) -> None:
        self._aliases = 0
        self.tables: dict[str, TableInput] = {}
        self.files: dict[str, None] = {}  # ordered set

    def derived(self, query: exp.Query) -> exp.Subquery:
        alias = f"_t{self._aliases}"
        self._aliases += 1
        return query.subquery(_ident(alias))

    def operator(self, op: Operator) -> exp.Select:
        match op:
            case Exchange():
                _unique(op.columns, f"exchange from stage {op.stage}")
                table = self._table(ExchangeTable(name=f"exchange_{op.stage}", stage=op.stage))
                return exp.select(*map(_col, op.columns)).from_(table)
            case ParquetScan():
                _unique(op.columns, "parquet scan")
                return exp.select(*map(_col, op.columns)).from_(self._scan_source(op))
            case LocalSource():
                _unique(op.columns, "local source")
                table = self._table(LocalTable(name=f"local_{op.source_id}", source_id=op.source_id))
                return exp.select(*map(_col, op.columns)).from_(table)
            case Filter():
                source = self.derived(self.operator(op.input))
                return exp.select(exp.Star()).from_(source).where(self.expr(op.predicate))
            case Project():
                _unique((c.name for c in op.columns), "project")
                source = self.derived(self.operator(op.input))
                return exp.select(*map(self.named, op.columns)).from_(source)
            case Aggregate():
                return self._aggregate(op)
            case Sort():
                source = self.derived(self.operator(op.input))
                query = exp.select(exp.Star()).from_(source).order_by(*map(self.sort_key, op.keys))
                return query if op.limit is None else query.limit(op.limit)
            case Limit():
                source = self.derived(self.operator(op.input))
                return exp.select(exp.Star()).from_(source).limit(op.n)
            case Sample():
                source = self.derived(self.operator(op.input))
                sample = exp.TableSample(
                    method=exp.var("RESERVOIR"), size=exp.Literal.number(op.rows),
                    seed=exp.Literal.number(_SAMPLE_SEED),
                )
                query = exp.select(exp.Star()).from_(source)
                query.set("sample", sample)
                return query
            case Join():
                return self._join(op)
            case SetOperation():
                return self._set_operation(op)
            case _:
                assert_never(op)

    def _table(self, table: TableInput) -> exp.Table:
        self.tables.setdefault(table.name, table)
        return exp.Table(this=_ident(table.name))

    def _scan_source(self, scan: ParquetScan) -> exp.Expression:
        if not scan.splits:
            raise CompileError("a Parquet scan with no splits; give the task no scan instead")
        self.files.update(dict.fromkeys(split.path for split in scan.splits))
        if any(split.row_groups is not None for split in scan.splits):
            count = sum(isinstance(t, RowGroupTable) for t in self.tables.values())
            return self._table(RowGroupTable(name=f"scan_{count}", splits=scan.splits))
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

    def _join(self, op: Join) -> exp.Select:
        """``SELECT <outputs> FROM (left) AS _tL <how> JOIN (right) AS _tR ON <keys AND
        condition>``; output columns are named explicitly, unqualified (names are unique
        across the sides, checked here, and a column wins over a table alias in DuckDB)."""
        left_names, right_names = output_columns(op.left), output_columns(op.right)
        # Checked for semi/anti too: the ON clause sees both sides' columns unqualified.
        _unique([*left_names, *right_names], f"{op.how} join")
        if len(op.left_keys) != len(op.right_keys):
            raise CompileError(f"{len(op.left_keys)} left keys but {len(op.right_keys)} right keys")
        if op.null_aware:
            return self._null_aware_anti_join(op, left_names)
        left = self.derived(self.operator(op.left))
        right = self.derived(self.operator(op.right))
        outputs = left_names if op.how in ("semi", "anti") else [*left_names, *right_names]
        query = exp.select(*map(_col, outputs)).from_(left)
        if op.how == "cross":
            if op.left_keys or op.condition is not None:
                raise CompileError("a cross join has no keys and no condition")
            return query.join(exp.Join(this=right, kind="CROSS"))
        # Build the join node directly: sqlglot's `Select.join(..., join_kind=...)` ignores
        # an unknown keyword and would silently produce an inner join.
        side, kind = _JOIN_SHAPES[op.how]
        return query.join(exp.Join(this=right, side=side, kind=kind, on=self._join_on(op)))

    def _join_on(self, op: Join) -> exp.Expression:
        """``left_key_i = right_key_i`` (SQL equality: NULL never matches) AND the residual
        condition; ``TRUE`` when there is neither (every pair of rows matches)."""
        terms = [
            exp.EQ(this=_paren(self.expr(lk)), expression=_paren(self.expr(rk)))
            for lk, rk in zip(op.left_keys, op.right_keys, strict=True)
        ]
        if op.condition is not None:
            terms.append(self.expr(op.condition))
        if not terms:
            return exp.Boolean(this=True)
        on = _paren(terms[0])
        for term in terms[1:]:
            on = exp.And(this=on, expression=_paren(term))
        return on

    def _null_aware_anti_join(self, op: Join, left_names: list[str]) -> exp.Select:
        """``SELECT <left> FROM (left) WHERE NOT (lk IN (SELECT rk FROM (right) [WHERE
        condition]))``: exactly ``NOT IN`` (a NULL among the right keys keeps nothing, a NULL
        left key is kept only when no right row qualifies). DuckDB plans the uncorrelated form
        as a hash MARK join. A residual condition correlates the subquery: a left row is kept
        iff no right row satisfies the condition with a key equal to, or NULL-compared with,
        its key (Spark's rewrite of a correlated ``NOT IN``)."""
        if op.how != "anti" or len(op.left_keys) != 1:
            raise CompileError("only an anti join on one key can be null-aware")
        left = self.derived(self.operator(op.left))
        right = self.derived(self.operator(op.right))
        keys = exp.select(self.expr(op.right_keys[0])).from_(right)
        if op.condition is not None:
            keys = keys.where(self.expr(op.condition))
        member = exp.In(this=_paren(self.expr(op.left_keys[0])), query=keys.subquery())
        return (
            exp.select(*map(_col, left_names))
            .from_(left)
            .where(exp.Not(this=exp.Paren(this=member)))
        )

    def _set_operation(self, op: SetOperation) -> exp.Select:
        """``SELECT * FROM (SELECT * FROM (left) AS _tL <KIND> [ALL] SELECT * FROM (right)
        AS _tR) AS _tS``. Each side is a derived table so that an input's ORDER BY / LIMIT
        stays its own; DuckDB names the result after the left side; plain UNION / INTERSECT /
        EXCEPT are distinct, ``ALL`` keeps multiplicities (sum / min / difference)."""
        width_left, width_right = len(output_columns(op.left)), len(output_columns(op.right))
        if width_left != width_right:
            raise CompileError(
                f"{op.kind}: the left input has {width_left} columns, the right {width_right}"
            )
        left = exp.select(exp.Star()).from_(self.derived(self.operator(op.left)))
        right = exp.select(exp.Star()).from_(self.derived(self.operator(op.right)))
        combined = _SET_OPERATIONS[op.kind](this=left, expression=right, distinct=not op.all)
        return exp.select(exp.Star()).from_(self.derived(combined))

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
        if node.fn == "quantile":
            fraction = _cast(exp.Literal.string(repr(node.fraction)), "DOUBLE")
            return exp.Anonymous(this="quantile_disc", expressions=[arg, fraction])
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
