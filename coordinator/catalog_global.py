"""``session.catalog`` with Spark's ``global_temp`` database (``coordinator.global_temp``).

Spark answers for ``global_temp`` in its own way, and this layer over ``Catalog`` answers
the same, each rule checked against PySpark (``tests/spark/test_global_temp_views.py``):

- ``listTables("global_temp")`` (and ``listViews``) lists the global views (namespace
  ``["global_temp"]``) and then the session's own temporary views (no namespace), each group
  by name, the pattern applying to both;
- ``tableExists("v", "global_temp")`` and ``tableExists("global_temp.v")`` ask for a global
  view; so do ``getTable``, ``listColumns``, ``cacheTable``, ``isCached``, ``uncacheTable``,
  ``dropView`` and ``dropTable`` given ``global_temp.v``; ``listColumns("v", "global_temp")``
  looks in ``spark_catalog.global_temp`` and finds nothing, as Spark's does;
- ``dropGlobalTempView`` drops a global view (True) or finds none (False);
  ``dropTempView`` never touches one;
- ``global_temp`` is no database: ``databaseExists`` is False and ``listDatabases`` leaves
  it out (``Catalog`` already answers so); creating it is ``RESERVED_DATABASE_NAME``, and
  making it the current one Spark's refusal (``_LEGACY_ERROR_TEMP_1068``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from sparkwire.coordinator.catalog import CATALOG, Catalog, CatalogSession, Column, Table, matches, not_found
from sparkwire.coordinator.global_temp import (GLOBAL_TEMP, GlobalTempViews, frame_in, global_name,
                                                is_global_database)
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.executor import Executor
from sparkwire.planner.api.quoting import name_parts
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.analyzer import quote

#: Where Spark's catalog (not its SQL) says it looked for a qualified name it did not find.
_CATALOG_SEARCH_PATH = f"[`system`.`session`, `{CATALOG}`.`default`]"


class _SharingSession(CatalogSession, Executor, Protocol):
    """A session as this catalog needs it: its names, the global views it shares, and the
    executor a global view becomes a frame of (``global_temp.frame_in``)."""

    @property
    def global_views(self) -> GlobalTempViews: ...


class GlobalTempCatalog(Catalog):
    """PySpark's ``Catalog``: the session's names and the ``global_temp`` views it shares."""

    def __init__(self, session: _SharingSession) -> None:
        super().__init__(session)
        self._sharing = session

    def createDatabase(self, dbName: str, ifNotExists: bool = False,  # noqa: N802, N803
                       properties: Mapping[str, str] | None = None) -> None:
        if is_global_database(dbName):
            raise AnalysisError(f"cannot create the database {quote(GLOBAL_TEMP)}: the name is reserved",
                                condition="RESERVED_DATABASE_NAME", parameters={"database": quote(GLOBAL_TEMP)})
        super().createDatabase(dbName, ifNotExists, properties)

    def setCurrentDatabase(self, dbName: str) -> None:  # noqa: N802, N803 - PySpark's names
        if is_global_database(dbName):
            raise AnalysisError(
                f"{dbName} is a system preserved database, you cannot use it as current database. "
                f"To access global temporary views, you should use qualified name with the "
                f"GLOBAL_TEMP_DATABASE, e.g. SELECT * FROM {GLOBAL_TEMP}.viewName.",
                condition="_LEGACY_ERROR_TEMP_1068", parameters={"database": dbName})
        super().setCurrentDatabase(dbName)

    def listTables(self, dbName: str | None = None,  # noqa: N802, N803 - PySpark's names
                   pattern: str | None = None) -> list[Table]:
        if is_global_database(dbName):
            return self._global_listing(pattern)
        return super().listTables(dbName, pattern)

    def listViews(self, dbName: str | None = None,  # noqa: N802, N803 - PySpark's names
                  pattern: str | None = None) -> list[Table]:
        if is_global_database(dbName):
            return self._global_listing(pattern)
        return super().listViews(dbName, pattern)

    def tableExists(self, tableName: str, dbName: str | None = None) -> bool:  # noqa: N802, N803
        name = self._global(tableName, dbName)
        if name is None:
            return super().tableExists(tableName, dbName)
        return self._sharing.global_views.get(name) is not None

    def getTable(self, tableName: str) -> Table:  # noqa: N802, N803 - PySpark's names
        name = self._global(tableName, None)
        if name is None:
            return super().getTable(tableName)
        if self._sharing.global_views.get(name) is None:
            raise _not_found(tableName)
        return _global_table(name)

    def listColumns(self, tableName: str, dbName: str | None = None) -> list[Column]:  # noqa: N802, N803
        if is_global_database(dbName):
            raise _not_found(f"{CATALOG}.{dbName}.{tableName}")
        return super().listColumns(tableName, dbName)

    def dropTable(self, tableName: str, ifExists: bool = False, purge: bool = False) -> None:  # noqa: N802, N803
        if self._global(tableName, None) is None:
            super().dropTable(tableName, ifExists, purge)
        else:
            self.dropView(tableName, ifExists)

    def dropView(self, viewName: str, ifExists: bool = False) -> None:  # noqa: N802, N803
        name = self._global(viewName, None)
        if name is None:
            super().dropView(viewName, ifExists)
        elif not self._sharing.global_views.drop(name) and not ifExists:
            # Spark's catalog looks for it as a table of a database ``global_temp``
            raise not_found(f"{CATALOG}.{viewName}", f"[{quote(CATALOG)}.{quote(GLOBAL_TEMP)}]")

    def dropGlobalTempView(self, viewName: str) -> bool:  # noqa: N802, N803 - PySpark's names
        """Whether a global view of that name was dropped, for every session sharing it."""
        return self._sharing.global_views.drop(viewName)

    def _frame(self, table: str) -> DataFrame:
        """A global view by ``global_temp.v`` too (``cacheTable``, ``isCached``, ``listColumns``)."""
        name = self._global(table, None)
        if name is None:
            return super()._frame(table)
        view = self._sharing.global_views.get(name)
        if view is None:
            raise _not_found(table)
        return frame_in(view, self._sharing)

    def _global(self, table: str, database: str | None) -> str | None:
        """The global view's name (folded) when ``table`` (in ``database``) is one of
        ``global_temp``, else None."""
        return global_name([database, table] if database is not None else name_parts(table))

    def _global_listing(self, pattern: str | None) -> list[Table]:
        """What Spark lists in ``global_temp``: its views, then the session's temporary views."""
        shared = [_global_table(n) for n in self._sharing.global_views.names() if matches(n, pattern)]
        return [*shared, *super().listViews(None, pattern)]


def _global_table(name: str) -> Table:
    return Table(name, None, [GLOBAL_TEMP], None, "TEMPORARY", True)



def _not_found(table: str) -> AnalysisError:
    return not_found(table, _CATALOG_SEARCH_PATH)
