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

import functools

from collections.abc import Iterable
from dataclasses import dataclass
from typing import assert_never

from sqlglot import exp

from sparkwire.coordinator.worker.compile.calls import CALLS, MODE_CALLS
from sparkwire.coordinator.worker.compile.calls_collections import AGGREGATE_BUILDERS
from sparkwire.coordinator.worker.compile.expressions import (
    AGGREGATES,
    DIALECT,
    INTEGER_WINDOW_CALLS,
    WINDOW_CALLS,
    CompileError,
    cast,
    col,
    edge_aggregate,
    edge_over_window,
    ident,
    literal,
    paren,
)
from sparkwire.coordinator.worker.compile.casts import Mode, spark_cast
from sparkwire.coordinator.worker.compile.over import over
from sparkwire.coordinator.worker.compile.sources import CachedTable, ExchangeTable, Leaves, LocalTable, TableInput
from sparkwire.coordinator.worker.compile.calls_dates import ZONE_CALLS
from sparkwire.coordinator.worker.compile.zones import instant_literal
from sparkwire.planner.timezones import DEFAULT_TIME_ZONE
from sparkwire.planner.expressions import (
    AggCall,
    Call,
    Case,
    Cast,
    Column,
    Expr,
    Lit,
    NamedExpr,
    SortKey,
    WindowCall,
    WindowItem,
)
from sparkwire.planner.plan import (
    Aggregate,
    CachedSource,
    CsvScan,
    Keep,
    JsonScan,
    ParquetWrite,
    Repartition,
    RowSample,
    Exchange,
    Filter,
    Generate,
    Join,
    Limit,
    LocalSource,
    RangeSource,
    Operator,
    ParquetScan,
    Project,
    Sample,
    SetOperation,
    Sort,
    Window,
    output_columns,
)
from sparkwire.planner.staged import Boundary

__all__ = ["PARTITION_COLUMN", "CompileError", "CompiledFragment", "compile_fragment"]

#: Reservoir samples are repeatable: the same input gives the same range bounds.
_SAMPLE_SEED = 42

#: The column a shuffle stage appends: the output partition of each row, in ``[0, P)``.
PARTITION_COLUMN = "__sparkwire_partition"



@dataclass(frozen=True)
class CompiledFragment:
    """The query of one task and what it needs: the tables to register under the names the
    query uses, and every file it may read (the engine allows exactly those); ``write`` is
    where the task writes its rows instead of streaming them (``worker.writer``)."""

    sql: str
    tables: tuple[TableInput, ...]
    files: tuple[str, ...]
    write: ParquetWrite | None = None


def _select_from(columns: Iterable[exp.Expression], source: exp.Expression) -> exp.Select:
    """``SELECT columns FROM source``. Every builder here runs with ``copy=False``: each node
    is built fresh for one parent, and sqlglot's defensive deep copies were three quarters
    of compile time (about 5 ms a task on TPC-H, paid on every task plan's delivery)."""
    return exp.select(*columns, copy=False).from_(source, copy=False)


def _star_from(source: exp.Expression) -> exp.Select:
    return _select_from([exp.Star()], source)


