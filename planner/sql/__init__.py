"""The SQL front end: ``session.sql(text)`` builds the same logical plans as DataFrames.

``normalize`` parses and normalises with sqlglot; ``translate`` turns the result into a
logical plan through the analyzer; ``expressions`` maps sqlglot expressions onto the
planner's allow-listed ones. Workers never see SQL text: they receive the plan.
"""

from __future__ import annotations

from collections.abc import Mapping

from sparkwire.planner.garbage import collection_paused
from sparkwire.planner.logical.analyzer import Relation
from sparkwire.planner.optimizer.estimates import planning
from sparkwire.planner.sql.errors import SqlError
from sparkwire.planner.sql.normalize import normalise
from sparkwire.planner.sql.parameters import Args
from sparkwire.planner.sql.translate import respelled, translate

__all__ = ["SqlError", "sql_relation"]


def sql_relation(text: str, tables: Mapping[str, Relation], args: Args = None) -> Relation:
    """The relation ``text`` computes over ``tables`` (names matched ignoring case), its
    parameter markers bound to ``args``."""
    import pyarrow as pa

    catalog = {name.casefold(): relation for name, relation in tables.items()}
    schema = {
        name: pa.schema([pa.field(a.name, a.type) for a in relation.attrs])
        for name, relation in catalog.items()
    }
    with collection_paused():
        tree, spellings = normalise(text, schema, args)
        with planning():  # the join order asks for the same estimates again and again
            return respelled(translate(tree, catalog), spellings)
