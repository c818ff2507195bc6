"""One fragment's compilation: its expressions (ANSI mode, zone), its derived-table aliases
and its leaves, handed to every operator's compiler.

Every operator wraps its input as a derived table with a generated alias (``_t0``, ``_t1``
...). That is deliberately naive: DuckDB's optimizer flattens the nesting, and one rule per
operator is easy to check. An operator's compiler asks the context for its input
(``input``), which compiles that operator through the dispatch the context was given
(``operators``), so the families never import one another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from sqlglot import exp

from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.expressions import Expressions
from sparkwire.coordinator.worker.compile.nodes import ident, star_from
from sparkwire.coordinator.worker.compile.sources import Leaves
from sparkwire.planner.logical.plan import Operator

__all__ = ["Context", "OperatorCompiler", "unique_names"]

#: Compiles one operator (and, through the context, its inputs) to a ``SELECT``.
OperatorCompiler = Callable[["Context", Operator], exp.Select]


class Context(Expressions):
    """Owns the derived-table alias counter; its ``leaves`` collect the tables and files the
    query reads."""

    def __init__(self, ansi: bool, time_zone: str, compile_operator: OperatorCompiler,
                 shared: dict[int, int] | None = None, task: int = 0) -> None:
        super().__init__(ansi, time_zone, task)
        self._aliases = 0
        self._compile_operator = compile_operator
        self.leaves = Leaves(time_zone)
        #: The nodes (by ``id``) of subtrees to compile once, each its class of equal ones
        #: (``shared``), and each class's CTE once compiled.
        self._shared = shared or {}
        self._cte_names: dict[int, str] = {}
        #: The compiled shared subtrees, each after those it reads.
        self.ctes: list[tuple[str, exp.Select]] = []

    def derived(self, query: exp.Query) -> exp.Subquery:
        alias = f"_t{self._aliases}"
        self._aliases += 1
        return query.subquery(ident(alias), copy=False)

    def operator(self, op: Operator) -> exp.Select:
        return self._compile_operator(self, op)

    def input(self, op: Operator) -> exp.Subquery:
        """``op`` compiled as a derived table: what an operator reads from; a shared subtree
        compiles once, as a CTE (``shared``), and each reference reads it."""
        shared = self._shared.get(id(op))
        if shared is None:
            return self.derived(self.operator(op))
        name = self._cte_names.get(shared)
        if name is None:
            query = self.operator(op)
            name = self._cte_names[shared] = f"_c{len(self.ctes)}"
            self.ctes.append((name, query))
        return self.derived(star_from(exp.to_table(name)))

    def with_ctes(self, query: exp.Select) -> exp.Select:
        """``query`` with the shared subtrees it reads as ``MATERIALIZED`` CTEs."""
        if self.ctes:
            query.set("with_", exp.With(expressions=[
                exp.CTE(this=cte, alias=exp.TableAlias(this=ident(name)), materialized=True)
                for name, cte in self.ctes
            ]))
        return query


def unique_names(names: Iterable[str], where: str) -> None:
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