@functools.lru_cache(maxsize=256)
def compile_fragment(fragment: Operator, output: Boundary, ansi: bool = True,
                     time_zone: str = DEFAULT_TIME_ZONE) -> CompiledFragment:
    """One DuckDB ``SELECT`` computing ``fragment`` and, for a shuffle, each row's partition;
    the fragment is walked once, collecting its tables as its leaves are compiled. ``ansi`` is
    Spark's ANSI mode, which decides how division and casts fail (``semantics``);
    ``time_zone`` the session zone, in which instants read as wall clocks (``zones``).

    Pure (plans are frozen, the result immutable), so the tasks of one stage that read the
    same inputs compile once: TPC-H Q1's final stage has four tasks and 28 KB of SQL."""
    compiler = _Compiler(ansi, time_zone)
    write = fragment if isinstance(fragment, ParquetWrite) else None
    if write is not None and output.kind != "result":
        raise CompileError("a Parquet write is the final stage, read by the coordinator")
    query = compiler.operator(fragment if write is None else write.input)
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
                    this=cast(keys[0], "BIGINT"),
                    expressions=[exp.Literal.number(output.partitions - 1)],
                )],
            )
        else:
            # HASH returns UBIGINT (never negative), so the modulo by an unsigned P lies in
            # [0, P).
            bucket = exp.Mod(
                this=exp.Anonymous(this="hash", expressions=keys),
                expression=cast(exp.Literal.number(output.partitions), "UBIGINT"),
            )
        query = _select_from(
            [exp.Star(), exp.alias_(cast(bucket, "BIGINT"), ident(PARTITION_COLUMN))],
            compiler.derived(query),
        )
    return CompiledFragment(
        sql=query.sql(dialect=DIALECT, identify=True, copy=False),
        tables=tuple(compiler.leaves.tables.values()),
        files=tuple(compiler.leaves.files),
        write=write,
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

class _Compiler:
    """Turns one fragment into a sqlglot tree; owns the derived-table alias counter, and its
    ``leaves`` collect the tables and files the query reads."""

    def __init__(self, ansi: bool, time_zone: str) -> None:
        self.ansi = ansi
        self.time_zone = time_zone
        self._aliases = 0
        self.leaves = Leaves(time_zone)

    def derived(self, query: exp.Query) -> exp.Subquery:
        alias = f"_t{self._aliases}"
        self._aliases += 1
        return query.subquery(ident(alias), copy=False)

    def operator(self, op: Operator) -> exp.Select:
        match op:
            case Exchange():
                _unique(op.columns, f"exchange from stage {op.stage}")
                table = self.leaves.table(ExchangeTable(name=f"exchange_{op.stage}", stage=op.stage))
                return _select_from(map(col, op.columns), table)
            case ParquetScan():
                _unique(op.columns, "parquet scan")
                return _select_from(map(col, op.columns), self.leaves.parquet(op))
            case LocalSource():
                _unique(op.columns, "local source")
                table = self.leaves.table(LocalTable(name=f"local_{op.source_id}", source_id=op.source_id))
                return _select_from(map(col, op.columns), table)
            case RangeSource():
                # DuckDB's range(start, stop, step) is a BIGINT column named "range".
                rows = exp.Anonymous(this="range", expressions=[
                    exp.Literal.number(v) for v in (op.start, op.end, op.step)])
                return _select_from([exp.alias_(col("range"), ident("id"))], exp.Table(this=rows))
            case Filter():
                source = self.derived(self.operator(op.input))
                return _star_from(source).where(self.expr(op.predicate), copy=False)
            case Project():
                _unique((c.name for c in op.columns), "project")
                source = self.derived(self.operator(op.input))
                return _select_from(map(self.named, op.columns), source)
            case Aggregate():
                return self._aggregate(op)
            case Generate():
                return self._generate(op)
            case Sort():
                source = self.derived(self.operator(op.input))
                query = _star_from(source).order_by(*map(self.sort_key, op.keys), copy=False)
                return query if op.limit is None else query.limit(op.limit, copy=False)
            case Limit():
                source = self.derived(self.operator(op.input))
                return _star_from(source).limit(op.n, copy=False)
            case Sample():
                source = self.derived(self.operator(op.input))
                sample = exp.TableSample(
                    method=exp.var("RESERVOIR"), size=exp.Literal.number(op.rows),
                    seed=exp.Literal.number(_SAMPLE_SEED),
                )
                query = _star_from(source)
                query.set("sample", sample)
                return query
            case Join():
                return self._join(op)
            case SetOperation():
                return self._set_operation(op)
            case Window():
                return self._window(op)
            case CsvScan() | JsonScan():
                _unique(op.schema_names, "text scan")
                instants = {n for n, t in zip(op.schema_names, op.schema_types, strict=True)
                            if t == "timestamp"}
                return _select_from([self.leaves.text_column(c, instants) for c in op.columns],
                                    self.leaves.text(op, instants))
            case RowSample():
                return self._row_sample(op)
            case CachedSource():
                _unique(op.columns, "cached source")
                table = self.leaves.table(CachedTable(name=op.cache_id, cache_id=op.cache_id))
                return _select_from(map(col, op.columns), table)
            case Repartition() | ParquetWrite() | Keep():
                raise CompileError(f"{type(op).__name__} cannot run inside a fragment")
            case _:
                assert_never(op)

    def _row_sample(self, op: RowSample) -> exp.Select:
        """Rows whose ``hash(position, seed, row)`` falls below ``fraction`` of the hash
        range: the position is the row's number in the task's input, in input order
        (insertion order is preserved), so the same input keeps the same rows."""
        if op.fraction >= 1.0:
            return _star_from(self.derived(self.operator(op.input)))
        position = "__sparkwire_position"
        numbered = _select_from(
            [exp.Star(), exp.alias_(exp.Window(this=exp.RowNumber()), ident(position))],
            self.derived(self.operator(op.input)),
        )
        names = output_columns(op.input)
        hashed = exp.Anonymous(this="hash", expressions=[
            col(position), exp.Literal.number(op.seed), *map(col, names)])
        threshold = cast(exp.Literal.number(int(op.fraction * 2**64)), "UBIGINT")
        return _select_from(map(col, names), self.derived(numbered)).where(
            exp.LT(this=hashed, expression=threshold), copy=False)

    def _aggregate(self, op: Aggregate) -> exp.Select:
        source = self.derived(self.operator(op.input))
        _unique((c.name for c in (*op.keys, *op.aggregates)), "aggregate")
        outputs = [*map(self.named, op.keys), *map(self.named, op.aggregates)]
        if not outputs:
            raise CompileError("an aggregate with neither keys nor aggregates")
        query = _select_from(outputs, source)
        if op.keys:
            # Group by output position: keys come first, and positions cannot be captured by
            # an output alias that happens to share a name with an input column.
            positions = [exp.Literal.number(i + 1) for i in range(len(op.keys))]
            query = query.group_by(*positions, copy=False)
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
        query = _select_from(map(col, outputs), left)
        if op.how == "cross":
            if op.left_keys or op.condition is not None:
                raise CompileError("a cross join has no keys and no condition")
            return query.join(exp.Join(this=right, kind="CROSS"), copy=False)
        # Build the join node directly: sqlglot's `Select.join(..., join_kind=...)` ignores
        # an unknown keyword and would silently produce an inner join.
        side, kind = _JOIN_SHAPES[op.how]
        join = exp.Join(this=right, side=side, kind=kind, on=self._join_on(op))
        return query.join(join, copy=False)

    def _join_on(self, op: Join) -> exp.Expression:
        """``left_key_i = right_key_i`` (SQL equality: NULL never matches) AND the residual
        condition; ``TRUE`` when there is neither (every pair of rows matches)."""
        terms = [
            exp.EQ(this=paren(self.expr(lk)), expression=paren(self.expr(rk)))
            for lk, rk in zip(op.left_keys, op.right_keys, strict=True)
        ]
        if op.condition is not None:
            terms.append(self.expr(op.condition))
        if not terms:
            return exp.Boolean(this=True)
        on = paren(terms[0])
        for term in terms[1:]:
            on = exp.And(this=on, expression=paren(term))
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
        keys = _select_from([self.expr(op.right_keys[0])], right)
        if op.condition is not None:
            keys = keys.where(self.expr(op.condition), copy=False)
        member = exp.In(this=paren(self.expr(op.left_keys[0])), query=keys.subquery(copy=False))
        return (
            _select_from(map(col, left_names), left)
            .where(exp.Not(this=exp.Paren(this=member)), copy=False)
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
        left = _star_from(self.derived(self.operator(op.left)))
        right = _star_from(self.derived(self.operator(op.right)))
        combined = _SET_OPERATIONS[op.kind](this=left, expression=right, distinct=not op.all)
        return _star_from(self.derived(combined))

    def _window(self, op: Window) -> exp.Select:
        """``SELECT *, f OVER (PARTITION BY ... ORDER BY ... frame) AS name, ... FROM
        (input)``: every input row and column, one column per window item."""
        inputs = output_columns(op.input)
        _unique([*inputs, *(f.name for f in op.functions)], "window")
        source = self.derived(self.operator(op.input))
        items = [exp.alias_(self._over(op, f), ident(f.name)) for f in op.functions]
        return _select_from([*map(col, inputs), *items], source)

    def _over(self, op: Window, item: WindowItem) -> exp.Expression:
        """The item's function over its window (``over.over``)."""
        function = item.function
        call: exp.Expression
        if isinstance(function, WindowCall):
            args = [self.expr(a) for a in (function.arg, function.default) if a is not None]
            call = WINDOW_CALLS[function.fn](args, function.offset)
        elif function.fn in ("first", "last"):
            assert function.arg is not None
            call = edge_over_window(function.fn, self.expr(function.arg), function.ignore_nulls)
        else:
            call = self._agg(function)
        integer = isinstance(function, WindowCall) and function.fn in INTEGER_WINDOW_CALLS
        return over(call, [self.expr(k) for k in op.partition_by],
                    [self.sort_key(k) for k in op.order_by], item.frame, integer)

    def named(self, named: NamedExpr) -> exp.Expression:
        return exp.alias_(self.expr(named.expr), ident(named.name))

    def sort_key(self, key: SortKey) -> exp.Ordered:
        return exp.Ordered(
            this=self.expr(key.expr), desc=not key.ascending, nulls_first=key.nulls_first
        )

    def expr(self, node: Expr) -> exp.Expression:
        if isinstance(node, Column):
            return col(node.name)
        if isinstance(node, Lit):
            if node.type == "timestamp" and isinstance(node.value, str):
                return instant_literal(node.value, self.time_zone)
            return literal(node)
        if isinstance(node, Call):
            args = [self.expr(arg) for arg in node.args]
            if node.fn in MODE_CALLS:
                return MODE_CALLS[node.fn](args, self.ansi)
            if node.fn in ZONE_CALLS:
                return ZONE_CALLS[node.fn](args, self.time_zone)
            return CALLS[node.fn](args)
        if isinstance(node, AggCall):
            return self._agg(node)
        if isinstance(node, Case):
            ifs = [exp.If(this=self.expr(c), true=self.expr(v)) for c, v in node.branches]
            default = exp.Null() if node.otherwise is None else self.expr(node.otherwise)
            return exp.Case(ifs=ifs, default=default)
        if isinstance(node, WindowCall):
            raise CompileError(f"window function {node.fn} outside a Window operator")
        if isinstance(node, Cast):
            # Caveat: DuckDB's VARCHAR -> BLOB cast reads `\xNN` escapes and refuses
            # non-ASCII text, unlike Spark's UTF-8 encoding; it stays a plain cast.
            mode: Mode = "try" if node.safe else "ansi" if self.ansi else "legacy"
            return spark_cast(self.expr(node.expr), node.source, node.to, mode, self.time_zone)
        raise CompileError(f"unsupported expression {type(node).__name__}")

    def _agg(self, node: AggCall) -> exp.Expression:
        if node.arg is None:
            if node.fn != "count":
                raise CompileError(f"{node.fn} needs an argument; only count takes none")
            return exp.Count(this=exp.Star())
        arg = self.expr(node.arg)
        if node.fn == "count_distinct":
            return exp.Count(this=exp.Distinct(expressions=[arg]))
        if node.fn in ("quantile", "percentile_approx"):
            fractions = [node.fraction] if node.fractions is None else list(node.fractions)
            doubles = [cast(exp.Literal.string(repr(f)), "DOUBLE") for f in fractions]
            wanted = doubles[0] if node.fractions is None else exp.Array(expressions=doubles)
            return exp.Anonymous(this="quantile_disc", expressions=[arg, wanted])
        if node.fn in ("first", "last"):
            return edge_aggregate(node.fn, arg, node.ignore_nulls)
        if node.fn in AGGREGATE_BUILDERS:
            return AGGREGATE_BUILDERS[node.fn](arg)
        return AGGREGATES[node.fn](this=arg)

    def _generate(self, op: Generate) -> exp.Select:
        """``SELECT <input columns>, unnest(...) AS <names> FROM (input)``: DuckDB zips
        the unnests of one SELECT, so a position, a key and a value come from parallel
        lists of one length. ``outer`` replaces a NULL or empty collection by ``[NULL]``,
        which yields the one row of NULLs Spark's ``explode_outer`` gives; positions are
        0-based ``INTEGER``s, as Spark's ``pos``."""
        columns = output_columns(op.input)
        _unique([*columns, *op.names], "generate")
        source = self.derived(self.operator(op.input))
        collection = self.expr(op.expr)
        count = cast(exp.Anonymous(this="cardinality", expressions=[collection.copy()]), "BIGINT")
        lists: list[exp.Expression] = []
        if op.position:
            lists.append(exp.Anonymous(this="range", expressions=[count.copy()]))
        if op.kind == "map":
            lists += [exp.Anonymous(this=f, expressions=[collection.copy()]) for f in ("map_keys", "map_values")]
        else:
            lists.append(collection)
        if op.outer:
            filled = exp.GT(this=count, expression=exp.Literal.number(0))
            lists = [exp.Case(ifs=[exp.If(this=filled.copy(), true=values)],
                              default=exp.Array(expressions=[exp.Null()])) for values in lists]
        generated = [exp.Anonymous(this="unnest", expressions=[values]) for values in lists]
        if op.position:
            generated[0] = cast(generated[0], "INTEGER")
        outputs = [*map(col, columns),
                   *(exp.alias_(g, ident(n)) for g, n in zip(generated, op.names, strict=True))]
        return _select_from(outputs, source)


