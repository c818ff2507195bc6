"""A quotient's operands computed once: an operand that is itself a quotient becomes a column
of a projection under the one that divides by it.

Spark's division compiles to SQL that names each operand several times (the check for a
zero divisor, the rounding of an exact decimal quotient: ``division``), so a quotient whose
operand is another quotient repeats that operand's SQL at each level, and the text grows
as a power of the depth. TPC-DS q58's ``x / ((x + y + z) / 3) * 100`` made 37 KB of SQL for
one small stage, and DuckDB binds every task's SQL afresh: binding took 116 ms of that
task's 160. Read by name from the projection below, each operand is written once.

Only where evaluating the operand for every row changes nothing: the path from the column's
root to the quotient passes through arithmetic and casts alone (``STRICT``), which evaluate
all their arguments; under a ``CASE``, ``coalesce`` or ``AND`` an operand may be guarded
(``CASE WHEN y <> 0 THEN x / (y / z) END``), and computing it below would raise an error
the query never reaches.
"""

from __future__ import annotations

from collections.abc import Callable

from sparkwire.planner.logical.expressions import Call, Cast, Column, Expr, NamedExpr
from sparkwire.planner.logical.plan import Project, output_columns
from sparkwire.planner.logical.tree import walk

__all__ = ["hoist_operands"]

#: Calls whose SQL repeats their operands (``division``).
REPEATING = frozenset({"div", "decimal_div", "mod", "pmod"})
#: Calls that evaluate every argument for every row: a path of them reaches every row.
STRICT = REPEATING | frozenset({"add", "sub", "mul", "neg"})


def hoist_operands(op: Project) -> Project:
    """``op``, reading from a projection under it that computes each operand of a quotient
    that holds another quotient (``op`` itself where none does). The projection under it
    is compiled the same way, so nesting of any depth is written once per level."""
    taken = {name.casefold() for name in output_columns(op.input)}
    hoisted: list[NamedExpr] = []

    def name_for(operand: Expr) -> Column:
        for named in hoisted:
            if named.expr == operand:
                return Column(name=named.name)
        index = len(hoisted)
        while f"_operand{index}" in taken:
            index += 1
        taken.add(f"_operand{index}")
        hoisted.append(NamedExpr(name=f"_operand{index}", expr=operand))
        return Column(name=hoisted[-1].name)

    def visit(node: Expr) -> Expr:
        if isinstance(node, Cast):
            return node.model_copy(update={"expr": visit(node.expr)})
        if not isinstance(node, Call) or node.fn not in STRICT:
            return node
        args = tuple(_hoisted_operand(arg, name_for) if node.fn in REPEATING else visit(arg)
                     for arg in node.args)
        return node.model_copy(update={"args": args})

    columns = tuple(c.model_copy(update={"expr": visit(c.expr)}) for c in op.columns)
    if not hoisted:
        return op
    passed = tuple(NamedExpr(name=name, expr=Column(name=name)) for name in output_columns(op.input))
    below = Project(input=op.input, columns=passed + tuple(hoisted))
    return Project(input=below, columns=columns)


def _hoisted_operand(arg: Expr, name_for: Callable[[Expr], Column]) -> Expr:
    """``arg`` with its core (under the planner's casts, which the division reads for the
    operand's type) read from below, where the core holds another quotient."""
    if isinstance(arg, Cast):
        return arg.model_copy(update={"expr": _hoisted_operand(arg.expr, name_for)})
    if any(isinstance(n, Call) and n.fn in REPEATING for n in walk(arg)):
        return name_for(arg)
    return arg
