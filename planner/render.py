"""Expressions as text, in two voices.

``sql`` is for people reading plans (``explain``): identifiers quoted when they are not
plain, strings in single quotes, ``count(*)``. ``output_name`` is the column name PySpark
would give an unaliased expression (``sum(x)``, ``count(1)``, ``count(DISTINCT x)``), so
code ported from PySpark finds its columns under the same names; it is then made a valid
identifier, since a string literal may carry characters identifiers refuse.
"""

from __future__ import annotations

import re

from sparkwire.planner.expressions import (
    MAX_IDENTIFIER_LENGTH,
    AggCall,
    Call,
    Case,
    Cast,
    Column,
    Expr,
    Lit,
    NamedExpr,
    Ref,
    SortKey,
)

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_UNSAFE = re.compile(r'["`\x00-\x1f\x7f]')
_INFIX = {
    "add": "+", "sub": "-", "mul": "*", "div": "/", "decimal_div": "/", "mod": "%",
    "eq": "=", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
    "and": "AND", "or": "OR",
}
_FUNCTION_NAMES = {"day": "dayofmonth"}


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


def sort_key(key: SortKey) -> str:
    order = "ASC" if key.ascending else "DESC"
    nulls = "FIRST" if key.nulls_first else "LAST"
    return f"{sql(key.expr)} {order} NULLS {nulls}"


def _render(expr: Expr, naming: bool) -> str:
    def r(e: Expr) -> str:
        return _render(e, naming)

    if isinstance(expr, Column | Ref):
        return expr.name if naming else identifier(expr.name)
    if isinstance(expr, Lit):
        return _literal(expr, naming)
    if isinstance(expr, Call):
        args = [r(a) for a in expr.args]
        if expr.fn == "ne" and naming:
            return f"(NOT ({args[0]} = {args[1]}))"
        if expr.fn in _INFIX:
            return "(" + f" {_INFIX[expr.fn]} ".join(args) + ")"
        if expr.fn == "neg":
            return f"(- {args[0]})"
        if expr.fn == "not":
            return f"(NOT {args[0]})"
        if expr.fn == "is_null":
            return f"({args[0]} IS NULL)"
        if expr.fn == "is_not_null":
            return f"({args[0]} IS NOT NULL)"
        if expr.fn == "in":
            return f"({args[0]} IN ({', '.join(args[1:])}))"
        if expr.fn == "like":
            return f"({args[0]} LIKE {args[1]})"
        if expr.fn == "between":
            return f"({args[0]} BETWEEN {args[1]} AND {args[2]})"
        return f"{_FUNCTION_NAMES.get(expr.fn, expr.fn)}({', '.join(args)})"
    if isinstance(expr, AggCall):
        if expr.arg is None:
            return "count(1)" if naming else "count(*)"
        if expr.fn == "count_distinct":
            return f"count(DISTINCT {r(expr.arg)})"
        if expr.fn == "quantile":
            return f"quantile({r(expr.arg)}, {expr.fraction:g})"
        return f"{expr.fn}({r(expr.arg)})"
    if isinstance(expr, Case):
        parts = [f"WHEN {r(c)} THEN {r(v)}" for c, v in expr.branches]
        if expr.otherwise is not None:
            parts.append(f"ELSE {r(expr.otherwise)}")
        return f"CASE {' '.join(parts)} END"
    assert isinstance(expr, Cast)
    if naming:  # PySpark names a cast column after what is cast
        return r(expr.expr)
    return f"{'TRY_CAST' if expr.safe else 'CAST'}({r(expr.expr)} AS {expr.to})"


def _literal(lit: Lit, naming: bool) -> str:
    value = lit.value
    if value is None:
        text = "NULL"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str) and not naming:
        text = "'" + value.replace("'", "''") + "'"
    else:
        text = str(value)
    if lit.type in ("date", "timestamp"):
        return f"{lit.type.upper()} '{value}'"
    if lit.type is None or naming:
        return text
    return f"CAST({text} AS {lit.type})"
