"""What a SELECT is translated within: the catalog, the CTEs in scope, and the translator's
own entry points, passed down so the subquery decorrelation (``planner.sql.subqueries``)
can translate a nested query without importing the module that calls it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sqlglot import exp

from sparkwire.planner.logical.analyzer import Relation
from sparkwire.planner.sql.errors import SqlError, unknown_table
from sparkwire.planner.sql.expressions import unsupported

Catalog = Mapping[str, Relation]


@dataclass(frozen=True)
class Context:
    catalog: Catalog
    ctes: Mapping[str, Relation]
    #: a whole query (SELECT, set operation, subquery) to a relation
    query: Callable[[exp.Expr, Context], Relation]
    #: a SELECT's FROM, joins and WHERE as one relation, and its correlated conditions
    source: Callable[[exp.Select, Context], tuple[Relation, list[exp.Expr]]]

    def table(self, node: exp.Table) -> Relation:
        name = node.name.casefold()
        if node.args.get("db") is not None:
            raise unsupported(node, "a table with a schema or catalog name")
        found = self.ctes.get(name) or self.catalog.get(name)
        if found is None:
            known = ", ".join(sorted({*self.ctes, *self.catalog})) or "(none)"
            raise unknown_table(node, known)
        return found

    def with_ctes(self, ctes: Mapping[str, Relation]) -> Context:
        return Context(self.catalog, ctes, self.query, self.source)
