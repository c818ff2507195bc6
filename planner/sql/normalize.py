"""Parsing and normalising SQL text with sqlglot, before translation.

One statement, parsed in sqlglot's Spark dialect, so the text means what it means to
``spark.sql``: ``arr[0]`` is 0-based, ``"x"`` is a string, ``first(x, true)`` skips NULLs,
an ``ORDER BY`` key that does not say sorts NULLs first ascending and last descending; then
sqlglot's optimizer with its own rule order minus ``unnest_subqueries`` and
``optimize_joins`` (the translator decorrelates subqueries and orders joins itself, see
``planner.sql.translate``; ``optimize_joins`` fails with a cycle on TPC-H Q2's correlated
subquery) and ``pushdown_predicates`` (the plan's own ``push_filters`` places every
condition, also those of a join's ``ON``; sqlglot's pass was 40% of planning a TPC-H
query) and ``annotate_types``/``canonicalize`` (their casts are Spark's coercions, which
the analyzer applies), and ``normalize``, which rewrites every condition into conjunctive
normal form for conjunctions the plan's rules find themselves (``push_filters`` splits an
``OR``'s common terms into keys and side filters): without it planning the 99 TPC-DS queries
takes 2.78 instead of 3.07 s of CPU (Q88 76 instead of 123 ms), and an ``OR`` of ``AND``s
stays as written, which ``planner.optimizer.selectivity`` estimates. What that gives the
translator: every column qualified by its table alias and every output named (``qualify``),
constant expressions and date arithmetic folded (``simplify``).
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Mapping

import pyarrow as pa
import sqlglot
from sqlglot import exp
from sqlglot.errors import OptimizeError, ParseError
from sqlglot.optimizer import optimize
from sqlglot.schema import MappingSchema
from sqlglot.optimizer.normalize import normalize
from sqlglot.optimizer.optimize_joins import optimize_joins
from sqlglot.optimizer.pushdown_predicates import pushdown_predicates
from sqlglot.optimizer.optimizer import RULES
from sqlglot.optimizer.unnest_subqueries import unnest_subqueries
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.canonicalize import canonicalize

from sparkwire.planner.logical.analyzer import unresolved_column
from sparkwire.planner.sql.errors import SqlError, syntax_error, unknown_table
from sparkwire.planner.sql.generators import check_laterals
from sparkwire.planner.sql.global_views import unqualify_globals
from sparkwire.planner.sql.naming import name_outputs
from sparkwire.planner.sql.parameters import Args, bind
from sparkwire.planner.logical.types import spark_type_name


DIALECT = "spark"


def _read_once(rule: Callable[..., exp.Expr]) -> Callable[..., exp.Expr]:
    """``rule`` behind a Python function whose parameters ``inspect`` reads from a signature
    made once: ``optimize`` reads every rule's parameters with ``inspect.getfullargspec`` on
    every call, which for a compiled function (sqlglot's ``c`` build) parses its text
    signature, 0.1-0.2 ms a rule (0.45 ms of every query's planning), and for a Python one
    builds its signature from the code (0.3 ms a query)."""

    def call(expression: exp.Expr, **kwargs: object) -> exp.Expr:
        return rule(expression, **kwargs)

    call.__signature__ = inspect.signature(rule)  # type: ignore[attr-defined]
    call.__name__ = rule.__name__
    return call


#: sqlglot's rules this front end runs (see above): type annotation and canonicalisation
#: were a fifth of SQL planning (TPC-H: 29 -> 22 ms a query).
NORMALISE = tuple(_read_once(rule) for rule in RULES
                  if rule not in (normalize, unnest_subqueries, optimize_joins, pushdown_predicates,
                                  annotate_types, canonicalize))
MAX_SQL_CHARS = 1_000_000
#: sqlglot's message for a name no table in scope has.
_UNRESOLVED = re.compile(r"Column '(.+)' could not be resolved")


def normalise(text: str, schema: Mapping[str, pa.Schema],
              args: Args = None) -> tuple[exp.Expr, tuple[str | None, ...]]:
    """The optimised sqlglot tree of one query over tables with the given schemas, its
    parameter markers bound to ``args`` (``planner.sql.parameters``), and the spelling of
    each output alias the query wrote (``output_spellings``)."""
    if len(text) > MAX_SQL_CHARS:
        raise SqlError(f"SQL text of {len(text)} characters exceeds {MAX_SQL_CHARS}")
    try:
        statements = [s for s in sqlglot.parse(text, read=DIALECT) if s is not None]
    except ParseError as exc:
        first = exc.errors[0] if exc.errors else {}
        where = f" at line {first.get('line')}, column {first.get('col')}" if first else ""
        raise syntax_error(f"cannot parse SQL{where}: {first.get('description', exc)}", first) from None
    if len(statements) != 1:
        raise SqlError(f"expected one SQL statement, got {len(statements)}")
    statement = statements[0]
    if not isinstance(statement, exp.Query):
        raise SqlError(f"only queries are supported, not {statement.key.upper()}")
    statement = bind(statement, args)
    unqualify_globals(statement)
    _check_tables(statement, schema)
    check_laterals(statement)
    name_outputs(statement, schema)
    spellings = output_spellings(statement)
    tables = tuple(
        (name, tuple((field.name, spark_type_name(field.type)) for field in fields))
        for name, fields in schema.items()
    )
    try:
        return optimize(statement, schema=_schema(tables), dialect=DIALECT, rules=NORMALISE, copy=False), spellings
    except OptimizeError as exc:
        if found := _UNRESOLVED.match(str(exc)):
            columns = [c for name, fields in tables for c, _ in fields
                       if any(t.name.casefold() == name for t in statement.find_all(exp.Table))]
            error = unresolved_column(found[1], columns)
            raise SqlError(f"cannot analyse SQL: {exc}", condition=error.condition,
                           parameters=error.getMessageParameters()) from None
        raise SqlError(f"cannot analyse SQL: {exc}") from None


def output_spellings(statement: exp.Expr) -> tuple[str | None, ...]:
    """Each output alias of the query as written (``a AS MyName``: ``MyName``), None for an
    item without one: sqlglot folds unquoted names to lower case, Spark keeps an alias's
    spelling. A set operation is named by its first query, as in Spark."""
    first = statement
    while isinstance(first, exp.SetOperation):
        first = first.this
    if not isinstance(first, exp.Select):
        return ()
    return tuple(item.alias if isinstance(item, exp.Alias) else None for item in first.expressions)


@functools.lru_cache(maxsize=64)
def _schema(tables: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]) -> MappingSchema:
    """sqlglot's schema of the views, built once per set of views: building it parses every
    column's type name, a third of planning a one-table query. The optimizer only reads it."""
    return MappingSchema({name: dict(columns) for name, columns in tables}, dialect=DIALECT)


def _check_tables(statement: exp.Expr, schema: Mapping[str, pa.Schema]) -> None:
    """Every table the query reads is a view or one of its own CTEs."""
    ctes = {cte.alias.casefold() for cte in statement.find_all(exp.CTE)}
    for table in statement.find_all(exp.Table):
        name = table.name.casefold()
        if name not in schema and name not in ctes:
            known = ", ".join(sorted(schema)) or "(none; use df.createOrReplaceTempView)"
            raise unknown_table(table, known)
